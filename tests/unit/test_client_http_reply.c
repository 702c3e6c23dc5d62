/* test_client_http_reply.c: http-reply.c, the parser of profd's replies,
 * driven directly on one end of a socketpair (no server, no request):
 * each framing (Content-Length, chunked, until the close), replies cut
 * short in each, malformed ones, and what a HEAD reply and the JSON of a
 * body come to; the body read a few bytes at a time as profctl reads a
 * reply it streams. test_client_http.c covers the same parser end to end. */

/* The checks are asserts: keep them in release builds. */
#undef NDEBUG

#include <sys/socket.h>

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "clientfeed.h"
#include "clienttest.h"
#include "http-int.h"

/* http_reply_read on reply (n bytes, 0: strlen) written step bytes at a
 * time; its return, *r and *cause as it left them. */
static int
parse(const char *reply, size_t n, size_t step, int head_only,
    struct http_reply *r, char **cause)
{
	struct http_conn	*conn;
	struct feed		 f;
	pthread_t		 t;
	int			 rc;

	conn = feed_conn(&f, reply, n != 0 ? n : strlen(reply), step, &t);
	*cause = NULL;
	rc = http_reply_read(conn, head_only, r, cause);
	http_conn_close(conn);
	assert(pthread_join(t, NULL) == 0);
	return rc;
}

static void
expect_ok(const char *what, const char *reply, size_t step, int head_only,
    long status, const char *body, size_t len)
{
	struct http_reply	 r;
	char			*cause;
	int			 rc;

	rc = parse(reply, 0, step, head_only, &r, &cause);
	expect_body(what, rc, cause, &r, status, body, len);
}

static void
expect_error(const char *what, const char *reply, size_t n,
    const char *want)
{
	struct http_reply	 r;
	char			*cause;

	if (parse(reply, n, 0, 0, &r, &cause) != -1) {
		fprintf(stderr, "FAIL %s: parsed\n", what);
		exit(1);
	}
	/* Nothing half-kept. */
	assert(r.status == 0 && r.body == NULL && r.json == NULL);
	if (cause == NULL || strcmp(cause, want) != 0) {
		fprintf(stderr, "FAIL %s:\n  want: %s\n  got:  %s\n", what,
		    want, cause != NULL ? cause : "(none)");
		exit(1);
	}
	free(cause);
}

static void
test_pieces(void)
{
	static const char *const replies[] = {
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"5;ext=1\r\nhello\r\n1\r\n \r\n0005\r\nworld\r\n"
		"0\r\nX-Trailer: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world",
		"HTTP/1.1 200 OK\r\n\r\nhello world",
		"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"0\r\n\r\n",
		/* Cut short, each framing: the same error as whole. */
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"5\r\nhello\r\n1",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"5\r\nhel",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"5\r\nhello\r",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"5\r\nhelloXY\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"0x5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"0\r\nX: y\r\n",
	};
	struct http_reply	 r;
	char			*cause, *pcause, *body;
	size_t			 i, step, n, len;
	int			 rc, prc;

	for (i = 0; i < sizeof replies / sizeof *replies; i++) {
		rc = parse(replies[i], 0, 0, 0, &r, &cause);
		for (step = 0; step <= 3; step++) {
			for (n = 1; n <= 6; n++) {
				prc = feed_pieces(replies[i], strlen(replies[i]),
				    step, n, 0, &body,
				    &len, &pcause);
				assert(prc == rc);
				if (rc == 0)
					assert(len == r.len && (len == 0 ||
					    memcmp(body, r.body, len) == 0));
				else if (strcmp(pcause, cause) != 0) {
					fprintf(stderr, "FAIL pieces %zu: %s, "
					    "not %s\n", i, pcause, cause);
					exit(1);
				}
				free(body);
				free(pcause);
			}
		}
		if (rc == 0)
			http_reply_clear(&r);
		free(cause);
	}
}

static void
test_chunked(void)
{
	static const char	 reply[] = "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n"
	    "5;ext=1\r\nhello\r\n"
	    "1\r\n \r\n"
	    "0005\r\nworld\r\n"
	    "0\r\nX-Trailer: 1\r\n\r\n";
	size_t			 step;

	/* Whatever the writes cut it into. */
	for (step = 0; step <= 7; step++)
		expect_ok("chunked", reply, step, 0, 200, "hello world", 11);
	/* Codings add up over the headers: chunked only if last. */
	expect_ok("chunked last", "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "2\r\nab\r\n0\r\n\r\n", 0, 0, 200, "ab", 2);
	/* Not last: the body runs to the close, chunk lines and all. */
	expect_ok("chunked not last", "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked, gzip\r\n\r\n2\r\nab\r\n", 0, 0, 200,
	    "2\r\nab\r\n", 7);
	/* A Transfer-Encoding beats a Content-Length, chunked or not. */
	expect_ok("gzip and length", "HTTP/1.1 200 OK\r\nContent-Length: 1"
	    "\r\nTransfer-Encoding: gzip\r\n\r\nabc", 0, 0, 200, "abc", 3);
	expect_ok("uppercase hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	    "CHUNKED\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n", 0, 0, 200,
	    "0123456789", 10);
}

static void
test_head(void)
{
	/* HEAD, 204 and 304 have no body whatever their headers say; the
	 * bytes after the headers are not read as one. */
	expect_ok("head", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", 0,
	    1, 200, "", 0);
	expect_ok("204 chunked", "HTTP/1.1 204 No Content\r\n"
	    "Transfer-Encoding: chunked\r\n\r\nnot a chunk", 0, 0, 204, "", 0);
	expect_ok("interim, then 304", "HTTP/1.1 100 Continue\r\n\r\n"
	    "HTTP/1.0 304 Not Modified\r\n\r\n", 1, 0, 304, "", 0);
}

static void
test_json(void)
{
	struct http_reply	 r;
	char			*cause;

	assert(parse("HTTP/1.1 200 OK\r\nContent-Length: 17\r\n\r\n"
	    "{\"s\": \"a\\u0000b\"}", 0, 0, 0, &r, &cause) == 0);
	assert(json_is_object(r.json));
	assert(json_string_length(json_object_get(r.json, "s")) == 3);
	http_reply_clear(&r);
	/* Not JSON: kept as bytes, json NULL. */
	assert(parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
	    "{\"s\":", 0, 0, 0, &r, &cause) == 0);
	assert(r.json == NULL && r.len == 5 && memcmp(r.body, "{\"s\":",
	    5) == 0);
	http_reply_clear(&r);
}

static void
test_truncated(void)
{
	expect_error("nothing", "", 0,
	    "profd closed the connection without replying");
	expect_error("status", "HTTP/1.1 200", 0,
	    "the reply ended in its status line");
	expect_error("headers", "HTTP/1.1 200 OK\r\nA: b\r\n", 0,
	    "the reply ended in its headers");
	expect_error("after interim", "HTTP/1.1 100 Continue\r\n\r\n", 0,
	    "the reply ended in its status line");
	expect_error("length", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n"
	    "abc", 0, "the reply ended after 3 of 10 bytes");
	expect_error("chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n5\r\nhello\r\n1", 0,
	    "the reply ended before its last chunk (after 5 bytes)");
	expect_error("chunk data", "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n5\r\nhel", 0,
	    "the reply ended 3 bytes into a chunk of 5 bytes");
	expect_error("chunk CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n5\r\nhello\r", 0,
	    "the reply ended after a chunk, before its CRLF");
	expect_error("trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n0\r\nX: y\r\n", 0,
	    "the reply ended in its trailer");
}

static void
test_malformed(void)
{
	static const char	 nul[] = "HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n";
	static const char	 nul_trailer[] = "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n0\r\nX: \0\r\n\r\n";
	char			*p, *line, *want;

	expect_error("version", "HTTP/2.0 200 OK\r\n\r\n", 0,
	    "a malformed status line in the reply: \"HTTP/2.0 200 OK\"");
	expect_error("status 099", "HTTP/1.1 099 Low\r\n\r\n", 0,
	    "a malformed status line in the reply: \"HTTP/1.1 099 Low\"");
	/* Found by fuzz_client_reply: a status past 599 was taken. */
	expect_error("status 900", "HTTP/1.1 900 Continue\r\n\r\n", 0,
	    "a malformed status line in the reply: \"HTTP/1.1 900 Continue\"");
	expect_error("status glued", "HTTP/1.1 2000\r\n\r\n", 0,
	    "a malformed status line in the reply: \"HTTP/1.1 2000\"");
	expect_error("NUL in headers", nul, sizeof nul - 1,
	    "a NUL byte in the reply's headers");
	expect_error("NUL in trailer", nul_trailer, sizeof nul_trailer - 1,
	    "a NUL byte in the reply's trailer");
	expect_error("empty name", "HTTP/1.1 200 OK\r\n: v\r\n\r\n", 0,
	    "a malformed header line in the reply: \": v\"");
	expect_error("empty length", "HTTP/1.1 200 OK\r\nContent-Length:\r\n"
	    "\r\n", 0, "a bad Content-Length in the reply: \"\"");
	expect_error("length list end", "HTTP/1.1 200 OK\r\n"
	    "Content-Length: 3,\r\n\r\nabc", 0,
	    "a bad Content-Length in the reply: \"3,\"");
	expect_error("0x chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", 0,
	    "a bad chunk size in the reply: \"0x5\"");
	expect_error("empty chunk size", "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n\r\n", 0,
	    "a bad chunk size in the reply: \"\"");
	expect_error("chunk size junk", "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n5 x\r\nhello\r\n0\r\n\r\n", 0,
	    "a bad chunk size in the reply: \"5 x\"");

	/* A quoted value is cut to 64 columns and its control bytes shown
	 * as escapes (termsafe.c). */
	line = xmalloc(201);
	memset(line, 'z', 200);
	line[200] = '\0';
	xasprintf(&p, "HTTP/1.1 200 OK\r\n\tfold%s\r\n\r\n", line);
	xasprintf(&want, "a folded header line in the reply: \"\\tfold%.58s"
	    "...\"", line);
	expect_error("quoted", p, 0, want);
	free(want);
	free(p);
	/* A chunk-size line past the line limit. */
	line = xreallocarray(line, 9001, 1);
	memset(line, '0', 9000);
	line[9000] = '\0';
	xasprintf(&p, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "%s\r\n", line);
	expect_error("long chunk line", p, 0,
	    "a chunk-size line of the reply is longer than 8192 bytes");
	free(p);
	free(line);
}

int
main(void)
{
	test_chunked();
	test_pieces();
	test_head();
	test_json();
	test_truncated();
	test_malformed();
	printf("ok\n");
	return 0;
}
