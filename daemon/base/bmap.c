/* bmap.c: the byte-keyed map of hmap.h for the importer's caches: 16-byte
 * slots (four to a cache line, so a probe mostly costs one miss), keys in
 * an arena (no allocation per key; the arena grows by realloc, which moves
 * a large block by remapping it, not by copying), the value next to its
 * key so a hit reads one record. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "hmap.h"

#define BMAP_HDR	12	/* value, length */

static inline const uint8_t *
bmap_rec(const struct bmap *m, const struct bmap_slot *s)
{
	return m->arena + s->rec;
}

static inline int
bmap_same(const struct bmap *m, const struct bmap_slot *s, const void *key,
    size_t len)
{
	const uint8_t *r = bmap_rec(m, s);
	uint32_t n;

	memcpy(&n, r + 8, 4);
	/* An empty key may come as NULL (an empty string of a decoder),
	 * which memcmp may not be given even for 0 bytes. */
	return n == len && (len == 0 || memcmp(r + BMAP_HDR, key, len) == 0);
}

static struct bmap_slot *
bmap_probe(const struct bmap *m, uint64_t h, const void *key, size_t len)
{
	size_t i;

	for (i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct bmap_slot *s = &m->slots[i];

		if (s->hash == 0 || (s->hash == h && bmap_same(m, s, key, len)))
			return s;
	}
}

static void
bmap_rehash(struct bmap *m, size_t cap)
{
	struct bmap_slot *old = m->slots;
	size_t i, j, oldcap = m->cap;

	m->cap = cap;
	m->slots = hmap_table(cap, sizeof *m->slots);
	for (i = 0; i < oldcap; i++) {
		if (old[i].hash == 0)
			continue;
		/* Keys are distinct: the first empty slot is its place. */
		for (j = old[i].hash & (cap - 1); m->slots[j].hash != 0;
		    j = (j + 1) & (cap - 1))
			;
		m->slots[j] = old[i];
	}
	free(old);
}

struct bmap_pos
bmap_find(struct bmap *m, const void *key, size_t len, int grow)
{
	struct bmap_pos pos;

	pos.hash = hmap_hash(key, len);
	pos.value = 0;
	pos.slot = NULL;
	if ((m->n + 1) * 4 > m->cap * 3) {
		if (grow)
			bmap_rehash(m, m->cap ? m->cap * 2 : 64);
		else if (m->cap == 0)
			return pos;
	}
	pos.slot = bmap_probe(m, pos.hash, key, len);
	if (pos.slot->hash != 0)
		memcpy(&pos.value, bmap_rec(m, pos.slot), 8);
	else if ((m->n + 1) * 4 > m->cap * 3)
		pos.slot = NULL;	/* full, and may not grow */
	return pos;
}

static void
bmap_arena(struct bmap *m, size_t more)
{
	size_t cap = m->arenacap ? m->arenacap : 4096;

	if (m->used + more <= m->arenacap)
		return;
	while (cap < m->used + more)
		cap *= 2;
	m->arena = xrealloc(m->arena, cap);
	m->arenacap = cap;
}

void
bmap_fill(struct bmap *m, struct bmap_pos pos, const void *key, size_t len,
    int64_t value)
{
	uint32_t n = (uint32_t)len;
	uint8_t *r;

	if (pos.slot == NULL || pos.slot->hash != 0)
		return;
	bmap_arena(m, BMAP_HDR + len);
	r = m->arena + m->used;
	memcpy(r, &value, 8);
	memcpy(r + 8, &n, 4);
	if (len > 0)
		memcpy(r + BMAP_HDR, key, len);
	pos.slot->hash = pos.hash;
	pos.slot->rec = m->used;
	m->used += BMAP_HDR + len;
	m->n++;
}

void
bmap_reserve(struct bmap *m, size_t n, size_t keybytes)
{
	size_t cap = m->cap ? m->cap : 64;

	while (n * 4 > cap * 3)
		cap *= 2;
	if (cap > m->cap)
		bmap_rehash(m, cap);
	bmap_arena(m, keybytes);
}

void
bmap_reset(struct bmap *m)
{
	if (m->n > 0)
		memset(m->slots, 0, m->cap * sizeof *m->slots);
	m->n = m->used = 0;
}

void
bmap_clear(struct bmap *m)
{
	free(m->slots);
	free(m->arena);
	memset(m, 0, sizeof *m);
}

size_t
bmap_bytes(const struct bmap *m)
{
	return m->cap * sizeof *m->slots + m->arenacap;
}
