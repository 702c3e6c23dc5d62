/* deflate.c: gzip of replies (whole, or as a stream is written), on the
 * worker thread that made them: never on the loop. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "alloc.h"
#include "deflate.h"

/* zlib's windowBits for a gzip header and trailer around the deflate. */
#define DEFLATE_GZIP_BITS	(16 + MAX_WBITS)
/* What a stream's write hands zlib's output through. */
#define DEFLATE_STREAM_OUT	16384

struct deflate_stream {
	z_stream z;
	int ended;		/* the trailer is written */
};

static int
deflate_init(z_stream *z, int level)
{
	memset(z, 0, sizeof *z);
	return deflateInit2(z, level, Z_DEFLATED, DEFLATE_GZIP_BITS, 8,
	    Z_DEFAULT_STRATEGY) == Z_OK ? 0 : -1;
}

int
deflate_gzip(const void *data, size_t len, int level, uint8_t **out,
    size_t *outlen, struct error *err)
{
	z_stream z;
	uLong cap;
	uint8_t *buf;
	int rc;

	*out = NULL;
	*outlen = 0;
	/* One deflate() call: its counts are 32 bits. */
	if (len > (size_t)UINT32_MAX / 2)
		return error_set(err, ERR_TOO_LARGE, "gzip: %zu bytes are "
		    "too many to compress at once", len);
	if (deflate_init(&z, level) == -1)
		return error_set(err, ERR_INTERNAL, "gzip: deflateInit2 "
		    "failed (level %d)", level);
	/* deflateBound leaves no room for the gzip header and trailer. */
	cap = deflateBound(&z, (uLong)len) + 32;
	buf = xmalloc(cap);
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)len;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	*outlen = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(buf);
		*outlen = 0;
		return error_set(err, ERR_INTERNAL, "gzip: deflate failed "
		    "(%d)", rc);
	}
	*out = buf;
	return 0;
}

struct deflate_stream *
deflate_stream_new(int level)
{
	struct deflate_stream *d = xcalloc(1, sizeof *d);

	if (deflate_init(&d->z, level) == -1) {
		free(d);
		return NULL;
	}
	return d;
}

int
deflate_stream_write(struct deflate_stream *d, const void *p, size_t n,
    enum deflate_flush flush, struct buf *out)
{
	static const int zflush[] = { Z_NO_FLUSH, Z_SYNC_FLUSH, Z_FINISH };
	const uint8_t *in = p;
	uInt take;
	int rc, last, finish;

	/* Past the trailer zlib takes nothing (and would be asked forever). */
	if (d->ended)
		return n == 0 ? 0 : -1;
	do {
		/* Counts are 32 bits: a large write goes in pieces. */
		take = n > (1u << 30) ? (1u << 30) : (uInt)n;
		d->z.next_in = (Bytef *)(uintptr_t)in;
		d->z.avail_in = take;
		/* The flush asked for goes with the last piece. */
		last = take == n;
		finish = last && flush == DEFLATE_END;
		do {
			buf_reserve(out, DEFLATE_STREAM_OUT);
			d->z.next_out = out->p + out->n;
			d->z.avail_out = DEFLATE_STREAM_OUT;
			rc = deflate(&d->z, last ? zflush[flush] : Z_NO_FLUSH);
			out->n += DEFLATE_STREAM_OUT - d->z.avail_out;
			if (rc == Z_STREAM_ERROR)
				return -1;
		} while (d->z.avail_out == 0 || d->z.avail_in > 0 ||
		    (finish && rc != Z_STREAM_END));
		if (rc == Z_STREAM_END)
			d->ended = 1;
		if (take == 0)
			break;
		in += take;
		n -= take;
	} while (n > 0);
	return 0;
}

void
deflate_stream_free(struct deflate_stream *d)
{
	if (d == NULL)
		return;
	deflateEnd(&d->z);
	free(d);
}
