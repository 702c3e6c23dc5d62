/* store-rollup.c: the rollups of the sample blocks (DESIGN-STORAGE.md):
 * per window of an hour and of a day, the sum per (label set, callsite)
 * and metric and the number of rows summed; their windows added up in
 * memory and merged into the stored ones, and what retention needs of
 * them (a profile taken out, the keys still referenced). */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "sblock.h"
#include "srows.h"
#include "store-rollup.h"

/* An hour and a day: each a multiple of the one before. */
const int64_t store_spans[STORE_NSPANS] = { STORE_HOUR, STORE_DAY };

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

void
store_rollup_clear(struct racc *a)
{
	size_t i, max = a->max;
	int64_t profile = a->profile;

	for (i = 0; i < a->n; i++)
		srows_free(&a->w[i].rows);
	free(a->w);
	hmap_clear(&a->at);
	memset(a, 0, sizeof *a);
	a->max = max;
	a->profile = profile;
}

/* Add sorted rows (columns cols[] of r, whose tags are metric ids) to the
 * windows they fall in. */
void
store_rollup_add(struct racc *a, const struct srows *r, const size_t *cols,
    size_t ncols)
{
	struct srows *d, merged;
	struct imap at;
	struct {
		int64_t start;
		struct srows d;
		int gone;		/* its window overflowed before */
	} *dl = NULL;
	int64_t start, last = 0, *row, *zero;
	size_t si, i, k, nd = 0, cur = 0, nc = r->ncols;
	int have_last;

	zero = xcalloc(2 * ncols + 1, sizeof *zero);
	for (si = 0; si < STORE_NSPANS; si++) {
		memset(&at, 0, sizeof at);
		nd = 0;
		have_last = 0;
		for (i = 0; i < r->n; i++) {
			start = store_window_of(r->bucket[i], store_spans[si]);
			if (!have_last || start != last) {
				int64_t j = imap_get(&at, (uint64_t)start);

				if (j == 0) {
					dl = xreallocarray(dl, nd + 1,
					    sizeof *dl);
					memset(&dl[nd], 0, sizeof *dl);
					dl[nd].start = start;
					/* No rows summed for a window that
					 * has no rollup any more. */
					dl[nd].gone = racc_win(a,
					    store_spans[si], start)->overflow;
					for (k = 0; k < ncols; k++) {
						srows_col(&dl[nd].d, store_count_tag(
						    r->tags[cols[k]]));
						srows_col(&dl[nd].d, store_value_tag(
						    r->tags[cols[k]]));
					}
					j = (int64_t)++nd;
					imap_put(&at, (uint64_t)start, j);
				}
				cur = (size_t)j - 1;
				last = start;
				have_last = 1;
			}
			if (dl[cur].gone)
				continue;
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
			struct rwin *w = racc_win(a, store_spans[si], dl[i].start);

			if (!w->overflow) {
				a->rows -= w->rows.n;
				/* Counted first: a merge past the bound
				 * would be thrown away at once (the 50 MB
				 * heap profile's: 290 K rows, 25 MiB). */
				if (srows_merge_count(&w->rows, &dl[i].d) >
				    a->max) {
					w->overflow = 1;
					srows_free(&w->rows);
				} else {
					memset(&merged, 0, sizeof merged);
					srows_merge(&merged, &w->rows,
					    &dl[i].d, 1);
					srows_free(&w->rows);
					w->rows = merged;
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
rwin_cmp(const void *a, const void *b)
{
	const struct rwin *x = *(struct rwin *const *)a;
	const struct rwin *y = *(struct rwin *const *)b;

	if (x->span != y->span)
		return x->span < y->span ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

int
store_rollup_flush(struct store *s, int64_t scope, struct racc *a, int sign,
    struct error *err)
{
	struct rwin **order, *w;
	size_t i;
	int rc = 0;

	/* Hours first, then days in time order: a day closes from its
	 * hours' runs when a later day is written (store-runs.c), so its
	 * hours must hold this import's rows by then, and its own rows of
	 * the import must come before (an open day's are not written). */
	order = xreallocarray(NULL, a->n ? a->n : 1, sizeof *order);
	for (i = 0; i < a->n; i++)
		order[i] = &a->w[i];
	qsort(order, a->n, sizeof *order, rwin_cmp);
	for (i = 0; i < a->n && rc == 0; i++) {
		w = order[i];
		rc = sign > 0 ? store_runs_add(s, scope, w->span, w->start,
		    &w->rows, w->overflow, a->profile, err) :
		    store_runs_remove(s, scope, w->span, w->start, &w->rows,
		    w->overflow, a->profile, err);
	}
	free(order);
	store_rollup_clear(a);
	return rc;
}

/* A stored block, every column of it, into the rollup windows of a;
 * flushed (sign 1 adds, -1 takes away) when they hold too many rows. */
int
store_rollup_add_block(struct store *s, struct racc *a, int64_t scope,
    const void *blob, size_t len, int64_t base, int64_t id, int sign,
    struct srows *r, struct error *err)
{
	size_t c, *cols;

	if (sblock_decode(blob, len, base, "sample block", id, r, err) == -1)
		return -1;
	cols = xreallocarray(NULL, r->ncols ? r->ncols : 1, sizeof *cols);
	for (c = 0; c < r->ncols; c++)
		cols[c] = c;
	store_rollup_add(a, r, cols, r->ncols);
	free(cols);
	if (a->rows > ROLLUP_MEM_ROWS)
		return store_rollup_flush(s, scope, a, sign, err);
	return 0;
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

	a.max = store_rollup_max(s);
	a.profile = profile;
	sqlite3_bind_int64(st, 1, profile);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		scope = sqlite3_column_int64(st, 6);
		if (store_rollup_add_block(s, &a, scope, sqlite3_column_blob(st, 5),
		    (size_t)sqlite3_column_bytes(st, 5),
		    sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 0),
		    sign, &r, err) == -1)
			goto fail;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	srows_free(&r);
	if (rc != SQLITE_DONE) {
		store_rollup_clear(&a);
		return store_fail(s, err, "reading sample values");
	}
	return store_rollup_flush(s, scope, &a, sign, err);
fail:
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	srows_free(&r);
	store_rollup_clear(&a);
	return -1;
}

int
store_profile_delete(struct store *s, int64_t profile_id, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_PROFILE_DELETE];

	if (profile_roll(s, profile_id, -1, err) == -1 ||
	    store_totals_delete(s, profile_id, err) == -1)
		return -1;
	sqlite3_bind_int64(st, 1, profile_id);
	return store_step_done(s, st, err, "deleting a profile");
}

/* Schema 6: the rollups and totals of every stored profile made again
 * from its blocks, oldest first (as they were imported). */
int
store_rollup_rebuild(struct store *s, struct error *err)
{
	sqlite3_stmt *st = NULL;
	int64_t *ids = NULL;
	size_t n = 0, i;
	int rc, ret = -1;

	if (sqlite3_prepare_v2(s->db, "SELECT id FROM profile ORDER BY "
	    "time_ns, id", -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, err, "listing profiles");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids = xreallocarray(ids, n + 1, sizeof *ids);
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "listing profiles");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (profile_roll(s, ids[i], 1, err) == -1 ||
		    store_totals_profile(s, ids[i], err) == -1)
			goto out;
	ret = 0;
out:
	sqlite3_finalize(st);
	free(ids);
	return ret;
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

/* The keys of the runs of one of SB_ROLLUPS_SPAN's or
 * SB_ROLLUP_ORPHANS' listings (id, start, data, entries, scope), those
 * of a marker's window (span) from its blocks. */
static int
referenced_runs(struct store *s, sqlite3_stmt *st, int64_t span,
    void (*cb)(void *, int64_t, int64_t), void *arg, struct error *err)
{
	struct sblock_dec d;
	int64_t start;
	int rc, r = 0;

	memset(&d, 0, sizeof d);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		start = sqlite3_column_int64(st, 1);
		if (sqlite3_column_int64(st, 3) < 0) {
			r = referenced_blocks(s, sqlite3_column_int64(st, 4),
			    start, start + span - 1, cb, arg, err);
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

int
store_referenced(struct store *s,
    void (*cb)(void *, int64_t callsite_id, int64_t labelset_id), void *arg,
    struct error *err)
{
	int64_t hour = store_spans[0], day = store_spans[STORE_NSPANS - 1];

	/* Every row is in exactly one window of the largest span: its run,
	 * or a marker's (the day's blocks), or, while the day is open
	 * (store-runs.c, "days"), its hours' runs and markers. */
	sqlite3_bind_int64(s->sb[SB_ROLLUPS_SPAN], 1, day);
	if (referenced_runs(s, s->sb[SB_ROLLUPS_SPAN], day, cb, arg,
	    err) == -1)
		return -1;
	sqlite3_bind_int64(s->sb[SB_ROLLUP_ORPHANS], 1, hour);
	sqlite3_bind_int64(s->sb[SB_ROLLUP_ORPHANS], 2, day);
	return referenced_runs(s, s->sb[SB_ROLLUP_ORPHANS], hour, cb, arg,
	    err);
}
