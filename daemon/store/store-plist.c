/* store-plist.c: a scope's profiles a page at a time (GET /v1/profiles).
 * A page is keyed by (time, id), not by an offset: it reads the index
 * profile_scope_time (scope_id, time_ns, and the rowid every index ends
 * with) from the cursor on, so the hundredth page costs what the first
 * does, and a profile pushed between two pages neither shifts nor
 * repeats a row.  The filters (profile ids, a metric, push labels) are
 * applied to each row as it is read, within a bound of rows read. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "rx.h"
#include "store-int.h"

struct plist_match {
	const struct store_plist *q;
	int64_t *ids;			/* q->profiles sorted */
	struct rx **rx;			/* each regex label filter's */
};

static int
plist_id_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void
plist_match_clear(struct plist_match *m)
{
	size_t i;

	for (i = 0; m->rx != NULL && i < m->q->nlabels; i++)
		rx_free(m->rx[i]);
	free(m->rx);
	free(m->ids);
}

static int
plist_match_init(struct plist_match *m, const struct store_plist *q,
    struct error *err)
{
	const struct label_filter *lf;
	char why[256];
	size_t i;

	memset(m, 0, sizeof *m);
	m->q = q;
	if (q->nprofiles > 0) {
		m->ids = xcalloc(q->nprofiles, sizeof *m->ids);
		memcpy(m->ids, q->profiles, q->nprofiles * sizeof *m->ids);
		qsort(m->ids, q->nprofiles, sizeof *m->ids, plist_id_cmp);
	}
	m->rx = xcalloc(q->nlabels ? q->nlabels : 1, sizeof *m->rx);
	for (i = 0; i < q->nlabels; i++) {
		lf = &q->labels[i];
		if (!lf->regex)
			continue;
		m->rx[i] = rx_new(lf->value, strlen(lf->value), 1, why,
		    sizeof why);
		if (m->rx[i] == NULL) {
			plist_match_clear(m);
			return error_set(err, ERR_INPUT, "label %s: \"%.200s\" "
			    "is not a regular expression (RE2 syntax): %s",
			    lf->key, lf->value, why);
		}
	}
	return 0;
}

/* The label filters on p's push labels, as the views read them: a
 * profile without the key has the value "". */
static int
plist_labels_pass(const struct plist_match *m,
    const struct store_profile_info *p)
{
	const struct label_filter *lf;
	const char *v;
	size_t i, j;
	int match;

	for (i = 0; i < m->q->nlabels; i++) {
		lf = &m->q->labels[i];
		v = NULL;
		for (j = 0; j < p->nlabels && v == NULL; j++)
			if (strcmp(p->label_keys[j], lf->key) == 0)
				v = p->label_values[j];
		if (lf->regex)
			match = rx_match(m->rx[i], v ? v : "", v ? strlen(v) :
			    0);
		else
			match = v != NULL && strcmp(v, lf->value) == 0;
		if (match == lf->negate)
			return 0;
	}
	return 1;
}

static int
plist_metric_pass(const struct store_plist *q,
    const struct store_profile_info *p)
{
	size_t i;

	if (q->metric_id == 0)
		return 1;
	for (i = 0; i < p->nmetrics; i++)
		if (p->metrics[i].id == q->metric_id)
			return 1;
	return 0;
}

void
store_plist_page_clear(struct store_plist_page *pg)
{
	store_profile_info_free(pg->v, pg->n);
	memset(pg, 0, sizeof *pg);
}

/* A bound in ns for whole seconds s (an end of [since_s, until_s]):
 * the first ns of the second, or its last (end set), clamped. */
static int64_t
plist_bound(int64_t s, int end)
{
	if (s >= INT64_MAX / 1000000000)
		return INT64_MAX;
	if (s <= INT64_MIN / 1000000000)
		return INT64_MIN;
	return s * 1000000000 + (end ? 999999999 : 0);
}

int
store_plist(struct store *s, const struct store_plist *q,
    struct store_plist_page *pg, struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILES];
	struct plist_match m;
	struct store_profile_info info;
	int64_t from, id, t, last_ns = 0, last_id = 0;
	size_t read = 0, max;
	int rc, own, filtered;

	memset(pg, 0, sizeof *pg);
	if (plist_match_init(&m, q, err) == -1)
		return -1;
	filtered = q->nprofiles > 0 || q->metric_id != 0 || q->nlabels > 0;
	max = filtered && q->scan > q->limit ? q->scan : q->limit + 1;
	pg->v = xcalloc(q->limit ? q->limit : 1, sizeof *pg->v);
	/* One snapshot for the page: a profile deleted between its row and
	 * its metrics is not half read. */
	if ((own = sqlite3_get_autocommit(s->db)) && store_step_done(s,
	    s->sb[SB_READ_BEGIN], err, "beginning a read") == -1) {
		plist_match_clear(&m);
		return -1;
	}
	from = plist_bound(q->since_s, 0);
	/* From the cursor, not from since: the index is entered there. */
	if (q->after_id != 0 && q->after_ns > from)
		from = q->after_ns;
	sqlite3_bind_int64(st, 1, q->scope_id);
	sqlite3_bind_int64(st, 2, from);
	sqlite3_bind_int64(st, 3, plist_bound(q->until_s, 1));
	sqlite3_bind_int64(st, 4, q->after_id != 0 ? q->after_ns : INT64_MIN);
	sqlite3_bind_int64(st, 5, q->after_id);
	sqlite3_bind_int64(st, 6, (int64_t)max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		t = sqlite3_column_int64(st, 1);
		read++;
		last_ns = t;
		last_id = id;
		if (m.ids != NULL && bsearch(&id, m.ids, q->nprofiles,
		    sizeof *m.ids, plist_id_cmp) == NULL)
			continue;
		if (store_profile_get(s, id, &info, err) == -1)
			goto fail;
		if (!plist_metric_pass(q, &info) ||
		    !plist_labels_pass(&m, &info)) {
			store_profile_info_clear(&info);
			continue;
		}
		/* One more than the page holds: there is a next page. */
		if (pg->n == q->limit) {
			store_profile_info_clear(&info);
			pg->more = 1;
			break;
		}
		pg->v[pg->n++] = info;
		pg->next_ns = t;
		pg->next_id = id;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_fail(s, err, "listing profiles");
		goto fail;
	}
	/* The page read its bound of rows: the rest is the next page's. */
	if (rc == SQLITE_DONE && read == max) {
		pg->more = 1;
		pg->next_ns = last_ns;
		pg->next_id = last_id;
	}
	sqlite3_reset(st);
	if (own)
		store_step_done(s, s->sb[SB_READ_END], NULL, "ending a read");
	plist_match_clear(&m);
	return 0;
fail:
	sqlite3_reset(st);
	if (own)
		store_step_done(s, s->sb[SB_READ_END], NULL, "ending a read");
	plist_match_clear(&m);
	store_plist_page_clear(pg);
	return -1;
}

int
store_profiles(struct store *s, const char *scope,
    struct store_profile_info **out, size_t *n, struct error *err)
{
	struct store_plist q = { 0 };
	struct store_plist_page pg;
	struct store_profile_info *v = NULL;
	size_t count = 0;

	*out = NULL;
	*n = 0;
	if ((q.scope_id = store_scope(s, scope, 0, err)) == -1)
		return -1;
	if (q.scope_id == 0)
		return error_set(err, ERR_NOT_FOUND, "unknown scope \"%s\"",
		    scope);
	q.since_s = INT64_MIN;
	q.until_s = INT64_MAX;
	q.limit = 1024;
	do {
		if (store_plist(s, &q, &pg, err) == -1) {
			store_profile_info_free(v, count);
			return -1;
		}
		v = xreallocarray(v, count + pg.n + 1, sizeof *v);
		memcpy(v + count, pg.v, pg.n * sizeof *v);
		count += pg.n;
		free(pg.v);
		q.after_ns = pg.next_ns;
		q.after_id = pg.next_id;
	} while (pg.more);
	*out = v;
	*n = count;
	return 0;
}
