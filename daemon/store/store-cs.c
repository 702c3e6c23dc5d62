/* store-cs.c: callsites (schema 7), interned in memory and kept as
 * chunks of packed rows (callsite_chunk, cschunk.h), never as a row each.
 *
 * The writer holds a map (parent, frame) -> id of every callsite, loaded
 * from the chunks when an import first asks for one; a transaction's new
 * callsites get ids from max(last_id) + 1 on and are encoded as they come
 * (each full chunk of CS_CHUNK_MAX written at once, the rest at the
 * commit); a rollback forgets them.  A small new chunk is merged with the last ones
 * like a binary counter (each trailing chunk no larger than what is being
 * merged joins it, up to CS_CHUNK_MAX), so a series that adds a few
 * callsites per push leaves O(log) small chunks, and a push rewrites at
 * most CS_CHUNK_MAX callsites, a few times each over their life. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "cschunk.h"
#include "csmap.h"
#include "store-int.h"

enum { CS_MAX, CS_SCAN, CS_SCAN_DESC, CS_PUT, CS_DEL_FROM, CS_DEL,
    CS_TOTAL, CS_SEEK, CS_NSTMT };

static const char *const cs_sql[CS_NSTMT] = {
	[CS_MAX] = "SELECT ifnull(max(last_id), 0) FROM callsite_chunk",
	[CS_SCAN] = "SELECT last_id, first_id, count, data FROM callsite_chunk "
	    "WHERE last_id > ?1 ORDER BY last_id",
	[CS_SCAN_DESC] = "SELECT last_id, first_id, count, data FROM "
	    "callsite_chunk ORDER BY last_id DESC",
	[CS_PUT] = "INSERT INTO callsite_chunk (last_id, first_id, count, "
	    "data) VALUES (?1, ?2, ?3, ?4)",
	[CS_DEL_FROM] = "DELETE FROM callsite_chunk WHERE last_id >= ?1",
	[CS_DEL] = "DELETE FROM callsite_chunk WHERE last_id = ?1",
	[CS_TOTAL] = "SELECT ifnull(sum(count), 0) FROM callsite_chunk",
	[CS_SEEK] = "SELECT last_id, first_id, count, data FROM callsite_chunk "
	    "WHERE last_id >= ?1 ORDER BY last_id LIMIT 1",
};

struct store_cs {
	struct csmap map;		/* (parent, frame) -> id */
	int loaded;			/* map holds every stored callsite */
	int64_t next;			/* the next new id */
	/* This transaction's new callsites, encoded as they come (a few
	 * bytes each, not 32 as arrays): the last chunk's; each full one
	 * before it is written at once (flushed). */
	struct cschunk_enc *pend;
	size_t npend, cappend;
	int flushed;
	int64_t last_id, last_depth;	/* the last new one */
	/* The one made last in the map as it is: a parent without children
	 * yet, so a callsite under it is new without a lookup (0: none). */
	int64_t fresh;
	int64_t tx_first;		/* the first id of this transaction */
	size_t expect;			/* store_callsites_expect's, till used */
	struct cschunk tmp;		/* a pending chunk decoded */
	int collected;			/* this transaction removed some */
	struct cschunk look;		/* store_cs_frames' last chunk */
	int64_t look_last, look_first, look_count;
	struct buf enc;
	struct buf packed;		/* a chunk as written (cs_put_blob) */
	sqlite3_stmt *st[CS_NSTMT];
};

static struct store_cs *
cs_of(struct store *s)
{
	if (s->cs == NULL)
		s->cs = xcalloc(1, sizeof *s->cs);
	return s->cs;
}

static sqlite3_stmt *
cs_stmt(struct store *s, int which, struct error *err)
{
	struct store_cs *c = cs_of(s);

	if (c->st[which] == NULL && sqlite3_prepare_v3(s->db, cs_sql[which],
	    -1, SQLITE_PREPARE_PERSISTENT, &c->st[which], NULL) != SQLITE_OK) {
		store_fail(s, err, "preparing a callsite statement");
		return NULL;
	}
	return c->st[which];
}

void
store_cs_free(struct store *s)
{
	struct store_cs *c = s->cs;
	int i;

	if (c == NULL)
		return;
	for (i = 0; i < CS_NSTMT; i++)
		sqlite3_finalize(c->st[i]);
	csmap_clear(&c->map);
	for (i = 0; i < (int)c->cappend; i++)
		buf_free(&c->pend[i].b);
	free(c->pend);
	cschunk_free(&c->tmp);
	cschunk_free(&c->look);
	buf_free(&c->enc);
	buf_free(&c->packed);
	free(c);
	s->cs = NULL;
}

static uint64_t
cs_key(int64_t parent, int64_t frame)
{
	return (uint64_t)parent << 32 | (uint64_t)frame;
}

static size_t
pend_count(const struct store_cs *c)
{
	return c->npend == 0 ? 0 : (c->npend - 1) * CS_CHUNK_MAX +
	    c->pend[c->npend - 1].n;
}

static void
pend_add(struct store_cs *c, int64_t id, int64_t parent, int64_t frame,
    int64_t depth)
{
	if (c->npend == 0 || c->pend[c->npend - 1].n == CS_CHUNK_MAX) {
		if (c->npend == c->cappend) {
			c->pend = xreallocarray(c->pend, c->cappend + 1,
			    sizeof *c->pend);
			memset(&c->pend[c->cappend++], 0, sizeof *c->pend);
		}
		cschunk_enc_start(&c->pend[c->npend++], id);
	}
	cschunk_enc_add(&c->pend[c->npend - 1], id, parent, frame, depth);
	c->last_id = id;
	c->last_depth = depth;
}

/* Pending chunk i decoded into c->tmp. */
static int
pend_decode(struct store_cs *c, size_t i, struct error *err)
{
	const struct cschunk_enc *e = &c->pend[i];

	return cschunk_decode(&c->tmp, e->b.p, e->b.n, e->first, e->last,
	    (int64_t)e->n, err);
}

/* The current row of a chunk statement (last_id, first_id, count, data)
 * decoded into out. */
static int
cs_decode_row(sqlite3_stmt *st, struct cschunk *out, struct error *err)
{
	return cschunk_decode(out, sqlite3_column_blob(st, 3),
	    (size_t)sqlite3_column_bytes(st, 3), sqlite3_column_int64(st, 1),
	    sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 2), err);
}

int
store_cs_each(struct store *s, int64_t after, int desc,
    int (*cb)(void *, const struct cschunk *), void *arg, struct error *err)
{
	sqlite3_stmt *st = cs_stmt(s, desc ? CS_SCAN_DESC : CS_SCAN, err);
	struct cschunk ch = { 0 };
	int rc, ret = -1;

	if (st == NULL)
		return -1;
	if (!desc)
		sqlite3_bind_int64(st, 1, after);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (cs_decode_row(st, &ch, err) == -1 || cb(arg, &ch) == -1)
			goto out;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "reading callsite chunks");
		goto out;
	}
	ret = 0;
out:
	sqlite3_reset(st);
	cschunk_free(&ch);
	return ret;
}

int64_t
store_cs_max(struct store *s, struct error *err)
{
	sqlite3_stmt *st = cs_stmt(s, CS_MAX, err);

	return st == NULL ? -1 : store_step_id(s, st, err, "callsite count");
}

static int
load_chunk(void *arg, const struct cschunk *ch)
{
	struct store_cs *c = arg;
	size_t i;

	for (i = 0; i < ch->n; i++)
		csmap_put(&c->map, (uint32_t)ch->parent[i],
		    (uint32_t)ch->frame[i], (uint32_t)ch->id[i]);
	return 0;
}

/* Every stored callsite into the map. */
static int
cs_load(struct store *s, struct error *err)
{
	struct store_cs *c = cs_of(s);
	sqlite3_stmt *st = cs_stmt(s, CS_TOTAL, err);
	int64_t n, max;
	size_t i;

	if (st == NULL || (n = store_step_id(s, st, err, "callsite count")) ==
	    -1 || (max = store_cs_max(s, err)) == -1)
		return -1;
	c->fresh = 0;
	csmap_reset(&c->map);
	csmap_reserve(&c->map, (size_t)n + pend_count(c),
	    (size_t)(max > c->next ? max : c->next) + 1);
	if (store_cs_each(s, 0, 0, load_chunk, c, err) == -1) {
		csmap_reset(&c->map);
		return -1;
	}
	/* This transaction's, if any, stay in the map. */
	for (i = 0; i < c->npend; i++) {
		if (pend_decode(c, i, err) == -1)
			return -1;
		load_chunk(c, &c->tmp);
	}
	c->loaded = 1;
	return 0;
}

size_t
store_cs_bytes(const struct store *s)
{
	const struct store_cs *c = s->cs;
	size_t n, i;

	if (c == NULL)
		return 0;
	n = csmap_bytes(&c->map);
	for (i = 0; i < c->cappend; i++)
		n += c->pend[i].b.cap;
	return n;
}

void
store_cs_forget(struct store *s)
{
	struct store_cs *c = s->cs;
	size_t i, k;

	if (c == NULL)
		return;
	c->fresh = 0;
	c->expect = 0;
	/* Callsites collected, or chunks of new ones written, then rolled
	 * back: the map read again. */
	if (c->collected || c->flushed) {
		csmap_reset(&c->map);
		c->loaded = 0;
		c->collected = 0;
		c->flushed = 0;
		c->npend = 0;
	}
	if (c->npend == 0)
		return;
	c->next = c->pend[0].first;
	for (i = 0; i < c->npend; i++) {
		/* Made here, it decodes: else nothing is known any more. */
		if (pend_decode(c, i, NULL) == -1) {
			csmap_reset(&c->map);
			c->loaded = 0;
			break;
		}
		for (k = 0; k < c->tmp.n; k++)
			csmap_del(&c->map, (uint32_t)c->tmp.parent[k],
			    (uint32_t)c->tmp.frame[k]);
	}
	c->npend = 0;
}

int
store_cs_begin(struct store *s, struct error *err)
{
	struct store_cs *c = cs_of(s);
	int64_t max;

	store_cs_forget(s);
	c->fresh = 0;
	if ((max = store_cs_max(s, err)) == -1)
		return -1;
	/* Chunks written by someone else: the map is read again. */
	if (c->loaded && max + 1 != c->next) {
		csmap_reset(&c->map);
		c->loaded = 0;
	}
	c->next = max + 1;
	c->tx_first = c->next;
	return 0;
}

/* One chunk row of encoded callsites, packed (cschunk.h: columns,
 * deflated; encoded plain as they come, since a pending chunk is decoded
 * again when it merges, and packed once, here). */
static int
cs_put_blob(struct store *s, const struct cschunk_enc *e, struct error *err)
{
	sqlite3_stmt *st = cs_stmt(s, CS_PUT, err);
	struct buf *pk = &cs_of(s)->packed;

	if (st == NULL)
		return -1;
	cschunk_pack(pk, e->b.p, e->b.n, e->first);
	sqlite3_bind_int64(st, 1, e->last);
	sqlite3_bind_int64(st, 2, e->first);
	sqlite3_bind_int64(st, 3, (int64_t)e->n);
	sqlite3_bind_blob64(st, 4, pk->n ? (const void *)pk->p : "",
	    pk->n, SQLITE_STATIC);
	return store_step_done(s, st, err, "writing a callsite chunk");
}

/* A new callsite's depth: its parent's + 1 when the parent is the last
 * one made (a stack walked down), so that a chunk's depths follow from
 * its parents; else the caller's (the parent's + 1 too, by store.h's
 * contract; stored as given where the parent is in an older chunk). */
static int64_t
cs_depth(const struct store_cs *c, int64_t parent, int64_t given)
{
	if (parent == 0)
		return 0;
	if (c->npend > 0 && parent == c->last_id)
		return c->last_depth + 1;
	return given;
}

/* Room for c->expect more callsites, when the map holds fewer than
 * that: a profile of new stacks (the first push of a large heap profile)
 * grew the map by doubling, each a rebuild of the table from every key,
 * about as many inserts again as its callsites.  A map that holds more
 * (a series, the same profile again) is left to grow as it needs: the
 * hint would double a table that will not fill. */
static void
cs_expect(struct store_cs *c)
{
	if (c->expect != 0 && c->map.n < c->expect)
		csmap_reserve(&c->map, c->map.n + c->expect,
		    (size_t)c->next + c->expect);
	c->expect = 0;
}

void
store_callsites_expect(struct store *s, size_t n)
{
	struct store_cs *c = cs_of(s);

	c->expect = n;
	if (c->loaded)
		cs_expect(c);
}

/* The callsite of (parent, frame); absent: the caller knows it is not
 * interned (a parent made in this transaction by the caller, who knows
 * the children it gave it), so it is made without a lookup. */
static int64_t
cs_intern(struct store *s, int64_t parent_id, int64_t frame_id,
    int64_t depth, int absent, struct error *err)
{
	struct store_cs *c = cs_of(s);
	size_t slot;
	uint32_t got;
	int64_t id;

	if (sqlite3_get_autocommit(s->db))
		return error_set(err, ERR_INTERNAL, "store: a callsite "
		    "interned outside a transaction");
	if (parent_id < 0 || parent_id > UINT32_MAX || frame_id < 1 ||
	    frame_id > UINT32_MAX || depth < 0 || depth > INT32_MAX)
		return error_set(err, ERR_INTERNAL, "store: callsite (%lld, "
		    "%lld) out of range", (long long)parent_id,
		    (long long)frame_id);
	if (!c->loaded) {
		if (cs_load(s, err) == -1)
			return -1;
		cs_expect(c);
	}
	/* Only a parent of this transaction's may be said to have no such
	 * child: older ones may have any. */
	if (absent && (parent_id == 0 || parent_id < c->tx_first))
		absent = 0;
	if (!absent && (parent_id == 0 || parent_id != c->fresh) &&
	    (got = csmap_find(&c->map, (uint32_t)parent_id, (uint32_t)frame_id,
	    1, &slot)) != 0)
		return got;
	if (c->next > UINT32_MAX)
		return error_set(err, ERR_INTERNAL, "store: callsite ids past "
		    "32 bits");
	/* A full chunk is written now: memory for one only. */
	if (c->npend > 0 && c->pend[c->npend - 1].n == CS_CHUNK_MAX) {
		if (cs_put_blob(s, &c->pend[c->npend - 1], err) == -1)
			return -1;
		c->npend = 0;
		c->flushed = 1;
	}
	id = c->next++;
	csmap_add(&c->map, (uint32_t)parent_id, (uint32_t)frame_id,
	    (uint32_t)id);
	c->fresh = id;
	pend_add(c, id, parent_id, frame_id, cs_depth(c, parent_id, depth));
	return id;
}

int64_t
store_callsite(struct store *s, int64_t parent_id, int64_t frame_id,
    int64_t depth, struct error *err)
{
	return cs_intern(s, parent_id, frame_id, depth, 0, err);
}

int64_t
store_callsite_new(struct store *s, int64_t parent_id, int64_t frame_id,
    int64_t depth, struct error *err)
{
	return cs_intern(s, parent_id, frame_id, depth, 1, err);
}

void
store_callsite_prefetch(struct store *s, int64_t parent_id,
    int64_t frame_id)
{
	struct store_cs *c = cs_of(s);

	if (c->loaded && parent_id >= 0 && parent_id <= UINT32_MAX &&
	    frame_id > 0 && frame_id <= UINT32_MAX)
		csmap_prefetch(&c->map, (uint32_t)parent_id,
		    (uint32_t)frame_id);
}

int64_t
store_callsites_next(struct store *s)
{
	return cs_of(s)->next;
}

/* Callsites [from, from + n) of ch as one chunk row. */
static int
cs_put(struct store *s, const struct cschunk *ch, size_t from, size_t n,
    struct error *err)
{
	struct store_cs *c = cs_of(s);
	struct cschunk_enc e;
	size_t i;

	memset(&e, 0, sizeof e);
	e.b = c->enc;
	cschunk_enc_start(&e, ch->id[from]);
	for (i = from; i < from + n; i++)
		cschunk_enc_add(&e, ch->id[i], ch->parent[i], ch->frame[i],
		    ch->depth[i]);
	c->enc = e.b;
	return cs_put_blob(s, &e, err);
}

int
store_cs_put_chunks(struct store *s, const struct cschunk *ch,
    struct error *err)
{
	size_t at, n;

	for (at = 0; at < ch->n; at += n) {
		n = ch->n - at < CS_CHUNK_MAX ? ch->n - at : CS_CHUNK_MAX;
		if (cs_put(s, ch, at, n, err) == -1)
			return -1;
	}
	return 0;
}

static void
append(struct cschunk *to, const struct cschunk *from)
{
	size_t i;

	for (i = 0; i < from->n; i++)
		cschunk_push(to, from->id[i], from->parent[i], from->frame[i],
		    from->depth[i]);
}

/* The pending callsites (one chunk, decoded in c->tmp) with the trailing
 * chunks they absorb, as one. */
static int
cs_merge(struct store *s, struct error *err)
{
	struct store_cs *c = cs_of(s);
	sqlite3_stmt *st = cs_stmt(s, CS_SCAN_DESC, err), *del;
	struct cschunk *parts = NULL, all = { 0 };
	size_t nparts = 0, acc = c->pend[0].n, i;
	int64_t lowest = 0;
	int rc, ret = -1;

	if (st == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t n = sqlite3_column_int64(st, 2);

		if (n < 0 || (size_t)n > acc || acc + (size_t)n > CS_CHUNK_MAX)
			break;
		parts = xreallocarray(parts, nparts + 1, sizeof *parts);
		memset(&parts[nparts], 0, sizeof *parts);
		if (cs_decode_row(st, &parts[nparts++], err) == -1)
			goto out;
		lowest = sqlite3_column_int64(st, 0);
		acc += (size_t)n;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_fail(s, err, "reading callsite chunks");
		goto out;
	}
	sqlite3_reset(st);
	if (nparts == 0) {
		ret = cs_put_blob(s, &c->pend[0], err);
		goto out;
	}
	if (pend_decode(c, 0, err) == -1)
		goto out;
	for (i = nparts; i-- > 0;)
		append(&all, &parts[i]);
	append(&all, &c->tmp);
	if ((del = cs_stmt(s, CS_DEL_FROM, err)) == NULL)
		goto out;
	sqlite3_bind_int64(del, 1, lowest);
	if (store_step_done(s, del, err, "merging callsite chunks") == -1 ||
	    cs_put(s, &all, 0, all.n, err) == -1)
		goto out;
	ret = 0;
out:
	sqlite3_reset(st);
	for (i = 0; i < nparts; i++)
		cschunk_free(&parts[i]);
	free(parts);
	cschunk_free(&all);
	return ret;
}

int
store_cs_commit(struct store *s, struct error *err)
{
	struct store_cs *c = s->cs;
	size_t i;

	if (c == NULL || c->npend == 0)
		return 0;
	if (c->npend == 1 && c->pend[0].n < CS_CHUNK_MAX)
		return cs_merge(s, err);
	for (i = 0; i < c->npend; i++)
		if (cs_put_blob(s, &c->pend[i], err) == -1)
			return -1;
	return 0;
}

void
store_cs_committed(struct store *s)
{
	if (s->cs != NULL) {
		s->cs->npend = 0;
		s->cs->collected = 0;
		s->cs->flushed = 0;
	}
}

int
store_cs_frames(struct store *s, const int64_t *ids, size_t n,
    int64_t *frames, struct error *err)
{
	struct store_cs *c = cs_of(s);
	sqlite3_stmt *st = cs_stmt(s, CS_SEEK, err);
	int64_t last, first, count;
	ptrdiff_t k;
	size_t i;
	int rc;

	if (st == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		frames[i] = 0;
		sqlite3_bind_int64(st, 1, ids[i]);
		if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			last = sqlite3_column_int64(st, 0);
			first = sqlite3_column_int64(st, 1);
			count = sqlite3_column_int64(st, 2);
			/* The same three, the same callsites (store-csvt.c). */
			if (c->look.n == 0 || last != c->look_last ||
			    first != c->look_first || count != c->look_count) {
				c->look.n = 0;
				if (cs_decode_row(st, &c->look, err) == -1) {
					c->look.n = 0;
					sqlite3_reset(st);
					return -1;
				}
				c->look_last = last;
				c->look_first = first;
				c->look_count = count;
			}
			if ((k = cschunk_find(&c->look, ids[i])) >= 0)
				frames[i] = c->look.frame[k];
		} else if (rc != SQLITE_DONE) {
			sqlite3_reset(st);
			return store_fail(s, err, "reading callsite chunks");
		}
		sqlite3_reset(st);
	}
	return 0;
}

/* ---- collection ---- */

struct cs_gc {
	struct store *s;
	int (*keep)(void *, int64_t id);
	void *arg;
	size_t batch, removed;
	struct cschunk kept;
	uint64_t *gone;			/* keys removed, for the map */
	size_t ngone;
};

/* 1 when the chunk loses callsites (g->kept: what stays of it).  The
 * largest ids go first, up to the batch: a child before its parent, so
 * what stays of an unfinished chunk still has every parent. */
static int
gc_chunk(struct cs_gc *g, const struct cschunk *ch)
{
	size_t i, before = g->removed;
	uint8_t *gone = xcalloc(ch->n ? ch->n : 1, 1);

	for (i = ch->n; i-- > 0 && g->removed < g->batch;) {
		if (g->keep(g->arg, ch->id[i]))
			continue;
		gone[i] = 1;
		g->gone = xreallocarray(g->gone, g->ngone + 1,
		    sizeof *g->gone);
		g->gone[g->ngone++] = cs_key(ch->parent[i], ch->frame[i]);
		g->removed++;
	}
	g->kept.n = 0;
	for (i = 0; i < ch->n; i++)
		if (!gone[i])
			cschunk_push(&g->kept, ch->id[i], ch->parent[i],
			    ch->frame[i], ch->depth[i]);
	free(gone);
	return g->removed > before;
}

/* Rewrite of the chunk whose last id is last without the removed ones. */
static int
gc_rewrite(struct store *s, int64_t last, const struct cschunk *kept,
    struct error *err)
{
	sqlite3_stmt *del = cs_stmt(s, CS_DEL, err);

	if (del == NULL)
		return -1;
	sqlite3_bind_int64(del, 1, last);
	if (store_step_done(s, del, err, "collecting callsites") == -1)
		return -1;
	return kept->n == 0 ? 0 : cs_put(s, kept, 0, kept->n, err);
}

int
store_cs_collect(struct store *s, int (*keep)(void *, int64_t), void *arg,
    size_t batch, int64_t *removed, struct error *err)
{
	struct store_cs *c = cs_of(s);
	sqlite3_stmt *st = cs_stmt(s, CS_SCAN_DESC, err);
	struct cs_gc g = { s, keep, arg, batch, 0, { 0 }, NULL, 0 };
	struct cschunk ch = { 0 };
	int64_t *lasts = NULL;
	struct cschunk *keeps = NULL;
	size_t nr = 0, i;
	int rc = SQLITE_DONE, ret = -1;

	*removed = 0;
	c->fresh = 0;
	if (st == NULL)
		return -1;
	/* Read first, write after: the scan must not see its own rows. */
	while (g.removed < batch && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (cs_decode_row(st, &ch, err) == -1)
			goto out;
		if (gc_chunk(&g, &ch) == 1) {
			lasts = xreallocarray(lasts, nr + 1, sizeof *lasts);
			keeps = xreallocarray(keeps, nr + 1, sizeof *keeps);
			lasts[nr] = sqlite3_column_int64(st, 0);
			memset(&keeps[nr], 0, sizeof *keeps);
			append(&keeps[nr++], &g.kept);
		}
	}
	if (g.removed < batch && rc != SQLITE_DONE) {
		store_fail(s, err, "reading callsite chunks");
		goto out;
	}
	sqlite3_reset(st);
	for (i = 0; i < nr; i++)
		if (gc_rewrite(s, lasts[i], &keeps[i], err) == -1)
			goto out;
	*removed = (int64_t)g.removed;
	ret = 0;
out:
	sqlite3_reset(st);
	/* The map forgets them now; should the transaction roll back, the
	 * map is read again (a key missing from it would be made twice). */
	if (c->loaded)
		for (i = 0; i < g.ngone; i++)
			csmap_del(&c->map, (uint32_t)(g.gone[i] >> 32),
			    (uint32_t)g.gone[i]);
	c->collected = 1;
	for (i = 0; i < nr; i++)
		cschunk_free(&keeps[i]);
	free(keeps);
	free(lasts);
	free(g.gone);
	cschunk_free(&g.kept);
	cschunk_free(&ch);
	return ret;
}

/* ---- schema 7 ---- */

/* Flushes the batch of converted rows as chunks. */
static int
convert_flush(struct store *s, struct cschunk *b, struct error *err)
{
	if (b->n > 0 && store_cs_put_chunks(s, b, err) == -1)
		return -1;
	b->n = 0;
	return 0;
}

int
store_cs_convert(struct store *s, struct error *err)
{
	sqlite3_stmt *st = NULL;
	struct cschunk b = { 0 };
	int64_t id, parent, frame, depth, prev = 0;
	ptrdiff_t k;
	int rc, ret = -1;

	if (sqlite3_prepare_v2(s->db, "SELECT id, ifnull(parent_id, 0), "
	    "frame_id, depth FROM callsite_v6 ORDER BY id", -1, &st, NULL) !=
	    SQLITE_OK) {
		store_fail(s, err, "converting callsite rows");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		parent = sqlite3_column_int64(st, 1);
		frame = sqlite3_column_int64(st, 2);
		depth = sqlite3_column_int64(st, 3);
		/* What the chunks cannot hold would not come back as it was. */
		if (id <= prev || parent < 0 || parent >= id || frame < 1 ||
		    depth < 0 || depth > INT32_MAX || (parent == 0) !=
		    (depth == 0)) {
			error_set(err, ERR_INTERNAL, "store: callsite %lld "
			    "(parent %lld, frame %lld, depth %lld) cannot be "
			    "converted", (long long)id, (long long)parent,
			    (long long)frame, (long long)depth);
			goto out;
		}
		if (b.n == CS_CHUNK_MAX && convert_flush(s, &b, err) == -1)
			goto out;
		if (parent != 0 && b.n > 0 && parent >= b.id[0] &&
		    ((k = cschunk_find(&b, parent)) < 0 ||
		    b.depth[k] + 1 != depth)) {
			error_set(err, ERR_INTERNAL, "store: callsite %lld: "
			    "its parent %lld is missing or its depth %lld "
			    "is not its parent's + 1", (long long)id,
			    (long long)parent, (long long)depth);
			goto out;
		}
		cschunk_push(&b, id, parent, frame, depth);
		prev = id;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "converting callsite rows");
		goto out;
	}
	if (convert_flush(s, &b, err) == -1)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (store_exec(s, "DROP TABLE callsite_v6", err) == -1)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(st);
	cschunk_free(&b);
	return ret;
}
