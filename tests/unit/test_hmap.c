/* test_hmap.c: the importer's compact maps (hmap.h): bmap's byte keys and
 * imap's integer keys found or inserted in one probe, against a plain
 * list of what was put; a map not allowed to grow still finds what it
 * holds and refuses the rest; emptied in place it keeps its memory; a
 * large table is zeroed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "hmap.h"
#include "testlib.h"

#define NKEYS	20000

/* Key i: its bytes (length 0..40, so some are prefixes of others). */
static size_t
key_of(unsigned i, uint8_t *out)
{
	size_t n = i % 41, k;
	uint64_t st = i + 1;

	for (k = 0; k < n; k++)
		out[k] = (uint8_t)(xorshift64(&st) % 3);
	return n;
}

static void
test_bmap(void)
{
	struct bmap m;
	struct bmap_pos pos;
	uint8_t key[64];
	int64_t *val = xcalloc(NKEYS, sizeof *val);
	size_t n, i, distinct = 0, cap;

	memset(&m, 0, sizeof m);
	for (i = 0; i < NKEYS; i++) {
		n = key_of((unsigned)i, key);
		pos = bmap_find(&m, key, n, 1);
		CHECK(pos.slot != NULL);
		if (pos.value != 0) {
			/* Short keys repeat: the value of the first. */
			val[i] = pos.value;
			continue;
		}
		val[i] = (int64_t)i + 1;
		bmap_fill(&m, pos, key, n, val[i]);
		distinct++;
	}
	CHECK(m.n == distinct && distinct > NKEYS / 2);
	CHECK(m.n * 4 <= m.cap * 3);
	for (i = 0; i < NKEYS; i++) {
		n = key_of((unsigned)i, key);
		CHECK(bmap_find(&m, key, n, 0).value == val[i]);
	}
	/* A key never put: absent, even one byte longer than one that is. */
	n = key_of(40, key);
	key[n] = 7;
	CHECK(bmap_find(&m, key, n + 1, 0).value == 0);

	/* Full and not allowed to grow: what is there is found, the rest
	 * gets no slot. */
	cap = m.cap;
	while ((m.n + 1) * 4 <= m.cap * 3) {
		memcpy(key, &m.n, sizeof m.n);
		key[8] = 0xff;
		pos = bmap_find(&m, key, 9, 0);
		CHECK(pos.slot != NULL && pos.value == 0);
		bmap_fill(&m, pos, key, 9, 5);
	}
	CHECK(m.cap == cap);
	n = key_of(1234, key);
	CHECK(bmap_find(&m, key, n, 0).value == val[1234]);
	memset(key, 0xee, 20);
	pos = bmap_find(&m, key, 20, 0);
	CHECK(pos.slot == NULL && pos.value == 0);
	bmap_fill(&m, pos, key, 20, 9);	/* nothing */
	CHECK(m.cap == cap && bmap_find(&m, key, 20, 0).value == 0);
	/* Allowed: it grows and takes it. */
	pos = bmap_find(&m, key, 20, 1);
	CHECK(pos.slot != NULL && m.cap == 2 * cap);
	bmap_fill(&m, pos, key, 20, 9);
	CHECK(bmap_find(&m, key, 20, 0).value == 9);

	/* Emptied in place: nothing found, the memory kept. */
	cap = m.cap;
	bmap_reset(&m);
	CHECK(m.n == 0 && m.cap == cap && bmap_bytes(&m) > 0);
	n = key_of(1234, key);
	CHECK(bmap_find(&m, key, n, 0).value == 0);
	bmap_clear(&m);
	CHECK(m.cap == 0 && bmap_bytes(&m) == 0);

	/* Reserved: that many keys go in without a rehash. */
	bmap_reserve(&m, 1000, 1000 * 16);
	cap = m.cap;
	for (i = 0; i < 1000; i++) {
		n = key_of((unsigned)i + 41000, key);
		pos = bmap_find(&m, key, n, 0);
		CHECK(pos.slot != NULL);
		bmap_fill(&m, pos, key, n, 1);
	}
	CHECK(m.cap == cap);
	bmap_clear(&m);
	free(val);
	printf("ok: bmap: %zu distinct keys of %d found again; full, "
	    "reset, reserved\n", distinct, NKEYS);
}

static void
test_imap(void)
{
	struct imap m;
	struct imap_slot *s;
	uint64_t st = 42, k;
	uint64_t *keys = xcalloc(NKEYS, sizeof *keys);
	size_t i, cap;

	memset(&m, 0, sizeof m);
	for (i = 0; i < NKEYS; i++) {
		/* Callsite keys: parent << 32 | frame, many alike. */
		keys[i] = (xorshift64(&st) % 5000) << 32 | (i % 300);
		s = imap_slot(&m, keys[i], 1);
		CHECK(s != NULL);
		if (s->value == 0)
			imap_fill(&m, s, keys[i], (int64_t)(keys[i] ^ 0x55) | 1);
	}
	for (i = 0; i < NKEYS; i++)
		CHECK(imap_get(&m, keys[i]) == ((int64_t)(keys[i] ^ 0x55) | 1));
	CHECK(imap_get(&m, 5001ull << 32) == 0);

	/* Full, no growing: present keys found, absent ones no slot. */
	cap = m.cap;
	for (k = 1; (m.n + 1) * 4 <= m.cap * 3; k++) {
		s = imap_slot(&m, 7000ull << 32 | k, 0);
		CHECK(s != NULL && s->value == 0);
		imap_fill(&m, s, 7000ull << 32 | k, 3);
	}
	CHECK(imap_slot(&m, 8000ull << 32, 0) == NULL);
	s = imap_slot(&m, keys[17], 0);
	CHECK(s != NULL && s->value == ((int64_t)(keys[17] ^ 0x55) | 1));
	CHECK(m.cap == cap);
	imap_reset(&m);
	CHECK(m.n == 0 && m.cap == cap && imap_get(&m, keys[17]) == 0);
	CHECK(imap_bytes(&m) == cap * sizeof(struct imap_slot));
	imap_clear(&m);
	free(keys);
	printf("ok: imap: one-probe insert, full, reset\n");
}

static void
test_table(void)
{
	/* 4 MiB: aligned for huge pages, and zeroed like calloc. */
	size_t n = (4u << 20) / sizeof(struct imap_slot), i, bad = 0;
	struct imap_slot *t = hmap_table(n, sizeof *t);

	CHECK(((uintptr_t)t & ((2u << 20) - 1)) == 0);
	for (i = 0; i < n; i++)
		bad += t[i].key != 0 || t[i].value != 0;
	CHECK(bad == 0);
	free(t);
	t = hmap_table(10, sizeof *t);
	CHECK(t != NULL && t[9].value == 0);
	free(t);
	printf("ok: large tables aligned and zeroed\n");
}

int
main(void)
{
	test_bmap();
	test_imap();
	test_table();
	printf("test_hmap: %u checks passed\n", checks);
	return 0;
}
