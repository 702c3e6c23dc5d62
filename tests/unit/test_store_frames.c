/* test_store_frames.c: frames found in the writer's map of them
 * (store-frames.c, schema 17), with no index on frame: one row per six
 * columns, whatever happened to the map.
 *
 * Sets of frames (some with wide columns, some with no function or
 * mapping) are pushed as profiles: a chain of callsites over them and a
 * value on each chain's leaf.  The same set pushed again makes no frame
 * and gets the same ids.  An import that made frames and was rolled back
 * leaves none, and the next set takes the ids it had: the rolled-back set
 * pushed again then gets new ids, not the other set's (the map forgot
 * them).  A collection's delete in the map, rolled back, loses no frame.
 * A collection that deleted a set's frames (its profile gone) leaves no
 * id of them in the map: the set pushed again makes them anew.  A frame
 * written by another connection is found, not made twice.  Reopened, the
 * store's map is read from the table: every set again makes nothing.
 * After every step, frame has as many rows as distinct column tuples,
 * each id's row has the columns it was interned with, and no callsite
 * names a frame that is not there.
 *
 * Then the same with every frame of one hash (store_frames_hash): the
 * map holds one of them and finds each other one by its columns, through
 * pushes, a rollback, a collection and a reopen, still one row each. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "store-int.h"
#include "teststore.h"

#define CHAIN	64		/* frames per callsite chain */

struct set {
	struct store_frame_key *k;
	int64_t *id;
	size_t n;
};

static int64_t metric, labelset, scope;
static const char *path;
static unsigned seed = 1;

/* n frames of set number which, distinct from every other set's by the
 * address's top byte (or a wide frame's function); every 37th has a
 * column wider than 32 bits (or 16, 8), every 11th no function or mapping
 * (NULL). */
static void
set_make(struct set *t, int which, size_t n)
{
	uint64_t r = 0x9e3779b97f4a7c15ULL * (uint64_t)(which + 1);
	struct store_frame_key *k;
	size_t i;

	t->n = n;
	t->k = xcalloc(n, sizeof *t->k);
	t->id = xcalloc(n, sizeof *t->id);
	for (i = 0; i < n; i++) {
		k = &t->k[i];
		k->function = 1 + (int64_t)(xorshift64(&r) % 5000);
		k->mapping = 1 + (int64_t)(xorshift64(&r) % 3);
		k->address = (uint64_t)which << 56 | (xorshift64(&r) &
		    0xffffffffffULL);
		k->line = (int64_t)(xorshift64(&r) % 2000) - 10;
		k->col = (int64_t)(xorshift64(&r) % 4);
		k->flags = (int64_t)(xorshift64(&r) % 4);
		if (i % 11 == 5)
			k->function = k->mapping = 0;
		switch (i % 37 == 3 ? (int)(i / 37 % 5) : -1) {
		case 0:
			k->line = ((int64_t)1 << 40) + (int64_t)i;
			break;
		case 1:
			k->col = 70000;
			break;
		case 2:
			k->flags = 300;
			break;
		case 3:
			k->function = ((int64_t)1 << 33) + which;
			k->address = i;
			break;
		case 4:
			k->line = INT32_MIN - (int64_t)i;
			k->address = UINT64_MAX - i;
			break;
		}
	}
}

static void
set_free(struct set *t)
{
	free(t->k);
	free(t->id);
}

/* The set's frames interned, chained into callsites; with keep, as a
 * profile with a value on each chain's leaf, committed; else rolled back.
 * Returns the profile (0 when rolled back); the ids go to ids. */
static int64_t
push(struct store *s, const struct set *t, int64_t *ids, int keep)
{
	struct error err = { 0 };
	struct store_samples *w = NULL;
	const struct store_frame_key *k;
	int64_t p = 0, cs = 0, v = 1;
	size_t i;

	ts_ok(store_begin_import(s, &err), "begin", &err);
	if (keep) {
		p = ts_profile(s, scope, seed++, 1700000000000000000);
		w = store_samples_begin(s, p, scope);
		store_samples_metric(w, 0, metric);
	}
	for (i = 0; i < t->n; i++) {
		k = &t->k[i];
		ids[i] = ts_ok_id(store_frame(s, k->function, k->mapping,
		    k->address, k->line, k->col, (unsigned)k->flags, &err),
		    "frame", &err);
		cs = ts_ok_id(store_callsite(s, i % CHAIN ? cs : 0, ids[i],
		    (int64_t)(i % CHAIN), &err), "callsite", &err);
		if (keep && (i % CHAIN == CHAIN - 1 || i == t->n - 1))
			ts_ok(store_samples_add(w, cs, labelset, 1700000000,
			    &v, 1, &err), "value", &err);
	}
	if (!keep) {
		store_rollback(s);
		return 0;
	}
	ts_ok(store_samples_finish(w, 1700000000, &err), "finish", &err);
	store_samples_free(w);
	ts_ok(store_commit(s, &err), "commit", &err);
	return p;
}

/* Pushed again: the ids it had, no frame made. */
static void
push_same(struct store *s, const struct set *t, sqlite3 *db)
{
	int64_t n = ts_count(db, "SELECT count(*) FROM frame"), *ids;
	size_t i;

	ids = xcalloc(t->n, sizeof *ids);
	push(s, t, ids, 1);
	for (i = 0; i < t->n; i++)
		CHECK(ids[i] == t->id[i]);
	CHECK(ts_count(db, "SELECT count(*) FROM frame") == n);
	free(ids);
}

/* Each id's row has its key's columns. */
static void
check_rows(sqlite3 *db, const struct set *t)
{
	const struct store_frame_key *k;
	sqlite3_stmt *st;
	size_t i;

	CHECK(sqlite3_prepare_v2(db, "SELECT ifnull(function_id, 0), "
	    "ifnull(mapping_id, 0), address, line, col, flags FROM frame "
	    "WHERE id = ?1", -1, &st, NULL) == SQLITE_OK);
	for (i = 0; i < t->n; i++) {
		k = &t->k[i];
		sqlite3_bind_int64(st, 1, t->id[i]);
		CHECK(sqlite3_step(st) == SQLITE_ROW);
		CHECK(sqlite3_column_int64(st, 0) == k->function &&
		    sqlite3_column_int64(st, 1) == k->mapping &&
		    (uint64_t)sqlite3_column_int64(st, 2) == k->address &&
		    sqlite3_column_int64(st, 3) == k->line &&
		    sqlite3_column_int64(st, 4) == k->col &&
		    sqlite3_column_int64(st, 5) == k->flags);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

/* No frame twice, no callsite naming a frame that is not there. */
static void
check_unique(sqlite3 *db, const char *when)
{
	int64_t n = ts_count(db, "SELECT count(*) FROM frame");
	int64_t d = ts_count(db, "SELECT count(*) FROM (SELECT DISTINCT "
	    "function_id, mapping_id, address, line, col, flags FROM frame)");

	if (n != d) {
		fprintf(stderr, "%s: %lld frames, %lld distinct\n", when,
		    (long long)n, (long long)d);
		exit(1);
	}
	CHECK(ts_count(db, "SELECT count(*) FROM callsite c WHERE NOT EXISTS "
	    "(SELECT 1 FROM frame f WHERE f.id = c.frame_id)") == 0);
	printf("ok: %s: %lld frames, each once\n", when, (long long)n);
}

static void
collect(struct store *s)
{
	struct error err = { 0 };
	int64_t removed;
	int phase = 0, steps = 0;

	while (phase >= 0) {
		ts_ok(store_gc_step(s, &phase, 500, &removed, &err), "gc",
		    &err);
		CHECK(++steps < 10000);
	}
}

/* t pushed and rolled back, its last 10 frames old's first 10: frame
 * has no more rows, and those 10 had old's ids. */
static void
push_rolled_back(struct store *s, struct set *t, const struct set *old,
    sqlite3 *db)
{
	int64_t n = ts_count(db, "SELECT count(*) FROM frame");
	size_t i;

	memcpy(t->k + t->n - 10, old->k, 10 * sizeof *old->k);
	push(s, t, t->id, 0);
	CHECK(ts_count(db, "SELECT count(*) FROM frame") == n);
	for (i = t->n - 10; i < t->n; i++)
		CHECK(t->id[i] == old->id[i - (t->n - 10)]);
}

/* The collection's deletes of t's first n frames rolled back: t pushed
 * again finds them. */
static void
dels_rolled_back(struct store *s, const struct set *t, size_t n,
    sqlite3 *db)
{
	struct error err = { 0 };
	size_t i;

	ts_ok(store_begin(s, &err), "begin", &err);
	for (i = 0; i < n; i++)
		store_frames_del(s, t->id[i]);
	store_rollback(s);
	push_same(s, t, db);
}

/* Profile p, the only one with t's frames, deleted and collected: frame
 * has t's rows fewer. */
static void
collect_set(struct store *s, int64_t p, const struct set *t, sqlite3 *db)
{
	struct error err = { 0 };
	int64_t n = ts_count(db, "SELECT count(*) FROM frame");

	ts_ok(store_begin(s, &err), "begin", &err);
	ts_ok(store_profile_delete(s, p, &err), "delete", &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	collect(s);
	CHECK(ts_count(db, "SELECT count(*) FROM frame") == n - (int64_t)t->n);
}

static sqlite3 *
db_open(void)
{
	sqlite3 *db;

	CHECK(sqlite3_open(path, &db) == SQLITE_OK &&
	    store_vtab_register(db) == SQLITE_OK);
	return db;
}

/* A store at a fresh path with the scope, metric and labelset pushes
 * use, and db on it. */
static struct store *
setup(const char *name, sqlite3 **db)
{
	struct error err = { 0 };
	struct store *s;
	int created;

	path = ts_new_path(name);
	s = ts_open(path, 0);
	ts_ok(store_begin(s, &err), "begin", &err);
	scope = store_scope(s, "svc", 1, &err);
	metric = store_metric(s, "samples", 7, "count", 5, &err);
	labelset = ts_ok_id(store_labelset(s, "k=v", 3, &created, &err),
	    "labelset", &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	*db = db_open();
	return s;
}

/* Every frame's hash one (its low half 0, made nonzero by the map). */
static uint64_t
hash_one(const struct store_frame_key *k)
{
	(void)k;
	return 0x5eed000000000000ULL;
}

/* Every frame a collision: the one the map holds, and each other found
 * by its columns and made only when not there. */
static void
collisions(void)
{
	struct set f, g, h;
	struct store *s;
	sqlite3 *db;
	int64_t pg, *ids;

	s = setup("collide.db", &db);
	store_frames_hash(s, hash_one);
	set_make(&f, 6, 300);
	set_make(&g, 7, 200);
	set_make(&h, 8, 150);
	ids = xcalloc(f.n, sizeof *ids);
	pg = push(s, &g, g.id, 1);
	push(s, &f, f.id, 1);
	check_rows(db, &f);
	check_rows(db, &g);
	CHECK(ts_count(db, "SELECT count(*) FROM frame") ==
	    (int64_t)(f.n + g.n));
	push_same(s, &f, db);
	check_unique(db, "one hash: two sets pushed, one again");

	/* Rolled back with old frames among the new; the next push takes
	 * its ids. */
	push_rolled_back(s, &h, &f, db);
	push(s, &h, ids, 1);
	CHECK(ids[0] == h.id[0]);
	memcpy(h.id, ids, h.n * sizeof *ids);
	check_rows(db, &h);
	push_same(s, &f, db);
	check_unique(db, "one hash: a rolled-back import");

	/* A collection's deletes rolled back; then g collected (with the
	 * frame the map holds, its first): the others are still found, and
	 * g pushed again is made anew. */
	dels_rolled_back(s, &f, 20, db);
	collect_set(s, pg, &g, db);
	push_same(s, &f, db);
	push(s, &g, ids, 1);
	memcpy(g.id, ids, g.n * sizeof *ids);
	check_rows(db, &g);
	push_same(s, &h, db);
	check_unique(db, "one hash: a set collected, then pushed again");

	/* Reopened: the map read from the table holds one frame. */
	store_close(s);
	s = ts_open(path, 0);
	store_frames_hash(s, hash_one);
	push_same(s, &g, db);
	push_same(s, &f, db);
	push_same(s, &h, db);
	CHECK(ts_count(db, "SELECT count(*) FROM frame") ==
	    (int64_t)(f.n + g.n + h.n - 10));
	check_unique(db, "one hash: the store reopened");

	sqlite3_close(db);
	store_close(s);
	free(ids);
	set_free(&f);
	set_free(&g);
	set_free(&h);
}

int
main(void)
{
	struct error err = { 0 };
	struct set a, b, c, d, e;
	struct store *s;
	struct store_frame_key x;
	int64_t pb, n, *ids, xid;
	sqlite3 *db;
	size_t i;

	s = setup("frames.db", &db);
	CHECK(ts_count(db, "SELECT count(*) FROM sqlite_master WHERE "
	    "tbl_name = 'frame' AND type = 'index'") == 0);

	set_make(&a, 1, 3000);
	set_make(&b, 2, 2500);
	set_make(&c, 3, 200);
	set_make(&d, 4, 1500);
	set_make(&e, 5, 1000);
	push(s, &a, a.id, 1);
	pb = push(s, &b, b.id, 1);
	push(s, &c, c.id, 1);
	CHECK(ts_count(db, "SELECT count(*) FROM frame") ==
	    (int64_t)(a.n + b.n + c.n));
	check_rows(db, &a);
	check_rows(db, &b);
	check_rows(db, &c);
	check_unique(db, "three sets pushed");
	push_same(s, &a, db);
	push_same(s, &c, db);
	check_unique(db, "two of them pushed again: same ids");

	/* Rolled back, with old frames among the new: the new ones go from
	 * the map, the old ones stay.  The next set takes their ids. */
	n = ts_count(db, "SELECT count(*) FROM frame");
	ids = xcalloc(a.n, sizeof *ids);
	push_rolled_back(s, &d, &a, db);
	push(s, &e, e.id, 1);
	CHECK(e.id[0] == d.id[0]);
	push(s, &d, ids, 1);
	for (i = 0; i < d.n - 10; i++)
		CHECK(ids[i] != d.id[i] && ids[i] > e.id[e.n - 1]);
	memcpy(d.id, ids, d.n * sizeof *ids);
	check_rows(db, &d);
	check_rows(db, &e);
	CHECK(ts_count(db, "SELECT count(*) FROM frame") ==
	    n + (int64_t)(e.n + d.n - 10));
	push_same(s, &a, db);
	check_unique(db, "a rolled-back import, its ids taken by another set");

	/* A collection's delete undone by a rollback: the frame is still
	 * there and still found. */
	dels_rolled_back(s, &a, 50, db);
	check_unique(db, "a collection's deletes rolled back");

	/* b's profile deleted and its frames collected: pushed again, they
	 * are made anew (ids are never reused). */
	n = ts_count(db, "SELECT count(*) FROM frame");
	collect_set(s, pb, &b, db);
	push(s, &b, ids, 1);
	for (i = 0; i < b.n; i++)
		CHECK(ids[i] > d.id[d.n - 11]);
	memcpy(b.id, ids, b.n * sizeof *ids);
	check_rows(db, &b);
	CHECK(ts_count(db, "SELECT count(*) FROM frame") == n);
	push_same(s, &a, db);
	push_same(s, &e, db);
	check_unique(db, "a set collected, then pushed again");

	/* A frame another connection wrote is found, not made again. */
	CHECK(sqlite3_exec(db, "INSERT INTO frame (function_id, mapping_id, "
	    "address, line, col, flags) VALUES (NULL, 7, 77, 7, 0, 0)", NULL,
	    NULL, NULL) == SQLITE_OK);
	xid = sqlite3_last_insert_rowid(db);
	memset(&x, 0, sizeof x);
	x.mapping = 7;
	x.address = 77;
	x.line = 7;
	ts_ok(store_begin_import(s, &err), "begin", &err);
	CHECK(store_frames_intern(s, &x, &err) == xid);
	ts_ok(store_commit(s, &err), "commit", &err);
	check_unique(db, "a frame written by another connection");

	/* Reopened: the map read from the table finds every set. */
	store_close(s);
	s = ts_open(path, 0);
	push_same(s, &b, db);
	push_same(s, &a, db);
	push_same(s, &c, db);
	push_same(s, &d, db);
	push_same(s, &e, db);
	n = ts_count(db, "SELECT max(id) FROM frame");
	CHECK(store_frames_bytes(s) <= (size_t)n * 24 + 65536);
	check_unique(db, "the store reopened");
	printf("ok: the map of %lld frame ids takes %zu bytes\n",
	    (long long)n, store_frames_bytes(s));

	sqlite3_close(db);
	store_close(s);
	free(ids);
	set_free(&a);
	set_free(&b);
	set_free(&c);
	set_free(&d);
	set_free(&e);
	collisions();
	printf("test_store_frames: %u checks passed\n", checks);
	return 0;
}
