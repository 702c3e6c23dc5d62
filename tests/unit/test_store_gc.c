/* test_store_gc.c: collecting interned rows no stored sample needs
 * (store-gc.c), a bounded batch at a time.
 *
 * Three profiles: A, then B, then C.  B has rows of its own in every
 * table the collection visits (callsites, one of them a child of A's,
 * frames, functions, a mapping, strings, a label set and its labels), and
 * shares some with A (the file name, the label key, the metric).  C comes
 * last, so that the largest id of every table (which is kept whatever
 * happens: ids are never reused) is C's.  Once B is deleted, a collection
 * in batches of two removes exactly B's own rows, never more than two per
 * step, and keeps every row A and C use: their values, frames, functions,
 * mappings and labels read back as before.  A second collection finds
 * nothing; nor does one after C is deleted too (its rows have the largest
 * ids). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "teststore.h"

#define DEPTH	4

struct prof {
	int64_t id, cs[DEPTH + 1], ls, map, strs[4];
	struct store_frame_row fr[DEPTH + 1];
	int ncs;
};

static int64_t metric;

/* A profile of its own stack (functions "<name>N", frames in a mapping
 * "lib<name>"), with a label set k=<name>; extra_parent, when not 0, gets
 * one more callsite (a frame of this profile's) under it. */
static void
add_profile(struct store *s, int64_t scope, const char *name,
    unsigned seed, int64_t extra_parent, struct prof *p)
{
	struct error err = { 0 };
	struct store_samples *w;
	char buf[64], lib[64];
	int64_t fn, fr, parent = 0, file, v = 10;
	int i, created;

	memset(p, 0, sizeof *p);
	ts_ok(store_begin_import(s, &err), "begin", &err);
	file = ts_str(s, "f.c");
	snprintf(lib, sizeof lib, "lib%s", name);
	p->map = ts_ok_id(store_mapping(s, 0x1000, 0x2000, 0, ts_str(s, lib),
	    ts_str(s, ""), 0, &err), "mapping", &err);
	p->strs[0] = ts_str(s, lib);
	for (i = 0; i < DEPTH; i++) {
		snprintf(buf, sizeof buf, "%s%d", name, i);
		fn = ts_ok_id(store_function(s, ts_str(s, buf), ts_str(s, buf),
		    file, 0, &err), "function", &err);
		fr = ts_ok_id(store_frame(s, fn, p->map, 0x1000 + (uint64_t)i,
		    i, 0, 0, &err), "frame", &err);
		parent = p->cs[i] = ts_ok_id(store_callsite(s, parent, fr,
		    i, &err), "callsite", &err);
		/* (extra_parent is A's second: depth 1.) */
		if (i == 0 && extra_parent != 0)
			p->cs[DEPTH] = ts_ok_id(store_callsite(s, extra_parent,
			    fr, 2, &err), "callsite", &err);
	}
	p->ncs = DEPTH + (extra_parent != 0);
	snprintf(buf, sizeof buf, "%s0", name);
	p->strs[1] = ts_str(s, buf);
	snprintf(buf, sizeof buf, "v%s", name);
	p->strs[2] = ts_str(s, buf);
	p->ls = ts_ok_id(store_labelset(s, buf, strlen(buf), &created, &err),
	    "labelset", &err);
	ts_ok(store_label_add(s, p->ls, ts_str(s, "k"), p->strs[2], 0, 0, 0,
	    &err), "label", &err);
	p->id = ts_profile(s, scope, seed, 1700000000000000000);
	w = store_samples_begin(s, p->id, scope);
	store_samples_metric(w, 0, metric);
	/* Leaves only: their ancestors are kept through them. */
	for (i = DEPTH - 1; i < p->ncs; i++)
		ts_ok(store_samples_add(w, p->cs[i], p->ls, 1700000000 + i, &v,
		    1, &err), "add", &err);
	ts_ok(store_samples_finish(w, 1700000000, &err), "finish", &err);
	store_samples_free(w);
	ts_ok(store_commit(s, &err), "commit", &err);
	ts_ok(store_callsite_frames(s, p->cs, (size_t)p->ncs, p->fr, &err),
	    "frames", &err);
}

static int
row_exists(sqlite3 *db, const char *table, int64_t id)
{
	sqlite3_stmt *st;
	char sql[128];
	int n;

	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s WHERE id = ?1",
	    table);
	CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	CHECK(sqlite3_step(st) == SQLITE_ROW);
	n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Whether every row of a profile is there (want 1) or gone (want 0);
 * shared names only checked when want is 1. */
static void
check_rows(sqlite3 *db, const struct prof *p, int want)
{
	int i;

	for (i = 0; i < p->ncs; i++) {
		CHECK(row_exists(db, "callsite", p->cs[i]) == want);
		/* The extra callsite's frame is the profile's first. */
		if (i == DEPTH)
			continue;
		CHECK(row_exists(db, "frame", p->fr[i].frame) == want);
		CHECK(row_exists(db, "function", p->fr[i].function) == want);
	}
	CHECK(row_exists(db, "mapping", p->map) == want);
	CHECK(row_exists(db, "labelset", p->ls) == want);
	for (i = 0; i < 3; i++)
		CHECK(row_exists(db, "string", p->strs[i]) == want);
}

/* A profile's values, one per leaf callsite, 10 each. */
static void
check_values(struct store *s, int64_t scope, const struct prof *p)
{
	struct error err = { 0 };
	struct store_filter f;
	struct store_cs_value *v;
	size_t n, i;
	int64_t np, total = 0;

	ts_filter(&f, &scope, metric);
	f.profiles = &p->id;
	f.nprofiles = 1;
	ts_ok(store_select_values(s, &f, &v, &n, &np, &err), "select", &err);
	CHECK(n == (size_t)(p->ncs - DEPTH + 1) && np == 1);
	for (i = 0; i < n; i++)
		total += v[i].value;
	CHECK(total == 10 * (int64_t)n);
	free(v);
}

/* Collections in batches until done; returns the rows removed. */
static int64_t
collect(struct store *s, size_t batch, int *steps)
{
	struct error err = { 0 };
	int64_t removed, total = 0;
	int phase = 0;

	*steps = 0;
	while (phase >= 0) {
		ts_ok(store_gc_step(s, &phase, batch, &removed, &err), "gc",
		    &err);
		CHECK(removed >= 0 && (size_t)removed <= batch);
		total += removed;
		CHECK(++*steps < 10000);
	}
	return total;
}

int
main(void)
{
	struct error err = { 0 };
	const char *path = ts_new_path("gc.db");
	struct store *s = ts_open(path, 0);
	struct prof a, b, c;
	struct store_frame_row fr[DEPTH];
	int64_t scope, removed, labels;
	sqlite3 *db;
	int steps, i;

	ts_ok(store_begin(s, &err), "begin", &err);
	scope = store_scope(s, "svc", 1, &err);
	metric = store_metric(s, "samples", 7, "count", 5, &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	add_profile(s, scope, "a", 1, 0, &a);
	add_profile(s, scope, "b", 2, a.cs[1], &b);
	add_profile(s, scope, "c", 3, 0, &c);
	CHECK(b.ncs == DEPTH + 1 && b.cs[DEPTH] > a.cs[DEPTH - 1]);

	/* Nothing unused yet: nothing goes. */
	CHECK(collect(s, 2, &steps) == 0);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK &&
	    store_vtab_register(db) == SQLITE_OK);
	check_rows(db, &a, 1);
	check_rows(db, &b, 1);
	check_rows(db, &c, 1);
	labels = ts_count(db, "SELECT count(*) FROM label");
	CHECK(labels == 3);

	ts_ok(store_begin(s, &err), "begin", &err);
	ts_ok(store_profile_delete(s, b.id, &err), "delete", &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	/* B's own rows: DEPTH + 1 callsites, DEPTH frames and functions, a
	 * mapping, a label set, DEPTH + 2 strings ("libb", "b0".."b3",
	 * "vb"). */
	removed = collect(s, 2, &steps);
	CHECK(removed == (DEPTH + 1) + 2 * DEPTH + 1 + 1 + (DEPTH + 2));
	CHECK(steps > removed / 2);
	check_rows(db, &b, 0);
	check_rows(db, &a, 1);
	check_rows(db, &c, 1);
	CHECK(ts_count(db, "SELECT count(*) FROM label") == labels - 1);
	/* What B shared with A stays. */
	CHECK(ts_count(db, "SELECT count(*) FROM string WHERE s IN "
	    "(CAST('f.c' AS BLOB), CAST('k' AS BLOB), X'')") == 3);
	CHECK(ts_count(db, "SELECT count(*) FROM metric") == 1);
	sqlite3_close(db);

	check_values(s, scope, &a);
	check_values(s, scope, &c);
	ts_ok(store_callsite_frames(s, a.cs, DEPTH, fr, &err), "frames",
	    &err);
	for (i = 0; i < DEPTH; i++)
		CHECK(fr[i].frame == a.fr[i].frame &&
		    fr[i].function == a.fr[i].function &&
		    fr[i].mapping == a.map && fr[i].line == i);
	/* Done: a second collection has nothing to take. */
	CHECK(collect(s, 1, &steps) == 0);

	/* C has the largest id of every table: with nothing using them any
	 * more, they stay, and so do the rows they name. */
	ts_ok(store_begin(s, &err), "begin", &err);
	ts_ok(store_profile_delete(s, c.id, &err), "delete", &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	CHECK(collect(s, 2, &steps) == 0);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK &&
	    store_vtab_register(db) == SQLITE_OK);
	check_rows(db, &c, 1);
	sqlite3_close(db);
	check_values(s, scope, &a);
	store_close(s);
	printf("test_store_gc: %u checks passed\n", checks);
	return 0;
}
