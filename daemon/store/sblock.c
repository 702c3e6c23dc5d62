/* sblock.c: the varint encoding of sample rows (srows.c sorts and merges
 * them) and its decoder.
 *
 * Blob format (version 1), all integers unsigned LEB128 varints unless
 * said otherwise:
 *
 *	u8 version (1) | flags | nrows | ncols
 *	ncols x (tag | scale | length of the column's stream)
 *	length of the key stream | key stream | the column streams in order
 *
 * flags bit 0: every row has the bucket base (no bucket in the keys).
 * flags bit 1: a column may have no stream of its own (issue 41): its
 * length is 0 and a varint follows, ref: ref == the column's index,
 * every value is the scale (a rollup run's row counts at level 0, all
 * 1); ref < the index, the column reads the stream of column ref, which
 * has one of its own (a CPU profile's nanoseconds, by the period, are
 * its sample counts; the row counts of two metrics of one profile are
 * alike).  A stream has a byte a row at least, so a length of 0 says it.
 * The key stream holds runs of rows of one label set:
 *
 *	label set - previous run's label set (the first: the label set)
 *	rows in the run
 *	per row: callsite - previous row's callsite (0 at the run's start),
 *	and unless flag 0, the bucket: after a row of the same callsite the
 *	difference to its bucket (> 0), else bucket - base.
 *
 * A column's stream has one zigzag varint per row: value / scale, where
 * scale is the greatest common divisor of the column's values (a CPU
 * profile's nanoseconds are multiples of its period).  Rows are sorted by
 * (label set, callsite, bucket) and unique, which the decoder checks.
 *
 * Version 2 is a version 1 blob deflated (sblock_deflate; zlib format):
 *
 *	u8 version (2) | length of the version 1 blob | zlib stream
 *
 * A drifting CPU profile's block deflates to a third (issue 29: 2.8 kB
 * to 0.94 kB a block; stored as is, such a block took a 4 KiB page of
 * its own).  The decoder inflates it into a buffer of its own. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "alloc.h"
#include "buf.h"
#include "sblock.h"
#include "srows.h"

#define SBLOCK_VERSION	1
#define SBLOCK_DEFLATED	2
/* Smaller blobs are kept as they are: zlib's header and the length
 * would eat most of what deflating them saves. */
#define SBLOCK_DEFLATE_MIN	64
/* Blobs up to this deflate at level 6, larger ones at 1: a small blob's
 * bytes decide how many share a page (a 1-minute CPU profile's block:
 * 944 bytes at 6, four to a 4 KiB page; 1022 at 1, three), a large one
 * fills overflow pages whole, and the importer's time goes with its
 * size (level 1 deflates about three times as fast). */
#define SBLOCK_DEFLATE_SMALL	16384
/* The most a deflate stream inflates to per byte (zlib: 1032:1). */
#define SBLOCK_INFLATE_RATIO	1032
#define SBLOCK_SINGLE	0x1
#define SBLOCK_SHARED	0x2

/* ---- encoding ---- */

static inline void
put_uv(struct buf *b, uint64_t v)
{
	uint8_t *p;

	if (b->cap - b->n < 10)
		buf_reserve(b, 10);
	p = b->p + b->n;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	b->n = (size_t)(p - b->p);
}

static uint64_t
gcd64(uint64_t a, uint64_t b)
{
	uint64_t t;

	while (b != 0) {
		t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static uint64_t
uabs(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

void
sblock_encode(const struct srows *r, int64_t base, struct buf *out)
{
	size_t *cols = xcalloc(r->ncols ? r->ncols : 1, sizeof *cols), c;

	for (c = 0; c < r->ncols; c++)
		cols[c] = c;
	sblock_encode_cols(r, cols, r->ncols, base, out);
	free(cols);
}

/* Which columns need no stream of their own (flags bit 1 above): ref[k]
 * is k for a column whose every value is its scale, the index of an
 * earlier column with the same stream, else SIZE_MAX.  Whether any
 * does. */
static int
cols_share(const struct srows *r, const size_t *sel, size_t nsel,
    const struct buf *cols, size_t *ref)
{
	size_t k, j, i, nc = r->ncols;
	int any = 0;

	for (k = 0; k < nsel; k++) {
		ref[k] = SIZE_MAX;
		for (i = 0; i < r->n && r->v[i * nc + sel[k]] ==
		    r->v[sel[k]]; i++)
			;
		/* (A positive constant is its own scale: every stream
		 * byte is 1, zigzagged.) */
		if (i == r->n && r->v[sel[k]] > 0) {
			ref[k] = k;
			any = 1;
			continue;
		}
		for (j = 0; j < k; j++)
			if (ref[j] == SIZE_MAX && cols[j].n == cols[k].n &&
			    memcmp(cols[j].p, cols[k].p, cols[k].n) == 0) {
				ref[k] = j;
				any = 1;
				break;
			}
	}
	return any;
}

void
sblock_encode_cols(const struct srows *r, const size_t *sel, size_t nsel,
    int64_t base, struct buf *out)
{
	struct buf keys = { 0 }, *cols;
	uint64_t *scale, g;
	int64_t prev_ls = 0, prev_cs = 0, prev_b = 0;
	size_t i, j, c, run, nc = r->ncols, k, *ref;
	int single = 1, shared;
	uint8_t version = SBLOCK_VERSION;

	for (i = 0; i < r->n && single; i++)
		single = r->bucket[i] == base;
	buf_reserve(&keys, r->n * (single ? 2 : 3) + 16);
	for (i = 0; i < r->n; i = j) {
		for (j = i; j < r->n && r->ls[j] == r->ls[i]; j++)
			;
		run = j - i;
		put_uv(&keys, (uint64_t)r->ls[i] - (uint64_t)prev_ls);
		put_uv(&keys, run);
		prev_ls = r->ls[i];
		prev_cs = 0;
		for (c = i; c < j; c++) {
			uint64_t d = (uint64_t)r->cs[c] - (uint64_t)prev_cs;

			put_uv(&keys, d);
			if (!single) {
				if (c > i && d == 0)
					put_uv(&keys, (uint64_t)r->bucket[c] -
					    (uint64_t)prev_b);
				else
					put_uv(&keys, (uint64_t)r->bucket[c] -
					    (uint64_t)base);
			}
			prev_cs = r->cs[c];
			prev_b = r->bucket[c];
		}
	}
	cols = xcalloc(nsel ? nsel : 1, sizeof *cols);
	scale = xcalloc(nsel ? nsel : 1, sizeof *scale);
	for (k = 0; k < nsel; k++) {
		c = sel[k];
		g = 0;
		for (i = 0; i < r->n && g != 1; i++)
			g = gcd64(g, uabs(r->v[i * nc + c]));
		scale[k] = g ? g : 1;
		buf_reserve(&cols[k], r->n + 16);
		for (i = 0; i < r->n; i++) {
			int64_t v = r->v[i * nc + c];
			uint64_t q = uabs(v) / scale[k];

			put_uv(&cols[k], sblock_zigzag(v < 0 ? (int64_t)(0 - q) :
			    (int64_t)q));
		}
	}
	ref = xcalloc(nsel ? nsel : 1, sizeof *ref);
	shared = r->n > 0 && cols_share(r, sel, nsel, cols, ref);
	buf_add(out, &version, 1);
	put_uv(out, (single ? SBLOCK_SINGLE : 0) | (shared ? SBLOCK_SHARED :
	    0));
	put_uv(out, r->n);
	put_uv(out, nsel);
	for (k = 0; k < nsel; k++) {
		put_uv(out, r->tags[sel[k]]);
		put_uv(out, scale[k]);
		if (shared && ref[k] != SIZE_MAX) {
			put_uv(out, 0);
			put_uv(out, ref[k]);
		} else
			put_uv(out, cols[k].n);
	}
	put_uv(out, keys.n);
	buf_add(out, keys.p, keys.n);
	for (k = 0; k < nsel; k++) {
		if (!shared || ref[k] == SIZE_MAX)
			buf_add(out, cols[k].p, cols[k].n);
		buf_free(&cols[k]);
	}
	buf_free(&keys);
	free(cols);
	free(scale);
	free(ref);
}

/* ---- decoding ---- */

static inline int
get_uv(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;

	if (p < end && *p < 0x80) {
		*out = *p;
		*pp = p + 1;
		return 0;
	}
	while (p < end) {
		uint8_t b = *p++;

		if (shift == 63 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return 0;
		}
		shift += 7;
		if (shift > 63)
			return -1;
	}
	return -1;
}

static int
dec_fail(const struct sblock_dec *d, const uint8_t *at, const char *what,
    struct error *err)
{
	return error_set(err, ERR_INTERNAL, "store: %s %lld is corrupt at "
	    "byte %zu: %s", d->what, (long long)d->id,
	    (size_t)(at - d->blob), what);
}

void
sblock_deflate(struct buf *b)
{
	uLongf zn;
	uint8_t *z;
	struct buf out = { 0 };

	if (b->n < SBLOCK_DEFLATE_MIN || b->p[0] != SBLOCK_VERSION)
		return;
	zn = compressBound((uLong)b->n);
	buf_reserve(&out, 11 + zn);
	out.p[out.n++] = SBLOCK_DEFLATED;
	put_uv(&out, b->n);
	z = out.p + out.n;
	if (compress2(z, &zn, b->p, (uLong)b->n, b->n <= SBLOCK_DEFLATE_SMALL ?
	    6 : 1) != Z_OK ||
	    out.n + zn >= b->n) {
		buf_free(&out);
		return;
	}
	out.n += zn;
	buf_free(b);
	*b = out;
}

/* A version 2 blob inflated into d->z: the version 1 blob in *blob and
 * *len, else -1. */
static int
dec_inflate(struct sblock_dec *d, const void **blob, size_t *len,
    struct error *err)
{
	const uint8_t *p = (const uint8_t *)*blob + 1, *end = p + *len - 1;
	uint64_t n;
	uLongf got;

	if (get_uv(&p, end, &n) == -1 || n == 0 ||
	    n / SBLOCK_INFLATE_RATIO > (uint64_t)(end - p) || n > SIZE_MAX / 2)
		return dec_fail(d, p, "bad deflated length", err);
	if (n > d->zcap) {
		free(d->z);
		d->z = xmalloc((size_t)n);
		d->zcap = (size_t)n;
	}
	got = (uLongf)n;
	if (uncompress(d->z, &got, p, (uLong)(end - p)) != Z_OK ||
	    got != n)
		return dec_fail(d, p, "bad deflate stream", err);
	*blob = d->z;
	*len = (size_t)n;
	return 0;
}

int
sblock_dec_open(struct sblock_dec *d, const void *blob, size_t len,
    int64_t base, const char *what, int64_t id, struct error *err)
{
	const uint8_t *p, *end;
	uint64_t flags, nrows, ncols, tag, scale, clen, klen, ref;
	size_t c, rest;

	d->blob = blob;
	d->what = what;
	d->id = id;
	d->ncols = 0;
	if (len >= 1 && ((const uint8_t *)blob)[0] == SBLOCK_DEFLATED &&
	    dec_inflate(d, &blob, &len, err) == -1)
		return -1;
	p = blob;
	end = p + len;
	d->blob = p;
	d->what = what;
	d->id = id;
	d->base = base;
	d->row = d->run_left = 0;
	d->ls = d->cs = 0;
	d->bucket = base;
	d->first_in_run = 1;
	d->ncols = 0;
	if (len < 1 || p[0] != SBLOCK_VERSION)
		return dec_fail(d, p, "unknown version", err);
	p++;
	if (get_uv(&p, end, &flags) == -1 ||
	    (flags & ~(uint64_t)(SBLOCK_SINGLE | SBLOCK_SHARED)) != 0 ||
	    get_uv(&p, end, &nrows) == -1 || get_uv(&p, end, &ncols) == -1 ||
	    ncols > len || nrows > len)
		return dec_fail(d, p, "bad header", err);
	d->single = (flags & SBLOCK_SINGLE) != 0;
	d->nrows = (size_t)nrows;
	if (ncols > d->capcols) {
		d->cols = xreallocarray(d->cols, ncols, sizeof *d->cols);
		d->v = xreallocarray(d->v, ncols, sizeof *d->v);
		d->capcols = ncols;
	}
	d->ncols = (size_t)ncols;
	rest = 0;
	for (c = 0; c < d->ncols; c++) {
		if (get_uv(&p, end, &tag) == -1 ||
		    get_uv(&p, end, &scale) == -1 || scale == 0 ||
		    get_uv(&p, end, &clen) == -1 || clen > len)
			return dec_fail(d, p, "bad column header", err);
		d->cols[c].tag = tag;
		d->cols[c].scale = scale;
		d->cols[c].want = 0;
		d->cols[c].p = NULL;
		d->cols[c].end = (const uint8_t *)(uintptr_t)clen;
		d->cols[c].ref = c;
		d->v[c] = 0;
		rest += (size_t)clen;
		if (clen > 0 || !(flags & SBLOCK_SHARED))
			continue;
		/* No stream of its own: a constant, or another's. */
		if (get_uv(&p, end, &ref) == -1 || ref > c || (ref < c &&
		    d->cols[ref].ref != ref) || (ref < c &&
		    d->cols[ref].end == NULL))
			return dec_fail(d, p, "bad column reference", err);
		d->cols[c].ref = (size_t)ref;
	}
	if (get_uv(&p, end, &klen) == -1 || klen > (uint64_t)(end - p) ||
	    rest != (size_t)(end - p) - (size_t)klen)
		return dec_fail(d, p, "stream lengths do not add up", err);
	d->k = p;
	d->kend = p + klen;
	p = d->kend;
	for (c = 0; c < d->ncols; c++) {
		struct sblock_col *col = &d->cols[c];

		col->konst = 0;
		if (col->ref < c) {
			col->p = d->cols[col->ref].p;
			col->end = d->cols[col->ref].end;
			continue;
		}
		clen = (uint64_t)(uintptr_t)col->end;
		/* A constant (its own reference, no stream): reads as
		 * its scale. */
		col->konst = clen == 0 && (flags & SBLOCK_SHARED) &&
		    d->nrows > 0;
		col->p = p;
		col->end = p + clen;
		p += clen;
	}
	return 0;
}

void
sblock_dec_free(struct sblock_dec *d)
{
	free(d->cols);
	free(d->v);
	free(d->z);
	memset(d, 0, sizeof *d);
}

int
sblock_dec_col(const struct sblock_dec *d, uint64_t tag)
{
	size_t c;

	for (c = 0; c < d->ncols; c++)
		if (d->cols[c].tag == tag)
			return (int)c;
	return -1;
}

void
sblock_dec_want(struct sblock_dec *d, int col)
{
	if (col >= 0 && (size_t)col < d->ncols)
		d->cols[col].want = 1;
}

void
sblock_dec_want_all(struct sblock_dec *d)
{
	size_t c;

	for (c = 0; c < d->ncols; c++)
		d->cols[c].want = 1;
}

int
sblock_dec_next(struct sblock_dec *d, struct error *err)
{
	uint64_t u, b;
	size_t c;

	if (d->row == d->nrows) {
		if (d->k != d->kend || d->run_left != 0)
			return dec_fail(d, d->k, "bytes after the last row",
			    err);
		for (c = 0; c < d->ncols; c++)
			if (d->cols[c].want && d->cols[c].p != d->cols[c].end)
				return dec_fail(d, d->cols[c].p, "values after "
				    "the last row", err);
		return 0;
	}
	if (d->run_left == 0) {
		if (get_uv(&d->k, d->kend, &u) == -1 ||
		    (d->row > 0 && u == 0) ||
		    (uint64_t)d->ls + u > INT64_MAX)
			return dec_fail(d, d->k, "bad label set", err);
		d->ls += (int64_t)u;
		if (get_uv(&d->k, d->kend, &u) == -1 || u == 0 ||
		    u > d->nrows - d->row)
			return dec_fail(d, d->k, "bad run length", err);
		d->run_left = (size_t)u;
		d->cs = 0;
		d->first_in_run = 1;
	}
	if (get_uv(&d->k, d->kend, &u) == -1 ||
	    (uint64_t)d->cs + u > INT64_MAX)
		return dec_fail(d, d->k, "bad callsite", err);
	d->cs += (int64_t)u;
	if (!d->single) {
		if (get_uv(&d->k, d->kend, &b) == -1)
			return dec_fail(d, d->k, "bad bucket", err);
		if (!d->first_in_run && u == 0) {
			if (b == 0)
				return dec_fail(d, d->k, "rows out of order",
				    err);
			d->bucket = (int64_t)((uint64_t)d->bucket + b);
		} else
			d->bucket = (int64_t)((uint64_t)d->base + b);
	} else if (!d->first_in_run && u == 0)
		return dec_fail(d, d->k, "rows out of order", err);
	d->first_in_run = 0;
	d->run_left--;
	d->row++;
	for (c = 0; c < d->ncols; c++) {
		struct sblock_col *col = &d->cols[c];

		if (!col->want)
			continue;
		if (col->konst) {
			d->v[c] = (int64_t)col->scale;
			continue;
		}
		if (get_uv(&col->p, col->end, &u) == -1)
			return dec_fail(d, col->p, "bad value", err);
		d->v[c] = (int64_t)((uint64_t)sblock_unzigzag(u) * col->scale);
	}
	return 1;
}

int
sblock_decode(const void *blob, size_t len, int64_t base, const char *what,
    int64_t id, struct srows *r, struct error *err)
{
	struct sblock_dec d;
	size_t c;
	int rc;

	memset(&d, 0, sizeof d);
	srows_free(r);
	if (sblock_dec_open(&d, blob, len, base, what, id, err) == -1) {
		sblock_dec_free(&d);
		return -1;
	}
	for (c = 0; c < d.ncols; c++)
		srows_col(r, d.cols[c].tag);
	sblock_dec_want_all(&d);
	srows_grow(r, d.nrows);
	while ((rc = sblock_dec_next(&d, err)) == 1)
		srows_push(r, d.ls, d.cs, d.bucket, d.v);
	sblock_dec_free(&d);
	return rc;
}

void
sblock_put_varint(struct buf *b, uint64_t v)
{
	put_uv(b, v);
}

int
sblock_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	return get_uv(p, end, v);
}

int
sblock_varints_have(const void *p, size_t n, uint64_t v)
{
	const uint8_t *c = p, *end = c + n;
	uint64_t x;

	while (c < end && get_uv(&c, end, &x) == 0)
		if (x == v)
			return 1;
	return 0;
}
