/* csmap.c: the callsite map of csmap.h.  Open addressing, linear
 * probing; a slot's tag is the high half of the key's hash, its home the
 * low bits, so a tag match is a real hint and the arrays (a cache miss
 * each) are read about once per lookup that finds its key. */
#include <stdlib.h>
#include <string.h>

#include "csmap.h"
#include "hmap.h"
#include "util.h"

static uint64_t
cm_hash(uint32_t parent, uint32_t frame)
{
	return hmap_mix64((uint64_t)parent << 32 | frame);
}

static uint64_t *
cm_probe(const struct csmap *m, uint64_t h, uint32_t parent, uint32_t frame)
{
	size_t i, mask = m->cap - 1;
	uint32_t tag = (uint32_t)(h >> 32), id;
	uint64_t s;

	for (i = (size_t)h & mask;; i = (i + 1) & mask) {
		s = m->slots[i];
		if (s == 0)
			return &m->slots[i];
		id = (uint32_t)s;
		if ((uint32_t)(s >> 32) == tag && m->frame[id] == frame &&
		    m->parent[id] == parent)
			return &m->slots[i];
	}
}

/* A table of cap slots built from the arrays: the old one freed first,
 * so a growth never holds two. */
static void
cm_rebuild(struct csmap *m, size_t cap)
{
	size_t id;
	uint64_t h;

	free(m->slots);
	m->slots = hmap_table(cap, sizeof *m->slots);
	m->cap = cap;
	m->n = 0;
	for (id = 1; id < m->ids; id++) {
		if (m->frame[id] == 0)
			continue;
		h = cm_hash(m->parent[id], m->frame[id]);
		*cm_probe(m, h, m->parent[id], m->frame[id]) =
		    (h >> 32) << 32 | id;
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

/* The arrays hold ids below want; what is new is marked absent.  Grown
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
		m->parent = xreallocarray(m->parent, cap, sizeof *m->parent);
		m->frame = xreallocarray(m->frame, cap, sizeof *m->frame);
		m->idcap = cap;
	}
	memset(m->frame + m->ids, 0, (want - m->ids) * sizeof *m->frame);
	memset(m->parent + m->ids, 0, (want - m->ids) * sizeof *m->parent);
	m->ids = want;
}

uint32_t
csmap_find(struct csmap *m, uint32_t parent, uint32_t frame, int grow,
    uint64_t **slot)
{
	uint64_t *s;

	if ((m->n + 1) * 4 > m->cap * 3) {
		if (!grow) {
			*slot = NULL;
			if (m->cap == 0)
				return 0;
			s = cm_probe(m, cm_hash(parent, frame), parent, frame);
			return (uint32_t)*s;
		}
		cm_room(m, m->n + 1);
	}
	s = cm_probe(m, cm_hash(parent, frame), parent, frame);
	*slot = s;
	return (uint32_t)*s;
}

void
csmap_fill(struct csmap *m, uint64_t *slot, uint32_t parent,
    uint32_t frame, uint32_t id)
{
	cm_ids(m, (size_t)id + 1);
	m->parent[id] = parent;
	m->frame[id] = frame;
	*slot = (cm_hash(parent, frame) >> 32) << 32 | id;
	m->n++;
}

void
csmap_put(struct csmap *m, uint32_t parent, uint32_t frame, uint32_t id)
{
	uint64_t *s;
	uint32_t old = csmap_find(m, parent, frame, 1, &s);

	if (old != 0) {
		m->frame[old] = 0;
		m->n--;
	}
	csmap_fill(m, s, parent, frame, id);
}

void
csmap_reserve(struct csmap *m, size_t n, size_t maxid)
{
	cm_room(m, n);
	if (maxid > m->idcap) {
		m->parent = xreallocarray(m->parent, maxid, sizeof *m->parent);
		m->frame = xreallocarray(m->frame, maxid, sizeof *m->frame);
		m->idcap = maxid;
	}
}

void
csmap_del(struct csmap *m, uint32_t parent, uint32_t frame)
{
	size_t i, j, home, mask = m->cap - 1;
	uint32_t id;
	uint64_t *s;

	if (m->cap == 0 || *(s = cm_probe(m, cm_hash(parent, frame), parent,
	    frame)) == 0)
		return;
	m->frame[(uint32_t)*s] = 0;
	i = (size_t)(s - m->slots);
	/* Backward shift, as imap_del: an entry past the hole moves into it
	 * unless its home lies cyclically in (hole, entry]. */
	for (j = (i + 1) & mask; m->slots[j] != 0; j = (j + 1) & mask) {
		id = (uint32_t)m->slots[j];
		home = (size_t)cm_hash(m->parent[id], m->frame[id]) & mask;
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i] = 0;
	m->n--;
}

void
csmap_reset(struct csmap *m)
{
	if (m->n > 0)
		memset(m->slots, 0, m->cap * sizeof *m->slots);
	m->n = 0;
	m->ids = 0;
}

void
csmap_clear(struct csmap *m)
{
	free(m->slots);
	free(m->parent);
	free(m->frame);
	memset(m, 0, sizeof *m);
}

size_t
csmap_bytes(const struct csmap *m)
{
	return m->cap * sizeof *m->slots + m->ids * (sizeof *m->parent +
	    sizeof *m->frame);
}
