/* cschunk.c: the callsite chunk codec (cschunk.h has the format). */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "alloc.h"
#include "buf.h"
#include "cschunk.h"
#include "sblock.h"

/* The first bytes of a packed chunk (a plain one never starts with 0). */
#define CSCHUNK_PACKED	0
#define CSCHUNK_V2	2
/* Smaller chunks stay plain: zlib's header and trailer would eat what
 * deflating them saves. */
#define CSCHUNK_PACK_MIN	64
/* Columns up to this deflate at level 6, larger ones at 1: a series'
 * chunks, merged up to some 20 Ki callsites of ~5 bytes, are what its
 * growth is made of (level 1: 2.4 % larger), and a large import's 64 Ki-
 * callsite chunks (the 40 MB heap profile's: 260 KiB of columns each)
 * are where its time goes (level 1 deflates about three times as fast). */
#define CSCHUNK_DEFLATE_SMALL	(128 * 1024)
/* At most 4 varints of 10 bytes a callsite; zlib inflates at most 1032
 * bytes a byte of stream. */
#define CSCHUNK_MAX_CS_BYTES	40
#define CSCHUNK_INFLATE_RATIO	1032

void
cschunk_push(struct cschunk *c, int64_t id, int64_t parent, int64_t frame,
    int64_t depth)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->id = xreallocarray(c->id, c->cap, sizeof *c->id);
		c->parent = xreallocarray(c->parent, c->cap, sizeof *c->parent);
		c->frame = xreallocarray(c->frame, c->cap, sizeof *c->frame);
		c->depth = xreallocarray(c->depth, c->cap, sizeof *c->depth);
	}
	c->id[c->n] = id;
	c->parent[c->n] = parent;
	c->frame[c->n] = frame;
	c->depth[c->n] = depth;
	c->n++;
}

void
cschunk_free(struct cschunk *c)
{
	free(c->id);
	free(c->parent);
	free(c->frame);
	free(c->depth);
	memset(c, 0, sizeof *c);
}

void
cschunk_enc_start(struct cschunk_enc *e, int64_t first)
{
	e->b.n = 0;
	e->first = first;
	e->last = first - 1;
	e->frame = 0;
	e->n = 0;
}

void
cschunk_enc_add(struct cschunk_enc *e, int64_t id, int64_t parent,
    int64_t frame, int64_t depth)
{
	sblock_put_varint(&e->b, (uint64_t)(id - e->last));
	sblock_put_varint(&e->b, parent ? (uint64_t)(id - parent) : 0);
	if (parent != 0 && parent < e->first)
		sblock_put_varint(&e->b, (uint64_t)depth);
	sblock_put_varint(&e->b, sblock_zigzag((int64_t)((uint64_t)frame -
	    (uint64_t)e->frame)));
	e->last = id;
	e->frame = frame;
	e->n++;
}

void
cschunk_encode(const struct cschunk *c, size_t from, size_t n, struct buf *b)
{
	struct cschunk_enc e;
	size_t i;

	memset(&e, 0, sizeof e);
	e.b = *b;
	cschunk_enc_start(&e, c->id[from]);
	e.b.n = b->n;
	for (i = from; i < from + n; i++)
		cschunk_enc_add(&e, c->id[i], c->parent[i], c->frame[i],
		    c->depth[i]);
	*b = e.b;
}

/* Varints through a pointer, for cschunk_pack: a large import packs
 * millions of callsites, and sblock's buf-checked calls were a third of
 * the packing's time. */
static inline uint8_t *
pk_put(uint8_t *q, uint64_t v)
{
	while (v >= 0x80) {
		*q++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*q++ = (uint8_t)v;
	return q;
}

static inline int
pk_get(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t r = 0;
	unsigned sh = 0;

	while (p < end && sh < 64) {
		r |= (uint64_t)(*p & 0x7f) << sh;
		if ((*p++ & 0x80) == 0) {
			*pp = p;
			*v = r;
			return 0;
		}
		sh += 7;
	}
	return -1;
}

void
cschunk_pack(struct buf *out, const uint8_t *v1, size_t n, int64_t first)
{
	const uint8_t *at = v1, *end = v1 + n;
	int64_t id = first - 1, frame = 0;
	uint8_t *cols = NULL, *q[4];
	size_t len[4], i, hdr, total;
	uLongf zn;
	uint64_t u;

	out->n = 0;
	if (n < CSCHUNK_PACK_MIN)
		goto plain;
	/* One buffer, a region a column: the ids, parents and depths are
	 * the plain chunk's varints (n bytes at most each), a frame id at
	 * most 10 bytes a callsite of 3 bytes or more (4n). */
	cols = xmalloc(7 * n);
	q[0] = cols;
	q[1] = cols + n;
	q[2] = cols + 2 * n;
	q[3] = cols + 3 * n;
	/* The writer's own bytes: anything unexpected keeps them plain. */
	while (at < end) {
		if (pk_get(&at, end, &u) == -1)
			goto plain;
		q[0] = pk_put(q[0], u);
		id += (int64_t)u;
		if (pk_get(&at, end, &u) == -1)
			goto plain;
		q[1] = pk_put(q[1], u);
		if (u != 0 && id - (int64_t)u < first) {
			if (pk_get(&at, end, &u) == -1)
				goto plain;
			q[2] = pk_put(q[2], u);
		}
		if (pk_get(&at, end, &u) == -1)
			goto plain;
		frame = (int64_t)((uint64_t)frame +
		    (uint64_t)sblock_unzigzag(u));
		q[3] = pk_put(q[3], (uint64_t)frame);
	}
	for (i = 0; i < 4; i++)
		len[i] = (size_t)(q[i] - (cols + (i == 0 ? 0 : i * n)));
	memmove(cols + len[0], cols + n, len[1]);
	memmove(cols + len[0] + len[1], cols + 2 * n, len[2]);
	memmove(cols + len[0] + len[1] + len[2], cols + 3 * n, len[3]);
	total = len[0] + len[1] + len[2] + len[3];
	buf_reserve(out, 12 + compressBound((uLong)total));
	out->p[out->n++] = CSCHUNK_PACKED;
	out->p[out->n++] = CSCHUNK_V2;
	sblock_put_varint(out, total);
	hdr = out->n;
	zn = compressBound((uLong)total);
	if (compress2(out->p + hdr, &zn, cols, (uLong)total,
	    total <= CSCHUNK_DEFLATE_SMALL ? 6 : 1) != Z_OK ||
	    hdr + zn >= n)
		goto plain;
	out->n = hdr + zn;
	free(cols);
	return;
plain:
	free(cols);
	out->n = 0;
	buf_add(out, v1, n);
}

ptrdiff_t
cschunk_find(const struct cschunk *c, int64_t id)
{
	size_t lo = 0, hi = c->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->id[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && c->id[lo] == id ? (ptrdiff_t)lo : -1;
}

static int
corrupt(struct error *err, int64_t chunk, size_t at, const char *what)
{
	return error_set(err, ERR_INTERNAL, "store: callsite chunk %lld is "
	    "corrupt at byte %zu: %s", (long long)chunk, at, what);
}

static int
corrupt_col(struct error *err, int64_t chunk, size_t at, const char *what)
{
	return error_set(err, ERR_INTERNAL, "store: callsite chunk %lld is "
	    "corrupt at byte %zu of its inflated columns: %s",
	    (long long)chunk, at, what);
}

/* The packed columns z[0..len) (cschunk.h), checked as a plain chunk. */
static int
decode_cols(struct cschunk *c, const uint8_t *z, size_t len, int64_t first,
    int64_t last, int64_t count, struct error *err)
{
	const uint8_t *at = z, *end = z + len, *start;
	int64_t prev = first - 1, id, parent;
	uint64_t u;
	ptrdiff_t k;
	size_t i, n = (size_t)count;

	for (i = 0; i < n; i++) {
		start = at;
		if (sblock_get_varint(&at, end, &u) == -1)
			return corrupt_col(err, last, (size_t)(start - z),
			    "truncated id");
		if (u == 0 || u > (uint64_t)(last - prev))
			return corrupt_col(err, last, (size_t)(start - z),
			    "id out of order or past last_id");
		prev += (int64_t)u;
		cschunk_push(c, prev, 0, 0, 0);
	}
	for (i = 0; i < n; i++) {
		start = at;
		id = c->id[i];
		if (sblock_get_varint(&at, end, &u) == -1)
			return corrupt_col(err, last, (size_t)(start - z),
			    "truncated parent");
		if (u >= (uint64_t)id)
			return corrupt_col(err, last, (size_t)(start - z),
			    "parent not below its child");
		c->parent[i] = parent = u ? id - (int64_t)u : 0;
		if (parent >= first && cschunk_find(c, parent) < 0)
			return corrupt_col(err, last, (size_t)(start - z),
			    "parent missing from the chunk");
	}
	for (i = 0; i < n; i++) {
		parent = c->parent[i];
		if (parent == 0)
			continue;
		if (parent >= first) {
			k = cschunk_find(c, parent);
			c->depth[i] = c->depth[k] + 1;
			continue;
		}
		start = at;
		if (sblock_get_varint(&at, end, &u) == -1)
			return corrupt_col(err, last, (size_t)(start - z),
			    "truncated depth");
		if (u == 0 || u > INT32_MAX)
			return corrupt_col(err, last, (size_t)(start - z),
			    "bad depth");
		c->depth[i] = (int64_t)u;
	}
	for (i = 0; i < n; i++) {
		start = at;
		if (sblock_get_varint(&at, end, &u) == -1)
			return corrupt_col(err, last, (size_t)(start - z),
			    "truncated frame");
		if (u == 0 || u > INT64_MAX)
			return corrupt_col(err, last, (size_t)(start - z),
			    "frame id not positive");
		c->frame[i] = (int64_t)u;
	}
	if (at != end)
		return corrupt_col(err, last, (size_t)(at - z),
		    "bytes after the frames");
	if (c->id[0] != first || prev != last)
		return corrupt_col(err, last, len, "ids do not span first_id "
		    "to last_id");
	return 0;
}

/* A packed chunk: its columns inflated, then decoded. */
static int
decode_packed(struct cschunk *c, const uint8_t *p, size_t len,
    int64_t first, int64_t last, int64_t count, struct error *err)
{
	const uint8_t *at = p + 2, *end = p + len;
	uint64_t n;
	uLongf got;
	uLong used;
	uint8_t *z;
	int rc;

	if (len < 2 || p[1] != CSCHUNK_V2)
		return corrupt(err, last, 1, "unknown packed version");
	if (sblock_get_varint(&at, end, &n) == -1 || n == 0 ||
	    n / CSCHUNK_MAX_CS_BYTES > (uint64_t)count ||
	    n / CSCHUNK_INFLATE_RATIO > (uint64_t)(end - at))
		return corrupt(err, last, 2, "bad packed length");
	z = xmalloc((size_t)n);
	got = (uLongf)n;
	used = (uLong)(end - at);
	if (uncompress2(z, &got, at, &used) != Z_OK || got != n ||
	    used != (uLong)(end - at)) {
		free(z);
		return corrupt(err, last, (size_t)(at - p),
		    "bad deflate stream");
	}
	rc = decode_cols(c, z, (size_t)n, first, last, count, err);
	free(z);
	return rc;
}

int
cschunk_decode(struct cschunk *c, const uint8_t *p, size_t len,
    int64_t first, int64_t last, int64_t count, struct error *err)
{
	const uint8_t *at = p, *end = p + len, *start;
	int64_t prev, frame = 0, id, parent;
	uint64_t u;
	ptrdiff_t k;

	c->n = 0;
	if (first < 1 || last < first || count < 1 || count - 1 > last - first)
		return corrupt(err, last, 0, "bad id range or count");
	if (len > 0 && p[0] == CSCHUNK_PACKED)
		return decode_packed(c, p, len, first, last, count, err);
	prev = first - 1;
	while (at < end) {
		start = at;
		if ((int64_t)c->n == count)
			return corrupt(err, last, (size_t)(at - p),
			    "more callsites than its count");
		if (sblock_get_varint(&at, end, &u) == -1)
			return corrupt(err, last, (size_t)(start - p),
			    "truncated id");
		if (u == 0 || u > (uint64_t)(last - prev))
			return corrupt(err, last, (size_t)(start - p),
			    "id out of order or past last_id");
		id = prev + (int64_t)u;
		start = at;
		if (sblock_get_varint(&at, end, &u) == -1)
			return corrupt(err, last, (size_t)(start - p),
			    "truncated parent");
		if (u >= (uint64_t)id)
			return corrupt(err, last, (size_t)(start - p),
			    "parent not below its child");
		parent = u ? id - (int64_t)u : 0;
		cschunk_push(c, id, parent, 0, 0);
		if (parent != 0 && parent < first) {
			start = at;
			if (sblock_get_varint(&at, end, &u) == -1)
				return corrupt(err, last, (size_t)(start - p),
				    "truncated depth");
			if (u == 0 || u > INT32_MAX)
				return corrupt(err, last, (size_t)(start - p),
				    "bad depth");
			c->depth[c->n - 1] = (int64_t)u;
		} else if (parent != 0) {
			if ((k = cschunk_find(c, parent)) < 0)
				return corrupt(err, last, (size_t)(start - p),
				    "parent missing from the chunk");
			c->depth[c->n - 1] = c->depth[k] + 1;
		}
		start = at;
		if (sblock_get_varint(&at, end, &u) == -1)
			return corrupt(err, last, (size_t)(start - p),
			    "truncated frame");
		frame = (int64_t)((uint64_t)frame + (uint64_t)sblock_unzigzag(u));
		if (frame < 1)
			return corrupt(err, last, (size_t)(start - p),
			    "frame id not positive");
		c->frame[c->n - 1] = frame;
		prev = id;
	}
	if ((int64_t)c->n != count)
		return corrupt(err, last, len, "fewer callsites than its count");
	if (c->id[0] != first || prev != last)
		return corrupt(err, last, len, "ids do not span first_id to "
		    "last_id");
	return 0;
}
