/* store-select-out.c: the answers of the reads store-select.c plans
 * and runs: a window's pairs (store_select_values, through the pairs
 * kept between calls, store-gauge-sums.c, when the rollups answer part
 * of it), pairs per time bucket, per group of labels, export's rows;
 * and the tuning of the connections that read them.  (Here, not in
 * store-select.c, which store-gauge-sums.c calls: calls go one way.) */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "store-gauge.h"
#include "store-sel.h"

int
store_select_buckets(struct store *s, const struct store_filter *f,
    struct store_bucket_value **out, size_t *n, struct error *err)
{
	struct sel q;
	struct store_bucket_value *v;
	size_t i;

	*out = NULL;
	*n = 0;
	if (sel_collect(&q, s, f, SEL_BUCKETS, NULL, NULL, NULL, err) == -1)
		return -1;
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

int
store_select_groups(struct store *s, const struct store_filter *f,
    struct store_group_value **out, size_t *n, struct error *err)
{
	struct sel q;
	struct store_group_value *v;
	size_t i;

	*out = NULL;
	*n = 0;
	if (sel_collect(&q, s, f, SEL_GROUPS, NULL, NULL, NULL, err) == -1)
		return -1;
	srows_sort_merge(&q.acc);
	v = xcalloc(q.acc.n ? q.acc.n : 1, sizeof *v);
	for (i = 0; i < q.acc.n; i++) {
		v[i].bucket = q.acc.ls[i];
		v[i].profile = q.acc.cs[i];
		v[i].labelset = q.acc.bucket[i];
		v[i].value = q.acc.v[i];
	}
	*out = v;
	*n = q.acc.n;
	sel_clear(&q);
	return 0;
}

/* Export's read (store_select_all, store-read.c): its rows sorted
 * by (callsite, label set, metric) and summed, and the profiles with a
 * row; both for the caller to free. */
int
store_select_export(struct store *s, const struct store_filter *f,
    struct srows *rows, struct imap *profiles, struct error *err)
{
	struct sel q;

	if (sel_collect(&q, s, f, SEL_ALL, NULL, NULL, NULL, err) == -1)
		return -1;
	srows_sort_merge(&q.acc);
	*rows = q.acc;
	*profiles = q.profiles;
	memset(&q.acc, 0, sizeof q.acc);
	memset(&q.profiles, 0, sizeof q.profiles);
	sel_clear(&q);
	return 0;
}

/* The query threads' connections: a page cache that holds a week's
 * rollups and time index, and the file mapped rather than copied. */
void
store_select_tune(struct store *s)
{
	sqlite3_exec(s->db, "PRAGMA cache_size = -32768", NULL, NULL, NULL);
	sqlite3_exec(s->db, "PRAGMA mmap_size = 1073741824", NULL, NULL,
	    NULL);
}

/* A read of one metric's pairs that the rollups answer part of (a whole
 * hour in the window; no labels, profile ids or raw values) takes its
 * runs' and whole blocks' pairs from those kept between calls, as a
 * gauge's window does (store-gauge-sums.c): a tree or a flame graph over
 * a week asked again reads and inflates none of its runs. */
int
store_select_values(struct store *s, const struct store_filter *f,
    struct store_cs_value **out, size_t *n, int64_t *nprofiles,
    struct error *err)
{
	const int64_t hour = store_spans[0];
	int64_t lo = store_clamp_bucket(f->since_s);
	int64_t hi = store_clamp_bucket(f->until_s);

	if (f->metric_id != 0 && !f->raw && f->nlabels == 0 &&
	    f->nprofiles == 0 && !s->raw_only && store_ceil_to(lo, hour) <=
	    store_floor_div(hi + 1, hour) * hour - 1)
		return store_pairs_select(s, f, out, n, nprofiles, err);
	return sel_select_plain(s, f, out, n, nprofiles, err);
}
