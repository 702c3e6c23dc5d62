/* test_sblock.c: packed sample rows: sort and merge against a naive
 * oracle, encode/decode round trips (one bucket, many buckets, negative
 * and huge values, empty), merging row sets with different columns,
 * columns without a stream of their own (constants, copies), and
 * that every truncation or flipped byte of a blob is either refused as
 * corrupt or decodes to rows that still hold the block's invariants. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "kv.h"
#include "sblock.h"
#include "srows.h"
#include "testlib.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
rnd(void)
{
	return xorshift64(&rng);
}

struct naive {
	int64_t ls, cs, b, v[3];
};

static int
naive_cmp(const void *a, const void *b)
{
	const struct naive *x = a, *y = b;

	if (x->ls != y->ls)
		return x->ls < y->ls ? -1 : 1;
	if (x->cs != y->cs)
		return x->cs < y->cs ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

/* Random rows into r and into a sorted, merged naive copy. */
static size_t
fill(struct srows *r, struct naive *nv, size_t n, int64_t lsmax,
    int64_t csmax, int64_t b0, int64_t bspan, int wide)
{
	size_t i, out = 0;
	int c;

	srows_free(r);
	srows_col(r, 7);
	srows_col(r, 9);
	srows_col(r, 11);
	for (i = 0; i < n; i++) {
		nv[i].ls = (int64_t)(rnd() % (uint64_t)(lsmax + 1));
		nv[i].cs = (int64_t)(rnd() % (uint64_t)(csmax + 1));
		nv[i].b = b0 + (int64_t)(rnd() % (uint64_t)bspan);
		nv[i].v[0] = (int64_t)(rnd() % 5) * 10000000;
		nv[i].v[1] = (int64_t)(rnd() % 3) - 1;
		nv[i].v[2] = wide ? (int64_t)rnd() : (int64_t)(rnd() % 2);
		srows_push(r, nv[i].ls, nv[i].cs, nv[i].b, nv[i].v);
	}
	qsort(nv, n, sizeof *nv, naive_cmp);
	for (i = 0; i < n; i++) {
		if (out > 0 && naive_cmp(&nv[out - 1], &nv[i]) == 0) {
			for (c = 0; c < 3; c++)
				nv[out - 1].v[c] = (int64_t)((uint64_t)
				    nv[out - 1].v[c] + (uint64_t)nv[i].v[c]);
		} else
			nv[out++] = nv[i];
	}
	return out;
}

static void
same(const struct srows *r, const struct naive *nv, size_t n)
{
	size_t i;
	int c;

	CHECK(r->n == n);
	for (i = 0; i < n; i++) {
		CHECK(r->ls[i] == nv[i].ls && r->cs[i] == nv[i].cs &&
		    r->bucket[i] == nv[i].b);
		for (c = 0; c < 3; c++)
			CHECK(r->v[i * 3 + (size_t)c] == nv[i].v[c]);
	}
}

/* deflated: the blob as stored (sblock_deflate: version 2 when that is
 * smaller), else as encoded. */
static void
roundtrip_one(const struct srows *r, int64_t base, int deflated)
{
	struct buf b = { 0 };
	struct srows back = { 0 };
	struct error err = { 0 };
	struct sblock_dec d;
	size_t i, c;
	int rc, col;

	sblock_encode(r, base, &b);
	if (deflated)
		sblock_deflate(&b);
	CHECK(sblock_decode(b.p, b.n, base, "test block", 1, &back, &err) == 0);
	CHECK(back.n == r->n && back.ncols == r->ncols);
	for (i = 0; i < r->n; i++) {
		CHECK(back.ls[i] == r->ls[i] && back.cs[i] == r->cs[i] &&
		    back.bucket[i] == r->bucket[i]);
		for (c = 0; c < r->ncols; c++)
			CHECK(back.v[i * r->ncols + c] ==
			    r->v[i * r->ncols + c]);
	}
	/* One column only. */
	memset(&d, 0, sizeof d);
	CHECK(sblock_dec_open(&d, b.p, b.n, base, "test block", 1, &err) == 0);
	CHECK(sblock_dec_col(&d, 12345) == -1);
	col = sblock_dec_col(&d, r->ncols ? r->tags[r->ncols - 1] : 0);
	sblock_dec_want(&d, col);
	for (i = 0; (rc = sblock_dec_next(&d, &err)) == 1; i++)
		if (col >= 0)
			CHECK(d.v[col] == r->v[i * r->ncols +
			    (size_t)col]);
	CHECK(rc == 0 && i == r->n);
	/* The decoder opened again, on the same blob. */
	if (r->n > 0) {
		CHECK(sblock_dec_open(&d, b.p, b.n, base, "test block", 1,
		    &err) == 0);
		CHECK(sblock_dec_next(&d, &err) == 1 && d.cs == r->cs[0]);
	}
	sblock_dec_free(&d);
	srows_free(&back);
	buf_free(&b);
}

static void
roundtrip(const struct srows *r, int64_t base)
{
	struct buf b = { 0 };

	roundtrip_one(r, base, 0);
	roundtrip_one(r, base, 1);
	/* Blocks of more than a few rows are stored deflated. */
	sblock_encode(r, base, &b);
	sblock_deflate(&b);
	if (r->n >= 100)
		CHECK(b.n > 0 && b.p[0] == 2);
	buf_free(&b);
}

/* Every prefix and every single-byte change either fails cleanly or gives
 * sorted, unique rows. */
static void
fuzz_one(const struct srows *r, int64_t base, int deflated)
{
	struct buf b = { 0 };
	struct srows back = { 0 };
	struct error err;
	size_t i, k;
	uint8_t *copy;

	sblock_encode(r, base, &b);
	if (deflated)
		sblock_deflate(&b);
	copy = xmalloc(b.n);
	for (i = 0; i < b.n; i++) {
		memset(&err, 0, sizeof err);
		CHECK(sblock_decode(b.p, i, base, "test block", 42, &back, &err) == -1);
		CHECK(err.kind == ERR_INTERNAL && HAS(err.msg, "test block 42"));
	}
	for (i = 0; i < b.n; i++) {
		memcpy(copy, b.p, b.n);
		copy[i] ^= (uint8_t)(1u << (rnd() % 8));
		memset(&err, 0, sizeof err);
		if (sblock_decode(copy, b.n, base, "test block", 42, &back, &err) == -1) {
			CHECK(err.kind == ERR_INTERNAL);
			continue;
		}
		for (k = 1; k < back.n; k++)
			CHECK(back.ls[k - 1] < back.ls[k] ||
			    (back.ls[k - 1] == back.ls[k] &&
			    (back.cs[k - 1] < back.cs[k] ||
			    (back.cs[k - 1] == back.cs[k] &&
			    back.bucket[k - 1] < back.bucket[k]))));
	}
	free(copy);
	srows_free(&back);
	buf_free(&b);
}

static void
fuzz(const struct srows *r, int64_t base)
{
	fuzz_one(r, base, 0);
	fuzz_one(r, base, 1);
}

static void
test_sort_merge(void)
{
	static struct naive nv[20000];
	struct srows r = { 0 };
	size_t n;

	/* Packed keys, radix sorted. */
	n = fill(&r, nv, 20000, 5, 3000, 1700000000, 100, 0);
	srows_sort_merge(&r);
	same(&r, nv, n);
	roundtrip(&r, 1700000000);
	/* One bucket: no bucket in the keys. */
	n = fill(&r, nv, 5000, 2, 400, 77, 1, 1);
	srows_sort_merge(&r);
	same(&r, nv, n);
	roundtrip(&r, 77);
	/* Keys that do not fit 64 bits: the comparison sort. */
	n = fill(&r, nv, 3000, (int64_t)1 << 40, (int64_t)1 << 40, -5000,
	    1 << 30, 1);
	srows_sort_merge(&r);
	same(&r, nv, n);
	roundtrip(&r, r.n ? -5000 : 0);
	/* Few rows: insertion sort. */
	n = fill(&r, nv, 10, 1, 3, 0, 2, 0);
	srows_sort_merge(&r);
	same(&r, nv, n);
	roundtrip(&r, 0);
	/* A block that is stored deflated: every prefix and bit flip of it
	 * (of the deflate stream too) fails cleanly. */
	n = fill(&r, nv, 300, 5, 100, 1700000000, 3, 0);
	srows_sort_merge(&r);
	same(&r, nv, n);
	roundtrip(&r, 1700000000);
	fuzz(&r, 1700000000);
	srows_free(&r);
}

static void
test_values(void)
{
	struct srows r = { 0 };
	int64_t v[2];

	srows_col(&r, 1);
	srows_col(&r, 2);
	v[0] = INT64_MIN;
	v[1] = INT64_MAX;
	srows_push(&r, 0, 0, 5, v);
	v[0] = -10000000;
	v[1] = 20000000;
	srows_push(&r, 0, 1, 5, v);
	v[0] = 0;
	v[1] = -1;
	srows_push(&r, 3, 1, 9, v);
	srows_sort_merge(&r);
	CHECK(r.n == 3);
	roundtrip(&r, 5);
	fuzz(&r, 5);
	/* No rows, no columns. */
	srows_free(&r);
	roundtrip(&r, 0);
	srows_free(&r);
}

static void
test_merge_sets(void)
{
	struct srows a = { 0 }, b = { 0 }, o = { 0 };
	int64_t v[2];

	srows_col(&a, 10);
	srows_col(&a, 11);
	srows_col(&b, 11);
	srows_col(&b, 12);
	v[0] = 1;
	v[1] = 2;
	srows_push(&a, 1, 5, 100, v);
	srows_push(&a, 1, 6, 100, v);
	v[0] = 5;
	v[1] = 7;
	srows_push(&b, 1, 6, 100, v);
	srows_push(&b, 2, 1, 100, v);
	/* Counted without merging: the shared key once. */
	CHECK(srows_merge_count(&a, &b) == 3 && srows_merge_count(&b, &a) ==
	    3 && srows_merge_count(&a, &a) == 2 && srows_merge_count(&o, &b) ==
	    2);
	srows_merge(&o, &a, &b, 1);
	CHECK(srows_merge_count(&o, &o) == o.n);
	CHECK(o.ncols == 3 && o.tags[0] == 10 && o.tags[1] == 11 &&
	    o.tags[2] == 12);
	CHECK(o.n == 3);
	CHECK(o.cs[0] == 5 && o.v[0] == 1 && o.v[1] == 2 && o.v[2] == 0);
	CHECK(o.cs[1] == 6 && o.v[3] == 1 && o.v[4] == 7 && o.v[5] == 7);
	CHECK(o.ls[2] == 2 && o.v[6] == 0 && o.v[7] == 5 && o.v[8] == 7);
	srows_merge(&a, &o, &b, -1);
	CHECK(a.n == 3 && a.v[4] == 2 && a.v[5] == 0 && a.v[7] == 0);
	roundtrip(&a, 100);
	fuzz(&a, 100);
	srows_free(&a);
	srows_free(&b);
	srows_free(&o);
}

/* Columns without a stream of their own (issue 41): a rollup run's row
 * counts, 1 at level 0 (a constant), alike for two metrics (a copy), and
 * a CPU profile's nanoseconds, its sample counts times the period (a copy
 * with another scale).  They read back the same, the blob is smaller by
 * the streams not written, and a blob of them corrupted fails cleanly. */
static void
test_shared_cols(void)
{
	struct srows r = { 0 };
	struct buf b = { 0 }, alone = { 0 };
	int64_t v[5];
	size_t i;

	for (i = 0; i < 5; i++)
		srows_col(&r, 20 + i);
	for (i = 0; i < 400; i++) {
		v[0] = 1;				/* constant */
		v[1] = (int64_t)(rnd() % 4) + 1;	/* its own */
		v[2] = 1;				/* constant */
		v[3] = v[1] * 10000000;			/* v[1]'s stream */
		v[4] = -v[1] * 3;			/* its own (sign) */
		srows_push(&r, (int64_t)(i / 100), (int64_t)i, 60, v);
	}
	srows_sort_merge(&r);
	CHECK(r.n == 400);
	roundtrip(&r, 60);
	fuzz(&r, 60);
	sblock_encode(&r, 60, &b);
	/* (flags: one bucket, shared columns) */
	CHECK(b.p[0] == 1 && b.p[1] == 3);
	/* Not shared: the same rows with a sixth column that differs in
	 * every way from the others, encoded alone. */
	srows_free(&r);
	srows_col(&r, 21);
	for (i = 0; i < 400; i++) {
		v[0] = (int64_t)(i % 4) + 1;
		srows_push(&r, (int64_t)(i / 100), (int64_t)i, 60, v);
	}
	srows_sort_merge(&r);
	sblock_encode(&r, 60, &alone);
	CHECK(alone.p[1] == 1);
	/* Five columns cost the keys and two streams: one stream and
	 * their headers more than one column. */
	CHECK(b.n < alone.n + 400 + 32);
	buf_free(&b);
	buf_free(&alone);
	/* A constant of one row, and negative constants (not shared). */
	srows_free(&r);
	for (i = 0; i < 2; i++)
		srows_col(&r, 30 + i);
	v[0] = 7;
	v[1] = -7;
	srows_push(&r, 0, 1, 0, v);
	roundtrip(&r, 0);
	fuzz(&r, 0);
	srows_free(&r);
}

static void
test_kv(void)
{
	static struct kv a[10000];
	size_t i, n;
	int64_t sum = 0;

	for (i = 0; i < 10000; i++) {
		a[i].k = rnd() % 3000;
		a[i].v = 1;
	}
	n = kv_sort_merge(a, 10000);
	CHECK(n <= 3000);
	for (i = 1; i < n; i++)
		CHECK(a[i - 1].k < a[i].k);
	for (i = 0; i < n; i++)
		sum += a[i].v;
	CHECK(sum == 10000);
}

int
main(void)
{
	test_sort_merge();
	test_values();
	test_merge_sets();
	test_shared_cols();
	test_kv();
	printf("test_sblock: %u checks\n", checks);
	return 0;
}
