/* inflate.c: gunzip as a stream source. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "alloc.h"
#include "inflate.h"

/* The ratio bound applies once this much has been inflated: tiny inputs
 * (a few hundred bytes of a sparse profile) legitimately inflate a lot. */
#define INFLATE_RATIO_FLOOR	(1u << 20)

struct gunzip {
	struct stream *in;
	z_stream z;
	const struct limits *limits;
	uint64_t out_total;
	int done, member_ended;
};

int
inflate_is_gzip(const uint8_t *p, size_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

static ssize_t
gunzip_read(void *ctx, uint8_t *buf, size_t n, struct error *err)
{
	struct gunzip *g = ctx;
	const uint8_t *p;
	size_t got;
	int rc;

	if (g->done || n == 0)
		return 0;
	g->z.next_out = buf;
	g->z.avail_out = (uInt)(n > (1u << 30) ? (1u << 30) : n);
	while (g->z.avail_out > 0) {
		if (stream_some(g->in, &p, &got, err) == -1)
			return -1;
		if (g->member_ended) {
			/* Another member follows, or the input ends. */
			if (got == 0) {
				g->done = 1;
				break;
			}
			if (!inflate_is_gzip(p, got))
				return error_set(err, ERR_INPUT, "gzip: %zu "
				    "bytes of trailing garbage at byte %llu",
				    got, (unsigned long long)stream_offset(g->in));
			inflateReset(&g->z);
			g->member_ended = 0;
		}
		if (got == 0)
			return error_set(err, ERR_INPUT, "gzip: the input ends "
			    "inside the compressed stream at byte %llu",
			    (unsigned long long)stream_offset(g->in));
		g->z.next_in = (Bytef *)(uintptr_t)p;
		g->z.avail_in = (uInt)got;
		rc = inflate(&g->z, Z_NO_FLUSH);
		if (stream_take(g->in, got - g->z.avail_in, &p, "gzip",
		    err) == -1)
			return -1;
		if (rc == Z_STREAM_END)
			g->member_ended = 1;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			return error_set(err, ERR_INPUT, "gzip: %s at byte %llu",
			    g->z.msg ? g->z.msg : "corrupt data",
			    (unsigned long long)stream_offset(g->in));
		if (rc == Z_BUF_ERROR && got - g->z.avail_in == 0 &&
		    g->z.avail_out > 0)
			return error_set(err, ERR_INPUT, "gzip: no progress at "
			    "byte %llu", (unsigned long long)stream_offset(g->in));
		if ((size_t)(g->z.next_out - buf) > 0 && rc != Z_STREAM_END)
			break;
	}
	got = (size_t)(g->z.next_out - buf);
	g->out_total += got;
	if (g->out_total > g->limits->max_inflated)
		return error_set(err, ERR_TOO_LARGE, "gzip: the inflated data "
		    "passes the limit of %zu bytes", g->limits->max_inflated);
	if (g->out_total > INFLATE_RATIO_FLOOR && g->out_total >
	    (uint64_t)g->limits->max_inflate_ratio * stream_offset(g->in))
		return error_set(err, ERR_TOO_LARGE, "gzip: the data inflates "
		    "more than %u times (%llu bytes from %llu)",
		    g->limits->max_inflate_ratio,
		    (unsigned long long)g->out_total,
		    (unsigned long long)stream_offset(g->in));
	return (ssize_t)got;
}

static void
gunzip_close(void *ctx)
{
	struct gunzip *g = ctx;

	inflateEnd(&g->z);
	stream_free(g->in);
	free(g);
}

struct stream *
inflate_stream(struct stream *in, const struct limits *limits)
{
	struct gunzip *g = xcalloc(1, sizeof *g);
	struct stream_source src = { gunzip_read, gunzip_close, g };

	g->in = in;
	g->limits = limits;
	if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK)
		abort();
	return stream_new(&src);
}
