/* test_reqbody.c: where the guard sees a request's body end is where
 * libevent will read it ending (issue 40: pipelined requests past what
 * profd read at once were misframed): Content-Length bytes for the
 * methods libevent reads a body of, none for HEAD or without a length,
 * chunks with their sizes, empty lines and trailers; what follows is the
 * next request's.  Fed whole and a few bytes at a time; framings
 * libevent reads otherwise (extensions, signs, long lines) refused. */
#include <string.h>

#include "nitems.h"
#include "reqbody.h"
#include "reqhead.h"
#include "testlib.h"

/* The bytes of body after head, fed step bytes at a time: its length
 * if it ends, -1 if it does not, -2 if refused (why in *why). */
static long
body_len(const char *head, const char *after, size_t step, const char **why)
{
	struct reqhead h;
	struct reqbody b;
	size_t i = 0, n = strlen(after), k, took;
	int end = 0;

	reqhead_init(&h);
	CHECK(reqhead_feed(&h, (const unsigned char *)head, strlen(head)) ==
	    NULL);
	CHECK(h.ended);
	reqbody_start(&b, &h);
	*why = NULL;
	took = reqbody_feed(&b, (const unsigned char *)after, 0, &end, why);
	CHECK(took == 0);
	if (end)
		return 0;
	while (i < n) {
		k = n - i < step ? n - i : step;
		took = reqbody_feed(&b, (const unsigned char *)after + i, k,
		    &end, why);
		if (*why != NULL)
			return -2;
		i += took;
		if (end)
			return (long)i;
		CHECK(took == k);
	}
	return -1;
}

int
main(void)
{
	static const struct {
		const char *head, *after;
		long len;		/* -1: not ended; -2: refused */
		const char *why;
	} c[] = {
		{ "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
		    "helloGET / HTTP/1.1\r\n\r\n", 5, NULL },
		{ "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
		    "GET / HTTP/1.1\r\n\r\n", 0, NULL },
		/* No length: no body, "Connection: close" or not. */
		{ "POST / HTTP/1.1\r\nConnection: close\r\n\r\n", "abc", 0,
		    NULL },
		{ "GET / HTTP/1.1\r\nContent-Length: 3\r\n\r\n", "abcdef", 3,
		    NULL },
		{ "DELETE / HTTP/1.1\r\nContent-Length: 2\r\n\r\n", "abc", 2,
		    NULL },
		/* libevent reads no body of HEAD, TRACE or a method it does
		 * not know, whatever the head says. */
		{ "HEAD / HTTP/1.1\r\nContent-Length: 3\r\n\r\n", "abc", 0,
		    NULL },
		{ "TRACE / HTTP/1.1\r\nContent-Length: 3\r\n\r\n", "abc", 0,
		    NULL },
		{ "BREW / HTTP/1.1\r\nContent-Length: 3\r\n\r\n", "abc", 0,
		    NULL },
		{ "post / HTTP/1.1\r\nContent-Length: 3\r\n\r\n", "abc", 0,
		    NULL },
		{ "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n", "abc", -1,
		    NULL },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		    "5\r\nhello\r\n0\r\n\r\nGET", 15, NULL },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n",
		    "a\nhelloworld\n10\r\n0123456789abcdef\r\n0\nX-T: 1\n\nG",
		    45, NULL },
		/* Empty lines before a size are skipped, as libevent does;
		 * a size may be followed by a space and what libevent
		 * ignores. */
		{ "PUT / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		    "\r\n\r\n3 ignored\r\nabc\r\n0\r\n\r\n", 25, NULL },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		    "5\r\nhel", -1, NULL },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		    "0\r\n", -1, NULL },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		    "5;ext=1\r\nhello\r\n0\r\n\r\n", -2, "hexadecimal" },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		    "+5\r\nhello\r\n0\r\n\r\n", -2, "hexadecimal" },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		    "0x5\r\nhello\r\n0\r\n\r\n", -2, "hexadecimal" },
		{ "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		    "1000000000000000\r\n", -2, "hexadecimal" },
	};
	static char longline[1100];
	const char *why;
	size_t i, step;
	long got;

	for (i = 0; i < NITEMS(c); i++)
		for (step = 1; step <= 64; step *= 4) {
			got = body_len(c[i].head, c[i].after, step, &why);
			if (got != c[i].len)
				fprintf(stderr, "case %zu step %zu: %ld, not "
				    "%ld (%s)\n", i, step, got, c[i].len,
				    why ? why : "");
			CHECK(got == c[i].len);
			CHECK(c[i].why == NULL || (why != NULL &&
			    HAS(why, c[i].why)));
		}
	/* A NUL byte in a size or trailer line: libevent's C strings end
	 * the line there, and a trailer line beginning with one ends the
	 * body. */
	{
		static const char *const after[] = { "5\0\r\nhello\r\n",
		    "\0\r\n5\r\nhello\r\n", "0\r\n\0X: y\r\n\r\n" };
		static const size_t len[] = { 11, 13, 12 };
		struct reqhead h;
		struct reqbody rb;
		int end;

		for (i = 0; i < NITEMS(after); i++) {
			reqhead_init(&h);
			CHECK(reqhead_feed(&h, (const unsigned char *)
			    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked"
			    "\r\n\r\n", 47) == NULL);
			reqbody_start(&rb, &h);
			(void)reqbody_feed(&rb, (const unsigned char *)after[i],
			    len[i], &end, &why);
			CHECK(why != NULL && HAS(why, "NUL") && !end);
		}
	}
	/* A size line without end is refused past 1 kB. */
	memset(longline, '0', sizeof longline - 1);
	CHECK(body_len("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
	    "\r\n", longline, 100, &why) == -2 && HAS(why, "1 kB"));
	printf("test_reqbody: %u checks passed\n", checks);
	return 0;
}
