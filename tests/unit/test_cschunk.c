/* test_cschunk.c: the callsite chunk codec (cschunk.c): random prefix
 * trees (parents in and out of the chunk, gaps in the ids, large frame
 * jumps both ways) round trip with their depths; every corruption named
 * in cschunk.h is refused with the chunk and the byte in the message; and
 * every truncation or flipped byte of a blob is refused or decodes to
 * callsites that still hold the chunk's invariants.  The same for packed
 * chunks (cschunk_pack: columns, deflated; issue 41), which decode to
 * the callsites of the plain chunk they were packed from. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "buf.h"
#include "cschunk.h"
#include "nitems.h"
#include "sblock.h"
#include "testlib.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t
rnd(void)
{
	return xorshift64(&rng);
}

/* n callsites from first on (gaps of up to 3), parents earlier in the
 * chunk, a root, or below first with a depth of their own. */
static void
make_tree(struct cschunk *c, int64_t first, size_t n)
{
	int64_t id = first, parent, depth, frame = 1 + (int64_t)(rnd() % 1000);
	size_t i, k;

	c->n = 0;
	for (i = 0; i < n; i++) {
		switch (rnd() % 4) {
		case 0:
			parent = 0;
			depth = 0;
			break;
		case 1:
			if (first > 1) {
				parent = 1 + (int64_t)(rnd() % (uint64_t)(first -
				    1));
				depth = 1 + (int64_t)(rnd() % 200);
				break;
			}
			/* FALLTHROUGH */
		default:
			if (i == 0) {
				parent = 0;
				depth = 0;
				break;
			}
			k = (size_t)(rnd() % i);
			parent = c->id[k];
			depth = c->depth[k] + 1;
		}
		if (rnd() % 16 == 0)
			frame = 1 + (int64_t)(rnd() % 5000000000ULL);
		else
			frame = frame + 1 > 1 && rnd() % 2 ? frame + 1 : frame;
		cschunk_push(c, id, parent, frame, depth);
		id += 1 + (int64_t)(rnd() % 3 == 0 ? rnd() % 3 : 0);
	}
}

static int
same(const struct cschunk *a, const struct cschunk *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->id[i] != b->id[i] || a->parent[i] != b->parent[i] ||
		    a->frame[i] != b->frame[i] || a->depth[i] != b->depth[i])
			return 0;
	return 1;
}

static void
test_round_trip(void)
{
	struct cschunk c = { 0 }, d = { 0 };
	struct buf b = { 0 };
	struct error err = { 0 };
	size_t sizes[] = { 1, 2, 3, 17, 256, 5000 }, i, t;
	int64_t firsts[] = { 1, 2, 1000, 4000000000LL };

	for (t = 0; t < 40; t++)
		for (i = 0; i < NITEMS(sizes); i++) {
			make_tree(&c, firsts[t % NITEMS(firsts)], sizes[i]);
			b.n = 0;
			cschunk_encode(&c, 0, c.n, &b);
			CHECK(cschunk_decode(&d, b.p, b.n, c.id[0],
			    c.id[c.n - 1], (int64_t)c.n, &err) == 0);
			CHECK(same(&c, &d));
			CHECK(cschunk_find(&d, c.id[c.n / 2]) ==
			    (ptrdiff_t)(c.n / 2));
			CHECK(cschunk_find(&d, c.id[0] - 1) == -1);
		}
	/* A part of a chunk: its parents before it are out of the part. */
	make_tree(&c, 10, 300);
	b.n = 0;
	cschunk_encode(&c, 100, 50, &b);
	CHECK(cschunk_decode(&d, b.p, b.n, c.id[100], c.id[149], 50,
	    &err) == 0);
	for (i = 0; i < 50; i++)
		CHECK(d.id[i] == c.id[100 + i] && d.depth[i] ==
		    c.depth[100 + i] && d.parent[i] == c.parent[100 + i]);
	/* A typical chain (each the child of the previous, frames one
	 * apart) takes 3 bytes a callsite. */
	c.n = 0;
	for (i = 0; i < 1000; i++)
		cschunk_push(&c, 1 + (int64_t)i, (int64_t)i, 1 + (int64_t)i,
		    (int64_t)i);
	b.n = 0;
	cschunk_encode(&c, 0, c.n, &b);
	CHECK(b.n == 3000);
	cschunk_free(&c);
	cschunk_free(&d);
	buf_free(&b);
}

/* The blob of the varints given, decoded as chunk 7: refused, naming the
 * chunk, the byte at and what. */
static void
refused(const uint64_t *v, size_t nv, int64_t first, int64_t last,
    int64_t count, size_t at, const char *what)
{
	struct buf b = { 0 };
	struct cschunk d = { 0 };
	struct error err = { 0 };
	char want[64];
	size_t i;

	for (i = 0; i < nv; i++)
		sblock_put_varint(&b, v[i]);
	CHECK(cschunk_decode(&d, b.p, b.n, first, last, count, &err) == -1);
	snprintf(want, sizeof want, "callsite chunk %lld is corrupt at byte "
	    "%zu", (long long)last, at);
	if (!HAS(err.msg, want) || !HAS(err.msg, what)) {
		fprintf(stderr, "got \"%s\", want \"%s\" and \"%s\"\n",
		    err.msg, want, what);
		CHECK(0);
	}
	cschunk_free(&d);
	buf_free(&b);
}

static void
test_corrupt(void)
{
	/* Two callsites 5 (root, frame 3) and 6 (child of 5, frame 4). */
	const uint64_t ok[] = { 1, 0, 6, 1, 1, 2 };
	const uint64_t parent_up[] = { 1, 0, 6, 1, 6, 2 };
	const uint64_t parent_gone[] = { 1, 0, 6, 2, 1, 2 };
	const uint64_t past[] = { 2, 0, 6 };
	const uint64_t no_frame[] = { 1, 0, 6, 1, 1, 5 };
	const uint64_t zero_step[] = { 1, 0, 6, 0, 1, 2 };
	const uint64_t zero_depth[] = { 1, 0, 6, 1, 3, 0, 2 };
	struct cschunk d = { 0 };
	struct error err = { 0 };
	uint8_t blob[] = { 1, 0, 6, 1, 1, 2 };
	size_t n;

	CHECK(cschunk_decode(&d, blob, sizeof blob, 5, 6, 2, &err) == 0);
	CHECK(d.n == 2 && d.id[1] == 6 && d.parent[1] == 5 &&
	    d.frame[1] == 4 && d.depth[1] == 1 && d.parent[0] == 0);
	refused(ok, 6, 0, 6, 2, 0, "bad id range");
	refused(ok, 6, 7, 6, 2, 0, "bad id range");
	refused(ok, 6, 5, 6, 3, 0, "bad id range");
	refused(ok, 6, 5, 6, 0, 0, "bad id range");
	refused(ok, 6, 5, 7, 2, 6, "do not span");
	refused(ok, 6, 4, 6, 2, 6, "do not span");
	refused(ok, 6, 5, 9, 3, 6, "fewer callsites");
	refused(past, 3, 5, 5, 1, 0, "past last_id");
	refused(ok, 6, 5, 6, 1, 3, "more callsites");
	refused(zero_step, 6, 5, 6, 2, 3, "out of order");
	refused(parent_up, 6, 5, 6, 2, 4, "parent not below");
	refused(parent_gone, 6, 5, 7, 2, 4, "parent missing");
	refused(no_frame, 6, 5, 6, 2, 5, "frame id not positive");
	refused(zero_depth, 7, 5, 6, 2, 5, "bad depth");
	/* Cut anywhere: refused. */
	for (n = 0; n < sizeof blob; n++) {
		error_clear(&err);
		CHECK(cschunk_decode(&d, blob, n, 5, 6, 2, &err) == -1);
		CHECK(HAS(err.msg, "callsite chunk 6"));
	}
	/* A varint running off the end. */
	blob[5] = 0x80;
	error_clear(&err);
	CHECK(cschunk_decode(&d, blob, sizeof blob, 5, 6, 2, &err) == -1);
	CHECK(HAS(err.msg, "byte 5: truncated frame"));
	cschunk_free(&d);
}

/* Every bit of b (the row of chunk c) flipped in turn: the row refused
 * with an error naming it, or decoded to callsites within its bounds,
 * ids rising, each parent before its child and one level above it. */
static void
flips_check(const struct cschunk *c, struct buf *b)
{
	struct cschunk d = { 0 };
	struct error err = { 0 };
	size_t i, k, bit;
	ptrdiff_t p;

	for (i = 0; i < b->n; i++)
		for (bit = 0; bit < 8; bit++) {
			b->p[i] ^= (uint8_t)(1u << bit);
			error_clear(&err);
			if (cschunk_decode(&d, b->p, b->n, c->id[0],
			    c->id[c->n - 1], (int64_t)c->n, &err) == 0) {
				CHECK(d.n == c->n && d.id[0] == c->id[0] &&
				    d.id[d.n - 1] == c->id[c->n - 1]);
				for (k = 0; k < d.n; k++) {
					CHECK(d.frame[k] > 0 &&
					    d.parent[k] < d.id[k]);
					CHECK(k == 0 || d.id[k] > d.id[k - 1]);
					if (d.parent[k] >= d.id[0]) {
						p = cschunk_find(&d,
						    d.parent[k]);
						CHECK(p >= 0 && d.depth[k] ==
						    d.depth[p] + 1);
					}
				}
			} else
				CHECK(HAS(err.msg, "callsite chunk"));
			b->p[i] ^= (uint8_t)(1u << bit);
		}
	cschunk_free(&d);
}

/* Every flipped byte: refused, or callsites within the row's bounds. */
static void
test_flips(void)
{
	struct cschunk c = { 0 };
	struct buf b = { 0 };

	make_tree(&c, 50, 200);
	cschunk_encode(&c, 0, c.n, &b);
	flips_check(&c, &b);
	cschunk_free(&c);
	buf_free(&b);
}

/* c encoded plain, then packed into pk; decodes to c again. */
static void
pack_round_trip(const struct cschunk *c, struct buf *plain, struct buf *pk)
{
	struct cschunk d = { 0 };
	struct error err = { 0 };

	plain->n = 0;
	cschunk_encode(c, 0, c->n, plain);
	cschunk_pack(pk, plain->p, plain->n, c->id[0]);
	CHECK(pk->n <= plain->n);
	CHECK(cschunk_decode(&d, pk->p, pk->n, c->id[0], c->id[c->n - 1],
	    (int64_t)c->n, &err) == 0);
	CHECK(same(c, &d));
	cschunk_free(&d);
}

static void
test_packed(void)
{
	struct cschunk c = { 0 }, part = { 0 };
	struct buf plain = { 0 }, pk = { 0 };
	size_t sizes[] = { 1, 2, 3, 17, 256, 5000 }, i, t, k;
	int64_t firsts[] = { 1, 2, 1000, 4000000000LL };

	for (t = 0; t < 20; t++)
		for (i = 0; i < NITEMS(sizes); i++) {
			make_tree(&c, firsts[t % NITEMS(firsts)], sizes[i]);
			pack_round_trip(&c, &plain, &pk);
		}
	/* Too small to gain: kept plain (its first byte, the first id's
	 * difference, is 1). */
	make_tree(&c, 5, 3);
	pack_round_trip(&c, &plain, &pk);
	CHECK(pk.n == plain.n && pk.p[0] == 1);
	/* A part whose parents are in an older chunk: depths of their own. */
	make_tree(&c, 10, 3000);
	for (i = 1000; i < 2000; i++)
		cschunk_push(&part, c.id[i], c.parent[i], c.frame[i],
		    c.depth[i]);
	pack_round_trip(&part, &plain, &pk);
	/* What a series brings: the same call chains under other parents
	 * (50 chains of 30 frames, each under a root of its own or under an
	 * older callsite) pack to much less than their plain 3+ bytes a
	 * callsite. */
	c.n = 0;
	for (t = 0; t < 50; t++)
		for (k = 0; k < 30; k++) {
			int64_t id = 100 + (int64_t)(t * 30 + k);

			cschunk_push(&c, id, k ? id - 1 : (t % 2 ? 0 : 7 +
			    (int64_t)t), 1000 + (int64_t)(k * 37 % 101),
			    k ? (int64_t)k + (t % 2 ? 0 : 4) : (t % 2 ? 0 : 4));
		}
	pack_round_trip(&c, &plain, &pk);
	CHECK(pk.p[0] == 0 && pk.p[1] == 2);
	CHECK(pk.n * 4 < plain.n);
	cschunk_free(&c);
	cschunk_free(&part);
	buf_free(&plain);
	buf_free(&pk);
}

/* A packed blob of the column varints given (deflated as they are), or
 * with the zlib stream's bytes changed by hand. */
static void
packed_blob(struct buf *b, const uint64_t *v, size_t nv)
{
	struct buf cols = { 0 };
	uLongf zn;
	size_t i;

	for (i = 0; i < nv; i++)
		sblock_put_varint(&cols, v[i]);
	b->n = 0;
	buf_add(b, "\0\2", 2);
	sblock_put_varint(b, cols.n);
	zn = compressBound((uLong)cols.n);
	buf_reserve(b, b->n + zn);
	CHECK(compress2(b->p + b->n, &zn, cols.p, (uLong)cols.n, 6) == Z_OK);
	b->n += zn;
	buf_free(&cols);
}

static void
packed_refused(const struct buf *b, int64_t first, int64_t last,
    int64_t count, const char *what)
{
	struct cschunk d = { 0 };
	struct error err = { 0 };
	char want[64];

	CHECK(cschunk_decode(&d, b->p, b->n, first, last, count, &err) == -1);
	snprintf(want, sizeof want, "callsite chunk %lld is corrupt",
	    (long long)last);
	if (!HAS(err.msg, want) || !HAS(err.msg, what)) {
		fprintf(stderr, "got \"%s\", want \"%s\"\n", err.msg, what);
		CHECK(0);
	}
	cschunk_free(&d);
}

static void
test_packed_corrupt(void)
{
	/* Callsites 5 (root, frame 3) and 6 (child of 5, frame 4), as
	 * columns: ids, parents, (no depths), frames. */
	const uint64_t ok[] = { 1, 1, 0, 1, 3, 4 };
	const uint64_t extra[] = { 1, 1, 0, 1, 3, 4, 9 };
	const uint64_t short_[] = { 1, 1, 0, 1, 3 };
	const uint64_t zero_frame[] = { 1, 1, 0, 1, 3, 0 };
	const uint64_t parent_up[] = { 1, 1, 0, 6, 3, 4 };
	const uint64_t parent_gone[] = { 1, 2, 0, 1, 3, 4 };
	const uint64_t out_depth[] = { 1, 1, 0, 3, 0, 3, 4 };
	struct cschunk d = { 0 };
	struct error err = { 0 };
	struct buf b = { 0 };
	size_t n;

	packed_blob(&b, ok, NITEMS(ok));
	CHECK(cschunk_decode(&d, b.p, b.n, 5, 6, 2, &err) == 0);
	CHECK(d.n == 2 && d.id[1] == 6 && d.parent[1] == 5 &&
	    d.frame[0] == 3 && d.frame[1] == 4 && d.depth[1] == 1);
	packed_refused(&b, 4, 6, 2, "do not span");
	/* Cut anywhere, a byte added, another version: refused. */
	for (n = 0; n < b.n; n++) {
		error_clear(&err);
		CHECK(cschunk_decode(&d, b.p, n, 5, 6, 2, &err) == -1);
		CHECK(HAS(err.msg, "callsite chunk 6"));
	}
	buf_add(&b, "x", 1);
	packed_refused(&b, 5, 6, 2, "bad deflate stream");
	b.n--;
	b.p[2] = 0;
	packed_refused(&b, 5, 6, 2, "bad packed length");
	b.p[1] = 3;
	packed_refused(&b, 5, 6, 2, "unknown packed version");
	packed_blob(&b, extra, NITEMS(extra));
	packed_refused(&b, 5, 6, 2, "byte 6 of its inflated columns: bytes "
	    "after the frames");
	packed_blob(&b, short_, NITEMS(short_));
	packed_refused(&b, 5, 6, 2, "truncated frame");
	packed_blob(&b, zero_frame, NITEMS(zero_frame));
	packed_refused(&b, 5, 6, 2, "frame id not positive");
	packed_blob(&b, parent_up, NITEMS(parent_up));
	packed_refused(&b, 5, 6, 2, "parent not below");
	packed_blob(&b, parent_gone, NITEMS(parent_gone));
	packed_refused(&b, 5, 7, 2, "parent missing");
	/* 6's parent 3 is below the chunk: its depth 0 is refused. */
	packed_blob(&b, out_depth, NITEMS(out_depth));
	packed_refused(&b, 5, 6, 2, "bad depth");
	cschunk_free(&d);
	buf_free(&b);
}

/* Every flipped byte of a packed chunk: refused, or within its bounds. */
static void
test_packed_flips(void)
{
	struct cschunk c = { 0 };
	struct buf plain = { 0 }, b = { 0 };

	make_tree(&c, 50, 200);
	cschunk_encode(&c, 0, c.n, &plain);
	cschunk_pack(&b, plain.p, plain.n, c.id[0]);
	CHECK(b.p[0] == 0);
	flips_check(&c, &b);
	cschunk_free(&c);
	buf_free(&plain);
	buf_free(&b);
}

int
main(void)
{
	test_round_trip();
	test_corrupt();
	test_flips();
	test_packed();
	test_packed_corrupt();
	test_packed_flips();
	printf("test_cschunk: %u checks passed\n", checks);
	return 0;
}
