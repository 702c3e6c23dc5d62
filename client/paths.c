/* paths.c: the default socket path. profd listens on the same path by the
 * same rule, so a user who sets nothing reaches their own daemon; a socket
 * set in profd's config file is found too. */
#include <sys/stat.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
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
		return xstrdup("/run/profd/profd.sock");
	if (xdg_runtime_dir != NULL && xdg_runtime_dir[0] == '/') {
		xasprintf(&path, "%s/profd/profd.sock", xdg_runtime_dir);
		return path;
	}
	xasprintf(&dir, "/run/user/%lu", (unsigned long)uid);
	if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
		xasprintf(&path, "%s/profd/profd.sock", dir);
	else
		xasprintf(&path, "/tmp/profd-%lu/profd.sock",
		    (unsigned long)uid);
	free(dir);
	return path;
}

char *
paths_default_socket(void)
{
	return paths_socket_for(getuid(), getenv("XDG_RUNTIME_DIR"));
}

static char *
paths_trim(char *s)
{
	char	*e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* The "socket = PATH" setting of profd's config file, outside [scope]
 * sections; NULL if the file or the setting is missing. */
char *
paths_config_socket(const char *conf)
{
	FILE	*f;
	char	*line = NULL, *p, *eq, *v, *found = NULL;
	size_t	 cap = 0, n;
	int	 global = 1;

	if (conf == NULL || (f = fopen(conf, "r")) == NULL)
		return NULL;
	while (getline(&line, &cap, f) != -1) {
		p = paths_trim(line);
		if (*p == '[') {
			global = strncmp(p, "[profd]", 7) == 0;
			continue;
		}
		if (!global || (eq = strchr(p, '=')) == NULL)
			continue;
		*eq = '\0';
		if (strcmp(paths_trim(p), "socket") != 0)
			continue;
		v = paths_trim(eq + 1);
		n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = '\0';
			v++;
		}
		free(found);
		found = *v != '\0' && strcmp(v, "none") != 0 ? xstrdup(v) :
		    NULL;
	}
	free(line);
	fclose(f);
	return found;
}

/* $XDG_CONFIG_HOME/profd/profd.conf, else ~/.config/profd/profd.conf. */
static char *
paths_user_config(void)
{
	const char	*d;
	char		*path;

	if ((d = getenv("XDG_CONFIG_HOME")) != NULL && d[0] == '/')
		xasprintf(&path, "%s/profd/profd.conf", d);
	else if ((d = getenv("HOME")) != NULL && d[0] == '/')
		xasprintf(&path, "%s/.config/profd/profd.conf", d);
	else
		return NULL;
	return path;
}

static int
paths_is_socket(const char *path)
{
	struct stat	 sb;

	return stat(path, &sb) == 0 && S_ISSOCK(sb.st_mode);
}

/*
 * The socket to use: the option if given, else $PROFD_SOCKET, else the one
 * the user's profd would listen on (its config file's "socket", else the
 * default), else the system profd's (/etc/profd/profd.conf's "socket",
 * else /run/profd/profd.sock) when that one exists and the user's does not.
 */
char *
paths_socket(const char *option)
{
	const char	*env;
	char		*conf, *user = NULL, *sys;

	if (option != NULL && *option != '\0')
		return xstrdup(option);
	if ((env = getenv("PROFD_SOCKET")) != NULL && *env != '\0')
		return xstrdup(env);
	if (getuid() != 0) {
		conf = paths_user_config();
		user = paths_config_socket(conf);
		free(conf);
		if (user == NULL)
			user = paths_default_socket();
		if (paths_is_socket(user))
			return user;
	}
	if ((sys = paths_config_socket(PATHS_SYSTEM_CONFIG)) == NULL)
		sys = xstrdup("/run/profd/profd.sock");
	if (user == NULL || paths_is_socket(sys)) {
		free(user);
		return sys;
	}
	free(sys);
	return user;
}
