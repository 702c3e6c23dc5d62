/* teststore.h: what the store's unit tests (test_store.c, test_store_gc.c,
 * test_store_cs.c) share: a store file in a directory of its own, removed
 * at exit, and helpers that fail the test on any error.  Header-only, as
 * testlib.h. */
#ifndef PROFD_TESTSTORE_H
#define PROFD_TESTSTORE_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "testlib.h"

static char ts_dir[64];

/* The first column of the one row of sql, on a connection of the test's
 * own (the store file read as SQLite sees it). */
static inline int64_t
ts_count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t n;

	CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(st) == SQLITE_ROW);
	n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}
static char ts_path[128];

static inline void
ts_rm(void)
{
	char cmd[160];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", ts_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", ts_dir);
}

/* A fresh path for a store file (the directory goes at exit). */
static inline const char *
ts_new_path(const char *name)
{
	if (ts_dir[0] == '\0') {
		snprintf(ts_dir, sizeof ts_dir, "/tmp/profd-test-XXXXXX");
		CHECK(mkdtemp(ts_dir) != NULL);
		atexit(ts_rm);
	}
	snprintf(ts_path, sizeof ts_path, "%s/%s", ts_dir, name);
	return ts_path;
}

static inline struct store *
ts_open(const char *path, int readonly)
{
	struct error err = { 0 };
	struct store *s = store_open(path, readonly, &err);

	if (s == NULL) {
		fprintf(stderr, "store_open %s: %s\n", path, err.msg);
		exit(1);
	}
	return s;
}

/* An id > 0 or the test fails, saying what. */
static inline int64_t
ts_ok_id(int64_t id, const char *what, const struct error *err)
{
	if (id <= 0) {
		fprintf(stderr, "%s: %lld: %s\n", what, (long long)id,
		    err->msg);
		exit(1);
	}
	return id;
}

static inline void
ts_ok(int rc, const char *what, const struct error *err)
{
	if (rc != 0) {
		fprintf(stderr, "%s: %d: %s\n", what, rc, err->msg);
		exit(1);
	}
}

static inline int64_t
ts_str(struct store *s, const char *p)
{
	struct error err = { 0 };

	return ts_ok_id(store_string(s, p, strlen(p), &err), p, &err);
}

/* A chain of n frames (function "<prefix>N" each), as callsites from the
 * root: cs[i] is the callsite of depth i (the root's is 0).  In the caller's
 * transaction. */
static inline void
ts_stack(struct store *s, const char *prefix, int64_t *cs, int n)
{
	struct error err = { 0 };
	char name[64];
	int64_t fn, fr, parent = 0, file = ts_str(s, "f.c");
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "%s%d", prefix, i);
		fn = ts_ok_id(store_function(s, ts_str(s, name), ts_str(s, name),
		    file, i, &err), "function", &err);
		fr = ts_ok_id(store_frame(s, fn, 0, 0x1000 + (uint64_t)i, i, 0,
		    0, &err), "frame", &err);
		parent = cs[i] = ts_ok_id(store_callsite(s, parent, fr, i, &err),
		    "callsite", &err);
	}
}

/* A filter of one scope and metric over all time. */
static inline void
ts_filter(struct store_filter *f, const int64_t *scope, int64_t metric)
{
	memset(f, 0, sizeof *f);
	f->scopes = scope;
	f->nscopes = 1;
	f->metric_id = metric;
	f->since_s = INT64_MIN;
	f->until_s = INT64_MAX;
}

/* A profile row of a scope, with a hash made from seed. */
static inline int64_t
ts_profile(struct store *s, int64_t scope, unsigned seed, int64_t time_ns)
{
	struct error err = { 0 };
	struct store_profile_row r;
	struct store_profile_meta m;
	uint8_t hash[32];
	int64_t id;

	memset(hash, 0, sizeof hash);
	memcpy(hash, &seed, sizeof seed);
	memset(&r, 0, sizeof r);
	r.scope_id = scope;
	r.format = "pprof";
	r.name = "p";
	r.hash = hash;
	r.bytes = 100;
	r.imported_ns = time_ns;
	id = ts_ok_id(store_profile_insert(s, &r, &err), "profile", &err);
	memset(&m, 0, sizeof m);
	m.time_ns = time_ns;
	ts_ok(store_profile_finish(s, id, &m, &err), "profile finish", &err);
	return id;
}

#endif
