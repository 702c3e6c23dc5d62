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
 * The map is a csmap (csmap.h, the callsites' map) whose key is the
 * columns' 64-bit hash cut in two (high half, low half made nonzero):
 * 8 bytes of key array by id and 8 to 16 of slots, 16 to 24 bytes a
 * frame; the columns stay in the table.  A hit is checked against its
 * row (one read by id); a row that differs is another frame of the same
 * hash (1 in 2^64), which the map cannot hold beside it: that frame is
 * looked for by its columns in the table (a scan, for a frame that never
 * comes) and inserted only if it is not there, and from then on
 * ("shadowed") a frame leaving the map has the map read again, where the
 * shadowed frame takes its key.
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
 *   the map read again (one that connection deletes is not seen by that
 *   check: only the collection deletes frames, and it keeps the largest
 *   id; a hit on it finds no row and goes the way of a collision).
 * Nothing else deletes a frame: a scope's or a profile's delete leaves
 * them to the collection, and VACUUM keeps an INTEGER PRIMARY KEY. */
#include <stdint.h>
#include <stdlib.h>

#include "alloc.h"
#include "csmap.h"
#include "hmap.h"
#include "store-int.h"

struct store_frames {
	struct csmap map;		/* hash halves -> id */
	uint64_t (*hash)(const struct store_frame_key *);
	int loaded;		/* the map holds every stored frame */
	int checked;		/* this transaction's largest id seen */
	/* This transaction made the map lose frames that a rollback brings
	 * back (the collection's), or added one out of id order: a
	 * rollback reads the map again. */
	int reread;
	/* A frame is not in the map, its hash another's: one leaving the
	 * map has the map read again. */
	int shadowed;
	int64_t top;		/* the largest id stored, as known */
	int64_t tx_first, tx_top;	/* this transaction's first new id;
					   top before it */
	sqlite3_stmt *scan, *max, *row, *exact;
};

/* The frame's identity in the map: a column at a time, each step a
 * bijection of the hash so far, so that frames differing in one column
 * never share a hash (and no two columns cancel out in one word). */
static uint64_t
fm_hash(const struct store_frame_key *k)
{
	uint64_t h;

	h = hmap_mix64(k->address);
	h = hmap_mix64(h ^ (uint64_t)k->function);
	h = hmap_mix64(h ^ (uint64_t)k->mapping);
	h = hmap_mix64(h ^ (uint64_t)k->line);
	h = hmap_mix64(h ^ (uint64_t)k->col);
	return hmap_mix64(h ^ (uint64_t)k->flags);
}

static struct store_frames *
fm_of(struct store *s)
{
	if (s->frames == NULL) {
		s->frames = xcalloc(1, sizeof *s->frames);
		s->frames->hash = fm_hash;
	}
	return s->frames;
}

/* The map's key of k: csmap takes frame 0 for absent. */
static void
fm_key(const struct store_frames *m, const struct store_frame_key *k,
    uint32_t *hi, uint32_t *lo)
{
	uint64_t h = m->hash(k);

	*hi = (uint32_t)(h >> 32);
	*lo = (uint32_t)h != 0 ? (uint32_t)h : 1;
}

/* id out of the map, if there. */
static void
fm_remove(struct store_frames *m, size_t id)
{
	const struct csmap_key *e;

	if (id >= m->map.ids || (e = &m->map.key[id])->frame == 0)
		return;
	csmap_del(&m->map, e->parent, e->frame);
}

/* Empty and to be read again, the memory kept. */
static void
fm_reset(struct store_frames *m)
{
	csmap_reset(&m->map);
	m->top = 0;
	m->loaded = 0;
	m->shadowed = 0;
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

/* The columns of a row of st from column i on. */
static void
fm_columns(sqlite3_stmt *st, int i, struct store_frame_key *k)
{
	k->function = sqlite3_column_int64(st, i);
	k->mapping = sqlite3_column_int64(st, i + 1);
	k->address = (uint64_t)sqlite3_column_int64(st, i + 2);
	k->line = sqlite3_column_int64(st, i + 3);
	k->col = sqlite3_column_int64(st, i + 4);
	k->flags = sqlite3_column_int64(st, i + 5);
}

static int
fm_equal(const struct store_frame_key *a, const struct store_frame_key *b)
{
	return a->address == b->address && a->function == b->function &&
	    a->mapping == b->mapping && a->line == b->line &&
	    a->col == b->col && a->flags == b->flags;
}

static void
fm_bind(sqlite3_stmt *st, const struct store_frame_key *k)
{
	sqlite3_bind_int64(st, 1, k->function);
	sqlite3_bind_int64(st, 2, k->mapping);
	sqlite3_bind_int64(st, 3, (int64_t)k->address);
	sqlite3_bind_int64(st, 4, k->line);
	sqlite3_bind_int64(st, 5, k->col);
	sqlite3_bind_int64(st, 6, k->flags);
}

/* Every stored frame into the map, the key array sized to the largest id
 * at once; a frame whose key is taken (lower ids come first) stays out,
 * shadowed. */
static int
fm_load(struct store *s, struct store_frames *m, struct error *err)
{
	struct store_frame_key k;
	sqlite3_stmt *st;
	int64_t id, max;
	uint32_t hi, lo;
	size_t slot;
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
	csmap_reserve(&m->map, 0, (size_t)max + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* (A row past max was written between the two reads, by
		 * another connection: the next check reads the map again.) */
		if ((id = sqlite3_column_int64(st, 0)) <= 0 || id > max)
			continue;
		fm_columns(st, 1, &k);
		fm_key(m, &k, &hi, &lo);
		if (csmap_find(&m->map, hi, lo, 1, &slot) != 0)
			m->shadowed = 1;
		else
			csmap_fill(&m->map, slot, hi, lo, (uint32_t)id);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		fm_reset(m);
		return store_fail(s, err, "reading the frames");
	}
	m->top = max;
	m->loaded = 1;
	return 0;
}

/* Whether row id has the columns of k: 1 yes, 0 no (or no such row),
 * -1 on error. */
static int
fm_same(struct store *s, struct store_frames *m, int64_t id,
    const struct store_frame_key *k, struct error *err)
{
	struct store_frame_key r;
	sqlite3_stmt *st;
	int rc, same = 0;

	if ((st = store_stmt_lazy(s, &m->row, "SELECT function_id, "
	    "mapping_id, address, line, col, flags FROM frame WHERE id = ?1",
	    "preparing the frame statements", err)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fm_columns(st, 0, &r);
		same = fm_equal(&r, k);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(s, err, "reading a frame");
	return same;
}

/* The id of the frame of k by its columns (a scan: no index has them),
 * 0 if none, -1 on error.  For a frame whose hash the map gives to
 * another. */
static int64_t
fm_exact(struct store *s, struct store_frames *m,
    const struct store_frame_key *k, struct error *err)
{
	sqlite3_stmt *st = store_stmt_lazy(s, &m->exact, "SELECT id FROM "
	    "frame WHERE function_id IS nullif(?1, 0) AND mapping_id IS "
	    "nullif(?2, 0) AND address = ?3 AND line = ?4 AND col = ?5 AND "
	    "flags = ?6", "preparing the frame statements", err);

	if (st == NULL)
		return -1;
	fm_bind(st, k);
	return store_step_id(s, st, err, "looking for a frame");
}

int64_t
store_frames_intern(struct store *s, const struct store_frame_key *k,
    struct error *err)
{
	struct store_frames *m = fm_of(s);
	sqlite3_stmt *st = s->st[S_FRAME_ADD];
	int64_t id, max;
	uint32_t hi, lo;
	size_t slot;
	int same = 0;

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
	fm_key(m, k, &hi, &lo);
	if ((id = csmap_find(&m->map, hi, lo, 1, &slot)) != 0) {
		if ((same = fm_same(s, m, id, k, err)) != 0)
			return same == 1 ? id : -1;
		/* Another frame has this hash: this one is looked for by its
		 * columns, and made if not there, out of the map. */
		m->shadowed = 1;
		if ((id = fm_exact(s, m, k, err)) != 0)
			return id;
		slot = CSMAP_NONE;
	}

	fm_bind(st, k);
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
	if (slot != CSMAP_NONE)
		csmap_fill(&m->map, slot, hi, lo, (uint32_t)id);
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
	if (!committed && (m->reread || m->shadowed))
		fm_reset(m);
	else if (!committed && m->loaded && m->tx_first != 0) {
		for (id = (size_t)m->tx_first; id < m->map.ids; id++)
			fm_remove(m, id);
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
	if (m->shadowed)
		fm_reset(m);
	else if (id > 0)
		fm_remove(m, (size_t)id);
}

void
store_frames_hash(struct store *s,
    uint64_t (*hash)(const struct store_frame_key *))
{
	struct store_frames *m = fm_of(s);

	m->hash = hash != NULL ? hash : fm_hash;
	fm_reset(m);
}

void
store_frames_free(struct store *s)
{
	struct store_frames *m = s->frames;

	if (m == NULL)
		return;
	sqlite3_finalize(m->scan);
	sqlite3_finalize(m->max);
	sqlite3_finalize(m->row);
	sqlite3_finalize(m->exact);
	csmap_clear(&m->map);
	free(m);
	s->frames = NULL;
}

size_t
store_frames_bytes(const struct store *s)
{
	return s->frames != NULL ? csmap_bytes(&s->frames->map) : 0;
}
