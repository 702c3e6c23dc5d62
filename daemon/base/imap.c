/* imap.c: the integer-keyed map of hmap.h (ids, or two 32-bit ids in
 * one key): open addressing, the lookups inline in the header. */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"

/* Move the entries into cap slots. */
static void
imap_rehash(struct imap *m, size_t cap)
{
	struct imap_slot *old = m->slots;
	size_t i, oldcap = m->cap;

	m->cap = cap;
	m->slots = hmap_table(cap, sizeof *m->slots);
	for (i = 0; i < oldcap; i++)
		if (old[i].value != 0)
			*imap_find(m, old[i].key) = old[i];
	free(old);
}

void
imap_put(struct imap *m, uint64_t key, int64_t value)
{
	struct imap_slot *s;

	if ((m->n + 1) * 4 > m->cap * 3)
		imap_rehash(m, m->cap ? m->cap * 2 : 64);
	s = imap_find(m, key);
	if (s->value == 0) {
		s->key = key;
		m->n++;
	}
	s->value = value;
}

void
imap_reserve(struct imap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;

	while (n * 4 > cap * 3)
		cap *= 2;
	if (cap > m->cap)
		imap_rehash(m, cap);
}

void
imap_clear(struct imap *m)
{
	free(m->slots);
	memset(m, 0, sizeof *m);
}

struct imap_slot *
imap_slot(struct imap *m, uint64_t key, int grow)
{
	if ((m->n + 1) * 4 > m->cap * 3) {
		struct imap_slot *s;

		if (!grow) {
			if (m->cap == 0)
				return NULL;
			s = imap_find(m, key);
			return s->value != 0 ? s : NULL;
		}
		imap_rehash(m, m->cap ? m->cap * 2 : 64);
	}
	return imap_find(m, key);
}

size_t
imap_bytes(const struct imap *m)
{
	return m->cap * sizeof *m->slots;
}

void
imap_reset(struct imap *m)
{
	if (m->n > 0)
		memset(m->slots, 0, m->cap * sizeof *m->slots);
	m->n = 0;
}

void
imap_del(struct imap *m, uint64_t key)
{
	size_t i, j, home, mask = m->cap - 1;
	struct imap_slot *s;

	if (m->cap == 0 || (s = imap_find(m, key))->value == 0)
		return;
	i = (size_t)(s - m->slots);
	/* Backward shift: an entry past the hole moves into it unless its
	 * home lies cyclically in (hole, entry]. */
	for (j = (i + 1) & mask; m->slots[j].value != 0; j = (j + 1) & mask) {
		home = (size_t)hmap_mix64(m->slots[j].key) & mask;
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].key = 0;
	m->slots[i].value = 0;
	m->n--;
}
