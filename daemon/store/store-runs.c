/* store-runs.c: the stored runs of a rollup window (DESIGN-STORAGE.md,
 * "Rollups"): an import adds a run of level 0 per window it touches,
 * FANOUT runs of one level are merged into one of the next, and a window
 * an import has moved past is merged into one run.  Each run carries the
 * profiles it counts, per metric.  A delete merges the window's runs and
 * takes the profile out of the one left. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "kv.h"
#include "sblock.h"
#include "srows.h"
#include "store-rollup.h"

/* Runs of one level merged into one of the next: at most FANOUT - 1 per
 * level stay, and a row is rewritten once per level (log4 of the imports
 * of a window). */
#define RUN_FANOUT	4
/* The level of a window merged whole. */
#define RUN_LEVEL_ALL	30

/* A window with more (label set, callsite) keys than this gets no rollup
 * (a marker row instead): its rows are read from the blocks, as fast as
 * from such a rollup, and neither grows to the size of the blocks. */
#define ROLLUP_MAX_ENTRIES	(200u * 1000)

size_t
store_rollup_max(const struct store *s)
{
	return s->rollup_max ? s->rollup_max : ROLLUP_MAX_ENTRIES;
}

/* ---- profile lists ---- */

static int
pair_cmp(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

void
plist_add(struct plist *l, int64_t metric, int64_t profile)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->p = xreallocarray(l->p, l->cap, sizeof *l->p);
	}
	l->p[l->n].k = (uint64_t)metric;
	l->p[l->n++].v = profile;
}

/* Sorted by (metric, profile), each pair once. */
void
plist_norm(struct plist *l)
{
	size_t i, out = 0;

	if (l->n > 1)
		qsort(l->p, l->n, sizeof *l->p, pair_cmp);
	for (i = 0; i < l->n; i++)
		if (out == 0 || l->p[out - 1].k != l->p[i].k ||
		    l->p[out - 1].v != l->p[i].v)
			l->p[out++] = l->p[i];
	l->n = out;
}

void
plist_free(struct plist *l)
{
	free(l->p);
	memset(l, 0, sizeof *l);
}

/* Per metric: metric, count, then the ids as differences. */
static void
plist_encode(const struct plist *l, struct buf *b)
{
	size_t i, j;

	for (i = 0; i < l->n; i = j) {
		for (j = i; j < l->n && l->p[j].k == l->p[i].k; j++)
			;
		sblock_put_varint(b, l->p[i].k);
		sblock_put_varint(b, j - i);
		sblock_put_varint(b, (uint64_t)l->p[i].v);
		for (size_t k = i + 1; k < j; k++)
			sblock_put_varint(b, (uint64_t)(l->p[k].v -
			    l->p[k - 1].v));
	}
}

int
plist_decode(const void *blob, size_t len, int64_t metric, struct plist *l,
    struct imap *set, int64_t id, struct error *err)
{
	const uint8_t *p = blob, *end = p + len;
	uint64_t m, n, d, i;
	int64_t at;

	while (p < end) {
		if (sblock_get_varint(&p, end, &m) == -1 ||
		    sblock_get_varint(&p, end, &n) == -1 || n > len)
			goto bad;
		at = 0;
		for (i = 0; i < n; i++) {
			if (sblock_get_varint(&p, end, &d) == -1)
				goto bad;
			at = (int64_t)((uint64_t)at + d);
			if (metric != 0 && (int64_t)m != metric)
				continue;
			if (l != NULL)
				plist_add(l, (int64_t)m, at);
			if (set != NULL)
				imap_put(set, (uint64_t)at, 1);
		}
	}
	return 0;
bad:
	return error_set(err, ERR_INTERNAL, "store: the profile list of "
	    "rollup %lld is corrupt", (long long)id);
}

/* ---- runs ---- */

static int
keep_counted(void *arg, const int64_t *v, size_t nc)
{
	const struct srows *r = arg;
	size_t c;

	for (c = 0; c < nc; c++)
		if ((r->tags[c] & 1) == 0 && v[c] != 0)
			return 1;
	return 0;
}

static int
run_insert(struct store *s, int64_t scope, int64_t span, int64_t start,
    int64_t level, int64_t entries, const struct buf *pl,
    const struct buf *data, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_ROLLUP_PUT];

	s->runs_written += (int64_t)((pl ? pl->n : 0) + (data ? data->n : 0));
	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, span);
	sqlite3_bind_int64(st, 3, start);
	sqlite3_bind_int64(st, 4, level);
	sqlite3_bind_int64(st, 5, entries);
	sqlite3_bind_blob64(st, 6, pl && pl->p ? (const void *)pl->p : "",
	    pl ? pl->n : 0, SQLITE_STATIC);
	sqlite3_bind_blob64(st, 7, data && data->p ? (const void *)data->p :
	    "", data ? data->n : 0, SQLITE_STATIC);
	return store_step_done(s, st, err, "writing a rollup");
}

static int
run_delete(struct store *s, int64_t id, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_ROLLUP_DEL];

	sqlite3_bind_int64(st, 1, id);
	return store_step_done(s, st, err, "deleting a rollup");
}

/* Rows and profiles as a run of a window; rows whose counts are all zero
 * and metrics no row has are left out, and an empty run is not written.
 * More keys than the limit: a marker instead (*marked). */
static int
run_write(struct store *s, int64_t scope, int64_t span, int64_t start,
    int64_t level, struct srows *r, struct plist *l, int *marked,
    struct error *err)
{
	struct buf blob = { 0 }, pl = { 0 };
	size_t *cols, ncols = 0, i, c;
	int rc;

	*marked = 0;
	srows_filter(r, keep_counted, r);
	if (r->n > store_rollup_max(s)) {
		*marked = 1;
		return 0;
	}
	if (r->n == 0)
		return 0;
	cols = xcalloc(r->ncols ? r->ncols : 1, sizeof *cols);
	for (c = 0; c < r->ncols; c++) {
		if (r->tags[c] & 1)
			continue;
		for (i = 0; i < r->n && r->v[i * r->ncols + c] == 0; i++)
			;
		if (i == r->n)
			continue;
		for (i = 0; i < r->ncols; i++)
			if (r->tags[i] == r->tags[c] + 1)
				break;
		cols[ncols++] = c;
		if (i < r->ncols)
			cols[ncols++] = i;
	}
	/* Deflated as blocks are (issue 41): a drifting series' hour run
	 * holds most keys of the hour's blocks, plain it took twice their
	 * bytes; top reads a run's function sums once per connection
	 * (store-fsum.c), so inflating costs the first read and the
	 * windowed reads of stacks, at hundreds of MB/s. */
	sblock_encode_cols(r, cols, ncols, start, &blob);
	sblock_deflate(&blob);
	plist_norm(l);
	plist_encode(l, &pl);
	rc = run_insert(s, scope, span, start, level, (int64_t)r->n, &pl,
	    &blob, err);
	free(cols);
	buf_free(&blob);
	buf_free(&pl);
	return rc;
}

/* The window's runs: (id, level, entries); *marker if it has a marker. */
struct run {
	int64_t id, level;
};

static int
window_runs(struct store *s, int64_t scope, int64_t span, int64_t start,
    struct run **runs, size_t *n, int *marker, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_ROLLUP_RUNS];
	int rc;

	*n = 0;
	*marker = 0;
	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, span);
	sqlite3_bind_int64(st, 3, start);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_int64(st, 2) < 0)
			*marker = 1;
		*runs = xreallocarray(*runs, *n + 1, sizeof **runs);
		(*runs)[*n].id = sqlite3_column_int64(st, 0);
		(*runs)[(*n)++].level = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : store_fail(s, err, "reading rollups");
}

/* A window's runs of a level (-1: all) summed into out, their profiles
 * into l, and deleted. */
static int
runs_take(struct store *s, int64_t scope, int64_t span, int64_t start,
    int64_t level, struct srows *out, struct plist *l, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_ROLLUP_GET];
	struct srows cur = { 0 }, m;
	int64_t *ids = NULL, id;
	size_t nids = 0, i;
	int rc, ret = -1;

	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, span);
	sqlite3_bind_int64(st, 3, start);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (level >= 0 && sqlite3_column_int64(st, 1) != level)
			continue;
		id = sqlite3_column_int64(st, 0);
		if (sblock_decode(sqlite3_column_blob(st, 4),
		    (size_t)sqlite3_column_bytes(st, 4), start, "rollup", id,
		    &cur, err) == -1 ||
		    plist_decode(sqlite3_column_blob(st, 3),
		    (size_t)sqlite3_column_bytes(st, 3), 0, l, NULL, id,
		    err) == -1)
			goto out;
		memset(&m, 0, sizeof m);
		srows_merge(&m, out, &cur, 1);
		srows_free(out);
		*out = m;
		ids = xreallocarray(ids, nids + 1, sizeof *ids);
		ids[nids++] = id;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "reading rollups");
		goto out;
	}
	sqlite3_reset(st);
	for (i = 0; i < nids; i++)
		if (run_delete(s, ids[i], err) == -1)
			goto out;
	ret = 0;
out:
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	srows_free(&cur);
	free(ids);
	return ret;
}

/* The window's runs deleted and a marker written. */
static int
window_mark(struct store *s, int64_t scope, int64_t span, int64_t start,
    const struct run *runs, size_t n, struct error *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (run_delete(s, runs[i].id, err) == -1)
			return -1;
	return run_insert(s, scope, span, start, 0, -1, NULL, NULL, err);
}

/* Merge runs of one level (-1: all of them) into one of level "to". */
static int
window_merge(struct store *s, int64_t scope, int64_t span, int64_t start,
    int64_t level, int64_t to, struct error *err)
{
	struct srows r = { 0 };
	struct plist l = { 0 };
	struct run *runs = NULL;
	size_t n;
	int rc, marked = 0, marker;

	rc = runs_take(s, scope, span, start, level, &r, &l, err);
	if (rc == 0)
		rc = run_write(s, scope, span, start, to, &r, &l, &marked, err);
	if (rc == 0 && marked && (rc = window_runs(s, scope, span, start,
	    &runs, &n, &marker, err)) == 0)
		rc = window_mark(s, scope, span, start, runs, n, err);
	srows_free(&r);
	plist_free(&l);
	free(runs);
	return rc;
}

/* Runs of a level past the fan-out merged into the next level, up. */
static int
window_tier(struct store *s, int64_t scope, int64_t span, int64_t start,
    struct error *err)
{
	struct run *runs = NULL;
	size_t n, i, cnt;
	int64_t level;
	int rc = 0, marker;

	for (level = 0; level < RUN_LEVEL_ALL - 1; level++) {
		if ((rc = window_runs(s, scope, span, start, &runs, &n,
		    &marker, err)) == -1 || marker)
			break;
		for (i = cnt = 0; i < n; i++)
			cnt += runs[i].level == level;
		if (cnt < RUN_FANOUT)
			break;
		if ((rc = window_merge(s, scope, span, start, level, level + 1,
		    err)) == -1)
			break;
	}
	free(runs);
	return rc;
}

/* ---- days ----
 *
 * A day has no run of its own while it is open (issue 41, store growth:
 * its runs were a second copy of its hours' while they were written,
 * ~0.9 kB a profile of a drifting CPU series): its hours answer it.
 * When an import reaches a later day the day closes, made once from its
 * hours' runs, and kept only where it halves what a read of the day
 * decodes; a day whose stacks drift (its keys more than half its hours'
 * together) gets a marker, and is read from its hours, which cost as
 * much.  A day that halves them already at 4, 8 or 16 hours gets its
 * run then (day_early).  An import into a day with a run adds its run
 * as into any window. */

/* A day's hours' runs summed into one run of the day, or a marker: an
 * hour with a marker (read from its blocks), more keys than a run may
 * have, or more than half the hours' together.  early (the day still
 * open): the run only, and nothing where a marker would be. */
static int
day_close(struct store *s, int64_t scope, int64_t start, int early,
    struct error *err)
{
	const int64_t hour = STORE_HOUR, day = STORE_DAY;
	sqlite3_stmt *st = s->sb[SB_ROLLUP_RANGE];
	struct srows r = { 0 }, cur = { 0 }, m;
	struct plist l = { 0 };
	int64_t keys = 0, id;
	int rc, ret = -1, mark = 0, marked = 0;

	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, hour);
	sqlite3_bind_int64(st, 3, start);
	sqlite3_bind_int64(st, 4, start + day - hour);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		if (sqlite3_column_int64(st, 2) < 0 ||
		    r.n > store_rollup_max(s)) {
			mark = 1;
			break;
		}
		keys += sqlite3_column_int64(st, 2);
		/* Every row's bucket is the day's start. */
		if (sblock_decode(sqlite3_column_blob(st, 4),
		    (size_t)sqlite3_column_bytes(st, 4), start, "rollup", id,
		    &cur, err) == -1 ||
		    plist_decode(sqlite3_column_blob(st, 3),
		    (size_t)sqlite3_column_bytes(st, 3), 0, &l, NULL, id,
		    err) == -1)
			goto out;
		memset(&m, 0, sizeof m);
		srows_merge(&m, &r, &cur, 1);
		srows_free(&r);
		r = m;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		store_fail(s, err, "reading rollups");
		goto out;
	}
	sqlite3_reset(st);
	srows_filter(&r, keep_counted, &r);
	mark = mark || (int64_t)r.n * 2 > keys;
	if (mark && early)
		ret = 0;
	else if (mark)
		ret = run_insert(s, scope, day, start, 0, -1, NULL, NULL, err);
	else if ((ret = run_write(s, scope, day, start, RUN_LEVEL_ALL, &r, &l,
	    &marked, err)) == 0 && marked && !early)
		ret = run_insert(s, scope, day, start, 0, -1, NULL, NULL, err);
out:
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	srows_free(&r);
	srows_free(&cur);
	plist_free(&l);
	return ret;
}

/* The latest day before start with hours: closed if it is open, merged
 * into one run if it has several (the window an import has left, as for
 * hours). */
static int
day_settle(struct store *s, int64_t scope, int64_t start, struct error *err)
{
	const int64_t day = STORE_DAY;
	sqlite3_stmt *st = s->sb[SB_ROLLUP_BEFORE];
	struct run *runs = NULL;
	int64_t last = 0;
	size_t n;
	int rc, marker, have = 0;

	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, STORE_HOUR);
	sqlite3_bind_int64(st, 3, start);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW &&
	    (have = sqlite3_column_type(st, 0) != SQLITE_NULL))
		last = store_window_of(sqlite3_column_int64(st, 0), day);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_ROW)
		return store_fail(s, err, "reading rollups");
	if (!have)
		return 0;
	if ((rc = window_runs(s, scope, day, last, &runs, &n, &marker,
	    err)) == 0 && n == 0)
		rc = day_close(s, scope, last, 0, err);
	else if (rc == 0 && !marker && n > 1)
		rc = window_merge(s, scope, day, last, -1, RUN_LEVEL_ALL, err);
	free(runs);
	return rc;
}

/* An open day whose hours share their stacks gets its run before it
 * closes, from then on added to by every import as any window: read
 * from its hours it would cost a window that reaches it (a "--since" a
 * week ago, a day whose end is past now) every hour's keys, where a
 * series that repeats its stacks has its day's keys a few times over
 * (issue 41's week: a tree 18 -> 28 ms).  Asked when the day has runs
 * in 4, 8 and 16 hours, once each (days_asked: a restart asks again). */
static int
day_early(struct store *s, int64_t scope, int64_t start, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_ROLLUP_HOURS];
	const size_t nasked = sizeof s->days_asked / sizeof s->days_asked[0];
	int64_t hours = 0;
	size_t i;
	int rc;

	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, STORE_HOUR);
	sqlite3_bind_int64(st, 3, start);
	sqlite3_bind_int64(st, 4, start + STORE_DAY - STORE_HOUR);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		hours = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_ROW)
		return store_fail(s, err, "reading rollups");
	if (hours != 4 && hours != 8 && hours != 16)
		return 0;
	for (i = 0; i < nasked; i++)
		if (s->days_asked[i].scope == scope &&
		    s->days_asked[i].day == start &&
		    s->days_asked[i].hours == hours)
			return 0;
	i = s->days_next++ % nasked;
	s->days_asked[i].scope = scope;
	s->days_asked[i].day = start;
	s->days_asked[i].hours = hours;
	return day_close(s, scope, start, 1, err);
}

int
store_runs_open(struct store *s, int64_t scope, int64_t lo, int64_t hi,
    int64_t **days, size_t *n, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_ROLLUP_OPEN];
	int rc;

	if (lo > hi)
		return 0;
	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	sqlite3_bind_int64(st, 4, STORE_HOUR);
	sqlite3_bind_int64(st, 5, STORE_DAY);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*days = xappendarray(*days, *n, sizeof **days);
		(*days)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : store_fail(s, err, "reading rollups");
}

int
store_runs_add(struct store *s, int64_t scope, int64_t span, int64_t start,
    struct srows *delta, int overflow, int64_t profile, struct error *err)
{
	struct run *runs = NULL;
	struct plist l = { 0 };
	size_t n, c, i;
	int rc, marker, marked = 0;

	if ((rc = window_runs(s, scope, span, start, &runs, &n, &marker,
	    err)) == -1 || marker)
		goto out;
	/* An open day: its hours hold the rows. */
	if (span == STORE_DAY && n == 0) {
		if ((rc = day_settle(s, scope, start, err)) == 0)
			rc = day_early(s, scope, start, err);
		goto out;
	}
	if (!overflow) {
		/* The profile counts for the metrics it has a row of. */
		for (c = 0; c < delta->ncols; c++) {
			if (delta->tags[c] & 1)
				continue;
			for (i = 0; i < delta->n &&
			    delta->v[i * delta->ncols + c] == 0; i++)
				;
			if (i < delta->n)
				plist_add(&l, (int64_t)(delta->tags[c] / 2),
				    profile);
		}
		rc = run_write(s, scope, span, start, 0, delta, &l, &marked,
		    err);
	}
	if (rc == 0 && (overflow || marked))
		rc = window_mark(s, scope, span, start, runs, n, err);
	else if (rc == 0)
		rc = window_tier(s, scope, span, start, err);
	/* The window before, which imports in time order have left: one
	 * run, merged once. */
	if (rc == 0 && span == STORE_DAY)
		rc = day_settle(s, scope, start, err);
	else if (rc == 0 && (rc = window_runs(s, scope, span, start - span,
	    &runs, &n, &marker, err)) == 0 && !marker && n > 1)
		rc = window_merge(s, scope, span, start - span, -1,
		    RUN_LEVEL_ALL, err);
out:
	plist_free(&l);
	free(runs);
	return rc;
}

int
store_runs_remove(struct store *s, int64_t scope, int64_t span,
    int64_t start, const struct srows *delta, int overflow, int64_t profile,
    struct error *err)
{
	struct srows cur = { 0 }, out = { 0 };
	struct plist l = { 0 };
	struct run *runs = NULL;
	size_t n, i, c, keep = 0;
	int rc, marker, marked = 0;

	if ((rc = window_runs(s, scope, span, start, &runs, &n, &marker,
	    err)) == -1 || marker || n == 0)
		goto out;
	/* Rows too many to hold: the window is read from the blocks. */
	if (overflow) {
		rc = window_mark(s, scope, span, start, runs, n, err);
		goto out;
	}
	if ((rc = runs_take(s, scope, span, start, -1, &cur, &l, err)) == -1)
		goto out;
	srows_merge(&out, &cur, delta, -1);
	for (i = 0; i < out.n; i++)
		for (c = 0; c < out.ncols; c++)
			if ((out.tags[c] & 1) == 0 &&
			    out.v[i * out.ncols + c] < 0) {
				rc = error_set(err, ERR_INTERNAL, "store: the "
				    "rollup of scope %lld at %lld (%lld s) "
				    "would count fewer than no rows: it "
				    "disagrees with the sample blocks",
				    (long long)scope, (long long)start,
				    (long long)span);
				goto out;
			}
	for (i = 0; i < l.n; i++)
		if (l.p[i].v != profile)
			l.p[keep++] = l.p[i];
	l.n = keep;
	rc = run_write(s, scope, span, start, RUN_LEVEL_ALL, &out, &l,
	    &marked, err);
	if (rc == 0 && marked)
		rc = run_insert(s, scope, span, start, 0, -1, NULL, NULL, err);
out:
	srows_free(&cur);
	srows_free(&out);
	plist_free(&l);
	free(runs);
	return rc;
}
