/* store-frames.c: the writer's frames (schema 17), found in memory.
 *
 * A frame is interned by its six columns, and no index on frame answers
 * that any more: frame_hash's entries (schema 16) were ~5.6 bytes of
 * pages for each frame a drifting series brings, for a question only the
 * writer asks.  The writer keeps a map of every frame instead, read by
 * one scan of the table at its first lookup; a frame not in it is
 * inserted and added, so frames stay unique as they did under the unique
 * index (docs/DESIGN-STORAGE.md, "Frames found in memory").
 *
 * As csmap.h: each id's key in an id-indexed array, and a table of 6-byte
 * slots (the id, 16 bits of the key's hash) that reads the array on a tag
 * match only.  A key is the columns narrowed to 24 bytes (ids and line to
 * 32 bits, column to 16, flags to 8); a frame with a column that does not
 * fit keeps its key whole in a side array (48 bytes, rare).  24 bytes of
 * key and 8 to 16 of slots (3/8 to 3/4 full): 32 to 40 bytes a frame,
 * and up to a quarter more of key array while it grows.
 *
 * What would leave the map naming rows that are not there, or miss rows
 * that are, and what is done:
 * - a rolled-back transaction: its new frames (ids from its first new
 *   one up: SQLite hands out max(id) + 1, and takes those ids again) are
 *   removed from the map;
 * - the collection (store-gc.c) removes each frame it deletes; if its
 *   transaction is rolled back after all, the map is read again;
 * - a frame written by another connection (the sqlite3 shell): at a
 *   transaction's first lookup, a largest id that is not the map's has
 *   the map read again (one that connection deletes is not seen: only
 *   the collection deletes frames, and it keeps the largest id).
 * Nothing else deletes a frame: a scope's or a profile's delete leaves
 * them to the collection, and VACUUM keeps an INTEGER PRIMARY KEY. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "hmap.h"
#include "store-int.h"

#define FM_SLOT		6		/* bytes: id (4), hash tag (2) */

enum { FK_NONE, FK_NARROW, FK_WIDE };

/* A frame's columns, narrowed; a wide one's address is its index in the
 * side array. */
struct fm_key {
	uint64_t address;
	uint32_t function, mapping;
	int32_t line;
	uint16_t col;
	uint8_t flags;
	uint8_t state;			/* FK_* */
};

struct store_frames {
	uint8_t *slots;			/* cap slots; id 0: empty */
	size_t cap, n;			/* cap is a power of two */
	struct fm_key *key;		/* by id */
	size_t ids, idcap;		/* keys valid below ids */
	struct store_frame_key *wide;
	size_t nwide, capwide;
	int loaded;			/* the map holds every stored frame */
	int checked;			/* this transaction's largest id seen */
	/* This transaction made the map lose frames that a rollback brings
	 * back (the collection's), or added one out of id order: a
	 * rollback reads the map again. */
	int reread;
	int64_t top;			/* the largest id stored, as known */
	int64_t tx_first, tx_top;	/* this transaction's first new id;
					   top before it */
	sqlite3_stmt *scan, *max;
};

static struct store_frames *
fm_of(struct store *s)
{
	if (s->frames == NULL)
		s->frames = xcalloc(1, sizeof *s->frames);
	return s->frames;
}

static uint64_t
fm_hash(const struct store_frame_key *k)
{
	uint64_t h;

	h = hmap_mix64(k->address ^ (uint64_t)k->function *
	    0x9e3779b97f4a7c15ULL);
	h = hmap_mix64(h ^ ((uint64_t)k->mapping << 32 | (uint32_t)k->line));
	return hmap_mix64(h ^ (uint64_t)k->col * 0xc2b2ae3d27d4eb4fULL ^
	    (uint64_t)(k->line >> 32) << 40 ^ (uint64_t)k->flags);
}

static uint16_t
fm_tag(uint64_t h)
{
	return (uint16_t)(h >> 48);
}

static int
fm_narrow(const struct store_frame_key *k)
{
	return k->function >= 0 && k->function <= UINT32_MAX &&
	    k->mapping >= 0 && k->mapping <= UINT32_MAX &&
	    k->line >= INT32_MIN && k->line <= INT32_MAX &&
	    k->col >= 0 && k->col <= UINT16_MAX &&
	    k->flags >= 0 && k->flags <= UINT8_MAX;
}

/* The columns of id (in the map). */
static void
fm_get(const struct store_frames *m, size_t id, struct store_frame_key *k)
{
	const struct fm_key *e = &m->key[id];

	if (e->state == FK_WIDE) {
		*k = m->wide[e->address];
		return;
	}
	k->function = e->function;
	k->mapping = e->mapping;
	k->address = e->address;
	k->line = e->line;
	k->col = e->col;
	k->flags = e->flags;
}

static int
fm_equal(const struct store_frames *m, size_t id,
    const struct store_frame_key *k)
{
	const struct fm_key *e = &m->key[id];
	const struct store_frame_key *w;

	if (e->state == FK_WIDE) {
		w = &m->wide[e->address];
		return w->address == k->address && w->function == k->function &&
		    w->mapping == k->mapping && w->line == k->line &&
		    w->col == k->col && w->flags == k->flags;
	}
	return e->address == k->address && e->function == k->function &&
	    e->mapping == k->mapping && e->line == k->line &&
	    e->col == k->col && e->flags == k->flags;
}

static uint32_t
fm_id(const struct store_frames *m, size_t i)
{
	uint32_t id;

	memcpy(&id, m->slots + i * FM_SLOT, sizeof id);
	return id;
}

static void
fm_set(struct store_frames *m, size_t i, uint32_t id, uint16_t tag)
{
	memcpy(m->slots + i * FM_SLOT, &id, sizeof id);
	memcpy(m->slots + i * FM_SLOT + sizeof id, &tag, sizeof tag);
}

/* The slot of k: its own, or the empty one where it goes. */
static size_t
fm_probe(const struct store_frames *m, uint64_t h,
    const struct store_frame_key *k)
{
	size_t i, mask = m->cap - 1;
	uint16_t tag = fm_tag(h), t;
	uint32_t id;

	for (i = (size_t)h & mask;; i = (i + 1) & mask) {
		if ((id = fm_id(m, i)) == 0)
			return i;
		memcpy(&t, m->slots + i * FM_SLOT + sizeof id, sizeof t);
		if (t == tag && fm_equal(m, id, k))
			return i;
	}
}

static size_t
fm_home(const struct store_frames *m, size_t id)
{
	struct store_frame_key k;

	fm_get(m, id, &k);
	return (size_t)fm_hash(&k) & (m->cap - 1);
}

/* A table of cap slots from the key array, the old one freed first. */
static void
fm_rebuild(struct store_frames *m, size_t cap)
{
	struct store_frame_key k;
	size_t id, i;
	uint64_t h;

	free(m->slots);
	m->slots = hmap_table(cap, FM_SLOT);
	m->cap = cap;
	m->n = 0;
	for (id = 1; id < m->ids; id++) {
		if (m->key[id].state == FK_NONE)
			continue;
		fm_get(m, id, &k);
		h = fm_hash(&k);
		for (i = (size_t)h & (cap - 1); fm_id(m, i) != 0;
		    i = (i + 1) & (cap - 1))
			;
		fm_set(m, i, (uint32_t)id, fm_tag(h));
		m->n++;
	}
}

/* Room for n entries at 3/4 full. */
static void
fm_room(struct store_frames *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;

	while (n * 4 > cap * 3)
		cap *= 2;
	if (cap > m->cap)
		fm_rebuild(m, cap);
}

/* Keys for ids below want, the new ones absent.  Grown by a quarter, not
 * doubled: the array is most of the map, and a large one is remapped by
 * realloc, not copied. */
static void
fm_ids(struct store_frames *m, size_t want)
{
	size_t cap;

	if (want <= m->ids)
		return;
	if (want > m->idcap) {
		cap = m->idcap + m->idcap / 4 + 1024;
		if (cap < want)
			cap = want;
		m->key = xreallocarray(m->key, cap, sizeof *m->key);
		m->idcap = cap;
	}
	memset(m->key + m->ids, 0, (want - m->ids) * sizeof *m->key);
	m->ids = want;
}

static void
fm_key_put(struct store_frames *m, size_t id, const struct store_frame_key *k)
{
	struct fm_key *e;

	fm_ids(m, id + 1);
	e = &m->key[id];
	if (!fm_narrow(k)) {
		if (m->nwide == m->capwide) {
			m->capwide = m->capwide ? m->capwide * 2 : 16;
			m->wide = xreallocarray(m->wide, m->capwide,
			    sizeof *m->wide);
		}
		m->wide[m->nwide] = *k;
		e->address = m->nwide++;
		e->state = FK_WIDE;
		return;
	}
	e->address = k->address;
	e->function = (uint32_t)k->function;
	e->mapping = (uint32_t)k->mapping;
	e->line = (int32_t)k->line;
	e->col = (uint16_t)k->col;
	e->flags = (uint8_t)k->flags;
	e->state = FK_NARROW;
}

/* id out of the table (backward shift, as csmap_del) and the array. */
static void
fm_remove(struct store_frames *m, size_t id)
{
	size_t i, j, home, mask = m->cap - 1;
	uint32_t e;

	if (id >= m->ids || m->key[id].state == FK_NONE)
		return;
	for (i = fm_home(m, id); (e = fm_id(m, i)) != id;
	    i = (i + 1) & mask)
		if (e == 0)
			goto gone;
	for (j = (i + 1) & mask; (e = fm_id(m, j)) != 0; j = (j + 1) & mask) {
		home = fm_home(m, e);
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		memcpy(m->slots + i * FM_SLOT, m->slots + j * FM_SLOT,
		    FM_SLOT);
		i = j;
	}
	memset(m->slots + i * FM_SLOT, 0, FM_SLOT);
	m->n--;
gone:
	m->key[id].state = FK_NONE;
}

/* Empty and to be read again, the memory kept. */
static void
fm_reset(struct store_frames *m)
{
	if (m->n > 0)
		memset(m->slots, 0, m->cap * FM_SLOT);
	m->n = 0;
	m->ids = 0;
	m->nwide = 0;
	m->top = 0;
	m->loaded = 0;
}

static int
fm_max(struct store *s, struct store_frames *m, int64_t *max,
    struct error *err)
{
	sqlite3_stmt *st = store_stmt_lazy(s, &m->max,
	    "SELECT ifnull(max(id), 0) FROM frame", "preparing the frame "
	    "statements", err);

	if (st == NULL || (*max = store_step_id(s, st, err,
	    "reading the largest frame id")) == -1)
		return -1;
	return 0;
}

/* Every stored frame into the map: the key array sized to the largest id
 * at once, the table built once at the end. */
static int
fm_load(struct store *s, struct store_frames *m, struct error *err)
{
	struct store_frame_key k;
	sqlite3_stmt *st;
	int64_t id, max;
	size_t n = 0, cap = 64;
	int rc;

	fm_reset(m);
	if (fm_max(s, m, &max, err) == -1 ||
	    (st = store_stmt_lazy(s, &m->scan, "SELECT id, function_id, "
	    "mapping_id, address, line, col, flags FROM frame",
	    "preparing the frame statements", err)) == NULL)
		return -1;
	if (max > UINT32_MAX)
		return error_set(err, ERR_INTERNAL, "store: frame id %lld past "
		    "the writer's map", (long long)max);
	fm_ids(m, (size_t)max + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* (A row past max was written between the two reads, by
		 * another connection: the next check reads the map again.) */
		if ((id = sqlite3_column_int64(st, 0)) <= 0 || id > max)
			continue;
		k.function = sqlite3_column_int64(st, 1);
		k.mapping = sqlite3_column_int64(st, 2);
		k.address = (uint64_t)sqlite3_column_int64(st, 3);
		k.line = sqlite3_column_int64(st, 4);
		k.col = sqlite3_column_int64(st, 5);
		k.flags = sqlite3_column_int64(st, 6);
		fm_key_put(m, (size_t)id, &k);
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		fm_reset(m);
		return store_fail(s, err, "reading the frames");
	}
	while ((n + 1) * 4 > cap * 3)
		cap *= 2;
	fm_rebuild(m, cap);
	m->top = max;
	m->loaded = 1;
	return 0;
}

int64_t
store_frames_intern(struct store *s, const struct store_frame_key *k,
    struct error *err)
{
	struct store_frames *m = fm_of(s);
	sqlite3_stmt *st = s->st[S_FRAME_ADD];
	uint64_t h = fm_hash(k);
	int64_t id, max;
	size_t slot;

	/* Once a transaction: frames another connection wrote. */
	if (m->loaded && !m->checked) {
		if (fm_max(s, m, &max, err) == -1)
			return -1;
		if (max != m->top)
			fm_reset(m);
	}
	if (!m->loaded && fm_load(s, m, err) == -1)
		return -1;
	m->checked = 1;
	fm_room(m, m->n + 1);
	slot = fm_probe(m, h, k);
	if ((id = fm_id(m, slot)) != 0)
		return id;

	sqlite3_bind_int64(st, 1, k->function);
	sqlite3_bind_int64(st, 2, k->mapping);
	sqlite3_bind_int64(st, 3, (int64_t)k->address);
	sqlite3_bind_int64(st, 4, k->line);
	sqlite3_bind_int64(st, 5, k->col);
	sqlite3_bind_int64(st, 6, k->flags);
	if ((id = store_step_insert(s, st, err, "frame insert")) == -1)
		return -1;
	if (id > UINT32_MAX)
		return error_set(err, ERR_INTERNAL, "store: frame id %lld past "
		    "the writer's map", (long long)id);
	/* Outside a transaction the row is stored already. */
	if (!sqlite3_get_autocommit(s->db)) {
		if (m->tx_first == 0) {
			m->tx_first = id;
			m->tx_top = m->top;
		}
		if (id <= m->top)
			m->reread = 1;
	}
	fm_key_put(m, (size_t)id, k);
	fm_set(m, slot, (uint32_t)id, fm_tag(h));
	m->n++;
	if (id > m->top)
		m->top = id;
	return id;
}

void
store_frames_end(struct store *s, int committed)
{
	struct store_frames *m = s->frames;
	size_t id;

	if (m == NULL)
		return;
	if (!committed && m->reread)
		fm_reset(m);
	else if (!committed && m->loaded && m->tx_first != 0) {
		for (id = (size_t)m->tx_first; id < m->ids; id++)
			fm_remove(m, id);
		if ((size_t)m->tx_first < m->ids)
			m->ids = (size_t)m->tx_first;
		m->top = m->tx_top;
	}
	m->tx_first = 0;
	m->reread = 0;
	m->checked = 0;
}

void
store_frames_del(struct store *s, int64_t id)
{
	struct store_frames *m = s->frames;

	if (m == NULL || !m->loaded)
		return;
	m->reread = 1;
	if (id > 0)
		fm_remove(m, (size_t)id);
}

void
store_frames_free(struct store *s)
{
	struct store_frames *m = s->frames;

	if (m == NULL)
		return;
	sqlite3_finalize(m->scan);
	sqlite3_finalize(m->max);
	free(m->slots);
	free(m->key);
	free(m->wide);
	free(m);
	s->frames = NULL;
}

size_t
store_frames_bytes(const struct store *s)
{
	const struct store_frames *m = s->frames;

	if (m == NULL)
		return 0;
	return m->cap * FM_SLOT + m->idcap * sizeof *m->key +
	    m->capwide * sizeof *m->wide;
}
