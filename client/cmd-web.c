/* cmd-web.c: profctl web, the browser UI on a local HTTP port, like
 * go tool pprof -http: the UI's files compiled in, API calls forwarded to
 * profd's socket.  Loopback unless told otherwise; a random token in the
 * printed URL (then a cookie) for every request; see webloop.c for how
 * connections are read and webserve.c for the checks of each request. */
#include <sys/types.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "profctl.h"
#include "webserve.h"

extern char **environ;

static int	cmd_web_exec(struct client *, int, char **);

const struct cmd_entry cmd_web_entry = {
	"web",
	"web [--listen HOST:PORT] [--open] [--allow-write | --read-only]",
	cmd_web_exec
};

enum { WEB_LISTEN = 0x400, WEB_OPEN, WEB_ALLOW_WRITE, WEB_READ_ONLY };

struct cmd_web_opts {
	const char	*listen;
	int		 open, allow_write, read_only;
};

static int
cmd_web_option(const struct cmd_entry *e, int ch, const char *arg, void *p)
{
	struct cmd_web_opts	*o = p;

	(void)e;
	switch (ch) {
	case WEB_LISTEN:
		o->listen = arg;
		return CMD_OPT_TAKEN;
	case WEB_OPEN:
		o->open = 1;
		return CMD_OPT_TAKEN;
	case WEB_ALLOW_WRITE:
		o->allow_write = 1;
		return CMD_OPT_TAKEN;
	case WEB_READ_ONLY:
		o->read_only = 1;
		return CMD_OPT_TAKEN;
	}
	return CMD_OPT_NOT_MINE;
}

/* Bind and listen on HOST:PORT (HOST may be [v6]); the socket, or -1 with
 * *cause.  ws->listen_host gets HOST:the port bound, as a Host header
 * names it. */
static int
cmd_web_listen(const char *spec, struct webserve *ws, char **cause)
{
	struct addrinfo		 hints, *res = NULL, *ai;
	struct sockaddr_storage	 ss;
	socklen_t		 sslen = sizeof ss;
	char			*host, *colon, serv[16];
	int			 fd = -1, one = 1, rc;

	host = xstrdup(spec);
	if ((colon = strrchr(host, ':')) == NULL || colon[1] == '\0') {
		xasprintf(cause, "--listen %s: not HOST:PORT", spec);
		free(host);
		return -1;
	}
	*colon = '\0';
	snprintf(serv, sizeof serv, "%s", colon + 1);
	if (host[0] == '[' && colon[-1] == ']') {
		colon[-1] = '\0';
		memmove(host, host + 1, strlen(host));
	}
	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if ((rc = getaddrinfo(host, serv, &hints, &res)) != 0) {
		xasprintf(cause, "--listen %s: %s", spec, gai_strerror(rc));
		free(host);
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (fd == -1)
			continue;
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof one);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
		    listen(fd, 128) == 0)
			break;
		close(fd);
		fd = -1;
	}
	if (fd == -1) {
		xasprintf(cause, "--listen %s: %s", spec, strerror(errno));
		goto out;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sslen) == 0)
		ws->port = ntohs(ss.ss_family == AF_INET6 ?
		    ((struct sockaddr_in6 *)&ss)->sin6_port :
		    ((struct sockaddr_in *)&ss)->sin_port);
	snprintf(ws->listen_host, sizeof ws->listen_host,
	    strchr(host, ':') != NULL ? "[%s]:%d" : "%s:%d",
	    strcasecmp(host, "localhost") == 0 ? "127.0.0.1" : host,
	    ws->port);
out:
	freeaddrinfo(res);
	free(host);
	return fd;
}

/* The token of the URL, and the cookie's own secret (webserve.h). */
static int
cmd_web_token(struct webserve *ws, char **cause)
{
	unsigned char	 r[32];
	char		 cookie[33];
	size_t		 got = 0;
	ssize_t		 n;
	int		 i;

	while (got < sizeof r) {
		if ((n = getrandom(r + got, sizeof r - got, 0)) == -1) {
			if (errno == EINTR)
				continue;
			xasprintf(cause, "getrandom: %s", strerror(errno));
			return -1;
		}
		got += (size_t)n;
	}
	for (i = 0; i < 16; i++) {
		snprintf(ws->token + 2 * i, 3, "%02x", r[i]);
		snprintf(cookie + 2 * i, 3, "%02x", r[16 + i]);
	}
	snprintf(ws->cookie_name, sizeof ws->cookie_name, "profd_token_%d",
	    ws->port);
	snprintf(ws->cookie_value, sizeof ws->cookie_value, "%d.%s",
	    ws->port, cookie);
	return 0;
}

/* xdg-open URL, its output away from ours (our stdout's first line is
 * the URL, which scripts read). */
static void
cmd_web_open(const char *url)
{
	posix_spawn_file_actions_t	 fa;
	char				 prog[] = "xdg-open";
	char				*u = xstrdup(url);
	char				*argv[] = { prog, u, NULL };
	pid_t				 pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "xdg-open", &fa, NULL, argv, environ) != 0)
		fprintf(stderr, "profctl web: cannot run xdg-open; open %s\n",
		    url);
	posix_spawn_file_actions_destroy(&fa);
	free(u);
}

static int
cmd_web_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "listen",	required_argument,	NULL, WEB_LISTEN },
		{ "open",	no_argument,		NULL, WEB_OPEN },
		{ "allow-write", no_argument,		NULL, WEB_ALLOW_WRITE },
		{ "read-only",	no_argument,		NULL, WEB_READ_ONLY },
		CMD_COMMON_OPTIONS
	};
	struct cmd_web_opts	 o = { .listen = "127.0.0.1:0" };
	struct webserve		 ws;
	struct cmd_args		 ca;
	char			*cause = NULL, *sock, *url;
	int			 rc, lfd;

	rc = cmd_parse(&cmd_web_entry, c, argc, argv, "-:h", opts, &ca, 0,
	    cmd_web_option, &o);
	if (rc != -1)
		return rc;
	if (o.allow_write && o.read_only)
		return cmd_usage_error(&cmd_web_entry, "web: --allow-write "
		    "and --read-only contradict each other");
	memset(&ws, 0, sizeof ws);
	ws.allow_write = o.allow_write;
	ws.read_only = o.read_only;
	/* The token after the port: the cookie names it. */
	if ((lfd = cmd_web_listen(o.listen, &ws, &cause)) == -1 ||
	    cmd_web_token(&ws, &cause) == -1) {
		fprintf(stderr, "profctl web: %s\n", cause);
		free(cause);
		return PROFCTL_EXIT_USAGE;
	}
	sock = paths_socket(c->socket);
	ws.socket = sock;
	xasprintf(&url, "http://%s/?token=%s", ws.listen_host, ws.token);
	printf("%s\n", url);
	fflush(stdout);
	fprintf(stderr, "profctl web: serving profd at %s%s; Ctrl-C stops\n",
	    sock, ws.read_only ? " (read-only)" : ws.allow_write ?
	    " (writes allowed)" : "");
	if (o.open)
		cmd_web_open(url);
	free(url);
	rc = webloop_run(&ws, lfd);
	close(lfd);
	free(sock);
	return rc;
}
