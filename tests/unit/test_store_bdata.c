/* test_store_bdata.c: a sample block's data stored once (schema 13,
 * store-bdata.c), shared by every block with the same bytes, and taken
 * away with the last of them.
 *
 * The cpu fixture pushed to scopes a and b has blocks byte for byte
 * alike: their data is stored once, counted twice.  Deleting a's profile
 * (by id, as profctl asks) leaves b's whole: its top and its rows and
 * sums in the sample table are what they were, and the data is still
 * there, counted once.  Pushed to a again, it shares again; b deleted by
 * retention (profiles older than a time, the retention pass's path), then
 * scope a whole, leave only the heap fixture's data (scope c).  After
 * every step each row of block_data is named by exactly `refs` blocks,
 * and every block's data is there.  Last, a store written before schema
 * 13 (the two copies each with their own bytes, made by taking this
 * store back to version 12's layout) is upgraded on open: the copies
 * merged into one row counted twice, and the answers unchanged. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "query.h"
#include "retention.h"
#include "selection.h"
#include "store-int.h"
#include "testimport.h"
#include "testquery.h"
#include "top.h"

static struct testimport ti;

/* The first column of the one row of sql, on a connection of the test's
 * own with the sample table registered. */
static int64_t
count(const char *sql)
{
	char path[160];
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t n;

	snprintf(path, sizeof path, "%s/profd.db", ti.dir);
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
	    SQLITE_OK);
	CHECK(store_vtab_register(db) == SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
		exit(1);
	}
	CHECK(sqlite3_step(st) == SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* Every row of block_data named by exactly refs blocks, none unnamed,
 * every block's data there. */
static void
counts_exact(const char *when)
{
	int64_t off = count("SELECT count(*) FROM block_data d WHERE refs != "
	    "(SELECT count(*) FROM sample_block WHERE data_id = d.id)");
	int64_t lost = count("SELECT count(*) FROM sample_block b WHERE NOT "
	    "EXISTS (SELECT 1 FROM block_data WHERE id = b.data_id)");

	if (off != 0 || lost != 0) {
		fprintf(stderr, "%s: %lld rows of data counted wrong, %lld "
		    "blocks without their data\n", when, (long long)off,
		    (long long)lost);
		exit(1);
	}
	CHECK(count("SELECT count(*) FROM block_data WHERE refs <= 0") == 0);
}

/* "function flat cum\n" for every row of top over a scope. */
static char *
top(const char *scope)
{
	return testquery_top_text(ti.rd, ti.idx, scope);
}

/* A profile's rows in the sample table: count, sum of values, of
 * callsites and of buckets, as one string. */
static char *
rows_of(int64_t profile)
{
	char sql[256], *out;
	static const char *const what[] = { "count(*)", "sum(value)",
	    "sum(callsite_id)", "sum(bucket)", "sum(metric_id * value)" };
	int64_t v[5];
	size_t i;

	for (i = 0; i < 5; i++) {
		snprintf(sql, sizeof sql, "SELECT %s FROM sample WHERE "
		    "profile_id = %lld", what[i], (long long)profile);
		v[i] = count(sql);
	}
	CHECK(v[0] > 0);
	xasprintf(&out, "%lld %lld %lld %lld %lld", (long long)v[0],
	    (long long)v[1], (long long)v[2], (long long)v[3], (long long)v[4]);
	return out;
}

static void
delete(const char *scope, int64_t before_ns, const int64_t *ids,
    size_t nids, int64_t want)
{
	struct retention_delete d = { scope, before_ns, ids, nids };
	struct error err = { 0 };
	int64_t profiles, samples;
	int gone;

	if (retention_delete(ti.wr, &d, &profiles, &samples, &gone,
	    &err) == -1) {
		fprintf(stderr, "delete in %s: %s\n", scope, err.msg);
		exit(1);
	}
	CHECK(profiles == want);
}

static void
check_same(const char *what, const char *want, char *got)
{
	if (strcmp(want, got) != 0) {
		fprintf(stderr, "%s: was\n%s\nis\n%s\n", what, want, got);
		exit(1);
	}
	free(got);
}

/* The store taken back to version 12's layout: each block with its own
 * copy of its data (as written before schema 13). */
static void
back_to_v12(void)
{
	static const char sql[] =
	    "BEGIN;"
	    "DROP TRIGGER sample_block_unref;"
	    "ALTER TABLE sample_block ADD COLUMN data BLOB NOT NULL "
	    "    DEFAULT x'';"
	    "UPDATE sample_block SET data = (SELECT data FROM block_data "
	    "    WHERE id = data_id);"
	    "ALTER TABLE sample_block DROP COLUMN data_id;"
	    "DROP TABLE block_data;"
	    /* Schemas 16 and 17 undone too: the store has no frame index
	     * (17 dropped frame_hash), and 16's DROP INDEX frame_key would
	     * fail on a store without one (14's rollup table is made again
	     * whatever it was). */
	    "CREATE UNIQUE INDEX frame_key ON frame (ifnull(function_id, 0),"
	    "    ifnull(mapping_id, 0), address, line, col, flags);"
	    "PRAGMA user_version = 12;"
	    "COMMIT;";
	char path[160], *msg = NULL;
	sqlite3 *db;

	snprintf(path, sizeof path, "%s/profd.db", ti.dir);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(store_vtab_register(db) == SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "back to version 12: %s\n", msg);
		exit(1);
	}
	sqlite3_close(db);
}

int
main(void)
{
	struct error err = { 0 };
	char *top_a, *top_b, *rows_b, *rows_c, path[160];
	int64_t pa, pb, pc, nb, nd, nc;

	testimport_open(&ti);
	pa = testimport_push(&ti, "a", "cpu.pprof");
	pb = testimport_push(&ti, "b", "cpu.pprof");
	pc = testimport_push(&ti, "c", "heap.pprof");
	counts_exact("after the pushes");
	nb = count("SELECT count(*) FROM sample_block");
	nd = count("SELECT count(*) FROM block_data");
	CHECK(count("SELECT count(*) FROM block_data WHERE refs = 2") > 0);
	CHECK(nd < nb);
	top_a = top("a");
	top_b = top("b");
	CHECK(strcmp(top_a, top_b) == 0);
	rows_b = rows_of(pb);
	rows_c = rows_of(pc);
	check_same("a's rows against b's", rows_b, rows_of(pa));
	printf("ok: one profile in two scopes: %lld blocks, %lld rows of "
	    "data\n", (long long)nb, (long long)nd);

	/* One of the two deleted: the other whole, the data kept. */
	delete("a", 0, &pa, 1, 1);
	counts_exact("after a's profile deleted");
	check_same("b's top after a's delete", top_b, top("b"));
	check_same("b's rows after a's delete", rows_b, rows_of(pb));
	CHECK(count("SELECT count(*) FROM block_data") == nd);
	CHECK(count("SELECT count(*) FROM block_data WHERE refs = 2") == 0);
	printf("ok: deleting one of two profiles sharing their data leaves "
	    "the other whole\n");

	/* Pushed again, shared again; b goes by retention's path. */
	pa = testimport_push(&ti, "a", "cpu.pprof");
	counts_exact("after a's push again");
	CHECK(count("SELECT count(*) FROM block_data") == nd);
	check_same("a's top pushed again", top_a, top("a"));
	delete("b", INT64_MAX, NULL, 0, 1);
	counts_exact("after retention in b");
	check_same("a's top after retention in b", top_a, top("a"));
	CHECK(count("SELECT count(*) FROM block_data") == nd);
	printf("ok: retention of one sharer keeps the other's data\n");

	/* Scope a whole: only c's data is left. */
	delete("a", 0, NULL, 0, 1);
	counts_exact("after scope a deleted");
	nc = count("SELECT count(*) FROM sample_block");
	CHECK(nc > 0);
	CHECK(count("SELECT count(*) FROM block_data") == nc);
	CHECK(count("SELECT count(*) FROM sample_block b WHERE NOT EXISTS "
	    "(SELECT 1 FROM profile WHERE id = b.profile_id)") == 0);
	check_same("c's rows after the others went", rows_c, rows_of(pc));
	printf("ok: the last block naming data takes it away (%lld rows "
	    "left, c's)\n", (long long)nc);

	/* A store of before schema 13 with the copies apart: upgraded,
	 * merged. */
	pa = testimport_push(&ti, "a", "cpu.pprof");
	pb = testimport_push(&ti, "b", "cpu.pprof");
	check_same("a's top pushed a third time", top_a, top("a"));
	importer_free(ti.im);
	store_close(ti.wr);
	back_to_v12();
	CHECK(count("SELECT count(*) FROM sqlite_master WHERE name = "
	    "'block_data'") == 0);
	snprintf(path, sizeof path, "%s/profd.db", ti.dir);
	CHECK((ti.wr = store_open(path, 0, &err)) != NULL);
	CHECK(store_start_threads(ti.wr, &err) == 0);
	ti.im = importer_new(ti.wr, &ti.lim);
	counts_exact("after the upgrade");
	CHECK(count("SELECT count(*) FROM sample_block") == nb);
	CHECK(count("SELECT count(*) FROM block_data") == nd);
	CHECK(count("SELECT count(*) FROM block_data WHERE hash = 0") == 0);
	check_same("a's top after the upgrade", top_a, top("a"));
	check_same("b's top after the upgrade", top_b, top("b"));
	check_same("b's rows after the upgrade", rows_b, rows_of(pb));
	check_same("c's rows after the upgrade", rows_c, rows_of(pc));
	delete("a", 0, &pa, 1, 1);
	counts_exact("after a's delete, upgraded");
	check_same("b's rows after a's delete, upgraded", rows_b,
	    rows_of(pb));
	printf("ok: a store of version 12 upgraded: equal blocks' data "
	    "merged, the answers unchanged\n");

	free(top_a);
	free(top_b);
	free(rows_b);
	free(rows_c);
	testimport_close(&ti);
	printf("%u checks\n", checks);
	return 0;
}
