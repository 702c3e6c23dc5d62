/* store-samples.c: sample values in packed blocks and rollups
 * (docs/DESIGN-STORAGE.md): the batched writer the importer uses, the
 * reads behind top, tree, timeline and export, what retention needs
 * (taking a profile out of the rollups, the keys still referenced) and the
 * conversion of a version 2 store.  Part of the store module.
 *
 * A profile's rows are buffered, sorted and merged in memory and written
 * as blocks of at most a few hundred thousand rows.  Every block written
 * adds its rows to the scope's rollups: per window of an hour and of a
 * day, the sum per (label set, callsite) and metric and the number of rows
 * summed.  A read uses the rollups of the windows wholly inside its time
 * range, unless it selects profiles or labels, and the blocks for the rest;
 * the blocks the rollups cover are only counted (for "how many profiles"),
 * never decoded. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "hmap.h"
#include "sblock.h"
#include "store-int.h"
#include "util.h"

/* Rows buffered before they are sorted and merged; a block has at most
 * about this many. */
#define SAMPLES_BUF_ROWS	(128u * 1024)
/* Rollup rows held in memory by one import before they are written. */
#define ROLLUP_MEM_ROWS		(512u * 1024)
/* A window with more (label set, callsite) keys than this gets no rollup
 * (a marker row instead): its rows are read from the blocks, as fast as
 * from such a rollup, and neither grows to the size of the blocks. */
#define ROLLUP_MAX_ENTRIES	(200u * 1000)
/* Values collected by a read before they are merged. */
#define READ_MERGE_ROWS		(1024u * 1024)
/* Buckets are seconds: no row is ever this far from 1970. */
#define BUCKET_LIMIT		((int64_t)1 << 40)

/* The rollup windows, in seconds; each is a multiple of the one before. */
static const int64_t spans[] = { 3600, 86400 };
#define NSPANS	NITEMS(spans)

static const struct {
	int writer;
	const char *sql;
} sb_sql[SB_COUNT] = {
	[SB_BLOCK_ADD] = { 1, "INSERT INTO sample_block (profile_id, "
	    "scope_id, bucket_min, bucket_max, nrows, metrics, data) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)" },
	[SB_BLOCK_FIX] = { 1, "UPDATE sample_block SET bucket_min = ?2, "
	    "bucket_max = ?2 WHERE id = ?1" },
	[SB_BLOCK_DATA] = { 0, "SELECT data FROM sample_block WHERE id = ?1" },
	[SB_BLOCKS_SCOPE] = { 0, "SELECT id, profile_id, bucket_min, "
	    "bucket_max, metrics, data FROM sample_block WHERE scope_id = ?1 "
	    "AND bucket_max >= ?2 AND bucket_min <= ?3" },
	[SB_BLOCKS_PROFILE] = { 0, "SELECT id, profile_id, bucket_min, "
	    "bucket_max, metrics, data, scope_id FROM sample_block "
	    "WHERE profile_id = ?1 ORDER BY id" },
	[SB_ROLLUP_GET] = { 0, "SELECT id, data, entries FROM rollup WHERE "
	    "scope_id = ?1 AND span = ?2 AND start = ?3" },
	[SB_ROLLUP_PUT] = { 1, "INSERT OR REPLACE INTO rollup (scope_id, "
	    "span, start, entries, data) VALUES (?1, ?2, ?3, ?4, ?5)" },
	[SB_ROLLUP_DEL] = { 1, "DELETE FROM rollup WHERE scope_id = ?1 AND "
	    "span = ?2 AND start = ?3" },
	[SB_ROLLUPS] = { 0, "SELECT id, start, data, entries FROM rollup "
	    "WHERE scope_id = ?1 AND span = ?2 AND start >= ?3 AND "
	    "start <= ?4" },
	[SB_ROLLUPS_SPAN] = { 0, "SELECT id, start, data, entries, scope_id "
	    "FROM rollup WHERE span = ?1" },
	[SB_PROFILE_TIME] = { 0, "SELECT time_ns FROM profile WHERE id = ?1" },
	[SB_PROFILE_DELETE] = { 1, "DELETE FROM profile WHERE id = ?1" },
	[SB_LABEL_MATCH] = { 0, "SELECT DISTINCT l.labelset_id FROM label l "
	    "JOIN string ks ON ks.id = l.key_id "
	    "LEFT JOIN string vs ON vs.id = l.str_id "
	    "WHERE ks.s = ?1 AND (vs.s = ?2 OR (l.num IS NOT NULL AND "
	    "CAST(l.num AS TEXT) = ?3))" },
	[SB_PUSH_LABEL_MATCH] = { 0, "SELECT profile_id FROM profile_label "
	    "WHERE key = ?1 AND value = ?2" },
	[SB_READ_BEGIN] = { 0, "BEGIN" },
	[SB_READ_END] = { 0, "COMMIT" },
};

int
store_samples_prepare(struct store *s, struct error *err)
{
	int i;

	for (i = 0; i < SB_COUNT; i++) {
		if (s->readonly && sb_sql[i].writer)
			continue;
		if (sqlite3_prepare_v3(s->db, sb_sql[i].sql, -1,
		    SQLITE_PREPARE_PERSISTENT, &s->sb[i], NULL) != SQLITE_OK)
			return error_set(err, ERR_INTERNAL, "store: preparing "
			    "sample statement %d: %s", i,
			    sqlite3_errmsg(s->db));
	}
	return 0;
}

void
store_samples_finalize(struct store *s)
{
	int i;

	for (i = 0; i < SB_COUNT; i++) {
		sqlite3_finalize(s->sb[i]);
		s->sb[i] = NULL;
	}
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

static int64_t
floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if (a % b != 0 && (a < 0) != (b < 0))
		q--;
	return q;
}

static int64_t
window_of(int64_t bucket, int64_t span)
{
	return floor_div(bucket, span) * span;
}

/* A rollup's columns: per metric, the rows summed and their sum. */
static uint64_t
count_tag(uint64_t metric)
{
	return metric * 2;
}

static uint64_t
value_tag(uint64_t metric)
{
	return metric * 2 + 1;
}

/* A statement run for what it does, not for a row. */
static int
step_done(struct store *s, sqlite3_stmt *st, struct error *err,
    const char *what)
{
	return store_step_id(s, st, err, what) == -1 ? -1 : 0;
}

/* ---- rollups ---- */

/* One window's rows while an import or a delete adds them up. */
struct rwin {
	int64_t span, start;
	struct srows rows;
	int overflow;			/* too many keys: no rollup */
};

struct racc {
	struct rwin *w;
	size_t n;
	struct hmap at;			/* (span, start) -> 1 + index */
	size_t rows;
	size_t max;			/* keys of a window: ROLLUP_MAX_ENTRIES */
};

static size_t
rollup_max(const struct store *s)
{
	return s->rollup_max ? s->rollup_max : ROLLUP_MAX_ENTRIES;
}

static struct rwin *
racc_win(struct racc *a, int64_t span, int64_t start)
{
	int64_t key[2] = { span, start }, i;

	if ((i = hmap_get(&a->at, key, sizeof key)) != 0)
		return &a->w[i - 1];
	a->w = xreallocarray(a->w, a->n + 1, sizeof *a->w);
	memset(&a->w[a->n], 0, sizeof *a->w);
	a->w[a->n].span = span;
	a->w[a->n].start = start;
	hmap_put(&a->at, key, sizeof key, (int64_t)++a->n);
	return &a->w[a->n - 1];
}

static void
racc_clear(struct racc *a)
{
	size_t i;

	size_t max = a->max;

	for (i = 0; i < a->n; i++)
		srows_free(&a->w[i].rows);
	free(a->w);
	hmap_clear(&a->at);
	memset(a, 0, sizeof *a);
	a->max = max;
}

/* Add sorted rows (columns cols[] of r, whose tags are metric ids) to the
 * windows they fall in. */
static void
racc_add(struct racc *a, const struct srows *r, const size_t *cols,
    size_t ncols)
{
	struct srows *d, merged;
	struct imap at;
	struct {
		int64_t start;
		struct srows d;
	} *dl = NULL;
	int64_t start, last = 0, *row, *zero;
	size_t si, i, k, nd = 0, cur = 0, nc = r->ncols;
	int have_last;

	zero = xcalloc(2 * ncols + 1, sizeof *zero);
	for (si = 0; si < NSPANS; si++) {
		memset(&at, 0, sizeof at);
		nd = 0;
		have_last = 0;
		for (i = 0; i < r->n; i++) {
			start = window_of(r->bucket[i], spans[si]);
			if (!have_last || start != last) {
				int64_t j = imap_get(&at, (uint64_t)start);

				if (j == 0) {
					dl = xreallocarray(dl, nd + 1,
					    sizeof *dl);
					memset(&dl[nd], 0, sizeof *dl);
					dl[nd].start = start;
					for (k = 0; k < ncols; k++) {
						srows_col(&dl[nd].d, count_tag(
						    r->tags[cols[k]]));
						srows_col(&dl[nd].d, value_tag(
						    r->tags[cols[k]]));
					}
					j = (int64_t)++nd;
					imap_put(&at, (uint64_t)start, j);
				}
				cur = (size_t)j - 1;
				last = start;
				have_last = 1;
			}
			d = &dl[cur].d;
			if (d->n == 0 || d->ls[d->n - 1] != r->ls[i] ||
			    d->cs[d->n - 1] != r->cs[i])
				srows_push(d, r->ls[i], r->cs[i], start, zero);
			row = d->v + (d->n - 1) * d->ncols;
			for (k = 0; k < ncols; k++) {
				int64_t v = r->v[i * nc + cols[k]];

				if (v == 0)
					continue;
				row[2 * k]++;
				row[2 * k + 1] = (int64_t)((uint64_t)
				    row[2 * k + 1] + (uint64_t)v);
			}
		}
		for (i = 0; i < nd; i++) {
			struct rwin *w = racc_win(a, spans[si], dl[i].start);

			if (!w->overflow) {
				a->rows -= w->rows.n;
				memset(&merged, 0, sizeof merged);
				srows_merge(&merged, &w->rows, &dl[i].d, 1);
				srows_free(&w->rows);
				w->rows = merged;
				if (w->rows.n > a->max) {
					w->overflow = 1;
					srows_free(&w->rows);
				}
				a->rows += w->rows.n;
			}
			srows_free(&dl[i].d);
		}
		imap_clear(&at);
	}
	free(dl);
	free(zero);
}

static int
rollup_keep(void *arg, const int64_t *v, size_t nc)
{
	const struct srows *r = arg;
	size_t c;

	for (c = 0; c < nc; c++)
		if ((r->tags[c] & 1) == 0 && v[c] != 0)
			return 1;
	return 0;
}

/* A rollup row that says "no rollup here, read the blocks". */
static int
rollup_mark(struct store *s, int64_t scope, int64_t span, int64_t start,
    struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_ROLLUP_PUT];

	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, span);
	sqlite3_bind_int64(st, 3, start);
	sqlite3_bind_int64(st, 4, -1);
	sqlite3_bind_zeroblob(st, 5, 0);
	return step_done(s, st, err, "writing a rollup");
}

/* Add delta (sign 1) or take it away (-1) from the stored window; a
 * window past ROLLUP_MAX_ENTRIES (or whose delta overflowed) becomes a
 * marker, and stays one. */
static int
rollup_write(struct store *s, int64_t scope, int64_t span, int64_t start,
    const struct srows *delta, int overflow, int sign, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_ROLLUP_GET];
	struct srows cur = { 0 }, out = { 0 };
	struct buf blob = { 0 };
	size_t *cols = NULL, ncols = 0, i, c;
	int rc, ret = -1, marker = 0;

	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, span);
	sqlite3_bind_int64(st, 3, start);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_int64(st, 2) < 0)
		marker = 1;
	else if (rc == SQLITE_ROW && !overflow && sblock_decode(
	    sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
	    start, "rollup", sqlite3_column_int64(st, 0), &cur, err) == -1) {
		sqlite3_reset(st);
		goto out;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_fail(s, err, "reading a rollup");
		goto out;
	}
	if (marker) {
		ret = 0;
		goto out;
	}
	if (overflow) {
		ret = rollup_mark(s, scope, span, start, err);
		goto out;
	}
	srows_merge(&out, &cur, delta, sign);
	for (i = 0; i < out.n; i++)
		for (c = 0; c < out.ncols; c++)
			if ((out.tags[c] & 1) == 0 &&
			    out.v[i * out.ncols + c] < 0) {
				error_set(err, ERR_INTERNAL, "store: the rollup "
				    "of scope %lld at %lld (%lld s) would count "
				    "fewer than no rows: it disagrees with the "
				    "sample blocks", (long long)scope,
				    (long long)start, (long long)span);
				goto out;
			}
	srows_filter(&out, rollup_keep, &out);
	if (out.n > rollup_max(s)) {
		ret = rollup_mark(s, scope, span, start, err);
		goto out;
	}
	/* Metrics no row has any more are left out. */
	cols = xcalloc(out.ncols ? out.ncols : 1, sizeof *cols);
	for (c = 0; c < out.ncols; c++) {
		if (out.tags[c] & 1)
			continue;
		for (i = 0; i < out.n && out.v[i * out.ncols + c] == 0; i++)
			;
		if (i == out.n)
			continue;
		for (i = 0; i < out.ncols; i++)
			if (out.tags[i] == out.tags[c] + 1)
				break;
		cols[ncols++] = c;
		if (i < out.ncols)
			cols[ncols++] = i;
	}
	if (out.n == 0) {
		st = s->sb[SB_ROLLUP_DEL];
		sqlite3_bind_int64(st, 1, scope);
		sqlite3_bind_int64(st, 2, span);
		sqlite3_bind_int64(st, 3, start);
		ret = step_done(s, st, err, "deleting a rollup");
		goto out;
	}
	sblock_encode_cols(&out, cols, ncols, start, &blob);
	st = s->sb[SB_ROLLUP_PUT];
	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, span);
	sqlite3_bind_int64(st, 3, start);
	sqlite3_bind_int64(st, 4, (int64_t)out.n);
	sqlite3_bind_blob64(st, 5, blob.p, blob.n, SQLITE_STATIC);
	ret = step_done(s, st, err, "writing a rollup");
out:
	free(cols);
	buf_free(&blob);
	srows_free(&cur);
	srows_free(&out);
	return ret;
}

static int
racc_flush(struct store *s, int64_t scope, struct racc *a, int sign,
    struct error *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < a->n && rc == 0; i++)
		rc = rollup_write(s, scope, a->w[i].span, a->w[i].start,
		    &a->w[i].rows, a->w[i].overflow, sign, err);
	racc_clear(a);
	return rc;
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
	struct racc racc;
	struct wblock *out;
	size_t nout, capout;
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
	w->racc.max = rollup_max(s);
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
	for (i = 0; i < w->capout; i++) {
		buf_free(&w->out[i].blob);
		buf_free(&w->out[i].metrics);
	}
	free(w->out);
	free(w->colof);
	free(w->row);
	free(w->deferred);
	racc_clear(&w->racc);
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
	if (!deferred)
		racc_add(&w->racc, r, cols, ncols);
	free(cols);
}

/* The sorted union of kept rows and a buffer; the buffer is emptied. */
static void
take(struct srows *kept, struct srows *in)
{
	struct srows m = { 0 };

	srows_sort_merge(in);
	if (kept->n == 0) {
		srows_free(kept);
		*kept = *in;
		memset(in, 0, sizeof *in);
		return;
	}
	srows_merge(&m, kept, in, 1);
	srows_free(kept);
	*kept = m;
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

	take(&w->kept_timed, &w->in_timed);
	take(&w->kept_untimed, &w->in_untimed);
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
				t->ls[keep] = t->ls[i];
				t->cs[keep] = t->cs[i];
				t->bucket[keep] = t->bucket[i];
				memmove(t->v + keep * nc, t->v + i * nc,
				    nc * sizeof *t->v);
				keep++;
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
	size_t i;

	for (i = 0; i < w->nout; i++) {
		b = &w->out[i];
		sqlite3_bind_int64(st, 1, w->profile);
		sqlite3_bind_int64(st, 2, w->scope);
		sqlite3_bind_int64(st, 3, b->bmin);
		sqlite3_bind_int64(st, 4, b->bmax);
		sqlite3_bind_int64(st, 5, b->nrows);
		sqlite3_bind_blob64(st, 6, b->metrics.p, b->metrics.n,
		    SQLITE_STATIC);
		sqlite3_bind_blob64(st, 7, b->blob.p, b->blob.n,
		    SQLITE_STATIC);
		if (step_done(w->s, st, err, "writing sample values") == -1)
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
		return racc_flush(w->s, w->scope, &w->racc, 1, err);
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
	if (bucket == STORE_UNTIMED)
		srows_push(&w->untimed, labelset, callsite, 0, w->row);
	else
		srows_push(&w->timed, labelset, callsite, bucket, w->row);
	if (w->timed.n + w->untimed.n >= w->limit)
		return samples_handover(w, err);
	return 0;
}

/* A stored block, every column of it, into the rollup windows of a;
 * flushed (sign 1 adds, -1 takes away) when they hold too many rows. */
static int
racc_add_block(struct store *s, struct racc *a, int64_t scope,
    const void *blob, size_t len, int64_t base, int64_t id, int sign,
    struct srows *r, struct error *err)
{
	size_t c, *cols;

	if (sblock_decode(blob, len, base, "sample block", id, r, err) == -1)
		return -1;
	cols = xreallocarray(NULL, r->ncols ? r->ncols : 1, sizeof *cols);
	for (c = 0; c < r->ncols; c++)
		cols[c] = c;
	racc_add(a, r, cols, r->ncols);
	free(cols);
	if (a->rows > ROLLUP_MEM_ROWS)
		return racc_flush(s, scope, a, sign, err);
	return 0;
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
		if ((rc = step_done(w->s, st, err, "dating sample values")) ==
		    -1)
			break;
		st = w->s->sb[SB_BLOCK_DATA];
		sqlite3_bind_int64(st, 1, w->deferred[i]);
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_reset(st);
			rc = store_fail(w->s, err, "reading sample values");
			break;
		}
		rc = racc_add_block(w->s, &w->racc, w->scope,
		    sqlite3_column_blob(st, 0),
		    (size_t)sqlite3_column_bytes(st, 0), bucket,
		    w->deferred[i], 1, &r, err);
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

	helper_wait(w);
	if (write_out(w, err) == -1)
		return -1;
	/* Everything left, here: untimed rows take the profile's bucket. */
	take(&w->kept_timed, &w->timed);
	take(&w->kept_untimed, &w->untimed);
	for (i = 0; i < w->kept_untimed.n; i++)
		w->kept_untimed.bucket[i] = profile_bucket;
	srows_merge(&all, &w->kept_timed, &w->kept_untimed, 1);
	srows_free(&w->kept_timed);
	srows_free(&w->kept_untimed);
	emit_block(w, &all, 0);
	srows_free(&all);
	if (write_out(w, err) == -1 ||
	    fix_deferred(w, profile_bucket, err) == -1)
		return -1;
	return racc_flush(w->s, w->scope, &w->racc, 1, err);
}

/* ---- retention ---- */

/* Add (sign 1) or take away (-1) every block of a profile to or from its
 * scope's rollups. */
static int
profile_roll(struct store *s, int64_t profile, int sign, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_BLOCKS_PROFILE];
	struct racc a = { 0 };
	struct srows r = { 0 };
	int64_t scope = 0;
	int rc;

	a.max = rollup_max(s);
	sqlite3_bind_int64(st, 1, profile);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		scope = sqlite3_column_int64(st, 6);
		if (racc_add_block(s, &a, scope, sqlite3_column_blob(st, 5),
		    (size_t)sqlite3_column_bytes(st, 5),
		    sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 0),
		    sign, &r, err) == -1)
			goto fail;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	srows_free(&r);
	if (rc != SQLITE_DONE) {
		racc_clear(&a);
		return store_fail(s, err, "reading sample values");
	}
	return racc_flush(s, scope, &a, sign, err);
fail:
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	srows_free(&r);
	racc_clear(&a);
	return -1;
}

int
store_profile_delete(struct store *s, int64_t profile_id, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_PROFILE_DELETE];

	if (profile_roll(s, profile_id, -1, err) == -1)
		return -1;
	sqlite3_bind_int64(st, 1, profile_id);
	return step_done(s, st, err, "deleting a profile");
}

/* The keys of the rows of a scope's blocks in [lo, hi]. */
static int
referenced_blocks(struct store *s, int64_t scope, int64_t lo, int64_t hi,
    void (*cb)(void *, int64_t, int64_t), void *arg, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_BLOCKS_SCOPE];
	struct sblock_dec d;
	int rc, r = 0;

	memset(&d, 0, sizeof d);
	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((r = sblock_dec_open(&d, sqlite3_column_blob(st, 5),
		    (size_t)sqlite3_column_bytes(st, 5),
		    sqlite3_column_int64(st, 2), "sample block",
		    sqlite3_column_int64(st, 0), err)) == -1)
			break;
		while ((r = sblock_dec_next(&d, err)) == 1)
			if (d.bucket >= lo && d.bucket <= hi)
				cb(arg, d.cs, d.ls);
	}
	sblock_dec_free(&d);
	if (r == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW)
		r = store_fail(s, err, "reading sample values");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return r == -1 ? -1 : 0;
}

int
store_referenced(struct store *s,
    void (*cb)(void *, int64_t callsite_id, int64_t labelset_id), void *arg,
    struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_ROLLUPS_SPAN];
	struct sblock_dec d;
	int64_t day = spans[NSPANS - 1], start;
	int rc, r = 0;

	memset(&d, 0, sizeof d);
	/* Every row is in exactly one window of the largest span; windows
	 * without a rollup are read from the blocks. */
	sqlite3_bind_int64(st, 1, day);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		start = sqlite3_column_int64(st, 1);
		if (sqlite3_column_int64(st, 3) < 0) {
			r = referenced_blocks(s, sqlite3_column_int64(st, 4),
			    start, start + day - 1, cb, arg, err);
			continue;
		}
		if (sblock_dec_open(&d, sqlite3_column_blob(st, 2),
		    (size_t)sqlite3_column_bytes(st, 2), start, "rollup",
		    sqlite3_column_int64(st, 0), err) == -1) {
			r = -1;
			break;
		}
		while ((r = sblock_dec_next(&d, err)) == 1)
			cb(arg, d.cs, d.ls);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	sblock_dec_free(&d);
	if (r == -1)
		return -1;
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 :
	    store_fail(s, err, "reading rollups");
}

/* ---- reading ---- */

enum sel_mode { SEL_VALUES, SEL_BUCKETS, SEL_ALL };

/* One read: its plan (rollups for [hlo, hhi], days for [dlo, dhi] of it,
 * blocks for the rest of [lo, hi]) and what it collects. */
struct sel {
	struct store *s;
	const struct store_filter *f;
	enum sel_mode mode;
	int64_t metric;			/* 0: every metric */
	int64_t lo, hi;
	int rollups;
	int64_t hlo, hhi, dlo, dhi;
	int64_t *scopes;
	size_t nscopes;
	struct imap scopeset;
	struct imap *lsmatch, *pmatch;	/* per label filter */
	uint8_t *pbits;			/* per filter: the profile matches */
	int64_t last_ls;
	int last_ok;
	struct imap profiles;		/* with a selected row */
	struct hole {
		int64_t scope, lo, hi;
	} *holes;			/* windows without a rollup, in H */
	size_t nholes;
	struct sblock_dec dec;
	struct kv *kv;			/* SEL_VALUES: (callsite, value) */
	size_t nkv, capkv;
	struct srows acc;		/* SEL_BUCKETS, SEL_ALL */
	size_t limit;
	struct error *err;
};

static int64_t
clamp_bucket(int64_t b)
{
	return b < -BUCKET_LIMIT ? -BUCKET_LIMIT : b > BUCKET_LIMIT ?
	    BUCKET_LIMIT : b;
}

static int64_t
ceil_to(int64_t a, int64_t span)
{
	return -floor_div(-a, span) * span;
}

static int
sel_label_sets(struct sel *q, struct error *err)
{
	sqlite3_stmt *st;
	size_t i;
	int64_t id;
	int rc;

	q->lsmatch = xcalloc(q->f->nlabels, sizeof *q->lsmatch);
	q->pmatch = xcalloc(q->f->nlabels, sizeof *q->pmatch);
	q->pbits = xcalloc(q->f->nlabels, 1);
	for (i = 0; i < q->f->nlabels; i++) {
		const char *key = q->f->labels[i].key;
		const char *v = q->f->labels[i].value;

		/* Interned strings are blobs, push labels text. */
		st = q->s->sb[SB_LABEL_MATCH];
		sqlite3_bind_blob(st, 1, key, (int)strlen(key), SQLITE_STATIC);
		sqlite3_bind_blob(st, 2, v, (int)strlen(v), SQLITE_STATIC);
		sqlite3_bind_text(st, 3, v, -1, SQLITE_STATIC);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			id = sqlite3_column_int64(st, 0);
			imap_put(&q->lsmatch[i], (uint64_t)id, 1);
		}
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		if (rc != SQLITE_DONE)
			return store_fail(q->s, err, "reading labels");
		st = q->s->sb[SB_PUSH_LABEL_MATCH];
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, v, -1, SQLITE_STATIC);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			id = sqlite3_column_int64(st, 0);
			imap_put(&q->pmatch[i], (uint64_t)id, 1);
		}
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		if (rc != SQLITE_DONE)
			return store_fail(q->s, err, "reading labels");
	}
	return 0;
}

static int
sel_init(struct sel *q, struct store *s, const struct store_filter *f,
    enum sel_mode mode, struct error *err)
{
	size_t i;

	memset(q, 0, sizeof *q);
	q->s = s;
	q->f = f;
	q->mode = mode;
	q->err = err;
	q->metric = mode == SEL_ALL ? 0 : f->metric_id;
	q->lo = clamp_bucket(f->since_s);
	q->hi = clamp_bucket(f->until_s);
	q->limit = READ_MERGE_ROWS;
	q->scopes = xcalloc(f->nscopes ? f->nscopes : 1, sizeof *q->scopes);
	for (i = 0; i < f->nscopes; i++) {
		if (imap_get(&q->scopeset, (uint64_t)f->scopes[i]))
			continue;
		imap_put(&q->scopeset, (uint64_t)f->scopes[i], 1);
		q->scopes[q->nscopes++] = f->scopes[i];
	}
	if (mode != SEL_VALUES)
		srows_col(&q->acc, 0);
	/* Timelines need buckets, which the rollups do not keep. */
	q->rollups = !s->raw_only && mode != SEL_BUCKETS &&
	    f->nprofiles == 0 && f->nlabels == 0;
	if (q->rollups) {
		q->hlo = ceil_to(q->lo, spans[0]);
		q->hhi = floor_div(q->hi + 1, spans[0]) * spans[0] - 1;
		q->dlo = ceil_to(q->hlo, spans[NSPANS - 1]);
		q->dhi = floor_div(q->hhi + 1, spans[NSPANS - 1]) *
		    spans[NSPANS - 1] - 1;
		if (q->hlo > q->hhi)
			q->rollups = 0;
	}
	q->last_ls = -1;
	if (f->nlabels > 0 && sel_label_sets(q, err) == -1)
		return -1;
	return 0;
}

static void
sel_clear(struct sel *q)
{
	size_t i;

	for (i = 0; q->lsmatch != NULL && i < q->f->nlabels; i++) {
		imap_clear(&q->lsmatch[i]);
		imap_clear(&q->pmatch[i]);
	}
	free(q->lsmatch);
	free(q->pmatch);
	free(q->pbits);
	free(q->scopes);
	free(q->holes);
	imap_clear(&q->scopeset);
	imap_clear(&q->profiles);
	sblock_dec_free(&q->dec);
	free(q->kv);
	srows_free(&q->acc);
}

static void
sel_value(struct sel *q, int64_t metric, int64_t ls, int64_t cs,
    int64_t bucket, int64_t v)
{
	int64_t k[1];

	switch (q->mode) {
	case SEL_VALUES:
		if (q->nkv == q->capkv) {
			if (q->nkv >= q->limit) {
				q->nkv = kv_sort_merge(q->kv, q->nkv);
				if (q->nkv > q->limit / 2)
					q->limit *= 2;
			}
			if (q->nkv == q->capkv) {
				q->capkv = q->capkv ? q->capkv * 2 : 1024;
				q->kv = xreallocarray(q->kv, q->capkv,
				    sizeof *q->kv);
			}
		}
		q->kv[q->nkv].k = (uint64_t)cs;
		q->kv[q->nkv++].v = v;
		return;
	case SEL_BUCKETS:
		/* Sorted by (bucket, callsite). */
		k[0] = v;
		srows_push(&q->acc, bucket, cs, 0, k);
		break;
	case SEL_ALL:
		/* Sorted by (callsite, label set, metric). */
		k[0] = v;
		srows_push(&q->acc, cs, ls, metric, k);
		break;
	}
	if (q->acc.n >= q->limit) {
		srows_sort_merge(&q->acc);
		if (q->acc.n > q->limit / 2)
			q->limit *= 2;
	}
}

static void
sel_profile(struct sel *q, int64_t profile)
{
	imap_put(&q->profiles, (uint64_t)profile, 1);
}

static int
sel_label_ok(struct sel *q, int64_t ls)
{
	size_t i;
	int m;

	if (ls == q->last_ls)
		return q->last_ok;
	q->last_ls = ls;
	q->last_ok = 1;
	for (i = 0; i < q->f->nlabels; i++) {
		m = q->pbits[i] ||
		    (ls != 0 && imap_get(&q->lsmatch[i], (uint64_t)ls) != 0);
		if (m == q->f->labels[i].negate) {
			q->last_ok = 0;
			break;
		}
	}
	return q->last_ok;
}

/* Whether the rollups answer bucket b, or all of [lo, hi], of a scope. */
static int
sel_rolled(const struct sel *q, int64_t scope, int64_t lo, int64_t hi)
{
	size_t i;

	if (!q->rollups || lo < q->hlo || hi > q->hhi)
		return 0;
	for (i = 0; i < q->nholes; i++)
		if (q->holes[i].scope == scope && lo <= q->holes[i].hi &&
		    hi >= q->holes[i].lo)
			return 0;
	return 1;
}

/* The current row of a block statement: (id, profile, bucket_min,
 * bucket_max, metrics, data), of a scope (0: rollups are not used). */
static int
sel_block(struct sel *q, sqlite3_stmt *st, int64_t scope)
{
	struct sblock_dec *d = &q->dec;
	int64_t id = sqlite3_column_int64(st, 0);
	int64_t profile = sqlite3_column_int64(st, 1);
	int64_t bmin = sqlite3_column_int64(st, 2);
	int64_t bmax = sqlite3_column_int64(st, 3);
	int64_t b, v;
	size_t i, c;
	int col = -1, rc, marked;

	if (bmax < q->lo || bmin > q->hi)
		return 0;
	if (q->metric != 0 && !sblock_varints_have(sqlite3_column_blob(st, 4),
	    (size_t)sqlite3_column_bytes(st, 4), q->metric))
		return 0;
	/* Rows the rollups answer: the profile counts, nothing to read. */
	if (sel_rolled(q, scope, bmin, bmax)) {
		sel_profile(q, profile);
		return 0;
	}
	if (sblock_dec_open(d, sqlite3_column_blob(st, 5),
	    (size_t)sqlite3_column_bytes(st, 5), bmin, "sample block", id,
	    q->err) == -1)
		return -1;
	if (q->metric != 0) {
		if ((col = sblock_dec_col(d, (uint64_t)q->metric)) < 0)
			return 0;
		sblock_dec_want(d, col);
	} else
		sblock_dec_want_all(d);
	for (i = 0; i < q->f->nlabels; i++)
		q->pbits[i] = imap_get(&q->pmatch[i], (uint64_t)profile) != 0;
	q->last_ls = -1;
	marked = imap_get(&q->profiles, (uint64_t)profile) != 0;
	while ((rc = sblock_dec_next(d, q->err)) == 1) {
		b = d->bucket;
		if (b < q->lo || b > q->hi)
			continue;
		if (col >= 0 && d->v[col] == 0)
			continue;
		if (q->f->nlabels > 0 && !sel_label_ok(q, d->ls))
			continue;
		if (!marked) {
			sel_profile(q, profile);
			marked = 1;
		}
		if (sel_rolled(q, scope, b, b))
			continue;
		if (col >= 0) {
			sel_value(q, q->metric, d->ls, d->cs, b, d->v[col]);
			continue;
		}
		for (c = 0; c < d->ncols; c++)
			if ((v = d->v[c]) != 0)
				sel_value(q, (int64_t)d->cols[c].tag, d->ls,
				    d->cs, b, v);
	}
	return rc;
}

static int
sel_blocks(struct sel *q)
{
	struct imap seen = { 0 };
	sqlite3_stmt *st;
	size_t i;
	int rc = SQLITE_DONE, r = 0;

	if (q->f->nprofiles > 0) {
		st = q->s->sb[SB_BLOCKS_PROFILE];
		for (i = 0; i < q->f->nprofiles && r == 0; i++) {
			int64_t p = q->f->profiles[i];

			if (imap_get(&seen, (uint64_t)p))
				continue;
			imap_put(&seen, (uint64_t)p, 1);
			sqlite3_bind_int64(st, 1, p);
			while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
				int64_t scope = sqlite3_column_int64(st, 6);

				if (imap_get(&q->scopeset, (uint64_t)scope))
					r = sel_block(q, st, 0);
			}
			sqlite3_reset(st);
			if (r == 0 && rc != SQLITE_DONE)
				break;
		}
		imap_clear(&seen);
	} else {
		st = q->s->sb[SB_BLOCKS_SCOPE];
		for (i = 0; i < q->nscopes && r == 0; i++) {
			sqlite3_bind_int64(st, 1, q->scopes[i]);
			sqlite3_bind_int64(st, 2, q->lo);
			sqlite3_bind_int64(st, 3, q->hi);
			while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
				r = sel_block(q, st, q->scopes[i]);
			sqlite3_reset(st);
			if (r == 0 && rc != SQLITE_DONE)
				break;
		}
	}
	if (r == -1)
		return -1;
	return rc == SQLITE_DONE ? 0 : store_fail(q->s, q->err,
	    "reading sample values");
}

/* The rollup windows of a span with start in [from, to]; the starts of
 * those without a rollup are added to marked. */
static int
sel_windows(struct sel *q, int64_t scope, int64_t span, int64_t from,
    int64_t to, int64_t **marked, size_t *nmarked)
{
	sqlite3_stmt *st = q->s->sb[SB_ROLLUPS];
	struct sblock_dec *d = &q->dec;
	size_t c, np, *cc = NULL, *vc = NULL;
	int64_t start, *metric = NULL;
	int rc, r = 0, k;

	if (from > to)
		return 0;
	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, span);
	sqlite3_bind_int64(st, 3, from);
	sqlite3_bind_int64(st, 4, to);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		start = sqlite3_column_int64(st, 1);
		if (sqlite3_column_int64(st, 3) < 0) {
			*marked = xreallocarray(*marked, *nmarked + 1,
			    sizeof **marked);
			(*marked)[(*nmarked)++] = start;
			continue;
		}
		if ((r = sblock_dec_open(d, sqlite3_column_blob(st, 2),
		    (size_t)sqlite3_column_bytes(st, 2), start, "rollup",
		    sqlite3_column_int64(st, 0), q->err)) == -1)
			break;
		/* The (count, value) column pairs wanted. */
		cc = xreallocarray(cc, d->ncols ? d->ncols : 1, sizeof *cc);
		vc = xreallocarray(vc, d->ncols ? d->ncols : 1, sizeof *vc);
		metric = xreallocarray(metric, d->ncols ? d->ncols : 1,
		    sizeof *metric);
		np = 0;
		for (c = 0; c < d->ncols; c++) {
			uint64_t tag = d->cols[c].tag;

			if ((tag & 1) != 0 || (q->metric != 0 &&
			    tag != count_tag((uint64_t)q->metric)))
				continue;
			if ((k = sblock_dec_col(d, tag + 1)) < 0)
				continue;
			cc[np] = c;
			vc[np] = (size_t)k;
			metric[np++] = (int64_t)(tag / 2);
			sblock_dec_want(d, (int)c);
			sblock_dec_want(d, k);
		}
		if (np == 0)
			continue;
		q->s->rollups_read++;
		while ((r = sblock_dec_next(d, q->err)) == 1)
			for (c = 0; c < np; c++)
				if (d->v[cc[c]] != 0)
					sel_value(q, metric[c], d->ls, d->cs,
					    start, d->v[vc[c]]);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	free(cc);
	free(vc);
	free(metric);
	if (r == -1)
		return -1;
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 :
	    store_fail(q->s, q->err, "reading rollups");
}

static int
sel_rollups(struct sel *q)
{
	int64_t hour = spans[0], day = spans[NSPANS - 1];
	int64_t *days = NULL, *hours = NULL, sc;
	size_t i, k, nd, nh;
	int rc = 0;

	if (!q->rollups)
		return 0;
	for (i = 0; i < q->nscopes && rc == 0; i++) {
		sc = q->scopes[i];
		nd = nh = 0;
		if (q->dlo > q->dhi)
			rc = sel_windows(q, sc, hour, q->hlo, q->hhi - hour + 1,
			    &hours, &nh);
		else if ((rc = sel_windows(q, sc, day, q->dlo,
		    q->dhi - day + 1, &days, &nd)) == 0 &&
		    (rc = sel_windows(q, sc, hour, q->hlo, q->dlo - hour,
		    &hours, &nh)) == 0)
			rc = sel_windows(q, sc, hour, q->dhi + 1,
			    q->hhi - hour + 1, &hours, &nh);
		/* Days without a rollup: their hours. */
		for (k = 0; k < nd && rc == 0; k++)
			rc = sel_windows(q, sc, hour, days[k],
			    days[k] + day - hour, &hours, &nh);
		/* Hours without one: the blocks. */
		for (k = 0; k < nh; k++) {
			q->holes = xreallocarray(q->holes, q->nholes + 1,
			    sizeof *q->holes);
			q->holes[q->nholes].scope = sc;
			q->holes[q->nholes].lo = hours[k];
			q->holes[q->nholes++].hi = hours[k] + hour - 1;
		}
	}
	free(days);
	free(hours);
	return rc;
}

/* Rollups and blocks are read in one read transaction, so that they
 * come from the same commit of the store. */
static int
sel_run(struct sel *q)
{
	int own, rc;

	if (q->lo > q->hi)
		return 0;
	if ((own = sqlite3_get_autocommit(q->s->db)) &&
	    step_done(q->s, q->s->sb[SB_READ_BEGIN], q->err, "begin") == -1)
		return -1;
	rc = sel_rollups(q) == -1 || sel_blocks(q) == -1 ? -1 : 0;
	if (own && step_done(q->s, q->s->sb[SB_READ_END], q->err, "end") == -1)
		rc = -1;
	return rc;
}

int
store_select_values(struct store *s, const struct store_filter *f,
    struct store_cs_value **out, size_t *n, int64_t *nprofiles,
    struct error *err)
{
	struct sel q;
	struct store_cs_value *v;
	size_t i;

	*out = NULL;
	*n = 0;
	*nprofiles = 0;
	if (sel_init(&q, s, f, SEL_VALUES, err) == -1 || sel_run(&q) == -1) {
		sel_clear(&q);
		return -1;
	}
	q.nkv = kv_sort_merge(q.kv, q.nkv);
	v = xcalloc(q.nkv ? q.nkv : 1, sizeof *v);
	for (i = 0; i < q.nkv; i++) {
		v[i].callsite = (int64_t)q.kv[i].k;
		v[i].value = q.kv[i].v;
	}
	*out = v;
	*n = q.nkv;
	*nprofiles = (int64_t)q.profiles.n;
	sel_clear(&q);
	return 0;
}

int
store_select_buckets(struct store *s, const struct store_filter *f,
    struct store_bucket_value **out, size_t *n, struct error *err)
{
	struct sel q;
	struct store_bucket_value *v;
	size_t i;

	*out = NULL;
	*n = 0;
	if (sel_init(&q, s, f, SEL_BUCKETS, err) == -1 || sel_run(&q) == -1) {
		sel_clear(&q);
		return -1;
	}
	srows_sort_merge(&q.acc);
	v = xcalloc(q.acc.n ? q.acc.n : 1, sizeof *v);
	for (i = 0; i < q.acc.n; i++) {
		v[i].bucket = q.acc.ls[i];
		v[i].callsite = q.acc.cs[i];
		v[i].value = q.acc.v[i];
	}
	*out = v;
	*n = q.acc.n;
	sel_clear(&q);
	return 0;
}

struct ptime {
	int64_t time, id;
};

static int
ptime_cmp(const void *a, const void *b)
{
	const struct ptime *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int
store_select_all(struct store *s, const struct store_filter *f,
    struct store_export_value **out, size_t *n, int64_t **profiles,
    size_t *nprofiles, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_PROFILE_TIME];
	struct sel q;
	struct store_export_value *v;
	struct ptime *pt = NULL;
	int64_t *ids;
	size_t i, np = 0;
	int rc;

	*out = NULL;
	*n = 0;
	*profiles = NULL;
	*nprofiles = 0;
	if (sel_init(&q, s, f, SEL_ALL, err) == -1 || sel_run(&q) == -1) {
		sel_clear(&q);
		return -1;
	}
	/* The profiles, oldest first. */
	pt = xcalloc(q.profiles.n ? q.profiles.n : 1, sizeof *pt);
	for (i = 0; i < q.profiles.cap; i++) {
		const struct imap_slot *sl = &q.profiles.slots[i];

		if (sl->value == 0)
			continue;
		pt[np].id = (int64_t)sl->key;
		sqlite3_bind_int64(st, 1, pt[np].id);
		rc = sqlite3_step(st);
		pt[np].time = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) :
		    0;
		sqlite3_reset(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			free(pt);
			sel_clear(&q);
			return store_fail(s, err, "reading profiles");
		}
		np++;
	}
	if (np > 0)
		qsort(pt, np, sizeof *pt, ptime_cmp);
	ids = xcalloc(np ? np : 1, sizeof *ids);
	for (i = 0; i < np; i++)
		ids[i] = pt[i].id;
	free(pt);
	srows_sort_merge(&q.acc);
	v = xcalloc(q.acc.n ? q.acc.n : 1, sizeof *v);
	for (i = 0; i < q.acc.n; i++) {
		v[i].callsite = q.acc.ls[i];
		v[i].labelset = q.acc.cs[i];
		v[i].metric = q.acc.bucket[i];
		v[i].value = q.acc.v[i];
	}
	*out = v;
	*n = q.acc.n;
	*profiles = ids;
	*nprofiles = np;
	sel_clear(&q);
	return 0;
}

/* ---- schema 3 ---- */

int
store_samples_migrate_v3(struct store *s, struct error *err)
{
	sqlite3_stmt *st = NULL;
	struct store_samples *w = NULL;
	int64_t profile = 0, p, metric, *mids = NULL, *row = NULL;
	size_t nm = 0, i;
	int rc, ret = -1;

	if (store_samples_prepare(s, err) == -1)
		goto out;
	if (sqlite3_prepare_v2(s->db, "SELECT v.profile_id, p.scope_id, "
	    "v.metric_id, v.callsite_id, v.labelset_id, v.bucket, v.value "
	    "FROM sample_v2 v JOIN profile p ON p.id = v.profile_id "
	    "ORDER BY v.profile_id", -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, err, "converting sample rows");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p = sqlite3_column_int64(st, 0);
		if (p != profile) {
			if (w != NULL && store_samples_finish(w, 0, err) == -1)
				goto out;
			store_samples_free(w);
			w = store_samples_begin(s, p, sqlite3_column_int64(st,
			    1));
			profile = p;
			nm = 0;
		}
		/* Each row has one value: of the profile's metric i. */
		metric = sqlite3_column_int64(st, 2);
		for (i = 0; i < nm && mids[i] != metric; i++)
			;
		if (i == nm) {
			mids = xreallocarray(mids, nm + 1, sizeof *mids);
			row = xreallocarray(row, nm + 1, sizeof *row);
			mids[nm++] = metric;
			store_samples_metric(w, i, metric);
		}
		memset(row, 0, nm * sizeof *row);
		row[i] = sqlite3_column_int64(st, 6);
		if (store_samples_add(w, sqlite3_column_int64(st, 3),
		    sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
		    row, nm, err) == -1)
			goto out;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "converting sample rows");
		goto out;
	}
	if (w != NULL && store_samples_finish(w, 0, err) == -1)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_exec(s->db, "DROP TABLE sample_v2", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		store_fail(s, err, "dropping the old sample table");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	store_samples_free(w);
	free(mids);
	free(row);
	store_samples_finalize(s);
	return ret;
}
