/* store-select-out.c: the answers of the reads store-select.c plans
 * and runs, other than top's pairs (store_select_values, there): pairs
 * per time bucket, per group of labels, export's rows; and the tuning
 * of the connections that read them. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
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
