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

/* How the fake server answers. */
#define SRV_CLOSE	0	/* read the request, answer, close */
#define SRV_LINGER	1	/* ... but close only after the client did */
#define SRV_RESET	2	/* answer before reading the request and close
				   with it unread: the client sees the reply,
				   then ECONNRESET */

/* What the fake server saw of the last request, and what it answers. */
static struct {
	int		 fd;
	const char	*reply;		/* the whole HTTP response */
	size_t		 reply_len;	/* 0: strlen(reply) */
	int		 mode;		/* SRV_* */
	size_t		 step;		/* send the reply this many bytes at a
					   time, 0: at once */
	char		 line[2048];	/* request line */
	char		 head[65536];	/* request line and headers */
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
	snprintf(srv.head, sizeof srv.head, "%.*s", (int)(end + 4 - buf),
	    buf);
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

/* Wait until the request's headers are there, leaving them unread. */
static void
peek_request(int c)
{
	char	 buf[4096];
	ssize_t	 r;

	for (;;) {
		r = recv(c, buf, sizeof buf - 1, MSG_PEEK);
		assert(r > 0);
		buf[r] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL)
			return;
		usleep(1000);
	}
}

static void *
serve(void *arg)
{
	char	 buf[4096];
	size_t	 len, off, n;
	int	 c;

	while ((c = accept(srv.fd, NULL, NULL)) != -1) {
		if (srv.mode == SRV_RESET)
			peek_request(c);
		else
			read_request(c);
		/* A client that gave up on this connection is judged by
		 * what it returned or printed, not here. */
		len = srv.reply_len != 0 ? srv.reply_len : strlen(srv.reply);
		for (off = 0; off < len; off += n) {
			n = srv.step != 0 && srv.step < len - off ? srv.step :
			    len - off;
			if (send(c, srv.reply + off, n, MSG_NOSIGNAL) !=
			    (ssize_t)n)
				break;
			if (srv.step != 0)
				usleep(20);
		}
		if (srv.mode == SRV_LINGER) {
			while (read(c, buf, sizeof buf) > 0)
				;
		}
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

/* One GET to the fake server answering reply (n bytes, 0: strlen) in
 * mode; returns http_request's code. */
static int
ask(const char *reply, size_t n, int mode, struct http_reply *r,
    char **cause)
{
	struct http	*h;
	int		 rc;

	srv.reply = reply;
	srv.reply_len = n;
	srv.mode = mode;
	*cause = NULL;
	h = http_new(sock);
	rc = http_request(h, "GET", "/v1/x", NULL, 0, r, cause);
	http_free(h);
	return (rc);
}

static void
expect_reply(const char *what, const char *reply, size_t n, int mode,
    long status, const char *body, size_t len)
{
	struct http_reply	 r;
	char			*cause;

	if (ask(reply, n, mode, &r, &cause) != 0) {
		fprintf(stderr, "FAIL %s: %s\n", what, cause);
		exit(1);
	}
	if (r.status != status || r.len != len ||
	    memcmp(r.body, body, len) != 0 || r.body[len] != '\0') {
		fprintf(stderr, "FAIL %s: HTTP %ld, %zu bytes [%.*s]\n", what,
		    r.status, r.len, r.len > 200 ? 200 : (int)r.len, r.body);
		exit(1);
	}
	http_reply_clear(&r);
}

static void
expect_broken(const char *what, const char *reply, size_t n, int mode,
    const char *want)
{
	struct http_reply	 r;
	char			*cause;

	if (ask(reply, n, mode, &r, &cause) != HTTP_EBROKEN) {
		fprintf(stderr, "FAIL %s: not HTTP_EBROKEN\n", what);
		exit(1);
	}
	assert(r.body == NULL && r.json == NULL);
	expect_str(what, cause, want);
	free(cause);
}

/* A reply of head followed by n bytes of a pattern (body at *body). */
static char *
big_reply(const char *head, size_t n, size_t *len, char **body)
{
	char	*p;
	size_t	 i, hl = strlen(head);

	p = xmalloc(hl + n + 1);
	memcpy(p, head, hl);
	for (i = 0; i < n; i++)
		p[hl + i] = (char)('a' + (i * 7 + i / 4093) % 26);
	p[hl + n] = '\0';
	*len = hl + n;
	*body = p + hl;
	return (p);
}

/* profctl's HTTP/1.1 on the wire: framing, interim replies, limits, and
 * replies cut short in every framing. */
static void
test_wire(void)
{
	static const char	 chunked[] = "HTTP/1.1 200 OK\r\n"
	    "transfer-encoding: Chunked\r\n\r\n"
	    "4;name=value\r\n{\"a\"\r\n"
	    "3 ; x=\"y;z\"\r\n: [\r\n"
	    "A\r\n1, 2, 3, 4\r\n"
	    "2\r\n]}\r\n"
	    "0\r\nX-Trailer: yes\r\nX-More: 1\r\n\r\n";
	static const char	 json[] = "{\"a\": [1, 2, 3, 4]}";
	static const char	 binary[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Length:  5 \r\n\r\na\0b\0c";
	struct http_reply	 r;
	struct http		*h;
	char			*p, *body, *cause, *want, *big, *line;
	size_t			 len, i, n, off;
	int			 before;

	/* Content-Length, any case; bytes past it are not the body. The
	 * server waits for the client to close: a client waiting for the
	 * server would hang here. */
	expect_reply("length", "HTTP/1.1 200 OK\r\ncontent-LENGTH: 11\r\n"
	    "X-Colon: a:b\r\n\r\nhello world, and more", 0, SRV_LINGER, 200,
	    "hello world", 11);
	expect_reply("binary", binary, sizeof binary - 1, SRV_LINGER, 200,
	    "a\0b\0c", 5);
	expect_reply("length list", "HTTP/1.1 404 Not Found\n"
	    "Content-Length: 2, 2\n\nno", 0, SRV_LINGER, 404, "no", 2);
	expect_reply("204", "HTTP/1.1 204 No Content\r\n\r\n", 0, SRV_LINGER,
	    204, "", 0);
	expect_reply("304", "HTTP/1.1 304 Not Modified\r\nContent-Length: 9"
	    "\r\n\r\n", 0, SRV_LINGER, 304, "", 0);

	/* Chunked: extensions, hex of either case, a trailer; at once and
	 * a byte at a time; Transfer-Encoding wins over Content-Length. */
	expect_reply("chunked", chunked, 0, SRV_LINGER, 200, json,
	    strlen(json));
	srv.step = 1;
	expect_reply("chunked, dripped", chunked, 0, SRV_LINGER, 200, json,
	    strlen(json));
	srv.step = 0;
	assert(ask(chunked, 0, SRV_CLOSE, &r, &cause) == 0);
	assert(json_is_array(json_object_get(r.json, "a")));
	http_reply_clear(&r);
	expect_reply("chunked and length", "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "5\r\nhello\r\n0\r\n\r\n", 0, SRV_LINGER, 200, "hello", 5);

	/* Neither: the body ends with the connection. */
	expect_reply("close", "HTTP/1.1 200 OK\r\nContent-Type: text/plain"
	    "\r\n\r\nuntil the end\n", 0, SRV_CLOSE, 200, "until the end\n",
	    14);
	expect_reply("close 1.0", "HTTP/1.0 500 Oops\r\n\r\nbad", 0,
	    SRV_CLOSE, 500, "bad", 3);
	expect_reply("close, empty", "HTTP/1.1 200\r\n\r\n", 0, SRV_CLOSE,
	    200, "", 0);

	/* Interim replies are skipped. */
	expect_reply("100", "HTTP/1.1 100 Continue\r\n\r\n"
	    "HTTP/1.1 102 Processing\r\nX-Step: 1\r\n\r\n"
	    "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", 0,
	    SRV_LINGER, 201, "ok", 2);
	want = xstrdup("");
	for (i = 0; i < 17; i++) {
		xasprintf(&p, "%sHTTP/1.1 100 Continue\r\n\r\n", want);
		free(want);
		want = p;
	}
	expect_broken("endless 100", want, 0, SRV_CLOSE,
	    "more than 16 interim (1xx) replies");
	free(want);

	/* Large replies in each framing, read past the client's buffer. */
	n = 3 << 20;
	big = big_reply("HTTP/1.1 200 OK\r\nContent-Length: 3145728\r\n\r\n",
	    n, &len, &body);
	expect_reply("large length", big, len, SRV_LINGER, 200, body, n);
	free(big);
	big = big_reply("HTTP/1.1 200 OK\r\n\r\n", n, &len, &body);
	expect_reply("large close", big, len, SRV_CLOSE, 200, body, n);
	free(big);
	big = big_reply("", n, &len, &body);
	p = xmalloc(n + n / 1000 + 4096);
	off = (size_t)sprintf(p, "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n");
	for (i = 0; i < n; i += len) {
		len = i == 0 ? 1 : 65543;
		if (len > n - i)
			len = n - i;
		off += (size_t)sprintf(p + off, "%zx;i=%zu\r\n", len, i);
		memcpy(p + off, big + i, len);
		off += len;
		memcpy(p + off, "\r\n", 2);
		off += 2;
	}
	off += (size_t)sprintf(p + off, "0\r\n\r\n");
	expect_reply("large chunked", p, off, SRV_LINGER, 200, big, n);
	free(p);
	free(big);

	/* Cut short, in each framing. */
	big = big_reply("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n",
	    1234, &len, &body);
	expect_broken("short length", big, len, SRV_CLOSE,
	    "the reply ended after 1234 of 5000 bytes");
	free(big);
	expect_broken("short chunk", "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\na\r\n12345", 0,
	    SRV_CLOSE, "the reply ended 5 bytes into a chunk of 10 bytes");
	expect_broken("no last chunk", "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n", 0, SRV_CLOSE,
	    "the reply ended before its last chunk (after 4 bytes)");
	expect_broken("no chunk CRLF", "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n4\r\nabcd", 0, SRV_CLOSE,
	    "the reply ended after a chunk, before its CRLF");
	expect_broken("short trailer", "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n0\r\nX-T: y\r\n", 0,
	    SRV_CLOSE, "the reply ended in its trailer");
	expect_broken("reset chunk", "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\na\r\n123", 0, SRV_RESET,
	    "the reply was cut off 3 bytes into a chunk of 10 bytes: "
	    "Connection reset by peer");
	expect_broken("reset close", "HTTP/1.1 200 OK\r\n\r\npartial", 0,
	    SRV_RESET, "the reply was cut off after 7 bytes: Connection "
	    "reset by peer");
	expect_broken("short headers", "HTTP/1.1 200 OK\r\nContent-Len", 0,
	    SRV_CLOSE, "the reply ended in its headers");
	expect_broken("short status", "HTTP/1.1 2", 0, SRV_CLOSE,
	    "the reply ended in its status line");
	expect_broken("nothing", "", 0, SRV_CLOSE,
	    "profd closed the connection without replying");

	/* Oversized headers: one line, all of them, the trailer. */
	line = xmalloc(9001);
	memset(line, 'v', 9000);
	line[9000] = '\0';
	xasprintf(&p, "HTTP/1.1 200 OK\r\nX-Long: %s\r\n\r\n", line);
	expect_broken("long line", p, 0, SRV_CLOSE,
	    "a line of the reply's headers is longer than 8192 bytes");
	free(p);
	line[1000] = '\0';
	want = xstrdup("HTTP/1.1 200 OK\r\n");
	for (i = 0; i < 80; i++) {
		xasprintf(&p, "%sX-H%zu: %s\r\n", want, i, line);
		free(want);
		want = p;
	}
	xasprintf(&p, "%s\r\n", want);
	expect_broken("long headers", p, 0, SRV_CLOSE,
	    "more than 65536 bytes of headers in the reply");
	free(p);
	xasprintf(&p, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "0\r\n%s\r\n", want + 17);
	expect_broken("long trailer", p, 0, SRV_CLOSE,
	    "more than 65536 bytes of trailer in the reply");
	free(p);
	free(want);
	free(line);

	/* Malformed. */
	expect_broken("status", "HTTP/1.1 2OO OK\r\n\r\n", 0, SRV_CLOSE,
	    "a malformed status line in the reply: \"HTTP/1.1 2OO OK\"");
	expect_broken("not http", "SSH-2.0-OpenSSH\r\n\r\n", 0, SRV_CLOSE,
	    "a malformed status line in the reply: \"SSH-2.0-OpenSSH\"");
	expect_broken("two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 5, "
	    "6\r\n\r\nhello!", 0, SRV_CLOSE,
	    "a bad Content-Length in the reply: \"5, 6\"");
	expect_broken("length again", "HTTP/1.1 200 OK\r\nContent-Length: 5"
	    "\r\nContent-Length: 6\r\n\r\nhello!", 0, SRV_CLOSE,
	    "a bad Content-Length in the reply: \"6\"");
	expect_broken("negative length", "HTTP/1.1 200 OK\r\n"
	    "Content-Length: -1\r\n\r\n", 0, SRV_CLOSE,
	    "a bad Content-Length in the reply: \"-1\"");
	expect_broken("huge length", "HTTP/1.1 200 OK\r\nContent-Length: "
	    "99999999999999999999999\r\n\r\n", 0, SRV_CLOSE,
	    "a bad Content-Length in the reply: \"99999999999999999999999\"");
	expect_broken("chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	    "chunked\r\n\r\nzz\r\n", 0, SRV_CLOSE,
	    "a bad chunk size in the reply: \"zz\"");
	expect_broken("huge chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n10000000000000000\r\n", 0, SRV_CLOSE,
	    "a bad chunk size in the reply: \"10000000000000000\"");
	expect_broken("long chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n", 0, SRV_CLOSE,
	    "a chunk of the reply is longer than its size (3 bytes)");
	expect_broken("no colon", "HTTP/1.1 200 OK\r\nX-Bad\r\n\r\n", 0,
	    SRV_CLOSE, "a malformed header line in the reply: \"X-Bad\"");
	expect_broken("space in name", "HTTP/1.1 200 OK\r\nContent-Length "
	    ": 1\r\n\r\nx", 0, SRV_CLOSE, "a malformed header line in the "
	    "reply: \"Content-Length : 1\"");
	expect_broken("folded", "HTTP/1.1 200 OK\r\nX-A: 1\r\n 2\r\n\r\n", 0,
	    SRV_CLOSE, "a folded header line in the reply: \" 2\"");
	expect_broken("control", "HTTP/1.1 200 OK\r\nX\033[31m\r\n\r\n", 0,
	    SRV_CLOSE, "a malformed header line in the reply: \"X?[31m\"");
	expect_broken("101", "HTTP/1.1 101 Switching Protocols\r\n\r\n", 0,
	    SRV_CLOSE, "profd switched protocols (101)");

	/* A request line that would not be one: nothing sent. */
	h = http_new(sock);
	before = srv.n;
	assert(http_request(h, "GET", "/v1/x y", NULL, 0, &r, &cause) ==
	    HTTP_EBROKEN);
	expect_str("bad path", cause, "invalid request: GET /v1/x y");
	free(cause);
	assert(http_request(h, "GET", "/v1/x\r\nX: y", NULL, 0, &r,
	    &cause) == HTTP_EBROKEN);
	expect_str("CRLF in path", cause, "invalid request: GET /v1/x??X: y");
	free(cause);
	assert(srv.n == before);

	/* The request: its headers, and a large POST body arriving whole. */
	srv.mode = SRV_CLOSE;
	srv.reply = "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}";
	srv.reply_len = 0;
	big = big_reply("", 5 << 20, &len, &body);
	assert(http_request_type(h, "POST", "/v1/big?a=1", "application/x-t",
	    big, len, &r, &cause) == 0);
	assert(r.status == 201 && json_is_object(r.json));
	http_reply_clear(&r);
	expect_str("post line", srv.line, "POST /v1/big?a=1 HTTP/1.1");
	expect_str("post head", srv.head, "POST /v1/big?a=1 HTTP/1.1\r\n"
	    "Host: localhost\r\n"
	    "User-Agent: profctl/" PROFD_VERSION "\r\n"
	    "Accept: application/json\r\n"
	    "Content-Type: application/x-t\r\n"
	    "Content-Length: 5242880\r\n"
	    "Connection: close\r\n\r\n");
	assert(srv.len == len && memcmp(srv.body, big, len) == 0);

	/* profd may refuse a body before reading it all (413) and close:
	 * the reply still counts, though the write failed. */
	srv.mode = SRV_RESET;
	srv.reply = "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 7"
	    "\r\nConnection: close\r\n\r\ntoo big";
	assert(http_request(h, "PUT", "/v1/big", big, len, &r, &cause) == 0);
	assert(r.status == 413 && r.len == 7);
	http_reply_clear(&r);
	free(big);

	srv.mode = SRV_CLOSE;
	srv.reply = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	assert(http_request(h, "DELETE", "/v1/profiles/3", NULL, 0, &r,
	    &cause) == 0);
	assert(r.status == 200 && r.len == 0 && r.body[0] == '\0' &&
	    r.json == NULL);
	http_reply_clear(&r);
	expect_str("delete head", srv.head, "DELETE /v1/profiles/3 HTTP/1.1\r\n"
	    "Host: localhost\r\n"
	    "User-Agent: profctl/" PROFD_VERSION "\r\n"
	    "Accept: application/json\r\n"
	    "Connection: close\r\n\r\n");
	http_free(h);
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

	test_wire();
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
