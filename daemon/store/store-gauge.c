/* store-gauge.c: a read transaction held across the reads of a gauge's
 * window (query/aggregate.c, docs/TIME.md "How a gauge window is read"):
 * the profiles of each series come from the profile table, which profiles
 * have a row in the window from the per-bucket totals, and the window's
 * sums from the rollups and blocks; an import committed between two of
 * them would make a count and a sum disagree.  Each read alone opens a
 * transaction only when none is open (store-select.c, store-totals.c),
 * so inside this one they all see the same commit.  And the edges of a
 * gauge's window pushed out to whole rollup windows where nothing lies
 * between (store_gauge_widen). */
#include <sqlite3.h>

#include "store-gauge.h"
#include "store-int.h"
#include "store-rollup.h"

int
store_gauge_hold(struct store *s, int *held, struct error *err)
{
	*held = sqlite3_get_autocommit(s->db);
	if (*held && store_step_done(s, s->sb[SB_READ_BEGIN], err,
	    "begin") == -1) {
		*held = 0;
		return -1;
	}
	return 0;
}

int
store_gauge_release(struct store *s, int held, struct error *err)
{
	/* An interrupted statement may have rolled the read back. */
	if (!held || sqlite3_get_autocommit(s->db))
		return 0;
	return store_step_done(s, s->sb[SB_READ_END], err, "end");
}

/* The bucket of the scope's metric in a range nearest one end: the
 * largest in [a, b) (last 1) or the smallest in (a, b] (last 0).  1 and
 * *at when there is one, 0 when none, -1 on error.  Two seeks in
 * sample_total's key, once per window. */
static int
gauge_nearest(struct store *s, int64_t scope, int64_t metric, int64_t a,
    int64_t b, int last, int64_t *at, struct error *err)
{
	sqlite3_stmt *st = s->sb[last ? SB_GAUGE_BEFORE : SB_GAUGE_AFTER];
	int rc, r = 0;

	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, metric);
	sqlite3_bind_int64(st, 3, a);
	sqlite3_bind_int64(st, 4, b);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*at = sqlite3_column_int64(st, 0);
		r = 1;
	} else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		r = store_fail(s, err, "reading a window's edges");
	sqlite3_reset(st);
	return r;
}

int
store_gauge_any(struct store *s, int64_t scope, int64_t metric, int64_t a,
    int64_t b, struct error *err)
{
	int64_t at;

	return a > b || a == INT64_MIN ? 0 :
	    gauge_nearest(s, scope, metric, a - 1, b, 0, &at, err);
}

int
store_gauge_widen(struct store *s, int64_t scope, int64_t metric,
    int64_t *since_s, int64_t *until_s, struct error *err)
{
	const int64_t big = store_spans[STORE_NSPANS - 1];
	int64_t lo = *since_s, hi = *until_s, w, at = 0;
	int k, r;

	/* An open end is open already. */
	if (lo > -BUCKET_LIMIT && lo < BUCKET_LIMIT &&
	    (w = store_window_of(lo, big)) < lo) {
		if ((r = gauge_nearest(s, scope, metric, w, lo, 1, &at,
		    err)) == -1)
			return -1;
		for (k = STORE_NSPANS - 1; k >= 0; k--) {
			w = store_window_of(lo, store_spans[k]);
			if (r == 0 || at < w) {
				*since_s = w;
				break;
			}
		}
	}
	if (hi > -BUCKET_LIMIT && hi < BUCKET_LIMIT &&
	    (w = store_window_of(hi, big) + big - 1) > hi) {
		if ((r = gauge_nearest(s, scope, metric, hi, w, 0, &at,
		    err)) == -1)
			return -1;
		for (k = STORE_NSPANS - 1; k >= 0; k--) {
			w = store_window_of(hi, store_spans[k]) +
			    store_spans[k] - 1;
			if (r == 0 || at > w) {
				*until_s = w;
				break;
			}
		}
	}
	return 0;
}
