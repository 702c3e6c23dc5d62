/* csmap.c: the callsite map of csmap.h.  Open addressing, linear
 * probing; a slot's tag is the top 16 bits of the key's hash, its home
 * the low bits, so a tag match is a real hint (a false one 1 in 65536)
 * and the key array (a cache miss) is read about once per lookup that
 * finds its key.  A slot is the id (4 bytes) then the tag (2), packed:
 * 6 bytes, not 8 (2.78 M callsites: 24 MiB of slots, not 32). */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "csmap.h"
#include "hmap.h"

static uint64_t
cm_hash(uint32_t parent, uint32_t frame)
{
	return hmap_mix64((uint64_t)parent << 32 | frame);
}

static uint16_t
cm_tag(uint64_t h)
{
	return (uint16_t)(h >> 48);
}

static uint32_t
cm_id(const struct csmap *m, size_t i)
{
	uint32_t id;

	memcpy(&id, m->slots + i * CSMAP_SLOT, sizeof id);
	return id;
}

static void
cm_set(struct csmap *m, size_t i, uint32_t id, uint16_t tag)
{
	memcpy(m->slots + i * CSMAP_SLOT, &id, sizeof id);
	memcpy(m->slots + i * CSMAP_SLOT + sizeof id, &tag, sizeof tag);
}

/* The slot of (parent, frame): its own, or the empty one where it goes. */
static size_t
cm_probe(const struct csmap *m, uint64_t h, uint32_t parent, uint32_t frame)
{
	size_t i, mask = m->cap - 1;
	uint16_t tag = cm_tag(h), t;
	uint32_t id;

	for (i = (size_t)h & mask;; i = (i + 1) & mask) {
		if ((id = cm_id(m, i)) == 0)
			return i;
		memcpy(&t, m->slots + i * CSMAP_SLOT + sizeof id, sizeof t);
		if (t == tag && m->key[id].frame == frame &&
		    m->key[id].parent == parent)
			return i;
	}
}

/* An empty slot for a key known absent. */
static size_t
cm_empty(const struct csmap *m, uint64_t h)
{
	size_t i, mask = m->cap - 1;

	for (i = (size_t)h & mask; cm_id(m, i) != 0; i = (i + 1) & mask)
		;
	return i;
}

/* Keys ahead whose slots a rebuild fetches. */
#define CM_AHEAD	16

/* A table of cap slots built from the key array: the old one freed first,
 * so a growth never holds two. */
static void
cm_rebuild(struct csmap *m, size_t cap)
{
	size_t id;
	uint64_t h;

	free(m->slots);
	m->slots = hmap_table(cap, CSMAP_SLOT);
	m->cap = cap;
	m->n = 0;
	/* The keys added and not inserted are in the array: inserted here. */
	m->npend = 0;
	/* Keys are distinct: each goes to the first empty slot from its
	 * home, fetched a few keys ahead so that the misses overlap. */
	for (id = 1; id < m->ids; id++) {
		if (id + CM_AHEAD < m->ids)
			__builtin_prefetch(m->slots + ((size_t)cm_hash(
			    m->key[id + CM_AHEAD].parent,
			    m->key[id + CM_AHEAD].frame) & (cap - 1)) *
			    CSMAP_SLOT, 1);
		if (m->key[id].frame == 0)
			continue;
		h = cm_hash(m->key[id].parent, m->key[id].frame);
		cm_set(m, cm_empty(m, h), (uint32_t)id, cm_tag(h));
		m->n++;
	}
}

static void
cm_room(struct csmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;

	while (n * 4 > cap * 3)
		cap *= 2;
	if (cap > m->cap)
		cm_rebuild(m, cap);
}

/* The key array holds ids below want; what is new is marked absent.  Grown
 * by realloc, which moves large blocks by remapping, not copying. */
static void
cm_ids(struct csmap *m, size_t want)
{
	size_t cap = m->idcap ? m->idcap : 1024;

	if (want <= m->ids)
		return;
	if (want > m->idcap) {
		while (cap < want)
			cap *= 2;
		m->key = xreallocarray(m->key, cap, sizeof *m->key);
		m->idcap = cap;
	}
	memset(m->key + m->ids, 0, (want - m->ids) * sizeof *m->key);
	m->ids = want;
}

/* The keys added go into the table (by a growth, if one is due). */
static void
cm_flush(struct csmap *m)
{
	size_t k, npend = m->npend, cap = m->cap;
	uint32_t id;
	uint64_t h;

	if (npend == 0)
		return;
	cm_room(m, m->n + npend);
	if (m->cap != cap)
		return;
	for (k = 0; k < npend; k++) {
		id = m->pend[k];
		h = m->pendh[k];
		cm_set(m, cm_empty(m, h), id, cm_tag(h));
	}
	m->n += npend;
	m->npend = 0;
}

void
csmap_add(struct csmap *m, uint32_t parent, uint32_t frame, uint32_t id)
{
	uint64_t h = cm_hash(parent, frame);

	cm_ids(m, (size_t)id + 1);
	m->key[id].parent = parent;
	m->key[id].frame = frame;
	if (m->cap != 0)
		__builtin_prefetch(m->slots + ((size_t)h & (m->cap - 1)) *
		    CSMAP_SLOT, 1);
	m->pendh[m->npend] = h;
	m->pend[m->npend++] = id;
	if (m->npend == CSMAP_BATCH)
		cm_flush(m);
}

void
csmap_prefetch(const struct csmap *m, uint32_t parent, uint32_t frame)
{
	if (m->cap != 0)
		__builtin_prefetch(m->slots + ((size_t)cm_hash(parent, frame) &
		    (m->cap - 1)) * CSMAP_SLOT);
}

uint32_t
csmap_find(struct csmap *m, uint32_t parent, uint32_t frame, int grow,
    size_t *slot)
{
	size_t s, k;

	/* The few added last are looked at first: mostly the stack's. */
	for (k = m->npend; k-- > 0;)
		if (m->key[m->pend[k]].frame == frame &&
		    m->key[m->pend[k]].parent == parent) {
			*slot = CSMAP_NONE;
			return m->pend[k];
		}

	if ((m->n + 1) * 4 > m->cap * 3) {
		if (!grow) {
			*slot = CSMAP_NONE;
			if (m->cap == 0)
				return 0;
			s = cm_probe(m, cm_hash(parent, frame), parent, frame);
			return cm_id(m, s);
		}
		cm_room(m, m->n + 1);
	}
	s = cm_probe(m, cm_hash(parent, frame), parent, frame);
	*slot = s;
	return cm_id(m, s);
}

void
csmap_fill(struct csmap *m, size_t slot, uint32_t parent, uint32_t frame,
    uint32_t id)
{
	cm_ids(m, (size_t)id + 1);
	m->key[id].parent = parent;
	m->key[id].frame = frame;
	cm_set(m, slot, id, cm_tag(cm_hash(parent, frame)));
	m->n++;
}

void
csmap_put(struct csmap *m, uint32_t parent, uint32_t frame, uint32_t id)
{
	size_t s;
	uint32_t old;

	cm_flush(m);
	old = csmap_find(m, parent, frame, 1, &s);

	if (old != 0) {
		m->key[old].frame = 0;
		m->n--;
	}
	csmap_fill(m, s, parent, frame, id);
}

void
csmap_reserve(struct csmap *m, size_t n, size_t maxid)
{
	cm_flush(m);
	cm_room(m, n);
	if (maxid > m->idcap) {
		m->key = xreallocarray(m->key, maxid, sizeof *m->key);
		m->idcap = maxid;
	}
}

void
csmap_del(struct csmap *m, uint32_t parent, uint32_t frame)
{
	size_t i, j, home, mask = m->cap - 1;
	uint32_t id;

	cm_flush(m);
	if (m->cap == 0 || (id = cm_id(m, i = cm_probe(m, cm_hash(parent,
	    frame), parent, frame))) == 0)
		return;
	m->key[id].frame = 0;
	/* Backward shift, as imap_del: an entry past the hole moves into it
	 * unless its home lies cyclically in (hole, entry]. */
	for (j = (i + 1) & mask; (id = cm_id(m, j)) != 0; j = (j + 1) & mask) {
		home = (size_t)cm_hash(m->key[id].parent, m->key[id].frame) &
		    mask;
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		memcpy(m->slots + i * CSMAP_SLOT, m->slots + j * CSMAP_SLOT,
		    CSMAP_SLOT);
		i = j;
	}
	memset(m->slots + i * CSMAP_SLOT, 0, CSMAP_SLOT);
	m->n--;
}

void
csmap_reset(struct csmap *m)
{
	if (m->n > 0)
		memset(m->slots, 0, m->cap * CSMAP_SLOT);
	m->n = 0;
	m->ids = 0;
	m->npend = 0;
}

void
csmap_clear(struct csmap *m)
{
	free(m->slots);
	free(m->key);
	memset(m, 0, sizeof *m);
}

size_t
csmap_bytes(const struct csmap *m)
{
	return m->cap * CSMAP_SLOT + m->ids * sizeof *m->key;
}
