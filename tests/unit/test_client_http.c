/* test_client_http.c: http.c (with http-conn.c and http-reply.c under
 * it) against a fake profd: what goes on the wire (method, path, query
 * encoding, body) and what comes back from each kind of answer, in each
 * framing, cut short or malformed. test_client_cmd.c drives the commands
 * against the same fake profd. */
#include "alloc.h"
#include "clientsrv.h"

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

/* One GET to the fake server answering reply (n bytes, 0: strlen) in
 * mode; returns http_request's code. */
static int
ask(const char *reply, size_t n, int mode, struct http_reply *r,
    char **cause)
{
	struct http	*h;
	int		 rc, before;

	srv.reply = reply;
	srv.reply_len = n;
	srv.mode = mode;
	*cause = NULL;
	before = __atomic_load_n(&srv.n, __ATOMIC_ACQUIRE);
	h = http_new(sock);
	rc = http_request(h, "GET", "/v1/x", NULL, 0, r, cause);
	http_free(h);
	srv_wait(before);
	return rc;
}

static void
expect_reply(const char *what, const char *reply, size_t n, int mode,
    long status, const char *body, size_t len)
{
	struct http_reply	 r;
	char			*cause;
	int			 rc;

	rc = ask(reply, n, mode, &r, &cause);
	expect_body(what, rc, cause, &r, status, body, len);
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
	return p;
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
	    SRV_CLOSE, "a malformed header line in the reply: \"X\\u001b[31m\"");
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
	expect_str("CRLF in path", cause,
	    "invalid request: GET /v1/x\r\nX: y");
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
	    "Accept-Encoding: gzip\r\n"
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
	    "Accept-Encoding: gzip\r\n"
	    "Connection: close\r\n\r\n");
	http_free(h);
}

int
main(void)
{
	srv_start();
	test_escape();
	test_wire();
	srv_stop();
	return finish();
}
