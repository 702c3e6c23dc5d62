/* test_cschunk.c: the callsite chunk codec (cschunk.c): random prefix
 * trees (parents in and out of the chunk, gaps in the ids, large frame
 * jumps both ways) round trip with their depths; every corruption named
 * in cschunk.h is refused with the chunk and the byte in the message; and
 * every truncation or flipped byte of a blob is refused or decodes to
 * callsites that still hold the chunk's invariants. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Every flipped byte: refused, or callsites within the row's bounds. */
static void
test_flips(void)
{
	struct cschunk c = { 0 }, d = { 0 };
	struct buf b = { 0 };
	struct error err = { 0 };
	size_t i, k, bit;
	ptrdiff_t p;

	make_tree(&c, 50, 200);
	cschunk_encode(&c, 0, c.n, &b);
	for (i = 0; i < b.n; i++)
		for (bit = 0; bit < 8; bit++) {
			b.p[i] ^= (uint8_t)(1u << bit);
			error_clear(&err);
			if (cschunk_decode(&d, b.p, b.n, c.id[0],
			    c.id[c.n - 1], (int64_t)c.n, &err) == 0) {
				CHECK(d.n == c.n && d.id[0] == c.id[0] &&
				    d.id[d.n - 1] == c.id[c.n - 1]);
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
			b.p[i] ^= (uint8_t)(1u << bit);
		}
	cschunk_free(&c);
	cschunk_free(&d);
	buf_free(&b);
}

int
main(void)
{
	test_round_trip();
	test_corrupt();
	test_flips();
	printf("test_cschunk: %u checks passed\n", checks);
	return 0;
}
