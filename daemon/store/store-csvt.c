/* store-csvt.c: the callsite virtual table (schema 7): the rows of the
 * callsite table of schema 1 (id, parent_id, frame_id, depth), read from
 * the chunks of callsite_chunk, so that the callsites and samples views
 * and SQL written against the table keep working.  Eponymous: no CREATE
 * VIRTUAL TABLE, it exists on every connection that registers it.  Part
 * of the store module.
 *
 * id = ? is one seek of the chunk that may hold it (keyed by its last id)
 * and a binary search in it; the last chunks decoded stay cached on the
 * connection, checked against the row's (last_id, first_id, count): ids
 * are never reused and a chunk only loses callsites or absorbs others, so
 * the same three mean the same callsites.  Within one statement (one
 * snapshot) an id in the range of a chunk the cursor read already needs
 * no seek at all: the samples view looks up a callsite per row, in runs
 * of neighbouring ids.  Without id = ?, a scan in id order. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cschunk.h"
#include "store-int.h"

enum { COL_ID, COL_PARENT, COL_FRAME, COL_DEPTH };

#define IDX_ID		1
#define CACHE_N		4

struct cached {
	int64_t last, first, count;
	uint64_t used;			/* clock of the last use, 0 = empty */
	struct cschunk ch;
};

struct cvt {
	sqlite3_vtab base;
	sqlite3 *db;
	struct cached cache[CACHE_N];
	uint64_t clock;
};

/* A chunk row as read: what a cached decode is checked against. */
struct ckey {
	int64_t last, first, count;
};

struct ccur {
	sqlite3_vtab_cursor base;
	struct cvt *vt;
	sqlite3_stmt *seek, *scan;
	/* Chunks this cursor read (one statement: one snapshot), so that
	 * the next id in their ranges needs no seek. */
	struct ckey seen[CACHE_N];
	size_t nseen;
	int idx;
	struct cschunk ch;		/* a scan's current chunk */
	size_t at;
	int64_t row[4];			/* an id = ? lookup's row */
	int eof;
	struct error err;
};

static int
cvt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **errmsg)
{
	int rc;

	rc = store_vtab_new(db, "CREATE TABLE x (id INTEGER, parent_id "
	    "INTEGER, frame_id INTEGER, depth INTEGER)", sizeof(struct cvt),
	    out);
	if (rc == SQLITE_OK)
		((struct cvt *)*out)->db = db;
	return rc;
}

static int
cvt_disconnect(sqlite3_vtab *v)
{
	struct cvt *vt = (struct cvt *)v;
	int i;

	for (i = 0; i < CACHE_N; i++)
		cschunk_free(&vt->cache[i].ch);
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int
cvt_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	int i;

	info->idxNum = 0;
	for (i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (c->usable && c->op == SQLITE_INDEX_CONSTRAINT_EQ &&
		    (c->iColumn == COL_ID || c->iColumn == -1)) {
			info->aConstraintUsage[i].argvIndex = 1;
			info->aConstraintUsage[i].omit = 1;
			info->idxNum = IDX_ID;
			break;
		}
	}
	if (info->idxNum == IDX_ID) {
		info->estimatedCost = 10;
		info->estimatedRows = 1;
		info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
	} else {
		info->estimatedCost = 1e7;
		info->estimatedRows = 1000000;
	}
	/* Rows come in id order either way. */
	if (info->nOrderBy == 1 && !info->aOrderBy[0].desc &&
	    (info->aOrderBy[0].iColumn == COL_ID ||
	    info->aOrderBy[0].iColumn == -1))
		info->orderByConsumed = 1;
	return SQLITE_OK;
}

static int
cvt_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct ccur *c = xcalloc(1, sizeof *c);

	c->vt = (struct cvt *)v;
	*out = &c->base;
	return SQLITE_OK;
}

static int
cvt_close(sqlite3_vtab_cursor *cur)
{
	struct ccur *c = (struct ccur *)cur;

	sqlite3_finalize(c->seek);
	sqlite3_finalize(c->scan);
	cschunk_free(&c->ch);
	free(c);
	return SQLITE_OK;
}

static int
cvt_fail(struct ccur *c)
{
	sqlite3_free(c->vt->base.zErrMsg);
	c->vt->base.zErrMsg = sqlite3_mprintf("%s", c->err.msg);
	return SQLITE_ERROR;
}

static int
sql_fail(struct ccur *c, const char *what)
{
	error_set(&c->err, ERR_INTERNAL, "store: %s: %s", what,
	    sqlite3_errmsg(c->vt->db));
	return cvt_fail(c);
}

/* The cached decode of chunk k, or NULL. */
static const struct cschunk *
cache_get(struct cvt *vt, const struct ckey *k)
{
	struct cached *e;
	int i;

	for (i = 0; i < CACHE_N; i++) {
		e = &vt->cache[i];
		if (e->used != 0 && e->last == k->last && e->first == k->first &&
		    e->count == k->count) {
			e->used = ++vt->clock;
			return &e->ch;
		}
	}
	return NULL;
}

/* The decoded chunk of the seek statement's row (key k), from the cache
 * or decoded into it.  NULL on a corrupt chunk. */
static const struct cschunk *
chunk_of(struct ccur *c, const struct ckey *k)
{
	struct cvt *vt = c->vt;
	sqlite3_stmt *st = c->seek;
	const struct cschunk *ch;
	struct cached *victim = &vt->cache[0];
	int i;

	if ((ch = cache_get(vt, k)) != NULL)
		return ch;
	for (i = 1; i < CACHE_N; i++)
		if (vt->cache[i].used < victim->used)
			victim = &vt->cache[i];
	victim->used = 0;
	if (cschunk_decode(&victim->ch, sqlite3_column_blob(st, 3),
	    (size_t)sqlite3_column_bytes(st, 3), k->first, k->last, k->count,
	    &c->err) == -1)
		return NULL;
	victim->last = k->last;
	victim->first = k->first;
	victim->count = k->count;
	victim->used = ++vt->clock;
	return &victim->ch;
}

/* A chunk this cursor read whose range holds id, still cached: the
 * chunk of id without a seek.  NULL if none. */
static const struct cschunk *
seen_chunk(struct ccur *c, int64_t id)
{
	size_t i;

	for (i = 0; i < c->nseen; i++)
		if (c->seen[i].first <= id && id <= c->seen[i].last)
			return cache_get(c->vt, &c->seen[i]);
	return NULL;
}

static void
row_of(struct ccur *c, const struct cschunk *ch, int64_t id)
{
	ptrdiff_t k = cschunk_find(ch, id);

	if (k < 0)
		return;
	c->row[COL_ID] = id;
	c->row[COL_PARENT] = ch->parent[k];
	c->row[COL_FRAME] = ch->frame[k];
	c->row[COL_DEPTH] = ch->depth[k];
	c->eof = 0;
}

/* id = ?: at most one row, copied out (the cache may change under a
 * nested cursor of the same table). */
static int
filter_id(struct ccur *c, sqlite3_value *v)
{
	const struct cschunk *ch;
	struct ckey k;
	int64_t id;
	int rc;

	c->eof = 1;
	switch (sqlite3_value_numeric_type(v)) {
	case SQLITE_INTEGER:
		id = sqlite3_value_int64(v);
		break;
	case SQLITE_FLOAT:
		id = (int64_t)sqlite3_value_double(v);
		if ((double)id != sqlite3_value_double(v))
			return SQLITE_OK;
		break;
	default:
		return SQLITE_OK;
	}
	if ((ch = seen_chunk(c, id)) != NULL) {
		row_of(c, ch, id);
		return SQLITE_OK;
	}
	if (c->seek == NULL && sqlite3_prepare_v2(c->vt->db, "SELECT last_id, "
	    "first_id, count, data FROM callsite_chunk WHERE last_id >= ?1 "
	    "ORDER BY last_id LIMIT 1", -1, &c->seek, NULL) != SQLITE_OK)
		return sql_fail(c, "preparing the callsite seek");
	sqlite3_bind_int64(c->seek, 1, id);
	rc = sqlite3_step(c->seek);
	if (rc == SQLITE_ROW && id >= sqlite3_column_int64(c->seek, 1)) {
		k.last = sqlite3_column_int64(c->seek, 0);
		k.first = sqlite3_column_int64(c->seek, 1);
		k.count = sqlite3_column_int64(c->seek, 2);
		if ((ch = chunk_of(c, &k)) == NULL) {
			sqlite3_reset(c->seek);
			return cvt_fail(c);
		}
		c->seen[c->nseen < CACHE_N ? c->nseen++ : (size_t)(k.last %
		    CACHE_N)] = k;
		row_of(c, ch, id);
	} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		sqlite3_reset(c->seek);
		return sql_fail(c, "reading callsite chunks");
	}
	sqlite3_reset(c->seek);
	return SQLITE_OK;
}

/* A scan: the next callsite, the next chunk's first when one ends. */
static int
scan_next(struct ccur *c)
{
	sqlite3_stmt *st = c->scan;
	int rc;

	if (c->at + 1 < c->ch.n) {
		c->at++;
		return SQLITE_OK;
	}
	for (;;) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE) {
			c->eof = 1;
			return SQLITE_OK;
		}
		if (rc != SQLITE_ROW)
			return sql_fail(c, "reading callsite chunks");
		if (cschunk_decode(&c->ch, sqlite3_column_blob(st, 3),
		    (size_t)sqlite3_column_bytes(st, 3),
		    sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 0),
		    sqlite3_column_int64(st, 2), &c->err) == -1)
			return cvt_fail(c);
		if (c->ch.n > 0) {
			c->at = 0;
			return SQLITE_OK;
		}
	}
}

static int
cvt_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
    sqlite3_value **argv)
{
	struct ccur *c = (struct ccur *)cur;

	error_clear(&c->err);
	c->idx = idx;
	c->eof = 0;
	if (idx == IDX_ID && argc == 1)
		return filter_id(c, argv[0]);
	if (c->scan == NULL && sqlite3_prepare_v2(c->vt->db, "SELECT last_id, "
	    "first_id, count, data FROM callsite_chunk ORDER BY last_id", -1,
	    &c->scan, NULL) != SQLITE_OK)
		return sql_fail(c, "preparing the callsite scan");
	sqlite3_reset(c->scan);
	c->ch.n = 0;
	c->at = 0;
	return scan_next(c);
}

static int
cvt_next(sqlite3_vtab_cursor *cur)
{
	struct ccur *c = (struct ccur *)cur;

	if (c->idx == IDX_ID) {
		c->eof = 1;
		return SQLITE_OK;
	}
	return scan_next(c);
}

static int
cvt_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct ccur *)cur)->eof;
}

static int64_t
col_value(const struct ccur *c, int col)
{
	if (c->idx == IDX_ID)
		return c->row[col];
	switch (col) {
	case COL_ID:
		return c->ch.id[c->at];
	case COL_PARENT:
		return c->ch.parent[c->at];
	case COL_FRAME:
		return c->ch.frame[c->at];
	default:
		return c->ch.depth[c->at];
	}
}

static int
cvt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	int64_t v = col_value((struct ccur *)cur, col);

	/* A root's parent_id is NULL, as in the table of schema 1. */
	if (col == COL_PARENT && v == 0)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

static int
cvt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = col_value((struct ccur *)cur, COL_ID);
	return SQLITE_OK;
}

static const sqlite3_module cvt_module = {
	.iVersion = 0,
	.xCreate = NULL,		/* eponymous only */
	.xConnect = cvt_connect,
	.xBestIndex = cvt_best_index,
	.xDisconnect = cvt_disconnect,
	.xDestroy = cvt_disconnect,
	.xOpen = cvt_open,
	.xClose = cvt_close,
	.xFilter = cvt_filter,
	.xNext = cvt_next,
	.xEof = cvt_eof,
	.xColumn = cvt_column,
	.xRowid = cvt_rowid,
};

int
store_csvt_register(sqlite3 *db)
{
	return sqlite3_create_module_v2(db, "callsite", &cvt_module, NULL,
	    NULL);
}
