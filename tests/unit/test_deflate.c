/* test_deflate.c: the gzip of replies (base/deflate.c), whole and as a
 * stream written in pieces, read back through base/inflate.c; and the
 * Accept-Encoding rule (base/http-accept.c) that decides when a reply is
 * gzipped: q-values, "gzip;q=0" refusing, "*", malformed members. */
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "buf.h"
#include "deflate.h"
#include "http-accept.h"
#include "inflate.h"
#include "nitems.h"
#include "stream.h"
#include "testlib.h"

/* The inflate of n gzipped bytes (*len set; to free). */
static uint8_t *
gunzip(const uint8_t *gz, size_t n, size_t *len)
{
	struct limits lim = { .max_inflated = (size_t)1 << 30,
	    .max_inflate_ratio = 100000 };
	struct error err = { 0 };
	struct stream *s;
	uint8_t *out;

	s = inflate_stream(stream_mem(gz, n), &lim);
	CHECK(stream_slurp(s, (size_t)1 << 30, &out, len, &err) == 0);
	stream_free(s);
	return out;
}

/* A JSON-like text of n bytes: repetitive, as replies are. */
static uint8_t *
reply_like(size_t n, uint64_t seed)
{
	uint8_t *p = malloc(n);
	size_t i;
	int len;
	char row[96];

	for (i = 0; i < n; i += (size_t)len) {
		len = snprintf(row, sizeof row, "{\"function\":\"main.f%u\","
		    "\"flat\":%u},", (unsigned)(xorshift64(&seed) % 500),
		    (unsigned)(xorshift64(&seed) % 100000));
		if ((size_t)len > n - i)
			len = (int)(n - i);
		memcpy(p + i, row, (size_t)len);
	}
	return p;
}

static void
test_whole(void)
{
	static const size_t sizes[] = { 0, 1, 1023, 1024, 65536, 3000000 };
	struct error err = { 0 };
	uint8_t *data, *gz, *back;
	size_t i, gzlen, len;
	int level;

	for (i = 0; i < NITEMS(sizes); i++)
		for (level = 1; level <= 9; level += 5) {
			data = reply_like(sizes[i], 7 + i);
			CHECK(deflate_gzip(data, sizes[i], level, &gz, &gzlen,
			    &err) == 0);
			CHECK(inflate_is_gzip(gz, gzlen));
			/* Replies shrink (a text of 1 KiB already by half). */
			if (sizes[i] >= 1024)
				CHECK(gzlen < sizes[i] / 2);
			back = gunzip(gz, gzlen, &len);
			CHECK(len == sizes[i]);
			CHECK(len == 0 || memcmp(back, data, len) == 0);
			free(back);
			free(gz);
			free(data);
		}
	/* A level zlib does not have is an error, not a crash. */
	data = reply_like(100, 1);
	CHECK(deflate_gzip(data, 100, 42, &gz, &gzlen, &err) == -1);
	CHECK(err.kind == ERR_INTERNAL && gz == NULL && gzlen == 0);
	free(data);
}

/* Written in pieces of every size (as a streamed reply is), held or
 * flushed, finished by an empty write or by the last piece: one member,
 * the same bytes; a flushed piece inflates before the end. */
static void
test_stream(void)
{
	static const size_t steps[] = { 1, 7, 4096, 100000, 5000000 };
	struct deflate_stream *d;
	struct buf out = { 0 };
	uint8_t *data, *back;
	size_t i, off, n, len, total = 2000000;
	int empty_end, sync;

	data = reply_like(total, 3);
	for (i = 0; i < NITEMS(steps); i++)
		for (empty_end = 0; empty_end <= 1; empty_end++) {
			sync = i % 2 == 1 ? DEFLATE_SYNC : DEFLATE_HOLD;
			CHECK((d = deflate_stream_new(1)) != NULL);
			out.n = 0;
			for (off = 0; off < total; off += n) {
				n = total - off < steps[i] ? total - off :
				    steps[i];
				CHECK(deflate_stream_write(d, data + off, n,
				    !empty_end && off + n == total ?
				    DEFLATE_END : sync, &out) == 0);
			}
			if (empty_end)
				CHECK(deflate_stream_write(d, NULL, 0,
				    DEFLATE_END, &out) == 0);
			deflate_stream_free(d);
			back = gunzip(out.p, out.n, &len);
			CHECK(len == total && memcmp(back, data, len) == 0);
			free(back);
		}
	/* What a synced write gave inflates before the member ends: a
	 * streamed reply's client reads each write as it comes. */
	CHECK((d = deflate_stream_new(3)) != NULL);
	out.n = 0;
	CHECK(deflate_stream_write(d, data, 65536, DEFLATE_SYNC, &out) == 0);
	{
		struct limits lim = { .max_inflated = (size_t)1 << 30,
		    .max_inflate_ratio = 100000 };
		struct error err = { 0 };
		struct stream *s = inflate_stream(stream_mem(out.p, out.n),
		    &lim);
		const uint8_t *p;
		size_t got;

		CHECK(stream_peek(s, 65536, &p, &got, &err) == 0);
		CHECK(got == 65536 && memcmp(p, data, got) == 0);
		stream_free(s);
	}
	deflate_stream_free(d);
	/* An empty stream is a valid, empty member. */
	CHECK((d = deflate_stream_new(6)) != NULL);
	out.n = 0;
	CHECK(deflate_stream_write(d, NULL, 0, DEFLATE_END, &out) == 0);
	/* Nothing after the end: bytes are refused, an empty end is none. */
	n = out.n;
	CHECK(deflate_stream_write(d, "x", 1, DEFLATE_HOLD, &out) == -1);
	CHECK(deflate_stream_write(d, "x", 1, DEFLATE_END, &out) == -1);
	CHECK(deflate_stream_write(d, NULL, 0, DEFLATE_END, &out) == 0);
	CHECK(out.n == n);
	deflate_stream_free(d);
	back = gunzip(out.p, out.n, &len);
	CHECK(len == 0);
	free(back);
	deflate_stream_free(NULL);
	buf_free(&out);
	free(data);
}

static void
test_accept(void)
{
	static const struct {
		const char *ae;
		int gzip;
	} c[] = {
		{ NULL, 0 },
		{ "", 0 },
		{ "gzip", 1 },
		{ "GZIP", 1 },
		{ "x-gzip", 1 },
		{ "gzip, deflate, br", 1 },	/* browsers */
		{ "deflate, gzip;q=1.0, *;q=0.5", 1 },
		{ "br;q=1.0, gzip;q=0.8, *;q=0.1", 1 },
		{ "identity", 0 },
		{ "deflate, br", 0 },
		{ "gzip;q=0", 0 },
		{ "gzip; q=0", 0 },
		{ "gzip ;Q=0.000", 0 },
		{ "gzip;q=0.001", 1 },
		{ "gzip;q=0.", 0 },
		{ "gzip;q=1", 1 },
		{ "gzip;q=1.000", 1 },
		/* A qvalue that is not one spoils the member. */
		{ "gzip;q=1.001", 0 },
		{ "gzip;q=2", 0 },
		{ "gzip;q=0.0001", 0 },
		{ "gzip;q=-1", 0 },
		{ "gzip;q=", 0 },
		{ "gzip;q", 0 },
		{ "gzip;q=.5", 0 },
		{ "gzip;q=0.5x", 0 },
		/* "*" stands for codings not named. */
		{ "*", 1 },
		{ "*;q=0.3", 1 },
		{ "*;q=0", 0 },
		{ "gzip;q=0, *", 0 },
		{ "*, gzip;q=0", 0 },
		{ "*;q=0, gzip", 1 },
		{ "deflate, *;q=0", 0 },
		/* Named twice: the higher q. */
		{ "gzip;q=0, gzip;q=0.5", 1 },
		{ "gzip;q=0.5, gzip;q=0", 1 },
		/* Other parameters, quoted values, spaces, empty members. */
		{ "gzip;level=\"a;b,c\";q=0", 0 },
		{ "gzip;level=\"a;b,c\"", 1 },
		{ "gzip;level=\"unterminated", 0 },
		{ " ,, gzip ,", 1 },
		{ "\tgzip\t;\tq=0.5\t", 1 },
		/* Not the coding gzip. */
		{ "gzipp", 0 },
		{ "gzi", 0 },
		{ "gzip/1", 0 },
		{ "\"gzip\"", 0 },
		{ "gzip;=1", 0 },
		{ "gzip q=1", 0 },
		{ "gzip;q=0 x, deflate", 0 },
		{ "deflate;q=0.5 x, gzip", 1 },
	};
	size_t i;

	for (i = 0; i < NITEMS(c); i++)
		if (http_accept_gzip(c[i].ae) != c[i].gzip) {
			fprintf(stderr, "Accept-Encoding \"%s\": want %d\n",
			    c[i].ae ? c[i].ae : "(none)", c[i].gzip);
			exit(1);
		}
}

int
main(void)
{
	test_whole();
	test_stream();
	test_accept();
	printf("test_deflate: %u checks\n", checks);
	return 0;
}
