/* test_store_cs.c: callsites as chunks (store-cs.c, store-csvt.c):
 * interning gives one id per (parent, frame), within an import, across
 * imports and after the store is reopened, in bounded memory; a
 * rollback forgets the
 * callsites it made (their ids are handed out again); a series of small
 * imports leaves few chunks (merged), a large one chunks of at most 64 Ki;
 * the callsite virtual table answers by id and by scan exactly what was
 * interned, on the writer's file opened by plain SQLite; the readers'
 * store_callsites_after sees them all; a corrupt chunk is an error that
 * names it. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "store-int.h"
#include "teststore.h"

struct want {
	int64_t *parent, *frame, *depth;	/* by id */
	int64_t n, cap;				/* largest id, room */
};

static void
want_add(struct want *w, int64_t id, int64_t parent, int64_t frame,
    int64_t depth)
{
	if (id >= w->cap) {
		/* Doubling: a sanitizer's realloc copies every time. */
		while (id >= w->cap)
			w->cap = w->cap ? w->cap * 2 : 1024;
		w->parent = xreallocarray(w->parent, (size_t)w->cap,
		    sizeof *w->parent);
		w->frame = xreallocarray(w->frame, (size_t)w->cap,
		    sizeof *w->frame);
		w->depth = xreallocarray(w->depth, (size_t)w->cap,
		    sizeof *w->depth);
	}
	if (id > w->n) {
		memset(w->frame + w->n + 1, 0, (size_t)(id - w->n) *
		    sizeof *w->frame);
		w->n = id;
	}
	w->parent[id] = parent;
	w->frame[id] = frame;
	w->depth[id] = depth;
}

/* Every callsite through the virtual table, by scan and by id, is what
 * was interned; ids not interned have no row. */
static void
check_vtab(const char *path, const struct want *w)
{
	sqlite3 *db;
	sqlite3_stmt *st, *ends;
	int64_t id, n = 0, prev = 0, looked = 0;
	int at_end;

	CHECK(sqlite3_open(path, &db) == SQLITE_OK &&
	    store_vtab_register(db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "SELECT id, ifnull(parent_id, -1), "
	    "frame_id, depth FROM callsite", -1, &st, NULL) == SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		CHECK(id > prev && id <= w->n && w->frame[id] != 0);
		CHECK(sqlite3_column_int64(st, 1) == (w->parent[id] ?
		    w->parent[id] : -1));
		CHECK(sqlite3_column_int64(st, 2) == w->frame[id]);
		CHECK(sqlite3_column_int64(st, 3) == w->depth[id]);
		prev = id;
		n++;
	}
	sqlite3_finalize(st);
	/* By id, every id (and a few past the last) in one statement: one
	 * cursor, id = ? for each, in the chunks it read already. */
	CHECK(sqlite3_prepare_v2(db, "WITH RECURSIVE i(id) AS (SELECT 0 "
	    "UNION ALL SELECT id + 1 FROM i WHERE id < ?1) SELECT i.id, "
	    "c.id, ifnull(c.parent_id, -1), c.frame_id, c.depth FROM i "
	    "LEFT JOIN callsite c ON c.id = i.id ORDER BY i.id", -1, &st,
	    NULL) == SQLITE_OK);
	sqlite3_bind_int64(st, 1, w->n + 2);
	for (id = 0; id <= w->n + 2; id++) {
		CHECK(sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_int64(st, 0) == id);
		if (id >= 1 && id <= w->n && w->frame[id] != 0) {
			CHECK(sqlite3_column_int64(st, 1) == id);
			CHECK(sqlite3_column_int64(st, 2) == (w->parent[id] ?
			    w->parent[id] : -1));
			CHECK(sqlite3_column_int64(st, 3) == w->frame[id]);
			CHECK(sqlite3_column_int64(st, 4) == w->depth[id]);
		} else
			CHECK(sqlite3_column_type(st, 1) == SQLITE_NULL);
	}
	CHECK(sqlite3_step(st) == SQLITE_DONE);
	sqlite3_finalize(st);
	/* By id, a statement each (a cursor each: a seek, the chunk from
	 * the connection's cache): the ids of the small imports, and of the
	 * large one every 61st and those at a chunk's ends.  Not all of
	 * them: each seek reads its chunk's row, and under ASan a copy of a
	 * 64 Ki chunk (200 KB) is an mmap, faults and an munmap, minutes for
	 * 150,000 ids. */
	CHECK(sqlite3_prepare_v2(db, "SELECT count(*) FROM callsite_chunk "
	    "WHERE ?1 IN (first_id - 1, first_id, last_id, last_id + 1)", -1,
	    &ends, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "SELECT parent_id, frame_id, depth, id "
	    "FROM callsite WHERE id = ?1", -1, &st, NULL) == SQLITE_OK);
	for (id = 0; id <= w->n + 2; id++) {
		if (id > 10000 && id <= w->n && id % 61 != 0) {
			sqlite3_bind_int64(ends, 1, id);
			CHECK(sqlite3_step(ends) == SQLITE_ROW);
			at_end = sqlite3_column_int64(ends, 0) > 0;
			sqlite3_reset(ends);
			if (!at_end)
				continue;
		}
		looked++;
		sqlite3_bind_int64(st, 1, id);
		if (id >= 1 && id <= w->n && w->frame[id] != 0) {
			CHECK(sqlite3_step(st) == SQLITE_ROW);
			CHECK(sqlite3_column_int64(st, 0) == w->parent[id]);
			CHECK(sqlite3_column_int64(st, 1) == w->frame[id]);
			CHECK(sqlite3_column_int64(st, 2) == w->depth[id]);
			CHECK(sqlite3_column_int64(st, 3) == id);
		}
		CHECK(sqlite3_step(st) == SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ends);
	CHECK(looked >= (w->n < 10000 ? w->n : 10000 + (w->n - 10000) / 61));
	CHECK(ts_count(db, "SELECT count(*) FROM callsite") == n);
	CHECK(ts_count(db, "SELECT ifnull(sum(count), 0) FROM callsite_chunk") ==
	    n);
	/* Through a join, as the views do it. */
	CHECK(ts_count(db, "SELECT count(*) FROM callsite a JOIN callsite b "
	    "ON b.id = a.parent_id WHERE b.depth + 1 != a.depth") == 0);
	sqlite3_close(db);
}

static void
cb_after(void *arg, int64_t id, int64_t parent, int64_t frame)
{
	struct want *w = arg;

	CHECK(id <= w->n && w->parent[id] == parent && w->frame[id] == frame);
	w->depth[0]++;			/* a count, in the unused slot 0 */
}

/* A tree of n callsites under parents among the first ones, frames
 * 1..nframes, interned (and remembered in w). */
static void
intern_some(struct store *s, struct want *w, int64_t first_frame, int n,
    int nframes)
{
	struct error err = { 0 };
	int64_t parent = 0, id, depth = 0, f;
	int i;

	for (i = 0; i < n; i++) {
		f = first_frame + i % nframes;
		id = ts_ok_id(store_callsite(s, parent, f, depth, &err),
		    "callsite", &err);
		if (id > w->n || w->frame[id] == 0)
			want_add(w, id, parent, f, depth);
		CHECK(w->parent[id] == parent && w->frame[id] == f);
		/* Down the stack, or back to a root now and then. */
		if (i % 7 == 6) {
			parent = 0;
			depth = 0;
		} else {
			parent = id;
			depth++;
		}
	}
}

int
main(void)
{
	struct error err = { 0 };
	const char *path = ts_new_path("cs.db");
	struct store *s = ts_open(path, 0), *r;
	struct want w = { 0 };
	int64_t a, b, c, f1, f2, max;
	sqlite3 *db;
	int i;

	want_add(&w, 1, 0, 0, 0);
	w.frame[1] = 0;
	/* One id per (parent, frame), in and across transactions. */
	ts_ok(store_begin_import(s, &err), "begin", &err);
	f1 = 3;
	f2 = 9;
	a = ts_ok_id(store_callsite(s, 0, f1, 0, &err), "a", &err);
	b = ts_ok_id(store_callsite(s, a, f2, 1, &err), "b", &err);
	CHECK(a == 1 && b == 2);
	CHECK(store_callsite(s, a, f2, 1, &err) == b);
	CHECK(store_callsite(s, 0, f2, 0, &err) == 3);
	ts_ok(store_commit(s, &err), "commit", &err);
	want_add(&w, 1, 0, f1, 0);
	want_add(&w, 2, 1, f2, 1);
	want_add(&w, 3, 0, f2, 0);
	ts_ok(store_begin_import(s, &err), "begin", &err);
	CHECK(store_callsite(s, a, f2, 1, &err) == b);
	c = ts_ok_id(store_callsite(s, b, f1, 2, &err), "c", &err);
	CHECK(c == 4);
	ts_ok(store_commit(s, &err), "commit", &err);
	want_add(&w, 4, 2, f1, 2);
	/* Outside a transaction: refused. */
	CHECK(store_callsite(s, 0, 77, 0, &err) == -1);
	error_clear(&err);

	/* A rollback forgets: its ids are handed out again, its keys are
	 * new again. */
	ts_ok(store_begin_import(s, &err), "begin", &err);
	CHECK(store_callsite(s, c, f2, 3, &err) == 5);
	CHECK(store_callsite(s, 5, f2, 4, &err) == 6);
	store_rollback(s);
	ts_ok(store_begin_import(s, &err), "begin", &err);
	CHECK(store_callsite(s, c, 50, 3, &err) == 5);
	CHECK(store_callsite(s, c, f2, 3, &err) == 6);
	CHECK(store_callsite(s, c, 50, 3, &err) == 5);
	ts_ok(store_commit(s, &err), "commit", &err);
	want_add(&w, 5, c, 50, 3);
	want_add(&w, 6, c, f2, 3);
	check_vtab(path, &w);

	/* Reopened: the same ids, new ones after the largest. */
	store_close(s);
	s = ts_open(path, 0);
	ts_ok(store_begin_import(s, &err), "begin", &err);
	CHECK(store_callsite(s, c, 50, 3, &err) == 5);
	CHECK(store_callsite(s, a, f2, 1, &err) == b);
	CHECK(store_callsite(s, 6, 51, 4, &err) == 7);
	ts_ok(store_commit(s, &err), "commit", &err);
	want_add(&w, 7, 6, 51, 4);

	/* A series of small imports: merged, a few chunks only. */
	for (i = 0; i < 300; i++) {
		ts_ok(store_begin_import(s, &err), "begin", &err);
		intern_some(s, &w, 100 + 5 * i, 20, 9);
		ts_ok(store_commit(s, &err), "commit", &err);
	}
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(ts_count(db, "SELECT count(*) FROM callsite_chunk") <= 12);
	sqlite3_close(db);
	check_vtab(path, &w);

	/* One import of 150,000: chunks of at most 64 Ki, and the writer's
	 * memory for them: the map (16-byte slots at most 3/4 full, so at
	 * most 43 bytes a callsite) and one chunk being encoded. */
	ts_ok(store_begin_import(s, &err), "begin", &err);
	intern_some(s, &w, 1000000, 150000, 100000);
	CHECK(store_cs_bytes(s) <= (size_t)w.n * 43 + 4 * CS_CHUNK_MAX);
	ts_ok(store_commit(s, &err), "commit", &err);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(ts_count(db, "SELECT max(count) FROM callsite_chunk") <=
	    CS_CHUNK_MAX);
	CHECK(ts_count(db, "SELECT count(*) FROM callsite_chunk WHERE "
	    "count = 65536") == 2);
	sqlite3_close(db);
	check_vtab(path, &w);

	/* A reader sees them all, and the ones after an id only. */
	r = ts_open(path, 1);
	w.depth[0] = 0;
	ts_ok(store_callsites_after(r, 0, cb_after, &w, &err), "after", &err);
	max = w.depth[0];
	w.depth[0] = 0;
	ts_ok(store_callsites_after(r, w.n - 10, cb_after, &w, &err),
	    "after", &err);
	CHECK(w.depth[0] == 10 && max == w.n);
	store_close(r);
	store_close(s);

	/* A corrupt chunk: the query fails, naming it. */
	CHECK(sqlite3_open(path, &db) == SQLITE_OK &&
	    store_vtab_register(db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "UPDATE callsite_chunk SET data = X'0100' "
	    "WHERE last_id = (SELECT min(last_id) FROM callsite_chunk)", NULL,
	    NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "SELECT count(*) FROM callsite", NULL, NULL,
	    NULL) == SQLITE_ERROR);
	CHECK(HAS(sqlite3_errmsg(db), "callsite chunk") &&
	    HAS(sqlite3_errmsg(db), "corrupt at byte"));
	sqlite3_close(db);
	free(w.parent);
	free(w.frame);
	free(w.depth);
	printf("test_store_cs: %u checks passed\n", checks);
	return 0;
}
