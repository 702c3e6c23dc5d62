/* store-samples.c: the batched writer of sample values the importer uses
 * (docs/DESIGN-STORAGE.md), and the statements of the sample files
 * (store-samples.c, store-rollup.c, store-select.c).  Part of the store
 * module.
 *
 * A profile's rows are buffered, sorted and merged in memory and written
 * as blocks of at most a few hundred thousand rows.  Every block written
 * adds its rows to the scope's rollups (store-rollup.c): per window of an
 * hour and of a day, the sum per (label set, callsite) and metric and the
 * number of rows summed.  A read (store-select.c) uses the rollups of the
 * windows wholly inside its time range, unless it selects profiles or
 * labels, and the blocks for the rest. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "alloc.h"
#include "buf.h"
#include "sblock.h"
#include "srows.h"
#include "store-rollup.h"

/* Rows buffered before they are sorted and merged; a block has at most
 * about this many. */
#define SAMPLES_BUF_ROWS	(128u * 1024)

static const struct store_sql sb_sql[SB_COUNT] = {
	[SB_BLOCK_ADD] = { 1, "INSERT INTO sample_block (profile_id, "
	    "scope_id, bucket_min, bucket_max, nrows, metrics, data_id) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)" },
	[SB_BLOCK_FIX] = { 1, "UPDATE sample_block SET bucket_min = ?2, "
	    "bucket_max = ?2 WHERE id = ?1" },
	/* A block's bytes are a row of block_data (store-bdata.c): read
	 * through the block, by the row's id. */
	[SB_BLOCK_DATA] = { 0, "SELECT d.data FROM sample_block b "
	    "CROSS JOIN block_data d ON d.id = b.data_id WHERE b.id = ?1" },
	[SB_BLOCKS_SCOPE] = { 0, "SELECT b.id, b.profile_id, b.bucket_min, "
	    "b.bucket_max, b.metrics, d.data FROM sample_block b CROSS JOIN "
	    "block_data d ON d.id = b.data_id WHERE b.scope_id = ?1 "
	    "AND b.bucket_max >= ?2 AND b.bucket_min <= ?3" },
	[SB_BLOCKS_PROFILE] = { 0, "SELECT b.id, b.profile_id, "
	    "b.bucket_min, b.bucket_max, b.metrics, d.data, b.scope_id "
	    "FROM sample_block b CROSS JOIN block_data d ON d.id = b.data_id "
	    "WHERE b.profile_id = ?1 ORDER BY b.id" },
	[SB_ROLLUP_RUNS] = { 1, "SELECT id, level, entries FROM rollup "
	    "WHERE scope_id = ?1 AND span = ?2 AND start = ?3" },
	[SB_ROLLUP_GET] = { 1, "SELECT id, level, entries, profiles, data "
	    "FROM rollup WHERE scope_id = ?1 AND span = ?2 AND start = ?3 "
	    "AND entries >= 0 ORDER BY id" },
	[SB_ROLLUP_PUT] = { 1, "INSERT INTO rollup (scope_id, span, start, "
	    "level, entries, profiles, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
	    "?7)" },
	[SB_ROLLUP_DEL] = { 1, "DELETE FROM rollup WHERE id = ?1" },
	[SB_ROLLUPS] = { 0, "SELECT id, start, data, entries, profiles FROM "
	    "rollup WHERE scope_id = ?1 AND span = ?2 AND start >= ?3 AND "
	    "start <= ?4" },
	/* SB_ROLLUPS without the bytes, and a run's bytes by id: the runs
	 * offered by id first (store-sel.h, sel_offers' known). */
	[SB_ROLLUP_IDS] = { 0, "SELECT id, start, NULL, entries, profiles "
	    "FROM rollup WHERE scope_id = ?1 AND span = ?2 AND start >= ?3 "
	    "AND start <= ?4" },
	[SB_ROLLUP_DATA] = { 0, "SELECT data FROM rollup WHERE id = ?1" },
	[SB_ROLLUPS_SPAN] = { 0, "SELECT id, start, data, entries, scope_id "
	    "FROM rollup WHERE span = ?1" },
	/* Days made when they close (store-runs.c, day_close): the runs
	 * of a day's hours; the latest window of a span before a start;
	 * the hours of a day with runs;
	 * the days in a range whose hours have runs and which have no row
	 * of their own (open: read from their hours); and every hour run
	 * of such a day (the collection's, ?1 an hour, ?2 a day). */
	[SB_ROLLUP_RANGE] = { 1, "SELECT id, start, entries, profiles, data "
	    "FROM rollup WHERE scope_id = ?1 AND span = ?2 AND start >= ?3 "
	    "AND start <= ?4 ORDER BY start, id" },
	[SB_ROLLUP_BEFORE] = { 1, "SELECT max(start) FROM rollup WHERE "
	    "scope_id = ?1 AND span = ?2 AND start < ?3" },
	[SB_ROLLUP_HOURS] = { 1, "SELECT count(DISTINCT start) FROM rollup "
	    "WHERE scope_id = ?1 AND span = ?2 AND start >= ?3 AND "
	    "start <= ?4" },
	[SB_ROLLUP_OPEN] = { 0, "SELECT DISTINCT h.start - (h.start % ?5 + "
	    "?5) % ?5 AS day FROM rollup h WHERE h.scope_id = ?1 AND "
	    "h.span = ?4 AND h.start >= ?2 AND h.start <= ?3 AND NOT EXISTS "
	    "(SELECT 1 FROM rollup d WHERE d.scope_id = ?1 AND d.span = ?5 "
	    "AND d.start = h.start - (h.start % ?5 + ?5) % ?5) ORDER BY day" },
	[SB_ROLLUP_ORPHANS] = { 0, "SELECT h.id, h.start, h.data, h.entries, "
	    "h.scope_id FROM rollup h WHERE h.span = ?1 AND NOT EXISTS "
	    "(SELECT 1 FROM rollup d WHERE d.scope_id = h.scope_id AND "
	    "d.span = ?2 AND d.start = h.start - (h.start % ?2 + ?2) % ?2)" },
	[SB_BLOCKS_TIME] = { 0, "SELECT id, bucket_min, bucket_max FROM "
	    "sample_block WHERE scope_id = ?1 AND bucket_max >= ?2 AND "
	    "bucket_min <= ?3" },
	[SB_BLOCK_ROW] = { 0, "SELECT b.id, b.profile_id, b.bucket_min, "
	    "b.bucket_max, b.metrics, d.data FROM sample_block b CROSS JOIN "
	    "block_data d ON d.id = b.data_id WHERE b.id = ?1" },
	[SB_TOTAL_ADD] = { 1, "INSERT INTO sample_total (scope_id, "
	    "metric_id, bucket, profile_id, value) VALUES (?1, ?2, ?3, ?4, "
	    "?5)" },
	[SB_TOTAL_DEL] = { 1, "DELETE FROM sample_total WHERE scope_id = ?1 "
	    "AND metric_id = ?2 AND bucket >= ?3 AND bucket <= ?4 AND "
	    "profile_id = ?5" },
	[SB_TOTALS] = { 0, "SELECT bucket, value FROM sample_total WHERE "
	    "scope_id = ?1 AND metric_id = ?2 AND bucket >= ?3 AND "
	    "bucket <= ?4" },
	[SB_PROFILE_TIME] = { 0, "SELECT time_ns FROM profile WHERE id = ?1" },
	[SB_PROFILE_DELETE] = { 1, "DELETE FROM profile WHERE id = ?1" },
	[SB_TOTALS_PROFILES] = { 0, "SELECT bucket, profile_id, value FROM "
	    "sample_total WHERE scope_id = ?1 AND metric_id = ?2 AND "
	    "bucket >= ?3 AND bucket <= ?4" },
	[SB_PROFILE_RAW] = { 0, "SELECT metric_id FROM profile_metric WHERE "
	    "profile_id = ?1 AND counted != 0" },
	[SB_LABEL_MATCH] = { 0, "SELECT DISTINCT l.labelset_id FROM label l "
	    "JOIN string ks ON ks.id = l.key_id "
	    "LEFT JOIN string vs ON vs.id = l.str_id "
	    "WHERE ks.s = ?1 AND (vs.s = ?2 OR (l.num IS NOT NULL AND "
	    "CAST(l.num AS TEXT) = ?3))" },
	[SB_PUSH_LABEL_MATCH] = { 0, "SELECT profile_id FROM profile_label "
	    "WHERE key = ?1 AND value = ?2" },
	/* For the regex filters (store-labelrx.c): every value of a key. */
	[SB_LABEL_VALUES] = { 0, "SELECT l.labelset_id, vs.s, l.num FROM "
	    "label l JOIN string ks ON ks.id = l.key_id "
	    "LEFT JOIN string vs ON vs.id = l.str_id WHERE ks.s = ?1" },
	[SB_PUSH_LABEL_VALUES] = { 0, "SELECT profile_id, value FROM "
	    "profile_label WHERE key = ?1" },
	[SB_READ_BEGIN] = { 0, "BEGIN" },
	[SB_READ_END] = { 0, "COMMIT" },
	[SB_BDATA_FIND] = { 1, "SELECT id, data FROM block_data WHERE "
	    "hash = ?1" },
	[SB_BDATA_REF] = { 1, "UPDATE block_data SET refs = refs + 1 WHERE "
	    "id = ?1" },
	[SB_BDATA_ADD] = { 1, "INSERT INTO block_data (hash, refs, data) "
	    "VALUES (?1, 1, ?2)" },
	/* A gauge window's edges (store-gauge.c): the bucket of a scope's
	 * metric nearest one end of a range, two seeks in sample_total's
	 * key: the smallest in (a, b], the largest in [a, b). */
	[SB_GAUGE_AFTER] = { 0, "SELECT min(bucket) FROM sample_total "
	    "WHERE scope_id = ?1 AND metric_id = ?2 AND bucket > ?3 AND "
	    "bucket <= ?4" },
	[SB_GAUGE_BEFORE] = { 0, "SELECT max(bucket) FROM sample_total "
	    "WHERE scope_id = ?1 AND metric_id = ?2 AND bucket >= ?3 AND "
	    "bucket < ?4" },
	/* The store's first scope's creation: with its file's name, the
	 * store's identity in store-gauge-sums.c's process-wide cache. */
	[SB_FIRST_SCOPE] = { 0, "SELECT created_ns FROM scope ORDER BY id "
	    "LIMIT 1" },
};


int
store_samples_prepare(struct store *s, struct error *err)
{
	return store_prepare_table(s, sb_sql, SB_COUNT, s->sb,
	    "sample statement", err);
}

void
store_samples_finalize(struct store *s)
{
	store_finalize_table(s->sb, SB_COUNT);
}

void
store_use_rollups(struct store *s, int use)
{
	s->raw_only = !use;
}

int64_t
store_rollups_read(const struct store *s)
{
	return s->rollups_read;
}

int64_t
store_blocks_read(const struct store *s)
{
	return s->blocks_read;
}

void
store_set_sample_buffer(struct store *s, size_t rows)
{
	s->sample_rows = rows;
}

void
store_set_rollup_max(struct store *s, size_t entries)
{
	s->rollup_max = entries;
}

/* ---- the writer ----
 *
 * The importer's thread appends rows to a buffer.  When it is full, a
 * compaction sorts and merges it with the rows kept from before and
 * encodes what is to be written (and adds it to the in-memory rollups)
 * while the importer fills a second buffer: on a helper thread, started
 * for imports that fill a buffer at least once.  Only the importer's
 * thread uses SQLite: it inserts the blocks a compaction made before it
 * hands over the next buffer. */

/* A block encoded, waiting to be inserted. */
struct wblock {
	struct buf blob, metrics;
	int64_t bmin, bmax, nrows;
	int deferred;			/* untimed: bucket and rollups later */
};

struct store_samples {
	struct store *s;
	int64_t profile, scope;
	size_t limit;
	/* The importer's. */
	struct srows timed, untimed;	/* untimed rows have bucket 0 */
	size_t *colof;			/* value index -> column */
	size_t ncolof;
	int64_t *row;			/* scratch, one value per column */
	int64_t *deferred;		/* untimed blocks written early */
	size_t ndeferred;
	/* The compaction's (the helper's while it runs). */
	struct srows in_timed, in_untimed;	/* the buffer handed over */
	struct srows kept_timed, kept_untimed;	/* sorted, not written yet */
	struct srows spare;		/* memory the sorts reuse */
	struct racc racc;
	struct totals tot;		/* (metric, bucket) -> total */
	struct wblock *out;
	size_t nout, capout;
	size_t emitted;			/* blocks made, written or not */
	int dated;			/* untimed rows take bucket: */
	int64_t bucket;			/* store_samples_date */
	/* The helper. */
	pthread_t thread;
	int have_thread, busy, stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

struct store_samples *
store_samples_begin(struct store *s, int64_t profile_id, int64_t scope_id)
{
	struct store_samples *w = xcalloc(1, sizeof *w);

	w->s = s;
	w->profile = profile_id;
	w->scope = scope_id;
	w->limit = s->sample_rows ? s->sample_rows : SAMPLES_BUF_ROWS;
	w->racc.max = store_rollup_max(s);
	w->racc.profile = profile_id;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	return w;
}

static void
helper_wait(struct store_samples *w)
{
	pthread_mutex_lock(&w->mu);
	while (w->busy)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

void
store_samples_free(struct store_samples *w)
{
	size_t i;

	if (w == NULL)
		return;
	if (w->have_thread) {
		pthread_mutex_lock(&w->mu);
		w->stop = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	srows_free(&w->timed);
	srows_free(&w->untimed);
	srows_free(&w->in_timed);
	srows_free(&w->in_untimed);
	srows_free(&w->kept_timed);
	srows_free(&w->kept_untimed);
	srows_free(&w->spare);
	for (i = 0; i < w->capout; i++) {
		buf_free(&w->out[i].blob);
		buf_free(&w->out[i].metrics);
	}
	free(w->out);
	free(w->colof);
	free(w->row);
	free(w->deferred);
	free(w->tot.kv);
	store_rollup_clear(&w->racc);
	free(w);
}

void
store_samples_metric(struct store_samples *w, size_t i, int64_t metric_id)
{
	size_t c;

	if (i >= w->ncolof) {
		w->colof = xreallocarray(w->colof, i + 1, sizeof *w->colof);
		while (w->ncolof <= i)
			w->colof[w->ncolof++] = SIZE_MAX;
	}
	c = srows_col(&w->timed, (uint64_t)metric_id);
	srows_col(&w->untimed, (uint64_t)metric_id);
	w->colof[i] = c;
	w->row = xreallocarray(w->row, w->timed.ncols, sizeof *w->row);
}

static int
row_nonzero(void *arg, const int64_t *v, size_t nc)
{
	size_t c;

	(void)arg;
	for (c = 0; c < nc; c++)
		if (v[c] != 0)
			return 1;
	return 0;
}

/* Encode sorted, merged rows as a block to insert; a timed block goes to
 * the rollups now, an untimed one (deferred) when its bucket is known. */
static void
emit_block(struct store_samples *w, struct srows *r, int deferred)
{
	struct wblock *b;
	size_t *cols, ncols = 0, i, c, nc = r->ncols;

	srows_filter(r, row_nonzero, NULL);
	if (r->n == 0)
		return;
	if (w->nout == w->capout) {
		w->out = xreallocarray(w->out, w->capout + 1, sizeof *w->out);
		memset(&w->out[w->capout++], 0, sizeof *w->out);
	}
	b = &w->out[w->nout++];
	w->emitted++;
	b->blob.n = b->metrics.n = 0;
	b->deferred = deferred;
	b->nrows = (int64_t)r->n;
	cols = xcalloc(nc ? nc : 1, sizeof *cols);
	for (c = 0; c < nc; c++) {
		for (i = 0; i < r->n && r->v[i * nc + c] == 0; i++)
			;
		if (i == r->n)
			continue;
		cols[ncols++] = c;
		sblock_put_varint(&b->metrics, r->tags[c]);
	}
	b->bmin = b->bmax = r->bucket[0];
	for (i = 1; i < r->n; i++) {
		if (r->bucket[i] < b->bmin)
			b->bmin = r->bucket[i];
		if (r->bucket[i] > b->bmax)
			b->bmax = r->bucket[i];
	}
	sblock_encode_cols(r, cols, ncols, b->bmin, &b->blob);
	/* Deflated: a block is written once and read whole (issue 29). */
	sblock_deflate(&b->blob);
	if (!deferred) {
		store_rollup_add(&w->racc, r, cols, ncols);
		store_totals_add(&w->tot, r, cols, ncols);
	}
	free(cols);
}

/* The sorted union of kept rows and a buffer; the buffer is emptied.
 * Memory goes round (buffer, spare, kept) instead of being allocated
 * and faulted in again for each batch. */
static void
take(struct srows *kept, struct srows *in, struct srows *spare)
{
	struct srows m;

	srows_sort_merge_reuse(in, spare);
	if (kept->n == 0) {
		m = *kept;
		*kept = *in;
		*in = m;
		srows_reset(in);
		return;
	}
	srows_merge(spare, kept, in, 1);
	m = *kept;
	*kept = *spare;
	*spare = m;
	srows_reset(in);
}

/* Merge the buffer handed over into the kept rows and make blocks of what
 * has piled up.  The rows of the newest bucket stay, so that the blocks of
 * a trace read in time order do not share buckets.  No SQLite here. */
static void
compact(struct store_samples *w)
{
	struct srows *t = &w->kept_timed, out;
	int64_t cut;
	size_t i, ncut = 0, keep = 0, nc;

	take(&w->kept_timed, &w->in_timed, &w->spare);
	take(&w->kept_untimed, &w->in_untimed, &w->spare);
	nc = t->ncols;
	if (t->n > 0 && t->n + w->kept_untimed.n > w->limit / 2) {
		cut = t->bucket[0];
		for (i = 1; i < t->n; i++)
			if (t->bucket[i] > cut)
				cut = t->bucket[i];
		for (i = 0; i < t->n; i++)
			ncut += t->bucket[i] == cut;
		if (ncut == t->n || ncut > t->n / 2) {
			emit_block(w, t, 0);
			srows_reset(t);
		} else {
			memset(&out, 0, sizeof out);
			for (i = 0; i < nc; i++)
				srows_col(&out, t->tags[i]);
			for (i = 0; i < t->n; i++) {
				if (t->bucket[i] != cut) {
					srows_push(&out, t->ls[i], t->cs[i],
					    t->bucket[i], t->v + i * nc);
					continue;
				}
				srows_move_row(t, keep++, i);
			}
			t->n = keep;
			emit_block(w, &out, 0);
			srows_free(&out);
		}
	}
	if (w->kept_untimed.n > w->limit / 2) {
		emit_block(w, &w->kept_untimed, 1);
		srows_reset(&w->kept_untimed);
	}
}

static void *
helper_main(void *arg)
{
	struct store_samples *w = arg;

	/* Background work, as the import it helps (Linux: per thread). */
	setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + 1);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->busy && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stop)
			break;
		pthread_mutex_unlock(&w->mu);
		compact(w);
		pthread_mutex_lock(&w->mu);
		w->busy = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Insert the blocks compactions made (the helper is idle). */
static int
write_out(struct store_samples *w, struct error *err)
{
	sqlite3_stmt *st = w->s->sb[SB_BLOCK_ADD];
	struct wblock *b;
	int64_t data;
	size_t i;

	for (i = 0; i < w->nout; i++) {
		b = &w->out[i];
		/* Stored once: a block like one stored before (a profile
		 * pushed again) names its data. */
		if (store_bdata_put(w->s, b->blob.p, b->blob.n, &data,
		    err) == -1)
			return -1;
		sqlite3_bind_int64(st, 1, w->profile);
		sqlite3_bind_int64(st, 2, w->scope);
		sqlite3_bind_int64(st, 3, b->bmin);
		sqlite3_bind_int64(st, 4, b->bmax);
		sqlite3_bind_int64(st, 5, b->nrows);
		sqlite3_bind_blob64(st, 6, b->metrics.p, b->metrics.n,
		    SQLITE_STATIC);
		sqlite3_bind_int64(st, 7, data);
		if (store_step_done(w->s, st, err, "writing sample values") == -1)
			return -1;
		if (b->deferred) {
			w->deferred = xreallocarray(w->deferred,
			    w->ndeferred + 1, sizeof *w->deferred);
			w->deferred[w->ndeferred++] =
			    sqlite3_last_insert_rowid(w->s->db);
		}
		/* Large blobs are not kept between compactions. */
		if (b->blob.cap > (1u << 20)) {
			buf_free(&b->blob);
			buf_free(&b->metrics);
		}
	}
	w->nout = 0;
	if (w->racc.rows > ROLLUP_MEM_ROWS)
		return store_rollup_flush(w->s, w->scope, &w->racc, 1, err);
	return 0;
}

/* Hand the full buffer to a compaction and go on with an empty one. */
static int
samples_handover(struct store_samples *w, struct error *err)
{
	struct srows t;
	size_t c;

	helper_wait(w);
	if (write_out(w, err) == -1)
		return -1;
	t = w->in_timed;
	w->in_timed = w->timed;
	w->timed = t;
	t = w->in_untimed;
	w->in_untimed = w->untimed;
	w->untimed = t;
	/* The empty buffers get the columns of the full ones. */
	srows_reset(&w->timed);
	srows_reset(&w->untimed);
	for (c = 0; c < w->in_timed.ncols; c++) {
		srows_col(&w->timed, w->in_timed.tags[c]);
		srows_col(&w->untimed, w->in_untimed.tags[c]);
	}
	if (!w->have_thread) {
		if (pthread_create(&w->thread, NULL, helper_main, w) != 0) {
			/* No thread: compact here. */
			compact(w);
			return 0;
		}
		pthread_setname_np(w->thread, "import-sort");
		w->have_thread = 1;
	}
	pthread_mutex_lock(&w->mu);
	w->busy = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

void
store_samples_date(struct store_samples *w, int64_t profile_bucket)
{
	w->dated = 1;
	w->bucket = profile_bucket;
}

int
store_samples_add(struct store_samples *w, int64_t callsite,
    int64_t labelset, int64_t bucket, const int64_t *values, size_t nvalues,
    struct error *err)
{
	size_t i, nc = w->timed.ncols;
	int nz = 0;

	if (nvalues > w->ncolof)
		return error_set(err, ERR_INTERNAL, "store: %zu values for "
		    "%zu metrics", nvalues, w->ncolof);
	/* No column (a profile none of whose metrics is kept) has no
	 * row to clear. */
	if (nc > 0)
		memset(w->row, 0, nc * sizeof *w->row);
	for (i = 0; i < nvalues; i++) {
		if (values[i] == 0)
			continue;
		if (w->colof[i] == SIZE_MAX)
			return error_set(err, ERR_INTERNAL, "store: value %zu "
			    "has no metric", i);
		w->row[w->colof[i]] = (int64_t)((uint64_t)w->row[w->colof[i]] +
		    (uint64_t)values[i]);
		nz = 1;
	}
	if (!nz)
		return 0;
	if (bucket == STORE_UNTIMED && w->dated)
		bucket = w->bucket;
	if (bucket == STORE_UNTIMED)
		srows_push(&w->untimed, labelset, callsite, 0, w->row);
	else
		srows_push(&w->timed, labelset, callsite, bucket, w->row);
	if (w->timed.n + w->untimed.n >= w->limit)
		return samples_handover(w, err);
	return 0;
}

static void
rows_retag(struct srows *r, uint64_t from, uint64_t to)
{
	size_t c;

	for (c = 0; c < r->ncols; c++)
		if (r->tags[c] == from)
			r->tags[c] = to;
}

int
store_samples_raw(struct store_samples *w, int64_t metric_id)
{
	uint64_t from = (uint64_t)metric_id, to = STORE_RAW_TAG(metric_id);

	helper_wait(w);
	/* Blocks made already went to the rollups and totals. */
	if (w->emitted > 0)
		return 1;
	rows_retag(&w->timed, from, to);
	rows_retag(&w->untimed, from, to);
	rows_retag(&w->in_timed, from, to);
	rows_retag(&w->in_untimed, from, to);
	rows_retag(&w->kept_timed, from, to);
	rows_retag(&w->kept_untimed, from, to);
	return 0;
}

/* Rows of one column, whichever buffer holds them. */
static void
rows_of(const struct srows *r, uint64_t tag, struct srows *out)
{
	size_t i, c;
	int64_t v;

	for (c = 0; c < r->ncols && r->tags[c] != tag; c++)
		;
	if (c == r->ncols)
		return;
	for (i = 0; i < r->n; i++)
		if ((v = r->v[i * r->ncols + c]) != 0)
			srows_push(out, r->ls[i], r->cs[i], 0, &v);
}

void
store_samples_values(struct store_samples *w, uint64_t tag,
    struct srows *out)
{
	helper_wait(w);
	srows_col(out, tag);
	rows_of(&w->timed, tag, out);
	rows_of(&w->untimed, tag, out);
	rows_of(&w->in_timed, tag, out);
	rows_of(&w->in_untimed, tag, out);
	rows_of(&w->kept_timed, tag, out);
	rows_of(&w->kept_untimed, tag, out);
	srows_sort_merge(out);
}

void
store_samples_put(struct store_samples *w, int64_t labelset,
    int64_t callsite, uint64_t tag, int64_t v)
{
	size_t c = srows_col(&w->untimed, tag);

	/* Both buffers keep the same columns (store_samples_add). */
	srows_col(&w->timed, tag);
	w->row = xreallocarray(w->row, w->untimed.ncols, sizeof *w->row);
	memset(w->row, 0, w->untimed.ncols * sizeof *w->row);
	w->row[c] = v;
	srows_push(&w->untimed, labelset, callsite, 0, w->row);
}

/* Give the untimed blocks written early their bucket and add them to the
 * rollups. */
static int
fix_deferred(struct store_samples *w, int64_t bucket, struct error *err)
{
	sqlite3_stmt *st;
	struct srows r = { 0 };
	size_t i;
	int rc = 0;

	for (i = 0; i < w->ndeferred && rc == 0; i++) {
		st = w->s->sb[SB_BLOCK_FIX];
		sqlite3_bind_int64(st, 1, w->deferred[i]);
		sqlite3_bind_int64(st, 2, bucket);
		if ((rc = store_step_done(w->s, st, err, "dating sample values")) ==
		    -1)
			break;
		st = w->s->sb[SB_BLOCK_DATA];
		sqlite3_bind_int64(st, 1, w->deferred[i]);
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_reset(st);
			rc = store_fail(w->s, err, "reading sample values");
			break;
		}
		rc = store_rollup_add_block(w->s, &w->racc, w->scope,
		    sqlite3_column_blob(st, 0),
		    (size_t)sqlite3_column_bytes(st, 0), bucket,
		    w->deferred[i], 1, &r, err);
		if (rc == 0)
			store_totals_add_all(&w->tot, &r);
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	srows_free(&r);
	return rc;
}

int
store_samples_finish(struct store_samples *w, int64_t profile_bucket,
    struct error *err)
{
	struct srows all = { 0 };
	size_t i;

	if (w->dated && w->bucket != profile_bucket)
		return error_set(err, ERR_INTERNAL, "store: samples dated %lld "
		    "of a profile in bucket %lld", (long long)w->bucket,
		    (long long)profile_bucket);
	helper_wait(w);
	if (write_out(w, err) == -1)
		return -1;
	/* Everything left, here: untimed rows take the profile's bucket. */
	take(&w->kept_timed, &w->timed, &w->spare);
	take(&w->kept_untimed, &w->untimed, &w->spare);
	for (i = 0; i < w->kept_untimed.n; i++)
		w->kept_untimed.bucket[i] = profile_bucket;
	srows_merge(&all, &w->kept_timed, &w->kept_untimed, 1);
	srows_free(&w->kept_timed);
	srows_free(&w->kept_untimed);
	emit_block(w, &all, 0);
	srows_free(&all);
	if (write_out(w, err) == -1 ||
	    fix_deferred(w, profile_bucket, err) == -1 ||
	    store_totals_write(w->s, w->scope, w->profile, &w->tot, err) == -1)
		return -1;
	return store_rollup_flush(w->s, w->scope, &w->racc, 1, err);
}
