/* hmap.c: open addressing with linear probing; keys hashed eight bytes at
 * a time with a final avalanche so sequential integer keys spread well. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "alloc.h"
#include "hmap.h"

uint64_t
hmap_hash(const void *key, size_t len)
{
	const uint8_t *p = key;
	uint64_t h = 0xcbf29ce484222325ULL ^ (len * 0x9e3779b97f4a7c15ULL), w;

	/* Eight bytes at a time: keys are mostly arrays of int64 ids. */
	while (len >= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
		p += 8;
		len -= 8;
	}
	if (len > 0) {
		w = 0;
		memcpy(&w, p, len);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
		h ^= h >> 29;
	}
	h = hmap_mix64(h);
	return h ? h : 1;
}

const uint8_t *
hmap_slot_key(const struct hmap_slot *s)
{
	return s->keylen > HMAP_INLINE_KEY ? s->key.p : s->key.in;
}

static struct hmap_slot *
hmap_find(const struct hmap *m, uint64_t h, const void *key, size_t len)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	for (i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct hmap_slot *s = &m->slots[i];

		if (s->hash == 0)
			return s;
		if (s->hash == h && s->keylen == len &&
		    memcmp(hmap_slot_key(s), key, len) == 0)
			return s;
	}
}

int64_t
hmap_get(const struct hmap *m, const void *key, size_t len)
{
	struct hmap_slot *s = hmap_find(m, hmap_hash(key, len), key, len);

	return s != NULL && s->hash != 0 ? s->value : 0;
}

static void
hmap_grow(struct hmap *m)
{
	struct hmap_slot *old = m->slots;
	size_t i, oldcap = m->cap;

	m->cap = m->cap ? m->cap * 2 : 64;
	m->slots = xcalloc(m->cap, sizeof *m->slots);
	for (i = 0; i < oldcap; i++) {
		struct hmap_slot *s;

		if (old[i].hash == 0)
			continue;
		s = hmap_find(m, old[i].hash, hmap_slot_key(&old[i]),
		    old[i].keylen);
		*s = old[i];
	}
	free(old);
}

void
hmap_put(struct hmap *m, const void *key, size_t len, int64_t value)
{
	uint64_t h = hmap_hash(key, len);
	struct hmap_slot *s;

	if ((m->n + 1) * 4 > m->cap * 3)
		hmap_grow(m);
	s = hmap_find(m, h, key, len);
	if (s->hash == 0) {
		s->hash = h;
		s->keylen = (uint32_t)len;
		if (len > HMAP_INLINE_KEY) {
			s->key.p = xmalloc(len);
			memcpy(s->key.p, key, len);
			m->keybytes += len;
		} else if (len > 0)
			memcpy(s->key.in, key, len);
		m->n++;
	}
	s->value = value;
}

void
hmap_clear(struct hmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->slots[i].hash != 0 &&
		    m->slots[i].keylen > HMAP_INLINE_KEY)
			free(m->slots[i].key.p);
	free(m->slots);
	memset(m, 0, sizeof *m);
}

size_t
hmap_bytes(const struct hmap *m)
{
	return m->cap * sizeof *m->slots + m->keybytes + m->n * 16;
}

/* A table of 2 MiB and more is aligned to 2 MiB and asks for huge pages:
 * lookups land at random in it, and with 4 kB pages nearly each one also
 * misses the TLB (a 32 MiB table is 8192 pages, 16 huge ones). */
#define HMAP_HUGE	(2u << 20)

void *
hmap_table(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (n != 0 && size > SIZE_MAX / n)
		return xcalloc(n, size);	/* dies as it says */
	bytes = n * size;
	if (bytes < HMAP_HUGE)
		return xcalloc(n, size);
	if (posix_memalign(&p, HMAP_HUGE, bytes) != 0)
		return xcalloc(n, size);
#ifdef MADV_HUGEPAGE
	(void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
	memset(p, 0, bytes);
	return p;
}
