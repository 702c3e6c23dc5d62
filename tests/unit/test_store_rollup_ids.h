/* test_store_rollup_ids.h: test_store_rollup.c's checks of the rollup
 * runs' ids (schema 14: a run's id is never used again, so the function
 * sums kept by it are that run's) and of a rollup table of schema 13
 * upgraded; included by it once its store, selections and pushes are
 * defined (kept apart so that each file stays short). */
#ifndef PROFD_TEST_STORE_ROLLUP_IDS_H
#define PROFD_TEST_STORE_ROLLUP_IDS_H

#include <sqlite3.h>

#include "schema.h"
#include "store-int.h"

static int64_t
count_in(sqlite3 *db, const char *q)
{
	sqlite3_stmt *st;
	int64_t n = -1;

	CHECK(sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Every run's id names the same bytes whenever it is seen, and a run
 * written since the last look has an id above every id seen before
 * (schema 14, AUTOINCREMENT): the function sums kept by a run's id are
 * that run's.  forget: a new store. */
static struct imap run_hash;
static int64_t run_max;

static void
ids_check(int forget)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t id, h, known, max = run_max, seq = -1;
	int rc;

	if (forget) {
		imap_clear(&run_hash);
		run_max = 0;
		return;
	}
	CHECK(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) ==
	    SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "SELECT id, data FROM rollup", -1, &st,
	    NULL) == SQLITE_OK);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		/* Never 0 (hmap_hash), so 0 is "not seen". */
		h = (int64_t)(hmap_hash(sqlite3_column_blob(st, 1),
		    (size_t)sqlite3_column_bytes(st, 1)) >> 1) | 1;
		if ((known = imap_get(&run_hash, (uint64_t)id)) != 0)
			CHECK(known == h);
		else {
			CHECK(id > run_max);
			imap_put(&run_hash, (uint64_t)id, h);
		}
		if (id > max)
			max = id;
	}
	CHECK(rc == SQLITE_DONE);
	sqlite3_finalize(st);
	CHECK(sqlite3_prepare_v2(db, "SELECT seq FROM sqlite_sequence WHERE "
	    "name = 'rollup'", -1, &st, NULL) == SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		seq = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	/* Ids seen and gone are not used again: the sequence stays above. */
	CHECK(max == 0 || seq >= max);
	run_max = max;
}

/* The store's rollup table taken back to schema 13's (ids used again
 * after the highest is deleted), then upgraded by step 14 as
 * store_migrate runs it (foreign keys off, one transaction), and the
 * store opened again.  The later steps' tables are not taken back (no
 * store of schema 13 is made here), so step 14 is applied alone; the
 * whole path from a real store of schema 13 is bench/issue41's, whose
 * after side opens a store the before side pushed. */
static void
back_to_v13(void)
{
	static const char sql[] =
	    "BEGIN;"
	    "CREATE TABLE rollup_v13 (id INTEGER PRIMARY KEY, scope_id "
	    "    INTEGER NOT NULL REFERENCES scope (id), span INTEGER NOT "
	    "    NULL, start INTEGER NOT NULL, level INTEGER NOT NULL, "
	    "    entries INTEGER NOT NULL, profiles BLOB NOT NULL, data "
	    "    BLOB NOT NULL);"
	    "INSERT INTO rollup_v13 SELECT * FROM rollup;"
	    "DROP TABLE rollup;"
	    "ALTER TABLE rollup_v13 RENAME TO rollup;"
	    "CREATE INDEX rollup_window ON rollup (scope_id, span, start, "
	    "    level);"
	    "DELETE FROM sqlite_sequence WHERE name IN ('rollup', "
	    "    'rollup_v13');"
	    "COMMIT;";
	struct error err = { 0 };
	char *msg = NULL, *up;
	sqlite3 *db;
	int i;

	importer_free(ti.im);
	store_close(ti.rd);
	store_close(ti.wr);
	CHECK(sqlite3_open(dbpath, &db) == SQLITE_OK);
	/* The views name the store's virtual tables. */
	CHECK(store_vtab_register(db) == SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "back to version 13: %s\n", msg);
		exit(1);
	}
	CHECK(count_in(db, "SELECT count(*) FROM sqlite_sequence WHERE "
	    "name = 'rollup'") == 0);
	for (i = 0; i < schema_nsteps && schema_steps[i].version != 14; i++)
		;
	CHECK(i < schema_nsteps);
	xasprintf(&up, "PRAGMA foreign_keys = OFF; BEGIN IMMEDIATE; %s "
	    "COMMIT;", schema_steps[i].sql);
	if (sqlite3_exec(db, up, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "upgrading from version 13: %s\n", msg);
		exit(1);
	}
	free(up);
	CHECK(count_in(db, "SELECT count(*) FROM sqlite_sequence WHERE "
	    "name = 'rollup' AND seq = (SELECT max(id) FROM rollup)") == 1);
	sqlite3_close(db);
	CHECK((ti.wr = store_open(dbpath, 0, &err)) != NULL);
	CHECK(store_start_threads(ti.wr, &err) == 0);
	CHECK((ti.rd = store_open(dbpath, 1, &err)) != NULL);
	ti.im = importer_new(ti.wr, &ti.lim);
	store_set_sample_buffer(ti.wr, 128);
	wr = ti.wr;
	rd = ti.rd;
}

/* Top as text over each scope, whole and over a day with partial hours
 * (both the sums' and the blocks' paths). */
static char *
tops_text(void)
{
	/* c: all its profiles deleted by now. */
	static const char *const scopes[] = { "a", "b", "d", "e" };
	char *out = xstrdup(""), *t, *next;
	size_t i;

	for (i = 0; i < 4; i++) {
		t = testquery_top_text(rd, idx, scopes[i]);
		xasprintf(&next, "%s%s:\n%s", out, scopes[i], t);
		free(out);
		free(t);
		out = next;
	}
	return out;
}

/* A rollup table of schema 13 (its ids used again) upgraded: the same
 * answers, the ids kept, and a run written after it above them all. */
static void
upgrade_checks(void)
{
	char *want, *got;
	int64_t before;

	want = tops_text();
	back_to_v13();
	got = tops_text();
	if (strcmp(want, got) != 0) {
		fprintf(stderr, "top before the upgrade:\n%s\nafter:\n%s",
		    want, got);
		exit(1);
	}
	free(got);
	/* The same runs, the same ids. */
	ids_check(0);
	before = store_fsum_hits(rd);
	got = tops_text();
	CHECK(strcmp(want, got) == 0);
	CHECK(store_fsum_hits(rd) > before);
	free(want);
	free(got);
	push_trace("e", 30, T0 - DAY + 7 * HOUR, 900, 400, NULL, 0);
	ids_check(0);
	selections();
	printf("ok: a rollup table of schema 13 upgraded answers the "
	    "same\n");
}

#endif
