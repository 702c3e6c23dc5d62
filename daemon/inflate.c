/* inflate.c: bounded gunzip of a whole blob. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "inflate.h"
#include "util.h"

int
inflate_is_gzip(const uint8_t *p, size_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

int
inflate_gzip(const uint8_t *in, size_t inlen, const struct limits *lim,
    uint8_t **out, size_t *outlen, struct error *err)
{
	z_stream z;
	struct buf b = { 0 };
	size_t cap = lim->max_inflated;
	int rc;

	if ((uint64_t)inlen * lim->max_inflate_ratio < cap)
		cap = (size_t)((uint64_t)inlen * lim->max_inflate_ratio);
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return error_set(err, ERR_INTERNAL, "gzip: inflateInit failed");
	z.next_in = (Bytef *)(uintptr_t)in;
	for (;;) {
		size_t used = (size_t)(z.next_in - in);

		z.avail_in = (uInt)(inlen - used > UINT32_MAX ? UINT32_MAX :
		    inlen - used);
		buf_reserve(&b, 64 * 1024);
		z.next_out = b.p + b.n;
		z.avail_out = (uInt)(b.cap - b.n);
		rc = inflate(&z, Z_NO_FLUSH);
		b.n = b.cap - z.avail_out;
		used = (size_t)(z.next_in - in);
		if (b.n > cap) {
			error_set(err, ERR_TOO_LARGE, "gzip: inflated size passes "
			    "%zu bytes (limits: %zu bytes, %u times the %zu "
			    "compressed bytes)", cap, lim->max_inflated,
			    lim->max_inflate_ratio, inlen);
			goto fail;
		}
		if (rc == Z_STREAM_END) {
			if (used == inlen)
				break;
			/* Concatenated members, as gzip(1) writes them. */
			if (!inflate_is_gzip(in + used, inlen - used)) {
				error_set(err, ERR_INPUT, "gzip: %zu bytes of "
				    "trailing garbage at byte %zu",
				    inlen - used, used);
				goto fail;
			}
			inflateReset(&z);
			continue;
		}
		if (rc == Z_BUF_ERROR && used == inlen) {
			error_set(err, ERR_INPUT, "gzip: truncated stream at "
			    "byte %zu", inlen);
			goto fail;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			error_set(err, ERR_INPUT, "gzip: %s at byte %zu",
			    z.msg ? z.msg : "corrupt stream", used);
			goto fail;
		}
	}
	inflateEnd(&z);
	*out = b.p;
	*outlen = b.n;
	return 0;
fail:
	inflateEnd(&z);
	buf_free(&b);
	return -1;
}
