/* test_reqhead.c: request heads that two HTTP parsers could read two
 * ways are refused (issue 25: libevent took the first of two
 * Content-Length headers, "+12" and folded lines), in one piece and fed
 * a byte at a time; ordinary heads pass. */
#include <string.h>

#include "nitems.h"
#include "reqhead.h"
#include "testlib.h"

static const char *
feed(const char *head, size_t step)
{
	struct reqhead h;
	const char *why = NULL;
	size_t i, n = strlen(head);

	reqhead_init(&h);
	for (i = 0; i < n && why == NULL; i += step)
		why = reqhead_feed(&h, (const unsigned char *)head + i,
		    n - i < step ? n - i : step);
	return why;
}

int
main(void)
{
	static const struct {
		const char *head, *why;
	} c[] = {
		{ "POST /v1/profiles?scope=a HTTP/1.1\r\nHost: localhost\r\n"
		    "Content-Length: 12\r\n\r\n", NULL },
		{ "POST / HTTP/1.1\nContent-Length:0\n\n", NULL },
		{ "POST / HTTP/1.1\r\ncontent-length: \t7 \r\n\r\n", NULL },
		{ "GET / HTTP/1.1\r\nX-Content-Length: +1\r\n\r\n", NULL },
		{ "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", NULL },
		/* A request line that looks like a header is the line's. */
		{ "Content-Length: +1 HTTP/1.1\r\n\r\n", NULL },
		{ "POST / HTTP/1.1\r\nContent-Length: 12\r\nContent-Length: 12"
		    "\r\n\r\n", "more than one Content-Length" },
		{ "POST / HTTP/1.1\r\nContent-Length: 12\r\ncontent-LENGTH: 5"
		    "\r\n\r\n", "more than one Content-Length" },
		{ "POST / HTTP/1.1\r\nContent-Length: +12\r\n\r\n",
		    "not a plain decimal" },
		{ "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
		    "not a plain decimal" },
		{ "POST / HTTP/1.1\r\nContent-Length: 012\r\n\r\n",
		    "not a plain decimal" },
		{ "POST / HTTP/1.1\r\nContent-Length: 12, 12\r\n\r\n",
		    "not a plain decimal" },
		{ "POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n",
		    "not a plain decimal" },
		{ "POST / HTTP/1.1\r\nContent-Length:\r\n\r\n",
		    "not a plain decimal" },
		{ "POST / HTTP/1.1\r\nContent-Length: 1234567890123456789\r\n"
		    "\r\n", "not a plain decimal" },
		{ "POST / HTTP/1.1\r\nContent-Length:                       "
		    "           12\r\n\r\n", "not a plain decimal" },
		{ "POST / HTTP/1.1\r\nX-A: b\r\n c\r\n\r\n", "folded" },
		{ "POST / HTTP/1.1\r\nX-A: b\r\n\tc\r\n\r\n", "folded" },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
		    "Content-Length: 3\r\n\r\n", "both Content-Length and "
		    "Transfer-Encoding" },
		{ "POST / HTTP/1.1\r\nContent-Length: 3\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n", "both" },
		/* libevent reads the first Transfer-Encoding, and "chunked"
		 * alone, as chunked; a proxy may read these as chunked. */
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n"
		    "\r\n", "other than \"chunked\"" },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n", "other than" },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n",
		    "more than one Transfer-Encoding" },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding:                    "
		    "     chunked\r\n\r\n", "other than" },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding:  chunked \r\n\r\n",
		    NULL },
	};
	static const struct {
		const char *head;
		enum reqhead_body body;
		int64_t length;
	} b[] = {
		{ "POST /x HTTP/1.1\r\nContent-Length: 12\r\n\r\n",
		    REQHEAD_LENGTH, 12 },
		{ "POST /x HTTP/1.1\r\nContent-Length:  0 \r\n\r\n",
		    REQHEAD_NO_BODY, 0 },
		{ "POST /x HTTP/1.1\r\n\r\n", REQHEAD_NO_BODY, -1 },
		{ "HEAD /x HTTP/1.1\r\nContent-Length: 12\r\n\r\n",
		    REQHEAD_NO_BODY, 12 },
		{ "OPTIONS /x HTTP/1.1\r\nContent-Length: 1\r\n\r\n",
		    REQHEAD_LENGTH, 1 },
		{ "PATCH /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		    REQHEAD_CHUNKED, -1 },
		{ "PROPFIND /x HTTP/1.1\r\nContent-Length: 12\r\n\r\n",
		    REQHEAD_NO_BODY, 12 },
		{ "POST/x HTTP/1.1\r\nContent-Length: 12\r\n\r\n",
		    REQHEAD_NO_BODY, 12 },
	};
	char parsed[] = "POST  /ingest?name=a.cpu  HTTP/1.1  \r\nHost: x\r\n"
	    "authorization:  Bearer  tok \t\r\nAuthorization: Bearer 2\r\n"
	    "\r\n";
	char noversion[] = "GET /\r\n\r\n";
	struct reqhead_req rq;
	struct reqhead h;
	size_t i, step;

	for (i = 0; i < NITEMS(c); i++)
		for (step = 1; step <= 64; step *= 4) {
			const char *why = feed(c[i].head, step);

			if ((why == NULL) != (c[i].why == NULL) ||
			    (why != NULL && !HAS(why, c[i].why)))
				fprintf(stderr, "case %zu step %zu: %s\n", i,
				    step, why ? why : "(passed)");
			CHECK((why == NULL) == (c[i].why == NULL));
			CHECK(why == NULL || HAS(why, c[i].why));
		}
	/* Whether a body follows, as libevent reads it. */
	for (i = 0; i < NITEMS(b); i++) {
		reqhead_init(&h);
		CHECK(reqhead_feed(&h, (const unsigned char *)b[i].head,
		    strlen(b[i].head)) == NULL);
		CHECK(reqhead_body(&h) == b[i].body);
		CHECK(h.content_length == b[i].length);
	}
	/* A whole head read as libevent reads it: the method to the first
	 * space, the target to the last, the first Authorization. */
	CHECK(reqhead_parse(parsed, strlen(parsed), &rq) == 0);
	CHECK(STREQ(rq.method, "POST"));
	CHECK(STREQ(rq.target, " /ingest?name=a.cpu "));
	CHECK(STREQ(rq.authorization, "Bearer  tok"));
	CHECK(reqhead_parse(noversion, strlen(noversion), &rq) == -1);
	/* A NUL byte: libevent's C strings end a header line there, and a
	 * line that begins with one ends its head (fuzz_http found the
	 * guard and libevent framing a request two ways). */
	{
		static const char nul[] = "GET / HTTP/1.1\r\nHost: x\r\n"
		    "\0\0\r\nX: y\r\n\r\n";
		static const char nulv[] = "POST / HTTP/1.1\r\nContent-Length"
		    ": 5\0 1\r\n\r\n";

		for (step = 1; step <= 64; step *= 4) {
			const char *why = NULL;

			reqhead_init(&h);
			for (i = 0; i < sizeof nul - 1 && why == NULL;
			    i += step)
				why = reqhead_feed(&h, (const unsigned char *)
				    nul + i, sizeof nul - 1 - i < step ?
				    sizeof nul - 1 - i : step);
			CHECK(why != NULL && HAS(why, "NUL"));
		}
		reqhead_init(&h);
		CHECK(reqhead_feed(&h, (const unsigned char *)nulv,
		    sizeof nulv - 1) != NULL);
	}
	/* What comes after the head (a body that looks like headers) is
	 * not read. */
	reqhead_init(&h);
	CHECK(reqhead_feed(&h, (const unsigned char *)"GET / HTTP/1.1\r\n\r\n"
	    "Content-Length: 1\r\nContent-Length: 2\r\n", 56) == NULL);
	printf("test_reqhead: %u checks passed\n", checks);
	return 0;
}
