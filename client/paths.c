/* paths.c: the default socket path. profd listens on the same path by the
 * same rule, so a user who sets nothing reaches their own daemon. */
#include <sys/stat.h>

#include <stdlib.h>
#include <unistd.h>

#include "profctl.h"

/*
 * root: /run/profd/profd.sock; others: $XDG_RUNTIME_DIR/profd/profd.sock,
 * else /run/user/<uid>/profd/profd.sock if /run/user/<uid> exists, else
 * /tmp/profd-<uid>/profd.sock. An empty or relative XDG_RUNTIME_DIR is
 * ignored, as the XDG base directory specification asks.
 */
char *
paths_socket_for(uid_t uid, const char *xdg_runtime_dir)
{
	struct stat	 sb;
	char		*path, *dir;

	if (uid == 0)
		return (xstrdup("/run/profd/profd.sock"));
	if (xdg_runtime_dir != NULL && xdg_runtime_dir[0] == '/') {
		xasprintf(&path, "%s/profd/profd.sock", xdg_runtime_dir);
		return (path);
	}
	xasprintf(&dir, "/run/user/%lu", (unsigned long)uid);
	if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		xasprintf(&path, "%s/profd/profd.sock", dir);
	else
		xasprintf(&path, "/tmp/profd-%lu/profd.sock",
		    (unsigned long)uid);
	free(dir);
	return (path);
}

char *
paths_default_socket(void)
{
	return (paths_socket_for(getuid(), getenv("XDG_RUNTIME_DIR")));
}

/* The socket to use: the option if given, else $PROFD_SOCKET, else the
 * default. */
char *
paths_socket(const char *option)
{
	const char	*env;

	if (option != NULL && *option != '\0')
		return (xstrdup(option));
	if ((env = getenv("PROFD_SOCKET")) != NULL && *env != '\0')
		return (xstrdup(env));
	return (paths_default_socket());
}
