/* test_store_plist.c: a scope's profiles a page at a time (store-plist.c,
 * GET /v1/profiles): pages of (time, id) order hold every profile once,
 * ties of time by id; a page reads the index from its cursor, so the last
 * page of 3,000 profiles costs SQLite the steps the first does, with no
 * sort and no full scan (its statement's own counters, not a clock); a
 * profile added between pages after the cursor comes once, one before it
 * never; since/until in whole seconds, both ends in; profile ids, a
 * metric and push labels (=, !=, =~, !~, a missing key read as "")
 * filter; a page with filters reads at most its bound of rows and says
 * where the next goes on; a bad pattern is ERR_INPUT. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "store-int.h"
#include "teststore.h"

#define NPROF	3000
#define SEC	INT64_C(1000000000)

static int64_t cpu, wall;
/* label_filter's strings are not const. */
static char s_env[] = "env", s_dev[] = "dev", s_prod[] = "prod", s_none[] = "",
    s_dvpr[] = "d.v|pr.*", s_zone[] = "zone", s_x[] = "x", s_paren[] = "(";

/* Profile i: at (i / 2) s (two a second), push label env=prod (i % 3 ==
 * 0), dev (1) or none (2); every profile cpu, every fourth wall too. */
static int64_t
add_profile(struct store *s, int64_t scope, unsigned i, int64_t t)
{
	struct error err = { 0 };
	int64_t id = ts_profile(s, scope, 1000 + i, t);

	ts_ok(store_profile_metric_add(s, id, 0, cpu, 1, KIND_DELTA,
	    COUNTED_WHOLE, &err), "metric", &err);
	if (i % 4 == 0)
		ts_ok(store_profile_metric_add(s, id, 1, wall, 1, KIND_DELTA,
		    COUNTED_WHOLE, &err), "metric", &err);
	if (i % 3 != 2)
		ts_ok(store_profile_label_add(s, id, "env", i % 3 ? "dev" :
		    "prod", &err), "label", &err);
	return id;
}

static const char *
env_of(unsigned i)
{
	return i % 3 == 2 ? NULL : i % 3 ? "dev" : "prod";
}

static void
q_init(struct store_plist *q, int64_t scope, size_t limit)
{
	memset(q, 0, sizeof *q);
	q->scope_id = scope;
	q->since_s = INT64_MIN;
	q->until_s = INT64_MAX;
	q->limit = limit;
	q->scan = 100;
}

/* Every page of q from its start: the ids in *out (count returned), the
 * pages in *pages; each page checked to hold at most limit rows. */
static size_t
all_pages(struct store *s, struct store_plist q, int64_t *out,
    size_t max, size_t *pages)
{
	struct error err = { 0 };
	struct store_plist_page pg;
	size_t n = 0, i;
	int more;

	*pages = 0;
	q.after_ns = q.after_id = 0;
	do {
		ts_ok(store_plist(s, &q, &pg, &err), "plist", &err);
		CHECK(pg.n <= q.limit);
		for (i = 0; i < pg.n; i++) {
			CHECK(n < max);
			out[n++] = pg.v[i].id;
		}
		q.after_ns = pg.next_ns;
		q.after_id = pg.next_id;
		(*pages)++;
		more = pg.more;
		store_plist_page_clear(&pg);
	} while (more);
	return n;
}

/* The ids of profiles 0 .. NPROF-1 that pass keep, in (time, id) order:
 * of the two of a second, the odd one first (added first: its id is
 * lower). */
static size_t
want_ids(const int64_t *ids, int (*keep)(unsigned), int64_t *out)
{
	size_t n = 0;
	unsigned j;

	for (j = 0; j < NPROF; j++)
		if (keep(j ^ 1))
			out[n++] = ids[j ^ 1];
	return n;
}

static int keep_dev(unsigned i) { return env_of(i) && !strcmp(env_of(i), "dev"); }
static int keep_not_prod(unsigned i) { return !env_of(i) || strcmp(env_of(i), "prod"); }
static int keep_has_env(unsigned i) { return env_of(i) != NULL; }
static int keep_no_env(unsigned i) { return env_of(i) == NULL; }
static int keep_wall_dev(unsigned i) { return i % 4 == 0 && keep_dev(i); }

static void
check_filter(struct store *rd, int64_t scope, const int64_t *ids,
    const struct label_filter *lf, size_t nlf, int64_t metric,
    int (*keep)(unsigned))
{
	struct store_plist q;
	int64_t *got = xcalloc(NPROF + 10, sizeof *got);
	int64_t *want = xcalloc(NPROF, sizeof *want);
	size_t n, nwant, pages;

	q_init(&q, scope, 97);
	q.labels = lf;
	q.nlabels = nlf;
	q.metric_id = metric;
	n = all_pages(rd, q, got, NPROF + 10, &pages);
	nwant = want_ids(ids, keep, want);
	CHECK(n == nwant && memcmp(got, want, n * sizeof *got) == 0);
	free(got);
	free(want);
}

int
main(void)
{
	const char *path = ts_new_path("plist.db");
	struct store *w = ts_open(path, 0), *rd;
	struct error err = { 0 };
	struct store_plist q;
	struct store_plist_page pg;
	struct label_filter lf[2];
	int64_t scope, other, *ids, *order, *got, later, earlier, pick[3];
	int64_t steps, first_steps = 0, max_steps = 0;
	size_t n, pages, i;
	sqlite3_stmt *st;
	int more;

	ids = xcalloc(NPROF, sizeof *ids);
	order = xcalloc(NPROF, sizeof *order);
	got = xcalloc(NPROF + 10, sizeof *got);
	ts_ok(store_begin(w, &err), "begin", &err);
	scope = ts_ok_id(store_scope(w, "a", 1, &err), "scope", &err);
	other = ts_ok_id(store_scope(w, "b", 1, &err), "scope", &err);
	cpu = ts_ok_id(store_metric(w, "cpu", 3, "nanoseconds", 11, &err),
	    "metric", &err);
	wall = ts_ok_id(store_metric(w, "wall", 4, "nanoseconds", 11, &err),
	    "metric", &err);
	/* Inserted newest first, so that ids do not follow time. */
	for (i = NPROF; i-- > 0;)
		ids[i] = add_profile(w, scope, (unsigned)i,
		    (int64_t)(i / 2) * SEC + 7);
	/* Ties of time: the pair of a second is ordered by id. */
	for (i = 0; i < NPROF; i++)
		order[i] = ids[i ^ 1];
	add_profile(w, other, 9999, 5 * SEC);
	ts_ok(store_commit(w, &err), "commit", &err);
	rd = ts_open(path, 1);

	/* Pages of 100: every profile once, in (time, id) order; the
	 * statement's steps the same on the last page as on the first,
	 * with no sort and no full scan: the index, from the cursor. */
	q_init(&q, scope, 100);
	st = rd->st[S_PROFILES];
	n = 0;
	pages = 0;
	do {
		sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
		ts_ok(store_plist(rd, &q, &pg, &err), "plist", &err);
		steps = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
		CHECK(sqlite3_stmt_status(st, SQLITE_STMTSTATUS_SORT, 0) == 0);
		CHECK(sqlite3_stmt_status(st, SQLITE_STMTSTATUS_FULLSCAN_STEP,
		    0) == 0);
		if (pages == 0)
			first_steps = steps;
		if (pg.n == q.limit && steps > max_steps)
			max_steps = steps;
		for (i = 0; i < pg.n; i++)
			got[n++] = pg.v[i].id;
		CHECK(pg.more == (n < NPROF));
		q.after_ns = pg.next_ns;
		q.after_id = pg.next_id;
		pages++;
		more = pg.more;
		store_plist_page_clear(&pg);
	} while (more);
	CHECK(n == NPROF && pages == NPROF / 100);
	CHECK(memcmp(got, order, n * sizeof *order) == 0);
	CHECK(first_steps > 0 && max_steps <= first_steps + first_steps / 10);
	printf("30 pages of 100: %lld VM steps the first, %lld at most\n",
	    (long long)first_steps, (long long)max_steps);

	/* since/until: whole seconds, both ends in. */
	q_init(&q, scope, 1000);
	q.since_s = 10;
	q.until_s = 12;
	ts_ok(store_plist(rd, &q, &pg, &err), "plist", &err);
	CHECK(pg.n == 6 && !pg.more && pg.v[0].id == order[20] &&
	    pg.v[5].id == order[25]);
	store_plist_page_clear(&pg);

	/* Profile ids, in any order, of this scope only. */
	pick[0] = ids[2999];
	pick[1] = ids[5];
	pick[2] = other + 100000;
	q_init(&q, scope, 10);
	q.profiles = pick;
	q.nprofiles = 3;
	q.scan = 10000;
	ts_ok(store_plist(rd, &q, &pg, &err), "plist", &err);
	CHECK(pg.n == 2 && pg.v[0].id == ids[5] && pg.v[1].id == ids[2999]);
	store_plist_page_clear(&pg);

	/* Push labels (a missing key reads as ""), AND-ed, and a metric,
	 * over pages of 97 that read at most 100 rows each. */
	memset(lf, 0, sizeof lf);
	lf[0].key = lf[1].key = s_env;
	lf[0].value = s_dev;
	check_filter(rd, scope, ids, lf, 1, 0, keep_dev);
	check_filter(rd, scope, ids, lf, 1, wall, keep_wall_dev);
	lf[0].negate = 1;
	lf[0].value = s_prod;
	check_filter(rd, scope, ids, lf, 1, 0, keep_not_prod);
	lf[0].regex = 1;
	lf[1].negate = lf[1].regex = 1;
	lf[1].value = s_dev;
	check_filter(rd, scope, ids, lf, 2, 0, keep_no_env);
	lf[0].negate = 0;
	lf[0].value = s_none;
	check_filter(rd, scope, ids, lf, 1, 0, keep_no_env);
	lf[0].negate = 1;
	check_filter(rd, scope, ids, lf, 1, 0, keep_has_env);
	lf[0].negate = 0;
	lf[0].value = s_dvpr;
	check_filter(rd, scope, ids, lf, 1, 0, keep_has_env);

	/* The scan bound: a label no profile has reads 100 rows a page and
	 * says where the next page goes on. */
	q_init(&q, scope, 10);
	lf[0].key = s_zone;
	lf[0].value = s_x;
	lf[0].regex = 0;
	q.labels = lf;
	q.nlabels = 1;
	ts_ok(store_plist(rd, &q, &pg, &err), "plist", &err);
	CHECK(pg.n == 0 && pg.more && pg.next_id == order[99]);
	store_plist_page_clear(&pg);

	/* A pattern that does not compile. */
	lf[0].regex = 1;
	lf[0].value = s_paren;
	CHECK(store_plist(rd, &q, &pg, &err) == -1 && err.kind == ERR_INPUT &&
	    HAS(err.msg, "zone"));
	memset(&err, 0, sizeof err);

	/* A profile added between pages: after the cursor, once; before
	 * it, never (but in a listing from the start, in its place). */
	q_init(&q, scope, 1000);
	ts_ok(store_plist(rd, &q, &pg, &err), "plist", &err);
	CHECK(pg.n == 1000 && pg.more && pg.v[999].id == order[999]);
	memcpy(got, order, 1000 * sizeof *order);
	n = 1000;
	q.after_ns = pg.next_ns;
	q.after_id = pg.next_id;
	store_plist_page_clear(&pg);
	ts_ok(store_begin(w, &err), "begin", &err);
	later = add_profile(w, scope, 5000, (NPROF / 2) * SEC + 7);
	earlier = add_profile(w, scope, 5001, 3 * SEC);
	ts_ok(store_commit(w, &err), "commit", &err);
	do {
		ts_ok(store_plist(rd, &q, &pg, &err), "plist", &err);
		for (i = 0; i < pg.n; i++)
			got[n++] = pg.v[i].id;
		q.after_ns = pg.next_ns;
		q.after_id = pg.next_id;
		more = pg.more;
		store_plist_page_clear(&pg);
	} while (more);
	CHECK(n == NPROF + 1 && got[NPROF] == later);
	CHECK(memcmp(got, order, NPROF * sizeof *order) == 0);
	q_init(&q, scope, 10);
	ts_ok(store_plist(rd, &q, &pg, &err), "plist", &err);
	CHECK(pg.n == 10 && pg.v[6].id == earlier && pg.v[7].id == order[6]);
	store_plist_page_clear(&pg);

	store_close(rd);
	store_close(w);
	free(ids);
	free(order);
	free(got);
	printf("test_store_plist: %u checks passed\n", checks);
	return 0;
}
