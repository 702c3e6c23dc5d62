/* test_retention.c: the query threads' callsite index is right across a
 * collection of unused rows.
 *
 * A query selects its values, then takes the index (query_walk_open); a
 * delete and a collection may commit in between.  The callsites of a
 * profile pushed after the index last caught up, deleted and collected
 * in that window, must still be in the index when the query walks them:
 * retention_gc_step catches the index up before it deletes anything.
 * Then the same profile pushed again (new ids for the same stacks) reads
 * the same as before its delete, in the same process, with the same
 * index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "csindex.h"
#include "import.h"
#include "query.h"
#include "retention.h"
#include "selection.h"
#include "store.h"
#include "testimport.h"
#include "testquery.h"
#include "top.h"

static struct testimport ti;
static struct store *wr, *rd;
static struct importer *im;
static struct csindex *idx;

static void
count_cs(void *arg, int64_t id, int64_t parent, int64_t frame)
{
	(void)id;
	(void)parent;
	(void)frame;
	(*(int64_t *)arg)++;
}

static int64_t
callsites(void)
{
	struct error err = { 0 };
	int64_t n = 0;

	CHECK(store_callsites_after(rd, 0, count_cs, &n, &err) == 0);
	return n;
}

/* "function flat cum\n" for every row of top over a scope. */
static char *
top_with(struct csindex *x, const char *scope)
{
	return testquery_top_text(rd, x, scope);
}

static char *
top(const char *scope)
{
	return top_with(idx, scope);
}

static void
collect(int64_t *removed)
{
	struct error err = { 0 };
	int64_t n;
	int phase = 0;

	*removed = 0;
	while (phase != -1) {
		if (retention_gc_step(wr, idx, &phase, 100, &n, &err) == -1) {
			fprintf(stderr, "collect: %s\n", err.msg);
			exit(1);
		}
		*removed += n;
	}
	importer_forget(im);
}

int
main(void)
{
	struct retention_delete del = { "gone", 0, NULL, 0 };
	struct store_filter f;
	struct csindex *other;
	struct store_cs_value *vals;
	struct error err = { 0 };
	char *before, *after;
	int64_t scope, nprof, profiles, samples, removed, cs0, cs1, cs;
	size_t nvals, i;
	int gone;

	testimport_open(&ti);
	wr = ti.wr;
	rd = ti.rd;
	im = ti.im;
	idx = ti.idx;

	/* The index catches up on a first query; then a profile with stacks
	 * of its own comes, and one after it that stays (its callsites are
	 * the newest: the collection keeps the largest id). */
	testimport_push(&ti, "keep", "cpu.pprof");
	free(top("keep"));
	testimport_push(&ti, "gone", "heap.pprof");
	testimport_push(&ti, "keep", "mutex.pprof");
	/* (Read through an index of its own: this one has not seen them.) */
	other = csindex_new();
	before = top_with(other, "gone");
	csindex_free(other);

	/* A query selects the values of "gone" ... */
	memset(&f, 0, sizeof f);
	CHECK((scope = store_scope(rd, "gone", 0, &err)) > 0);
	f.scopes = &scope;
	f.nscopes = 1;
	CHECK((f.metric_id = store_scope_default_metric(rd, scope, &err)) > 0);
	f.since_s = INT64_MIN;
	f.until_s = INT64_MAX;
	CHECK(store_select_values(rd, &f, &vals, &nvals, &nprof, &err) == 0);
	CHECK(nvals > 0);

	/* ... "gone" is deleted and its rows collected ... */
	cs0 = callsites();
	CHECK(retention_delete(wr, &del, &profiles, &samples, &gone,
	    &err) == 0);
	CHECK(profiles == 1 && gone);
	collect(&removed);
	cs1 = callsites();
	CHECK(removed > 0);
	CHECK(cs1 < cs0);

	/* ... and the query takes the index: every callsite it names, and
	 * their ancestors, are there. */
	CHECK(csindex_acquire(idx, rd, &err) == 0);
	for (i = 0; i < nvals; i++) {
		for (cs = vals[i].callsite; cs > 0;
		    cs = csindex_parent(idx, cs)) {
			if (csindex_parent(idx, cs) < 0) {
				fprintf(stderr, "callsite %lld (of value %zu) "
				    "is not in the index after a collection\n",
				    (long long)cs, i);
				exit(1);
			}
			CHECK(csindex_name_str(idx, csindex_name(idx, cs)) !=
			    NULL);
		}
	}
	csindex_release(idx);
	free(vals);
	printf("ok: a query's %zu values keep their callsites in the index "
	    "across a collection (%lld -> %lld callsites)\n", nvals,
	    (long long)cs0, (long long)cs1);

	/* The same profile again: new callsites for the same stacks, read
	 * the same through the same index. */
	testimport_push(&ti, "gone", "heap.pprof");
	after = top("gone");
	CHECK(strcmp(before, after) == 0);
	free(before);
	free(after);
	before = top("keep");
	collect(&removed);
	after = top("keep");
	CHECK(strcmp(before, after) == 0);
	printf("ok: pushed again after the collection, the profile reads the "
	    "same; a collection of nothing changes nothing\n");
	free(before);
	free(after);

	testimport_close(&ti);
	printf("%u checks\n", checks);
	return 0;
}
