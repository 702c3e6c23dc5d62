/* test_client_http.c: profctl's HTTP side against a fake profd: a thread
 * answering canned replies on a temporary Unix socket. Checks what goes on
 * the wire (method, path, query encoding, body) and what profctl prints and
 * returns for each kind of answer. */

/* The checks are asserts: keep them in release builds. */
#undef NDEBUG

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profctl.h"

static char	 dir[] = "/tmp/profctl-test-XXXXXX";
static char	 sock[256];

/* What the fake server saw of the last request, and what it answers. */
static struct {
	int		 fd;
	const char	*reply;		/* the whole HTTP response */
	char		 line[2048];	/* request line */
	char		*body;
	size_t		 len;
	int		 n;		/* requests served */
} srv;

static void
read_request(int c)
{
	char	 buf[65536], *end, *cl, *nl;
	size_t	 n = 0, want;
	ssize_t	 r;

	for (;;) {
		assert(n < sizeof buf - 1);
		r = read(c, buf + n, sizeof buf - 1 - n);
		assert(r > 0);
		n += (size_t)r;
		buf[n] = '\0';
		if ((end = strstr(buf, "\r\n\r\n")) != NULL)
			break;
	}
	nl = strstr(buf, "\r\n");
	snprintf(srv.line, sizeof srv.line, "%.*s", (int)(nl - buf), buf);
	want = 0;
	if ((cl = strcasestr(buf, "\r\nContent-Length:")) != NULL && cl < end)
		want = strtoul(cl + 17, NULL, 10);
	assert(strcasestr(buf, "\r\nExpect:") == NULL || strcasestr(buf,
	    "\r\nExpect:") > end);
	free(srv.body);
	srv.body = xmalloc(want + 1);
	srv.len = n - (size_t)(end + 4 - buf);
	memcpy(srv.body, end + 4, srv.len);
	while (srv.len < want) {
		r = read(c, srv.body + srv.len, want - srv.len);
		assert(r > 0);
		srv.len += (size_t)r;
	}
	srv.body[srv.len] = '\0';
}

static void *
serve(void *arg)
{
	int	 c;

	while ((c = accept(srv.fd, NULL, NULL)) != -1) {
		read_request(c);
		/* A client that gave up on this connection (libcurl may
		 * retry on a fresh one) is judged by what the command
		 * printed, not here. */
		(void)send(c, srv.reply, strlen(srv.reply), MSG_NOSIGNAL);
		close(c);
		srv.n++;
	}
	return (NULL);
}

static char *
json_reply(int status, const char *reason, const char *json)
{
	char	*r;

	xasprintf(&r, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", status,
	    reason, strlen(json), json);
	return (r);
}

/* Run fn with stdout and stderr going to strings. */
struct captured {
	char	*out, *err;
	int	 rc;
};

static char *
slurp_fd(int fd)
{
	char	*p;
	off_t	 n;

	n = lseek(fd, 0, SEEK_END);
	lseek(fd, 0, SEEK_SET);
	p = xmalloc((size_t)n + 1);
	assert(read(fd, p, (size_t)n) == n);
	p[n] = '\0';
	return (p);
}

static struct captured
run_cmd(const struct cmd_entry *e, struct client *c, int argc, char **argv)
{
	struct captured	 r;
	char		 o[] = "/tmp/profctl-out-XXXXXX";
	char		 er[] = "/tmp/profctl-err-XXXXXX";
	int		 fo, fe, so, se;

	fflush(stdout);
	fflush(stderr);
	assert((fo = mkstemp(o)) != -1 && (fe = mkstemp(er)) != -1);
	so = dup(1);
	se = dup(2);
	dup2(fo, 1);
	dup2(fe, 2);
	r.rc = e->exec(c, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	r.out = slurp_fd(fo);
	r.err = slurp_fd(fe);
	close(fo);
	close(fe);
	unlink(o);
	unlink(er);
	return (r);
}

static void
expect_str(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "FAIL %s:\n  want [%s]\n  got  [%s]\n", what,
		    want, got);
		exit(1);
	}
}

static void
make_sun(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	assert(strlen(path) < sizeof sun->sun_path);
	memcpy(sun->sun_path, path, strlen(path) + 1);
}

static void
test_escape(void)
{
	char	*s, *p;

	s = http_escape("a b&c=d/\xc3\xa9+~._-Z9");
	expect_str("escape", s, "a%20b%26c%3Dd%2F%C3%A9%2B~._-Z9");
	free(s);

	p = xstrdup("/v1/profiles");
	http_query_add(&p, "scope", "svc-a");
	http_query_add(&p, "label", "k=v w");
	http_query_add(&p, "label", "x=1");
	expect_str("query", p,
	    "/v1/profiles?scope=svc-a&label=k%3Dv%20w&label=x%3D1");
	free(p);
}

static void
test_unreachable(void)
{
	struct http		*h;
	struct http_reply	 reply;
	struct sockaddr_un	 sun;
	char			*cause = NULL, path[512], *argv[2];
	struct client		 c;
	struct captured		 r;
	int			 fd;

	/* No socket at all. */
	snprintf(path, sizeof path, "%s/none.sock", dir);
	assert((h = http_new(path)) != NULL);
	assert(http_request(h, "GET", "/v1/scopes", NULL, 0, &reply,
	    &cause) == HTTP_ECONNECT);
	expect_str("ENOENT", cause, strerror(ENOENT));
	free(cause);
	http_free(h);

	/* A socket nobody listens on. */
	snprintf(path, sizeof path, "%s/stale.sock", dir);
	make_sun(&sun, path);
	assert((fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	assert(bind(fd, (struct sockaddr *)&sun, sizeof sun) == 0);
	close(fd);
	assert((h = http_new(path)) != NULL);
	assert(http_request(h, "GET", "/v1/scopes", NULL, 0, &reply,
	    &cause) == HTTP_ECONNECT);
	expect_str("ECONNREFUSED", cause, strerror(ECONNREFUSED));
	free(cause);
	http_free(h);

	/* A path longer than sun_path. */
	memset(path, 'x', 200);
	path[0] = '/';
	path[200] = '\0';
	assert((h = http_new(path)) != NULL);
	assert(http_request(h, "GET", "/v1/scopes", NULL, 0, &reply,
	    &cause) == HTTP_ECONNECT);
	free(cause);
	http_free(h);

	/* What the user sees, and exit code 2. */
	memset(&c, 0, sizeof c);
	xasprintf(&c.socket, "%s/none.sock", dir);
	argv[0] = xstrdup("scopes");
	argv[1] = NULL;
	r = run_cmd(&cmd_scopes_entry, &c, 1, argv);
	assert(r.rc == PROFCTL_EXIT_USAGE);
	snprintf(path, sizeof path, "profctl: cannot connect to profd at "
	    "%s/none.sock: No such file or directory (is profd running? "
	    "set --socket or PROFD_SOCKET)\n", dir);
	expect_str("unreachable", r.err, path);
	expect_str("unreachable out", r.out, "");
	free(r.out);
	free(r.err);
	free(argv[0]);
	client_free(&c);
}

static void
test_server(void)
{
	static const char	 blob[] = "\x1f\x8b not really gzip \0 but bytes";
	struct sockaddr_un	 sun;
	struct client		 c;
	struct captured		 r;
	pthread_t		 t;
	char			 file[512], *argv[12], *replies[6];
	char			 want[1024];
	FILE			*f;
	int			 i;

	snprintf(sock, sizeof sock, "%s/profd.sock", dir);
	make_sun(&sun, sock);
	assert((srv.fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	assert(bind(srv.fd, (struct sockaddr *)&sun, sizeof sun) == 0);
	assert(listen(srv.fd, 8) == 0);
	assert(pthread_create(&t, NULL, serve, NULL) == 0);

	memset(&c, 0, sizeof c);
	setenv("PROFD_SOCKET", sock, 1);	/* no --socket: the env */

	/* push: a new profile, then the same bytes again. */
	snprintf(file, sizeof file, "%s/cpu 1.pprof", dir);
	assert((f = fopen(file, "w")) != NULL);
	assert(fwrite(blob, 1, sizeof blob - 1, f) == sizeof blob - 1);
	fclose(f);
	replies[0] = json_reply(201, "Created", "{\"profile_id\": 7, "
	    "\"scope\": \"svc-a\", \"format\": \"pprof\", \"samples\": 1234, "
	    "\"metrics\": [], \"duplicate\": false}");
	srv.reply = replies[0];
	i = 0;
	argv[i++] = xstrdup("push");
	argv[i++] = xstrdup(file);
	argv[i++] = xstrdup("--scope");
	argv[i++] = xstrdup("svc-a");
	argv[i++] = xstrdup("--label");
	argv[i++] = xstrdup("env=prod");
	argv[i++] = xstrdup("--format=pprof");
	argv[i] = NULL;
	r = run_cmd(&cmd_push_entry, &c, i, argv);
	expect_str("push err", r.err, "");
	assert(r.rc == 0);
	snprintf(want, sizeof want, "%s: stored as profile 7 (1234 samples)\n",
	    file);
	expect_str("push out", r.out, want);
	expect_str("push line", srv.line, "POST /v1/profiles?scope=svc-a&"
	    "format=pprof&name=cpu%201.pprof&label=env%3Dprod HTTP/1.1");
	assert(srv.len == sizeof blob - 1 &&
	    memcmp(srv.body, blob, srv.len) == 0);
	free(r.out);
	free(r.err);

	replies[1] = json_reply(200, "OK", "{\"profile_id\": 7, \"scope\": "
	    "\"svc-a\", \"format\": \"pprof\", \"samples\": 1234, "
	    "\"metrics\": [], \"duplicate\": true}");
	srv.reply = replies[1];
	/* options first this time, and --name */
	free(argv[1]);
	argv[1] = xstrdup("--name=x");
	free(argv[6]);
	argv[6] = xstrdup(file);
	r = run_cmd(&cmd_push_entry, &c, 7, argv);
	assert(r.rc == 0);
	snprintf(want, sizeof want, "%s: already stored as profile 7\n", file);
	expect_str("dup out", r.out, want);
	expect_str("dup line", srv.line, "POST /v1/profiles?scope=svc-a&"
	    "format=auto&name=x&label=env%3Dprod HTTP/1.1");
	free(r.out);
	free(r.err);
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);

	/* profiles of an unknown scope: 404, exit 1. */
	replies[2] = json_reply(404, "Not Found", "{\"error\": \"not found\", "
	    "\"detail\": \"unknown scope \\\"x\\\"\"}");
	srv.reply = replies[2];
	argv[0] = xstrdup("profiles");
	argv[1] = xstrdup("--scope");
	argv[2] = xstrdup("x y");
	argv[3] = NULL;
	r = run_cmd(&cmd_profiles_entry, &c, 3, argv);
	assert(r.rc == PROFCTL_EXIT_REFUSED);
	expect_str("404 err", r.err, "profctl: not found: unknown scope "
	    "\"x\"\n");
	expect_str("404 out", r.out, "");
	expect_str("404 line", srv.line,
	    "GET /v1/profiles?scope=x%20y HTTP/1.1");
	free(r.out);
	free(r.err);

	/* Not JSON at all. */
	srv.reply = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 9"
	    "\r\nConnection: close\r\n\r\noops\nmore";
	r = run_cmd(&cmd_profiles_entry, &c, 3, argv);
	assert(r.rc == PROFCTL_EXIT_REFUSED);
	expect_str("500 err", r.err, "profctl: HTTP 500: oops\n");
	free(r.out);
	free(r.err);
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);

	/* top: the query and the table; --json: the reply, indented. */
	replies[3] = json_reply(200, "OK", "{\"scope\": \"svc-a\", \"metric\": "
	    "{\"type\": \"alloc_space\", \"unit\": \"bytes\"}, \"unit\": "
	    "\"bytes\", \"total\": 3072, \"profiles\": 1, \"sort\": \"cum\", "
	    "\"rows_total\": 2, \"rows\": [{\"function\": \"main.a\", "
	    "\"flat\": 1024, \"cum\": 3072}, {\"function\": \"main.b\", "
	    "\"flat\": 2048, \"cum\": 2048}]}");
	srv.reply = replies[3];
	i = 0;
	argv[i++] = xstrdup("top");
	argv[i++] = xstrdup("--scope");
	argv[i++] = xstrdup("svc-a");
	argv[i++] = xstrdup("--metric");
	argv[i++] = xstrdup("alloc_space/bytes");
	argv[i++] = xstrdup("--limit");
	argv[i++] = xstrdup("10");
	argv[i++] = xstrdup("--cum");
	argv[i] = NULL;
	r = run_cmd(&cmd_top_entry, &c, i, argv);
	assert(r.rc == 0);
	expect_str("top line", srv.line, "GET /v1/top?scope=svc-a&"
	    "metric=alloc_space%2Fbytes&limit=10&sort=cum HTTP/1.1");
	expect_str("top out", r.out,
	    "Scope: svc-a (1 profile)\n"
	    "Type: alloc_space\n"
	    "Showing nodes accounting for 3kB, 100% of 3kB total\n"
	    "      flat  flat%   sum%        cum   cum%\n"
	    "       1kB 33.33% 33.33%        3kB   100%  main.a\n"
	    "       2kB 66.67%   100%        2kB 66.67%  main.b\n");
	free(r.out);
	free(r.err);
	free(argv[i - 1]);
	argv[i - 1] = xstrdup("--json");
	r = run_cmd(&cmd_top_entry, &c, i, argv);
	assert(r.rc == 0);
	assert(strncmp(r.out, "{\n  \"scope\": \"svc-a\",\n  \"metric\": {\n"
	    "    \"type\": \"alloc_space\",\n", 58) == 0);
	assert(r.out[strlen(r.out) - 1] == '\n' &&
	    r.out[strlen(r.out) - 2] == '}');
	free(r.out);
	free(r.err);
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);

	/* Usage errors: exit 2, nothing sent. */
	argv[0] = xstrdup("top");
	argv[1] = xstrdup("--limit");
	argv[2] = xstrdup("-3");
	argv[3] = xstrdup("--scope=a");
	argv[4] = NULL;
	i = srv.n;
	r = run_cmd(&cmd_top_entry, &c, 4, argv);
	assert(r.rc == PROFCTL_EXIT_USAGE && srv.n == i);
	assert(strstr(r.err, "usage: profctl") != NULL);
	free(r.out);
	free(r.err);
	free(argv[1]);
	argv[1] = xstrdup("--bogus");
	r = run_cmd(&cmd_top_entry, &c, 4, argv);
	assert(r.rc == PROFCTL_EXIT_USAGE && srv.n == i);
	assert(strstr(r.err, "unknown option --bogus") != NULL);
	free(r.out);
	free(r.err);
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);

	shutdown(srv.fd, SHUT_RDWR);
	close(srv.fd);
	pthread_join(t, NULL);
	for (i = 0; i < 4; i++)
		free(replies[i]);
	free(srv.body);
	client_free(&c);
	unlink(file);
	unlink(sock);
}

int
main(void)
{
	char	path[512];

	assert(mkdtemp(dir) != NULL);
	test_escape();
	test_unreachable();
	test_server();
	snprintf(path, sizeof path, "%s/stale.sock", dir);
	unlink(path);
	assert(rmdir(dir) == 0);
	printf("ok\n");
	return (0);
}
