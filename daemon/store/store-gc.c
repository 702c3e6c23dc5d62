/* store-gc.c: the store's side of retention and deletion: what each scope
 * takes, its oldest profiles, deleting a whole scope, and collecting the
 * interned rows (callsites, label sets, frames, functions, mappings,
 * strings) no stored sample needs any more, a bounded batch at a time.
 *
 * Ids are never reused: the row with the largest id of a table is kept
 * even when nothing needs it, so SQLite's next id stays above every id
 * ever handed out and the query threads' callsite index (which keeps what
 * it read) can never name a new row by an old one's id.  The index must
 * have read a row before it is collected (a query may have selected
 * values naming it): retention_gc_step catches the index up first. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cschunk.h"
#include "nitems.h"
#include "store-int.h"

/* Rows and the fixed part of a profile: its profile, profile_metric and
 * label rows and index entries, roughly. */
#define PROFILE_OVERHEAD	256

static int
prepare(struct store *s, const char *sql, sqlite3_stmt **st,
    struct error *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return store_fail(s, err, "preparing a retention statement");
	return 0;
}

static int
finish(struct store *s, sqlite3_stmt *st, int rc, struct error *err,
    const char *what)
{
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, err, what);
	return 0;
}

int
store_used_bytes(struct store *s, int64_t *bytes, struct error *err)
{
	static const char *const q[] = { "PRAGMA page_count",
	    "PRAGMA freelist_count", "PRAGMA page_size" };
	int64_t v[3];
	sqlite3_stmt *st;
	int i;

	for (i = 0; i < 3; i++) {
		if (prepare(s, q[i], &st, err) == -1)
			return -1;
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return store_fail(s, err, "reading the page counts");
		}
		v[i] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	*bytes = (v[0] - v[1]) * v[2];
	return 0;
}

void
store_usage_free(struct store_usage *u, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(u[i].name);
	free(u);
}

int
store_usage(struct store *s, struct store_usage **out, size_t *nout,
    struct error *err)
{
	/* Data several blocks share (schema 13) counts a share for each:
	 * the shares add up to the data stored. */
	static const char sql[] =
	    "SELECT sc.id, sc.name, "
	    "  (SELECT count(*) FROM profile p WHERE p.scope_id = sc.id), "
	    "  (SELECT min(time_ns) FROM profile p WHERE p.scope_id = sc.id), "
	    "  (SELECT ifnull(sum(length(d.data) / d.refs + "
	    "   length(b.metrics)), 0) FROM sample_block b CROSS JOIN "
	    "   block_data d ON d.id = b.data_id WHERE b.scope_id = sc.id), "
	    "  (SELECT ifnull(sum(length(data)), 0) FROM rollup r "
	    "   WHERE r.scope_id = sc.id) "
	    "FROM scope sc ORDER BY sc.name";
	struct store_usage *u = NULL;
	sqlite3_stmt *st;
	size_t n = 0;
	int rc;

	if (prepare(s, sql, &st, err) == -1)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		u = xreallocarray(u, n + 1, sizeof *u);
		u[n].scope_id = sqlite3_column_int64(st, 0);
		u[n].name = xstrdup((const char *)sqlite3_column_text(st, 1));
		u[n].profiles = sqlite3_column_int64(st, 2);
		u[n].oldest_ns = sqlite3_column_int64(st, 3);
		u[n].bytes = sqlite3_column_int64(st, 4) +
		    sqlite3_column_int64(st, 5) +
		    u[n].profiles * PROFILE_OVERHEAD;
		n++;
	}
	if (finish(s, st, rc, err, "reading scope sizes") == -1) {
		store_usage_free(u, n);
		return -1;
	}
	*out = u;
	*nout = n;
	return 0;
}

int
store_oldest_profiles(struct store *s, int64_t scope_id, int64_t before_ns,
    size_t limit, struct store_old_profile **out, size_t *nout,
    struct error *err)
{
	static const char sql[] =
	    "SELECT p.id, p.time_ns, p.samples, "
	    "  (SELECT ifnull(sum(length(d.data) / d.refs + "
	    "   length(b.metrics)), 0) FROM sample_block b CROSS JOIN "
	    "   block_data d ON d.id = b.data_id WHERE b.profile_id = p.id), "
	    "  ?4 != 0 AND p.shipped_ns = 0, p.bytes "
	    "FROM profile p WHERE (?1 = 0 OR p.scope_id = ?1) "
	    "AND p.time_ns < ?2 AND (?5 = 0 OR p.shipped_ns != 0) "
	    "ORDER BY p.time_ns, p.id LIMIT ?3";
	struct store_old_profile *v;
	sqlite3_stmt *st;
	size_t n = 0;
	int64_t lag_n, lag_bytes, excess = 0;
	int keep = s->keep_unshipped, rc;

	if (keep && s->backlog_max > 0) {
		if (store_ship_lag(s, &lag_n, &lag_bytes, err) == -1)
			return -1;
		if (lag_bytes > s->backlog_max) {
			s->backlog_over = lag_bytes;
			excess = lag_bytes - s->backlog_max;
			keep = 0;
		}
	}
	if (prepare(s, sql, &st, err) == -1)
		return -1;
	sqlite3_bind_int64(st, 1, scope_id);
	sqlite3_bind_int64(st, 2, before_ns);
	/* Over the backlog limit, rows past the excess are skipped here:
	 * no LIMIT in SQL then. */
	sqlite3_bind_int64(st, 3, excess > 0 ? -1 : (int64_t)limit);
	sqlite3_bind_int(st, 4, s->keep_unshipped);
	sqlite3_bind_int(st, 5, keep);
	v = xcalloc(limit ? limit : 1, sizeof *v);
	while (n < limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* Only the oldest unshipped that bring the backlog down to
		 * its limit (its bytes as pushed). */
		if (sqlite3_column_int(st, 4)) {
			if (excess <= 0)
				continue;
			excess -= sqlite3_column_int64(st, 5);
		}
		v[n].id = sqlite3_column_int64(st, 0);
		v[n].time_ns = sqlite3_column_int64(st, 1);
		v[n].samples = sqlite3_column_int64(st, 2);
		v[n].bytes = sqlite3_column_int64(st, 3) + PROFILE_OVERHEAD;
		v[n].unshipped = sqlite3_column_int(st, 4);
		n++;
	}
	if (n == limit)
		rc = SQLITE_DONE;
	if (finish(s, st, rc, err, "listing the oldest profiles") == -1) {
		free(v);
		return -1;
	}
	*out = v;
	*nout = n;
	return 0;
}

static int
exec_id(struct store *s, const char *sql, int64_t id, struct error *err,
    const char *what)
{
	sqlite3_stmt *st;

	if (prepare(s, sql, &st, err) == -1)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	return finish(s, st, sqlite3_step(st), err, what);
}

int
store_scope_delete(struct store *s, int64_t scope_id, int64_t *profiles,
    int64_t *samples, struct error *err)
{
	sqlite3_stmt *st;

	*profiles = *samples = 0;
	if (prepare(s, "SELECT count(*), ifnull(sum(samples), 0) FROM "
	    "profile WHERE scope_id = ?", &st, err) == -1)
		return -1;
	sqlite3_bind_int64(st, 1, scope_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*profiles = sqlite3_column_int64(st, 0);
		*samples = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	/* The rollups go with every profile at once: no need to take each
	 * profile's values out of them first. */
	if (exec_id(s, "DELETE FROM rollup WHERE scope_id = ?", scope_id, err,
	    "deleting a scope's rollups") == -1 ||
	    exec_id(s, "DELETE FROM sample_total WHERE scope_id = ?", scope_id,
	    err, "deleting a scope's totals") == -1 ||
	    exec_id(s, "DELETE FROM profile WHERE scope_id = ?", scope_id, err,
	    "deleting a scope's profiles") == -1 ||
	    exec_id(s, "DELETE FROM scope WHERE id = ?", scope_id, err,
	    "deleting a scope") == -1)
		return -1;
	return 0;
}

int64_t
store_profile_scope(struct store *s, int64_t profile_id, int64_t *samples,
    struct error *err)
{
	sqlite3_stmt *st;
	int64_t scope = 0;

	if (prepare(s, "SELECT scope_id, samples FROM profile WHERE id = ?",
	    &st, err) == -1)
		return -1;
	sqlite3_bind_int64(st, 1, profile_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		scope = sqlite3_column_int64(st, 0);
		if (samples != NULL)
			*samples = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return scope;
}

/* ---- collecting orphans ---- */

struct bits {
	uint8_t *b;
	int64_t max;
};

static void
bits_set(struct bits *m, int64_t id)
{
	if (id > 0 && id <= m->max)
		m->b[id >> 3] |= (uint8_t)(1u << (id & 7));
}

static int
bits_has(const struct bits *m, int64_t id)
{
	return id > 0 && id <= m->max && (m->b[id >> 3] >> (id & 7)) & 1;
}

static int
max_id(struct store *s, const char *table, int64_t *max, struct error *err)
{
	sqlite3_stmt *st;
	char *sql;
	int rc;

	xasprintf(&sql, "SELECT ifnull(max(id), 0) FROM %s", table);
	rc = prepare(s, sql, &st, err);
	free(sql);
	if (rc == -1)
		return -1;
	*max = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) :
	    0;
	sqlite3_finalize(st);
	return 0;
}

/* Mark the ids the columns of a query's rows name. */
static int
mark_from(struct store *s, const char *sql, struct bits *m,
    struct error *err)
{
	sqlite3_stmt *st;
	int rc, i, n;

	if (prepare(s, sql, &st, err) == -1)
		return -1;
	n = sqlite3_column_count(st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (i = 0; i < n; i++)
			bits_set(m, sqlite3_column_int64(st, i));
	return finish(s, st, rc, err, "reading references");
}

struct refs {
	struct bits cs, ls;
};

static void
mark_referenced(void *arg, int64_t cs, int64_t ls)
{
	struct refs *r = arg;

	bits_set(&r->cs, cs);
	bits_set(&r->ls, ls);
}

static int
mark_up_chunk(void *arg, const struct cschunk *ch)
{
	struct bits *m = arg;
	size_t i;

	for (i = ch->n; i-- > 0;)
		if (bits_has(m, ch->id[i]))
			bits_set(m, ch->parent[i]);
	return 0;
}

/* Callsites no sample names, nor any descendant of one: a child has a
 * larger id than its parent, so one pass from the largest id carries the
 * marks up to the roots. */
static int
mark_callsites(struct store *s, struct refs *r, struct error *err)
{
	if (store_referenced(s, mark_referenced, r, err) == -1)
		return -1;
	return store_cs_each(s, 0, 1, mark_up_chunk, &r->cs, err);
}

static int
mark_frames_chunk(void *arg, const struct cschunk *ch)
{
	struct bits *m = arg;
	size_t i;

	for (i = 0; i < ch->n; i++)
		bits_set(m, ch->frame[i]);
	return 0;
}

static int
keep_callsite(void *arg, int64_t id)
{
	return bits_has(arg, id);
}

/* Callsites are rewritten a chunk at a time, in their own transaction. */
static int
store_gc_callsites(struct store *s, struct bits *keep, size_t batch,
    int64_t *removed, struct error *err)
{
	if (store_begin(s, err) == -1)
		return -1;
	if (store_cs_collect(s, keep_callsite, keep, batch, removed, err) ==
	    -1) {
		store_rollback(s);
		return -1;
	}
	return store_commit(s, err);
}

static const struct gc_table {
	const char *table;
	const char *del[2];		/* statements run per id, in order */
} gc_tables[] = {
	{ "callsite", { NULL, NULL } },		/* store_cs_collect */
	{ "labelset", { "DELETE FROM label WHERE labelset_id = ?",
	    "DELETE FROM labelset WHERE id = ?" } },
	{ "frame", { "DELETE FROM frame WHERE id = ?", NULL } },
	{ "function", { "DELETE FROM function WHERE id = ?", NULL } },
	{ "mapping", { "DELETE FROM mapping WHERE id = ?", NULL } },
	{ "string", { "DELETE FROM string WHERE id = ?", NULL } },
};

/* What keeps the rows of each table alive, but for callsites and label
 * sets (the samples, through mark_callsites). */
static const char *const gc_refs[] = {
	NULL, NULL,
	NULL,					/* the callsite chunks */
	"SELECT function_id FROM frame",
	"SELECT mapping_id FROM frame",
	"SELECT name_id, system_name_id, filename_id FROM function "
	"UNION ALL SELECT filename_id, build_id_id, 0 FROM mapping "
	"UNION ALL SELECT key_id, str_id, num_unit_id FROM label",
};

int
store_gc_step(struct store *s, int *phase, size_t batch, int64_t *removed,
    struct error *err)
{
	const struct gc_table *t;
	struct refs r;
	struct bits *keep;
	sqlite3_stmt *st[2] = { NULL, NULL }, *ids = NULL;
	int64_t id, max;
	size_t n = 0;
	char *sql;
	int i, rc = 0;

	*removed = 0;
	if (*phase < 0 || *phase >= (int)NITEMS(gc_tables)) {
		*phase = -1;
		return 0;
	}
	t = &gc_tables[*phase];
	memset(&r, 0, sizeof r);
	if (*phase == 0 ? (max = store_cs_max(s, err)) == -1 :
	    max_id(s, t->table, &max, err) == -1)
		return -1;
	if (*phase <= 1) {
		if ((r.cs.max = store_cs_max(s, err)) == -1 ||
		    max_id(s, "labelset", &r.ls.max, err) == -1)
			return -1;
		r.cs.b = xcalloc((size_t)(r.cs.max >> 3) + 1, 1);
		r.ls.b = xcalloc((size_t)(r.ls.max >> 3) + 1, 1);
		/* The largest callsite stays, and so its ancestors; label
		 * sets need the referenced pairs only, not the ancestors. */
		bits_set(&r.cs, r.cs.max);
		if ((*phase == 0 ? mark_callsites(s, &r, err) :
		    store_referenced(s, mark_referenced, &r, err)) == -1)
			goto out_err;
		keep = *phase == 0 ? &r.cs : &r.ls;
	} else {
		r.cs.max = max;
		r.cs.b = xcalloc((size_t)(max >> 3) + 1, 1);
		if ((gc_refs[*phase] != NULL ? mark_from(s, gc_refs[*phase],
		    &r.cs, err) : store_cs_each(s, 0, 0, mark_frames_chunk,
		    &r.cs, err)) == -1)
			goto out_err;
		keep = &r.cs;
	}
	/* The largest id stays (see the top of the file). */
	bits_set(keep, max);
	if (*phase == 0) {
		rc = store_gc_callsites(s, keep, batch, removed, err);
		if (rc == 0 && *removed < (int64_t)batch)
			(*phase)++;
		goto out;
	}

	xasprintf(&sql, "SELECT id FROM %s ORDER BY id DESC", t->table);
	rc = prepare(s, sql, &ids, err);
	free(sql);
	if (rc == -1)
		goto out_err;
	for (i = 0; i < 2; i++)
		if (t->del[i] != NULL && prepare(s, t->del[i], &st[i], err) ==
		    -1)
			goto out_err;
	if (store_begin(s, err) == -1)
		goto out_err;
	/* Children first: descending ids delete a callsite's children
	 * before it. */
	while (n < batch && (rc = sqlite3_step(ids)) == SQLITE_ROW) {
		id = sqlite3_column_int64(ids, 0);
		if (bits_has(keep, id))
			continue;
		for (i = 0; i < 2 && st[i] != NULL; i++) {
			sqlite3_bind_int64(st[i], 1, id);
			if (sqlite3_step(st[i]) != SQLITE_DONE) {
				store_fail(s, err, "collecting unused rows");
				sqlite3_reset(st[i]);
				store_rollback(s);
				goto out_err;
			}
			sqlite3_reset(st[i]);
		}
		/* The writer's map of frames forgets it (store-frames.c). */
		if (strcmp(t->table, "frame") == 0)
			store_frames_del(s, id);
		n++;
	}
	sqlite3_finalize(ids);
	ids = NULL;
	if (store_commit(s, err) == -1)
		goto out_err;
	*removed = (int64_t)n;
	/* A full batch: the table may have more; else on to the next. */
	if (n < batch)
		(*phase)++;
	rc = 0;
	goto out;
out_err:
	rc = -1;
out:
	sqlite3_finalize(ids);
	for (i = 0; i < 2; i++)
		sqlite3_finalize(st[i]);
	free(r.cs.b);
	free(r.ls.b);
	return rc;
}
