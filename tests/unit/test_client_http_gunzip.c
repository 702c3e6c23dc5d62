/* test_client_http_gunzip.c: a reply profd sent gzipped (Content-Encoding:
 * gzip, which profctl asks for) read through http-reply.c and
 * http-gunzip.c on one end of a socketpair: in each framing, whole and a
 * few bytes at a time, the body comes out as it was before the gzip; a
 * corrupt, cut or overlong stream and an unknown coding are errors that
 * say so; a HEAD reply has no body to inflate. */

/* The checks are asserts: keep them in release builds. */
#undef NDEBUG

#include <sys/socket.h>

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "alloc.h"
#include "clientfeed.h"
#include "http-int.h"

/* The gzip of n bytes (*zn set). */
static char *
gzip_of(const char *p, size_t n, size_t *zn)
{
	z_stream	 z;
	char		*out;
	uLong		 cap;

	memset(&z, 0, sizeof z);
	assert(deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8,
	    Z_DEFAULT_STRATEGY) == Z_OK);
	cap = deflateBound(&z, (uLong)n) + 32;
	out = xmalloc(cap);
	z.next_in = (unsigned char *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = (unsigned char *)out;
	z.avail_out = (uInt)cap;
	assert(deflate(&z, Z_FINISH) == Z_STREAM_END);
	*zn = z.total_out;
	deflateEnd(&z);
	return out;
}

/* A reply with head (status line and headers, without the empty line)
 * and body sent as Content-Length or as chunks of csize. */
static char *
reply_of(const char *head, const char *body, size_t n, size_t csize,
    size_t *len)
{
	char	*r, *p;
	size_t	 off, c;

	r = xmalloc(strlen(head) + n * 2 + 256 + n / (csize ? csize : 1) * 16);
	p = r + sprintf(r, "%s\r\n", head);
	if (csize == 0) {
		p += sprintf(p, "Content-Length: %zu\r\n\r\n", n);
		memcpy(p, body, n);
		p += n;
	} else {
		p += sprintf(p, "Transfer-Encoding: chunked\r\n\r\n");
		for (off = 0; off < n; off += c) {
			c = n - off < csize ? n - off : csize;
			p += sprintf(p, "%zx\r\n", c);
			memcpy(p, body + off, c);
			p += c;
			p += sprintf(p, "\r\n");
		}
		p += sprintf(p, "0\r\n\r\n");
	}
	*len = (size_t)(p - r);
	return r;
}

/* Read reply (len bytes, written whole) step bytes at a time; the body
 * into *body. */
static int
parse(const char *reply, size_t len, int head_only, size_t step,
    char **body, size_t *blen, char **cause)
{
	return feed_pieces(reply, len, 0, step, head_only, body, blen, cause);
}

static const char	 gz_head[] = "HTTP/1.1 200 OK\r\n"
			    "Content-Type: application/json\r\n"
			    "Content-Encoding: gzip\r\n"
			    "Vary: Accept-Encoding";

static void
expect_error(const char *what, const char *reply, size_t len,
    const char *want)
{
	char	*body, *cause;
	size_t	 blen;

	if (parse(reply, len, 0, 4096, &body, &blen, &cause) != -1 ||
	    cause == NULL || strstr(cause, want) == NULL) {
		fprintf(stderr, "FAIL %s: want \"%s\", got \"%s\"\n", what,
		    want, cause != NULL ? cause : "(no error)");
		exit(1);
	}
	free(body);
	free(cause);
}

int
main(void)
{
	static const size_t	 steps[] = { 1, 3, 1000, 65536 };
	static const size_t	 csizes[] = { 0, 1, 777, 16384 };
	size_t			 n = 300000, zn, len, blen, i, j;
	char			*plain, *gz, *reply, *body, *cause, *bad;
	int			 k;

	plain = xmalloc(n);
	for (i = 0; i < n; i++)
		plain[i] = "{\"function\":\"main.f\",\"flat\":12345},"[i % 35]
		    + (char)(i % 997 == 0);
	gz = gzip_of(plain, n, &zn);
	assert(zn < n / 10);

	for (i = 0; i < sizeof csizes / sizeof *csizes; i++) {
		reply = reply_of(gz_head, gz, zn, csizes[i], &len);
		for (j = 0; j < sizeof steps / sizeof *steps; j++) {
			if (steps[j] == 1 && csizes[i] == 1)
				continue;	/* slow, and nothing new */
			assert(parse(reply, len, 0, steps[j], &body, &blen,
			    &cause) == 0);
			assert(blen == n && memcmp(body, plain, n) == 0);
			free(body);
		}
		/* HEAD: no body, nothing inflated. */
		assert(parse(reply, len, 1, 4096, &body, &blen, &cause) == 0);
		assert(blen == 0 && body == NULL);
		free(reply);
	}
	/* x-gzip and identity beside it are gzip too. */
	reply = reply_of("HTTP/1.1 200 OK\r\nContent-Encoding: identity, "
	    "X-GZIP", gz, zn, 0, &len);
	assert(parse(reply, len, 0, 4096, &body, &blen, &cause) == 0);
	assert(blen == n && memcmp(body, plain, n) == 0);
	free(body);
	free(reply);

	/* Cut short: at every tenth of the stream. */
	for (k = 1; k < 10; k++) {
		reply = reply_of(gz_head, gz, zn * (size_t)k / 10, 0, &len);
		expect_error("cut gzip", reply, len, "gzip stream ended early");
		free(reply);
	}
	/* Corrupt: the deflate data of a block spoiled. */
	bad = xmalloc(zn);
	memcpy(bad, gz, zn);
	memset(bad + 10, 0xff, 64);
	reply = reply_of(gz_head, bad, zn, 0, &len);
	expect_error("corrupt gzip", reply, len, "gzip stream is corrupt");
	free(reply);
	/* The trailer's CRC spoiled. */
	memcpy(bad, gz, zn);
	bad[zn - 6] ^= 1;
	reply = reply_of(gz_head, bad, zn, 777, &len);
	expect_error("bad CRC", reply, len, "gzip stream is corrupt");
	free(reply);
	free(bad);
	/* Bytes after the member. */
	bad = xmalloc(zn + 5);
	memcpy(bad, gz, zn);
	memcpy(bad + zn, "extra", 5);
	reply = reply_of(gz_head, bad, zn + 5, 0, &len);
	expect_error("after the member", reply, len,
	    "after the end of the reply's gzip stream");
	free(reply);
	free(bad);
	/* Codings profctl does not read. */
	reply = reply_of("HTTP/1.1 200 OK\r\nContent-Encoding: br", gz, zn, 0,
	    &len);
	expect_error("br", reply, len, "a coding profctl does not read");
	free(reply);
	reply = reply_of("HTTP/1.1 200 OK\r\nContent-Encoding: gzip, gzip",
	    gz, zn, 0, &len);
	expect_error("gzip twice", reply, len, "a coding profctl does not");
	free(reply);

	free(gz);
	free(plain);
	printf("test_client_http_gunzip: ok\n");
	return 0;
}
