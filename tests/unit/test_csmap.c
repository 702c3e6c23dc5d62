/* test_csmap.c: the writer's callsite map (csmap.h) against a plain
 * table of what was put: find-or-insert in one probe across many
 * growths (each rebuilt from the id arrays), deletions that shift the
 * entries after them and leave every key findable, ids with gaps,
 * put overwriting a key's id, a map not allowed to grow still finding
 * what it holds, reset keeping its memory, and keys added without a
 * lookup (csmap_add, batched) found before and after their batch goes
 * in, across growths, deletions and puts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "csmap.h"
#include "testlib.h"

/* Keys from a small square, so that deletions and reinsertions of the
 * same key come often and probe runs are long at the map's load. */
#define SIDE	400

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(uint32_t n)
{
	return (uint32_t)(xorshift64(&rng) % n);
}

/* Every key of the square found with the reference's id (0: absent). */
static void
check_all(struct csmap *m, const uint32_t *ref)
{
	uint32_t p, f, got;
	size_t slot;
	size_t n = 0, bad = 0;

	for (p = 0; p < SIDE; p++)
		for (f = 1; f < SIDE; f++) {
			got = csmap_find(m, p, f, 0, &slot);
			bad += got != ref[p * SIDE + f];
			n += ref[p * SIDE + f] != 0;
		}
	CHECK(bad == 0);
	CHECK(m->n == n);
}

static void
test_random(void)
{
	struct csmap m;
	uint32_t *ref = xcalloc(SIDE * SIDE, sizeof *ref), next = 1, p, f, got;
	size_t slot;
	size_t op, bytes;

	memset(&m, 0, sizeof m);
	for (op = 0; op < 200000; op++) {
		p = rnd(SIDE);
		f = 1 + rnd(SIDE - 1);
		if (rnd(4) == 0) {
			csmap_del(&m, p, f);
			ref[p * SIDE + f] = 0;
			continue;
		}
		got = csmap_find(&m, p, f, 1, &slot);
		CHECK(slot != CSMAP_NONE);
		CHECK(got == ref[p * SIDE + f]);
		if (got == 0) {
			/* Gaps in the ids, as collection leaves them. */
			next += 1 + rnd(3);
			csmap_fill(&m, slot, p, f, next);
			ref[p * SIDE + f] = next;
		}
		if (op % 40000 == 0)
			check_all(&m, ref);
	}
	check_all(&m, ref);
	CHECK(m.n * 4 <= m.cap * 3);

	/* put: a new id for a key held, and a key not held. */
	for (p = 0; p < 50; p++) {
		f = 1 + p;
		csmap_put(&m, p, f, ++next);
		ref[p * SIDE + f] = next;
	}
	check_all(&m, ref);

	/* Full and not allowed to grow: still finds, refuses the rest. */
	bytes = csmap_bytes(&m);
	CHECK(bytes >= m.cap * CSMAP_SLOT);
	csmap_reset(&m);
	CHECK(m.n == 0 && m.cap > 0);
	memset(ref, 0, SIDE * SIDE * sizeof *ref);
	check_all(&m, ref);
	csmap_clear(&m);
	csmap_reserve(&m, 1000, 0);
	next = 1;
	while ((m.n + 1) * 4 <= m.cap * 3) {
		p = rnd(SIDE);
		f = 1 + rnd(SIDE - 1);
		if (csmap_find(&m, p, f, 1, &slot) == 0) {
			csmap_fill(&m, slot, p, f, ++next);
			ref[p * SIDE + f] = next;
		}
	}
	{
		size_t cap = m.cap, refused = 0;

		for (p = 0; p < SIDE; p++)
			for (f = 1; f < SIDE; f++) {
				got = csmap_find(&m, p, f, 0, &slot);
				CHECK(got == ref[p * SIDE + f]);
				refused += got == 0 && slot == CSMAP_NONE;
			}
		CHECK(m.cap == cap);
		CHECK(refused > 0);
	}
	csmap_clear(&m);
	CHECK(m.cap == 0 && m.n == 0 && csmap_bytes(&m) == 0);
	free(ref);
}

/* Reserved from a store's counts: no growth while it fills. */
static void
test_reserve(void)
{
	struct csmap m;
	size_t slot;
	uint32_t i;
	size_t cap;

	memset(&m, 0, sizeof m);
	csmap_reserve(&m, 100000, 100001);
	cap = m.cap;
	CHECK(cap * 3 >= 100000 * 4);
	for (i = 1; i <= 100000; i++) {
		CHECK(csmap_find(&m, i / 7, 1 + i % 7, 1, &slot) == 0);
		csmap_fill(&m, slot, i / 7, 1 + i % 7, i);
	}
	CHECK(m.cap == cap);
	for (i = 1; i <= 100000; i++)
		CHECK(csmap_find(&m, i / 7, 1 + i % 7, 0, &slot) == i);
	CHECK(csmap_bytes(&m) == cap * CSMAP_SLOT + 100001 * 8);
	csmap_clear(&m);
}

/* Stacks walked as the store does: a key under the id made last is
 * added without a lookup, any other found or filled; deletions and puts
 * now and then insert what is pending first. */
static void
test_add(void)
{
	struct csmap m;
	uint32_t *ref = xcalloc(SIDE * SIDE, sizeof *ref), next = 1, last = 0;
	uint32_t p, f, got, d;
	size_t slot, op, n = 0, bad = 0;

	memset(&m, 0, sizeof m);
	for (op = 0; op < 20000; op++) {
		p = rnd(next);		/* the root or a callsite made */
		for (d = 0; d < 8 && p < SIDE; d++) {
			f = 1 + rnd(SIDE - 1);
			if (p != 0 && p == last) {
				CHECK(ref[p * SIDE + f] == 0);
				ref[p * SIDE + f] = next;
				csmap_add(&m, p, f, next);
			} else if ((got = csmap_find(&m, p, f, 1,
			    &slot)) != 0) {
				bad += got != ref[p * SIDE + f];
				p = got;
				continue;
			} else {
				bad += ref[p * SIDE + f] != 0;
				ref[p * SIDE + f] = next;
				csmap_fill(&m, slot, p, f, next);
			}
			last = p = next++;
		}
		if (rnd(50) == 0) {
			p = rnd(SIDE);
			f = 1 + rnd(SIDE - 1);
			csmap_del(&m, p, f);
			ref[p * SIDE + f] = 0;
			last = 0;
		}
		if (rnd(50) == 0 && next < SIDE) {
			p = rnd(next);
			f = 1 + rnd(SIDE - 1);
			if (ref[p * SIDE + f] == 0) {
				csmap_put(&m, p, f, next);
				ref[p * SIDE + f] = next++;
			}
			last = 0;
		}
		if (next >= SIDE - 8) {
			csmap_reset(&m);
			memset(ref, 0, SIDE * SIDE * sizeof *ref);
			next = 1;
			last = 0;
		}
	}
	CHECK(bad == 0);
	for (p = 0; p < SIDE; p++)
		for (f = 1; f < SIDE; f++) {
			got = csmap_find(&m, p, f, 0, &slot);
			bad += got != ref[p * SIDE + f];
			n += ref[p * SIDE + f] != 0;
		}
	CHECK(bad == 0);
	CHECK(m.n + m.npend == n);
	csmap_put(&m, 0, 1, 7);		/* the pending ones go in */
	CHECK(m.npend == 0);
	csmap_clear(&m);
	free(ref);
}

int
main(void)
{
	test_random();
	test_reserve();
	test_add();
	printf("test_csmap: %u checks passed\n", checks);
	return 0;
}
