/* test_client_cmd.c: the commands (cmd.c's parsing, cmd-*.c, client.c's
 * errors) run as profctl runs them, against a fake profd or none: what each
 * sends, prints and returns. */
#include "alloc.h"
#include "clientsrv.h"

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

/* push, profiles and top through a fake profd: the request each sends,
 * what each prints, the exit codes of errors and usage errors. */
static void
test_commands(void)
{
	static const char	 blob[] = "\x1f\x8b not really gzip \0 but bytes";
	struct client		 c;
	struct captured		 r;
	char			 file[512], *argv[12], *replies[6];
	char			 want[1024];
	FILE			*f;
	int			 i;

	srv.mode = SRV_CLOSE;
	srv.reply_len = 0;

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

	for (i = 0; i < 4; i++)
		free(replies[i]);
	client_free(&c);
	unlink(file);
}

int
main(void)
{
	char	path[512];

	srv_start();
	test_unreachable();
	test_commands();
	snprintf(path, sizeof path, "%s/stale.sock", dir);
	unlink(path);
	srv_stop();
	return finish();
}
