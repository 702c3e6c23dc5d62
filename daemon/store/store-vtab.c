/* store-vtab.c: the sample virtual table (schema 3): one row per (profile,
 * metric, callsite, label set, bucket) with its value, as the sample table
 * of schema 1 had them, read from the packed blocks, so that the samples
 * view and SQL written against it keep working.  Part of the store module.
 *
 * A profile may have several blocks, and a key may be in more than one of
 * them when their bucket ranges overlap: overlapping blocks are read
 * together and merged, so that each key is one row.  An equality on
 * profile_id (the samples view joins on it) reads that profile's blocks
 * only; one on metric_id skips the blocks without that metric. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "sblock.h"
#include "store-int.h"

enum { COL_PROFILE, COL_METRIC, COL_CALLSITE, COL_LABELSET, COL_BUCKET,
    COL_VALUE };

#define IDX_PROFILE	0x1
#define IDX_METRIC	0x2

struct svt {
	sqlite3_vtab base;
	sqlite3 *db;
};

/* One block of the group being merged. */
struct src {
	uint8_t *blob;
	struct sblock_dec dec;
	size_t *map;			/* decoder column -> metric index */
};

struct scur {
	sqlite3_vtab_cursor base;
	struct svt *vt;
	sqlite3_stmt *profiles, *blocks;
	int idx;
	int64_t only_profile, only_metric;
	int64_t profile;
	int have_profile;		/* blocks is bound to profile */
	int pending;			/* blocks has a row not yet taken */
	int blocks_done;		/* blocks ran to its end */
	struct src *src;
	size_t nsrc, capsrc;
	size_t *heap, nheap;
	int64_t *mids;			/* the metrics of the group */
	size_t nm;
	int64_t ls, cs, bucket;		/* the current key */
	int64_t *sum;
	uint8_t *present;
	size_t mi;			/* the current metric */
	int64_t rowid;
	int eof;
	struct error err;
};

static int
svt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **errmsg)
{
	int rc;

	rc = store_vtab_new(db, "CREATE TABLE x (profile_id INTEGER, "
	    "metric_id INTEGER, callsite_id INTEGER, labelset_id INTEGER, "
	    "bucket INTEGER, value INTEGER)", sizeof(struct svt), out);
	if (rc == SQLITE_OK)
		((struct svt *)*out)->db = db;
	return rc;
}

static int
svt_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

static int
svt_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	int i, p = -1, m = -1, n = 1;

	for (i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (c->iColumn == COL_PROFILE && p < 0)
			p = i;
		else if (c->iColumn == COL_METRIC && m < 0)
			m = i;
	}
	info->idxNum = 0;
	if (p >= 0) {
		info->aConstraintUsage[p].argvIndex = n++;
		info->aConstraintUsage[p].omit = 1;
		info->idxNum |= IDX_PROFILE;
	}
	if (m >= 0) {
		info->aConstraintUsage[m].argvIndex = n++;
		info->aConstraintUsage[m].omit = 1;
		info->idxNum |= IDX_METRIC;
	}
	info->estimatedCost = p >= 0 ? 1000.0 : 1e9;
	info->estimatedRows = p >= 0 ? 1000 : 100000000;
	if (m >= 0) {
		info->estimatedCost /= 2;
		info->estimatedRows /= 2;
	}
	return SQLITE_OK;
}

static void
src_free(struct src *s)
{
	free(s->blob);
	free(s->map);
	sblock_dec_free(&s->dec);
	memset(s, 0, sizeof *s);
}

static void
group_clear(struct scur *c)
{
	size_t i;

	for (i = 0; i < c->nsrc; i++)
		src_free(&c->src[i]);
	c->nsrc = 0;
	c->nheap = 0;
	c->nm = 0;
}

static int
svt_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct scur *c = xcalloc(1, sizeof *c);

	c->vt = (struct svt *)v;
	*out = &c->base;
	return SQLITE_OK;
}

static int
svt_close(sqlite3_vtab_cursor *cur)
{
	struct scur *c = (struct scur *)cur;

	group_clear(c);
	free(c->src);
	free(c->heap);
	free(c->mids);
	free(c->sum);
	free(c->present);
	sqlite3_finalize(c->profiles);
	sqlite3_finalize(c->blocks);
	free(c);
	return SQLITE_OK;
}

static int
key_lt(const struct sblock_dec *a, const struct sblock_dec *b)
{
	if (a->ls != b->ls)
		return a->ls < b->ls;
	if (a->cs != b->cs)
		return a->cs < b->cs;
	return a->bucket < b->bucket;
}

static void
heap_up(struct scur *c, size_t i)
{
	size_t p, t;

	while (i > 0) {
		p = (i - 1) / 2;
		if (!key_lt(&c->src[c->heap[i]].dec, &c->src[c->heap[p]].dec))
			break;
		t = c->heap[i];
		c->heap[i] = c->heap[p];
		c->heap[p] = t;
		i = p;
	}
}

static void
heap_down(struct scur *c, size_t i)
{
	size_t l, m, t;

	for (;;) {
		l = 2 * i + 1;
		m = i;
		if (l < c->nheap && key_lt(&c->src[c->heap[l]].dec,
		    &c->src[c->heap[m]].dec))
			m = l;
		if (l + 1 < c->nheap && key_lt(&c->src[c->heap[l + 1]].dec,
		    &c->src[c->heap[m]].dec))
			m = l + 1;
		if (m == i)
			return;
		t = c->heap[i];
		c->heap[i] = c->heap[m];
		c->heap[m] = t;
		i = m;
	}
}

static size_t
metric_index(struct scur *c, int64_t metric)
{
	size_t i;

	for (i = 0; i < c->nm; i++)
		if (c->mids[i] == metric)
			return i;
	c->mids = xreallocarray(c->mids, c->nm + 1, sizeof *c->mids);
	c->sum = xreallocarray(c->sum, c->nm + 1, sizeof *c->sum);
	c->present = xreallocarray(c->present, c->nm + 1, 1);
	c->mids[c->nm] = metric;
	return c->nm++;
}

/* Take the current row of the blocks statement into the group. */
static int
group_add(struct scur *c)
{
	sqlite3_stmt *st = c->blocks;
	struct src *s;
	const void *p = sqlite3_column_blob(st, 4);
	size_t n = (size_t)sqlite3_column_bytes(st, 4), k;
	int r;

	if (c->nsrc == c->capsrc) {
		c->capsrc = c->capsrc ? c->capsrc * 2 : 4;
		c->src = xreallocarray(c->src, c->capsrc, sizeof *c->src);
		c->heap = xreallocarray(c->heap, c->capsrc, sizeof *c->heap);
	}
	s = &c->src[c->nsrc];
	memset(s, 0, sizeof *s);
	s->blob = xmalloc(n ? n : 1);
	if (n > 0)
		memcpy(s->blob, p, n);
	c->nsrc++;
	if (sblock_dec_open(&s->dec, s->blob, n, sqlite3_column_int64(st, 1),
	    "sample block", sqlite3_column_int64(st, 0), &c->err) == -1)
		return -1;
	sblock_dec_want_all(&s->dec);
	s->map = xcalloc(s->dec.ncols ? s->dec.ncols : 1, sizeof *s->map);
	for (k = 0; k < s->dec.ncols; k++)
		s->map[k] = metric_index(c, (int64_t)s->dec.cols[k].tag);
	if ((r = sblock_dec_next(&s->dec, &c->err)) == -1)
		return -1;
	/* A source is in the heap while its decoder holds a row. */
	if (r == 1) {
		c->heap[c->nheap++] = c->nsrc - 1;
		heap_up(c, c->nheap - 1);
	}
	return 0;
}

/* The next group of the profile: its next block and every block after
 * it whose bucket range overlaps the group's.  0 when there is none. */
static int
group_next(struct scur *c, int *got)
{
	int64_t gmax = 0;
	int rc;

	*got = 0;
	group_clear(c);
	while (!c->blocks_done) {
		if (!c->pending) {
			/* (Stepping it again after its end would restart it.) */
			rc = sqlite3_step(c->blocks);
			if (rc == SQLITE_DONE) {
				c->blocks_done = 1;
				break;
			}
			if (rc != SQLITE_ROW)
				return error_set(&c->err, ERR_INTERNAL,
				    "store: reading sample blocks: %s",
				    sqlite3_errmsg(c->vt->db));
			c->pending = 1;
		}
		if (c->idx & IDX_METRIC && !sblock_varints_have(
		    sqlite3_column_blob(c->blocks, 3),
		    (size_t)sqlite3_column_bytes(c->blocks, 3),
		    c->only_metric)) {
			c->pending = 0;
			continue;
		}
		if (*got && sqlite3_column_int64(c->blocks, 1) > gmax)
			break;
		if (!*got || sqlite3_column_int64(c->blocks, 2) > gmax)
			gmax = sqlite3_column_int64(c->blocks, 2);
		*got = 1;
		c->pending = 0;
		if (group_add(c) == -1)
			return -1;
	}
	return 0;
}

/* The next profile to read, 0 when there is none. */
static int
profile_next(struct scur *c, int *got)
{
	int rc;

	*got = 0;
	if (c->idx & IDX_PROFILE) {
		if (c->have_profile)
			return 0;
		c->profile = c->only_profile;
	} else {
		rc = sqlite3_step(c->profiles);
		if (rc == SQLITE_DONE)
			return 0;
		if (rc != SQLITE_ROW)
			return error_set(&c->err, ERR_INTERNAL, "store: "
			    "reading profiles: %s", sqlite3_errmsg(c->vt->db));
		c->profile = sqlite3_column_int64(c->profiles, 0);
	}
	sqlite3_reset(c->blocks);
	sqlite3_bind_int64(c->blocks, 1, c->profile);
	c->have_profile = 1;
	c->pending = 0;
	c->blocks_done = 0;
	*got = 1;
	return 0;
}

/* Pop the smallest key and sum it over the blocks that have it. */
static int
key_next(struct scur *c)
{
	struct src *s;
	size_t i, k;
	int r, first = 1;

	memset(c->present, 0, c->nm);
	memset(c->sum, 0, c->nm * sizeof *c->sum);
	while (c->nheap > 0) {
		s = &c->src[c->heap[0]];
		if (first) {
			c->ls = s->dec.ls;
			c->cs = s->dec.cs;
			c->bucket = s->dec.bucket;
			first = 0;
		} else if (s->dec.ls != c->ls || s->dec.cs != c->cs ||
		    s->dec.bucket != c->bucket)
			break;
		for (k = 0; k < s->dec.ncols; k++) {
			if (s->dec.v[k] == 0)
				continue;
			i = s->map[k];
			c->sum[i] = (int64_t)((uint64_t)c->sum[i] +
			    (uint64_t)s->dec.v[k]);
			c->present[i] = 1;
		}
		if ((r = sblock_dec_next(&s->dec, &c->err)) == -1)
			return -1;
		if (r == 0)
			c->heap[0] = c->heap[--c->nheap];
		heap_down(c, 0);
	}
	return 0;
}

/* Move to the next output row. */
static int
advance(struct scur *c)
{
	int got;

	for (;;) {
		for (c->mi++; c->mi < c->nm; c->mi++)
			if (c->present[c->mi] && (!(c->idx & IDX_METRIC) ||
			    c->mids[c->mi] == c->only_metric))
				return 0;
		if (c->nheap > 0) {
			if (key_next(c) == -1)
				return -1;
			c->mi = (size_t)-1;
			continue;
		}
		if (c->have_profile) {
			if (group_next(c, &got) == -1)
				return -1;
			if (got) {
				c->mi = (size_t)-1;
				if (c->nheap > 0 && key_next(c) == -1)
					return -1;
				continue;
			}
		}
		if (profile_next(c, &got) == -1)
			return -1;
		if (!got) {
			c->eof = 1;
			return 0;
		}
	}
}

static int
svt_fail(struct scur *c)
{
	sqlite3_free(c->vt->base.zErrMsg);
	c->vt->base.zErrMsg = sqlite3_mprintf("%s", c->err.msg);
	return SQLITE_ERROR;
}

static int
svt_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
    sqlite3_value **argv)
{
	struct scur *c = (struct scur *)cur;
	sqlite3 *db = c->vt->db;
	int a = 0;

	error_clear(&c->err);
	group_clear(c);
	c->idx = idx;
	c->eof = 0;
	c->rowid = 0;
	c->have_profile = c->pending = c->blocks_done = 0;
	c->mi = 0;
	c->nm = 0;
	if (idx & IDX_PROFILE)
		c->only_profile = sqlite3_value_int64(argv[a++]);
	if (idx & IDX_METRIC)
		c->only_metric = sqlite3_value_int64(argv[a++]);
	if (c->blocks == NULL && sqlite3_prepare_v2(db, "SELECT b.id, "
	    "b.bucket_min, b.bucket_max, b.metrics, d.data FROM "
	    "sample_block b CROSS JOIN block_data d ON d.id = b.data_id "
	    "WHERE b.profile_id = ?1 ORDER BY b.bucket_min, b.id", -1,
	    &c->blocks,
	    NULL) != SQLITE_OK)
		return SQLITE_ERROR;
	if (!(idx & IDX_PROFILE)) {
		if (c->profiles == NULL && sqlite3_prepare_v2(db, "SELECT "
		    "DISTINCT profile_id FROM sample_block ORDER BY profile_id",
		    -1, &c->profiles, NULL) != SQLITE_OK)
			return SQLITE_ERROR;
		sqlite3_reset(c->profiles);
	}
	if (advance(c) == -1)
		return svt_fail(c);
	return SQLITE_OK;
}

static int
svt_next(sqlite3_vtab_cursor *cur)
{
	struct scur *c = (struct scur *)cur;

	c->rowid++;
	if (advance(c) == -1)
		return svt_fail(c);
	return SQLITE_OK;
}

static int
svt_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct scur *)cur)->eof;
}

static int
svt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct scur *c = (struct scur *)cur;
	int64_t v = 0;

	switch (col) {
	case COL_PROFILE:
		v = c->profile;
		break;
	case COL_METRIC:
		v = c->mids[c->mi];
		break;
	case COL_CALLSITE:
		v = c->cs;
		break;
	case COL_LABELSET:
		v = c->ls;
		break;
	case COL_BUCKET:
		v = c->bucket;
		break;
	case COL_VALUE:
		v = c->sum[c->mi];
		break;
	}
	sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

static int
svt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct scur *)cur)->rowid;
	return SQLITE_OK;
}

static const sqlite3_module svt_module = {
	.iVersion = 0,
	.xCreate = svt_connect,
	.xConnect = svt_connect,
	.xBestIndex = svt_best_index,
	.xDisconnect = svt_disconnect,
	.xDestroy = svt_disconnect,
	.xOpen = svt_open,
	.xClose = svt_close,
	.xFilter = svt_filter,
	.xNext = svt_next,
	.xEof = svt_eof,
	.xColumn = svt_column,
	.xRowid = svt_rowid,
};

int
store_vtab_register(sqlite3 *db)
{
	int rc = sqlite3_create_module_v2(db, "profd_sample", &svt_module,
	    NULL, NULL);

	return rc == SQLITE_OK ? store_csvt_register(db) : rc;
}
