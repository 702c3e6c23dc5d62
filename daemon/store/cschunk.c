/* cschunk.c: the callsite chunk codec (cschunk.h has the format). */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "cschunk.h"
#include "sblock.h"

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
