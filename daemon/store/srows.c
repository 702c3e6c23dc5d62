/* srows.c: sample rows in columns: appended, sorted and merged (equal
 * keys summed), filtered, and two sets merged into one; what sblock.c
 * encodes and decodes. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "kv.h"
#include "srows.h"

void
srows_free(struct srows *r)
{
	free(r->tags);
	free(r->ls);
	free(r->cs);
	free(r->bucket);
	free(r->v);
	memset(r, 0, sizeof *r);
}

void
srows_reset(struct srows *r)
{
	r->n = 0;
}

void
srows_grow(struct srows *r, size_t want)
{
	size_t cap = r->cap ? r->cap : 256;

	if (want <= r->cap)
		return;
	while (cap < want)
		cap *= 2;
	r->ls = xreallocarray(r->ls, cap, sizeof *r->ls);
	r->cs = xreallocarray(r->cs, cap, sizeof *r->cs);
	r->bucket = xreallocarray(r->bucket, cap, sizeof *r->bucket);
	r->v = xreallocarray(r->v, cap, (r->ncols ? r->ncols : 1) *
	    sizeof *r->v);
	r->cap = cap;
}

size_t
srows_col(struct srows *r, uint64_t tag)
{
	int64_t *v;
	size_t i, c, nc = r->ncols + 1;

	for (c = 0; c < r->ncols; c++)
		if (r->tags[c] == tag)
			return c;
	r->tags = xreallocarray(r->tags, nc, sizeof *r->tags);
	r->tags[r->ncols] = tag;
	v = xreallocarray(NULL, r->cap ? r->cap : 1, nc * sizeof *v);
	for (i = 0; i < r->n; i++) {
		if (r->ncols > 0)
			memcpy(v + i * nc, r->v + i * r->ncols,
			    r->ncols * sizeof *v);
		v[i * nc + r->ncols] = 0;
	}
	free(r->v);
	r->v = v;
	r->ncols = nc;
	return nc - 1;
}

void
srows_push(struct srows *r, int64_t ls, int64_t cs, int64_t bucket,
    const int64_t *vals)
{
	if (r->n == r->cap)
		srows_grow(r, r->n + 1);
	r->ls[r->n] = ls;
	r->cs[r->n] = cs;
	r->bucket[r->n] = bucket;
	if (r->ncols > 0)
		memcpy(r->v + r->n * r->ncols, vals, r->ncols * sizeof *vals);
	r->n++;
}

static unsigned
bits_of(uint64_t v)
{
	return v == 0 ? 0 : 64 - (unsigned)__builtin_clzll(v);
}

static int
key_cmp2(const struct srows *a, size_t i, const struct srows *b, size_t j)
{
	if (a->ls[i] != b->ls[j])
		return a->ls[i] < b->ls[j] ? -1 : 1;
	if (a->cs[i] != b->cs[j])
		return a->cs[i] < b->cs[j] ? -1 : 1;
	if (a->bucket[i] != b->bucket[j])
		return a->bucket[i] < b->bucket[j] ? -1 : 1;
	return 0;
}

static int
row_cmp(const void *a, const void *b, void *arg)
{
	const struct srows *r = arg;
	size_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = key_cmp2(r, x, r, y);

	if (c != 0)
		return c;
	return x < y ? -1 : x > y;
}

void
srows_sort_merge(struct srows *r)
{
	struct srows spare = { 0 };

	srows_sort_merge_reuse(r, &spare);
	srows_free(&spare);
}

void
srows_sort_merge_reuse(struct srows *r, struct srows *spare)
{
	struct srows o;
	uint64_t *tags;
	struct kv *kv = NULL;
	uint32_t *idx = NULL;
	int64_t lsmax = 0, csmax = 0, bmin, bmax, neg = 0;
	unsigned bl, bc, bb;
	size_t i, j, c, at, nc = r->ncols;

	if (r->n < 2)
		return;
	bmin = bmax = r->bucket[0];
	for (i = 0; i < r->n; i++) {
		neg |= r->ls[i] | r->cs[i];
		if (r->ls[i] > lsmax)
			lsmax = r->ls[i];
		if (r->cs[i] > csmax)
			csmax = r->cs[i];
		if (r->bucket[i] < bmin)
			bmin = r->bucket[i];
		if (r->bucket[i] > bmax)
			bmax = r->bucket[i];
	}
	bl = bits_of((uint64_t)lsmax);
	bc = bits_of((uint64_t)csmax);
	bb = bits_of((uint64_t)bmax - (uint64_t)bmin);
	if (neg >= 0 && bl + bc + bb <= 64 && r->n <= UINT32_MAX) {
		/* The key packed into 64 bits: a radix sort. */
		kv = xreallocarray(NULL, r->n, sizeof *kv);
		for (i = 0; i < r->n; i++) {
			uint64_t k = (uint64_t)r->bucket[i] - (uint64_t)bmin;

			if (bc + bb < 64)
				k |= (uint64_t)r->ls[i] << (bc + bb);
			if (bb < 64)
				k |= (uint64_t)r->cs[i] << bb;
			kv[i].k = k;
			kv[i].v = (int64_t)i;
		}
		kv_sort(kv, r->n);
	} else {
		idx = xreallocarray(NULL, r->n, sizeof *idx);
		for (i = 0; i < r->n; i++)
			idx[i] = (uint32_t)i;
		qsort_r(idx, r->n, sizeof *idx, row_cmp, r);
	}
	/* The sorted rows go to the spare's memory (its columns as r's: a
	 * value array of another width is not reused); r's becomes the
	 * spare. */
	if (spare->ncols != nc)
		srows_free(spare);
	o = *spare;
	o.n = 0;
	o.ncols = nc;
	srows_grow(&o, r->n);
	for (i = 0; i < r->n; i++) {
		j = kv ? (size_t)kv[i].v : idx[i];
		if (o.n > 0 && o.ls[o.n - 1] == r->ls[j] &&
		    o.cs[o.n - 1] == r->cs[j] &&
		    o.bucket[o.n - 1] == r->bucket[j]) {
			at = (o.n - 1) * nc;
			for (c = 0; c < nc; c++)
				o.v[at + c] = (int64_t)((uint64_t)o.v[at + c] +
				    (uint64_t)r->v[j * nc + c]);
			continue;
		}
		o.ls[o.n] = r->ls[j];
		o.cs[o.n] = r->cs[j];
		o.bucket[o.n] = r->bucket[j];
		memcpy(o.v + o.n * nc, r->v + j * nc, nc * sizeof *o.v);
		o.n++;
	}
	free(kv);
	free(idx);
	tags = o.tags;
	o.tags = r->tags;
	*spare = *r;
	spare->n = 0;
	spare->tags = xreallocarray(tags, nc ? nc : 1, sizeof *tags);
	if (nc > 0)
		memcpy(spare->tags, o.tags, nc * sizeof *tags);
	*r = o;
}

void
srows_move_row(struct srows *r, size_t to, size_t from)
{
	size_t nc = r->ncols;

	r->ls[to] = r->ls[from];
	r->cs[to] = r->cs[from];
	r->bucket[to] = r->bucket[from];
	memmove(r->v + to * nc, r->v + from * nc, nc * sizeof *r->v);
}

void
srows_filter(struct srows *r, int (*keep)(void *, const int64_t *, size_t),
    void *arg)
{
	size_t i, out = 0, nc = r->ncols;

	for (i = 0; i < r->n; i++) {
		if (!keep(arg, r->v + i * nc, nc))
			continue;
		if (out != i)
			srows_move_row(r, out, i);
		out++;
	}
	r->n = out;
}

size_t
srows_merge_count(const struct srows *a, const struct srows *b)
{
	size_t i = 0, j = 0, n = 0;
	int cmp;

	while (i < a->n && j < b->n) {
		cmp = key_cmp2(a, i, b, j);
		i += cmp <= 0;
		j += cmp >= 0;
		n++;
	}
	return n + (a->n - i) + (b->n - j);
}

void
srows_merge(struct srows *out, const struct srows *a, const struct srows *b,
    int sign)
{
	size_t i = 0, j = 0, c, k, *bmap, *amap, nc = 0;
	uint64_t *tags;
	int cmp;

	/* The columns of a, then those of b not in a, each mapped to its
	 * place in out, whose memory is reused. */
	amap = xcalloc(a->ncols ? a->ncols : 1, sizeof *amap);
	bmap = xcalloc(b->ncols ? b->ncols : 1, sizeof *bmap);
	tags = xcalloc(a->ncols + b->ncols + 1, sizeof *tags);
	for (c = 0; c < a->ncols; c++) {
		for (k = 0; k < nc && tags[k] != a->tags[c]; k++)
			;
		if (k == nc)
			tags[nc++] = a->tags[c];
		amap[c] = k;
	}
	for (c = 0; c < b->ncols; c++) {
		for (k = 0; k < nc && tags[k] != b->tags[c]; k++)
			;
		if (k == nc)
			tags[nc++] = b->tags[c];
		bmap[c] = k;
	}
	out->n = 0;
	if (out->cap > 0 && nc != out->ncols)
		out->v = xreallocarray(out->v, out->cap, (nc ? nc : 1) *
		    sizeof *out->v);
	free(out->tags);
	out->tags = tags;
	out->ncols = nc;
	srows_grow(out, a->n + b->n);
	while (i < a->n || j < b->n) {
		int64_t *v = out->v + out->n * nc;

		if (i == a->n)
			cmp = 1;
		else if (j == b->n)
			cmp = -1;
		else
			cmp = key_cmp2(a, i, b, j);
		memset(v, 0, nc * sizeof *v);
		if (cmp <= 0) {
			out->ls[out->n] = a->ls[i];
			out->cs[out->n] = a->cs[i];
			out->bucket[out->n] = a->bucket[i];
			for (c = 0; c < a->ncols; c++)
				v[amap[c]] = a->v[i * a->ncols + c];
			i++;
		} else {
			out->ls[out->n] = b->ls[j];
			out->cs[out->n] = b->cs[j];
			out->bucket[out->n] = b->bucket[j];
		}
		if (cmp >= 0) {
			for (c = 0; c < b->ncols; c++)
				v[bmap[c]] = (int64_t)((uint64_t)v[bmap[c]] +
				    (uint64_t)(sign < 0 ?
				    -(uint64_t)b->v[j * b->ncols + c] :
				    (uint64_t)b->v[j * b->ncols + c]));
			j++;
		}
		out->n++;
	}
	free(amap);
	free(bmap);
}
