/* test_client_paths.c: the default socket rule profctl shares with profd. */

/* The checks are asserts: keep them in release builds. */
#undef NDEBUG

#include <sys/stat.h>

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profctl.h"

static void
expect(char *got, const char *want)
{
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "FAIL want %s, got %s\n", want, got);
		exit(1);
	}
	free(got);
}

int
main(void)
{
	struct stat	 sb;
	char		 want[128];
	uid_t		 uid = 4000000001u;	/* no /run/user/ for it */

	/* root: the system socket, whatever XDG_RUNTIME_DIR says */
	expect(paths_socket_for(0, NULL), "/run/profd/profd.sock");
	expect(paths_socket_for(0, "/run/user/0"), "/run/profd/profd.sock");

	/* users: $XDG_RUNTIME_DIR first */
	expect(paths_socket_for(1000, "/run/user/1000"),
	    "/run/user/1000/profd/profd.sock");
	expect(paths_socket_for(uid, "/somewhere/else"),
	    "/somewhere/else/profd/profd.sock");

	/* unset, empty or relative: /run/user/<uid> if there, else /tmp */
	assert(stat("/run/user/4000000001", &sb) != 0);
	expect(paths_socket_for(uid, NULL), "/tmp/profd-4000000001/profd.sock");
	expect(paths_socket_for(uid, ""), "/tmp/profd-4000000001/profd.sock");
	expect(paths_socket_for(uid, "run/x"),
	    "/tmp/profd-4000000001/profd.sock");
	if (stat("/run/user/1000", &sb) == 0 && S_ISDIR(sb.st_mode))
		expect(paths_socket_for(1000, NULL),
		    "/run/user/1000/profd/profd.sock");
	else
		expect(paths_socket_for(1000, NULL),
		    "/tmp/profd-1000/profd.sock");

	/* --socket, then $PROFD_SOCKET, then the default */
	setenv("PROFD_SOCKET", "/env/profd.sock", 1);
	expect(paths_socket("/opt/profd.sock"), "/opt/profd.sock");
	expect(paths_socket(NULL), "/env/profd.sock");
	setenv("PROFD_SOCKET", "", 1);
	unsetenv("XDG_RUNTIME_DIR");
	if (getuid() == 0)
		snprintf(want, sizeof want, "/run/profd/profd.sock");
	else {
		free(paths_default_socket());
		setenv("XDG_RUNTIME_DIR", "/xdg", 1);
		snprintf(want, sizeof want, "/xdg/profd/profd.sock");
	}
	expect(paths_socket(NULL), want);
	unsetenv("PROFD_SOCKET");
	expect(paths_socket(NULL), want);

	/* profd's config file: "socket" outside [scope] sections, quoted
	 * or not, the last one wins, "none" is no setting */
	{
		char	 conf[] = "/tmp/profctl-paths-XXXXXX";
		int	 fd = mkstemp(conf);
		FILE	*f = fdopen(fd, "w");

		assert(fd != -1 && f != NULL);
		fputs("# socket = /commented\n[profd]\n  socket = /a.sock\n"
		    "[scope svc-a]\nsocket = /scoped.sock\n[profd]\n"
		    "max-age = 7d\nsocket=\"/b c.sock\"\n", f);
		fclose(f);
		expect(paths_config_socket(conf), "/b c.sock");
		f = fopen(conf, "w");
		fputs("socket = /c.sock\n[scope x]\nsocket = /d.sock\n", f);
		fclose(f);
		expect(paths_config_socket(conf), "/c.sock");
		f = fopen(conf, "w");
		fputs("socket = /c.sock\nsocket = none\n", f);
		fclose(f);
		assert(paths_config_socket(conf) == NULL);
		unlink(conf);
		assert(paths_config_socket(conf) == NULL);
	}
	printf("ok\n");
	return 0;
}
