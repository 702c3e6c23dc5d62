/* test_store_fleet.c: the fleet shipping cursor (store-fleet.c).  Three
 * profiles are pending, oldest id first, with their scope, hash and
 * bytes; a batch marked shipped leaves the backlog (and its bytes); a
 * read-only connection sees the same.  Then the newest profile, shipped,
 * is deleted and a new one pushed: SQLite gives it the same id again,
 * and it must still be pending (what an id cursor would get wrong).
 * Retention's list of the oldest profiles leaves out the unshipped ones
 * while the store keeps them (a fleet is on), and only then.
 *
 * The backlog's counts the writer keeps (store_ship_live, /v1/status)
 * are the store's at every commit: they start from the profiles there,
 * an import adds, a marked batch takes off, a delete takes off and
 * counts an unshipped profile deleted, by id or with a whole scope; a
 * transaction rolled back changes none of them. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "teststore.h"

static int64_t
add(struct store *s, int64_t scope, unsigned seed)
{
	struct error err = { 0 };
	int64_t id;

	ts_ok(store_begin(s, &err), "begin", &err);
	id = ts_profile(s, scope, seed, 1700000000000000000 + seed);
	ts_ok(store_commit(s, &err), "commit", &err);
	return id;
}

static void
check_lag(struct store *s, int64_t want_n, int64_t want_bytes)
{
	struct error err = { 0 };
	int64_t n = -1, bytes = -1;

	ts_ok(store_ship_lag(s, &n, &bytes, &err), "lag", &err);
	CHECK(n == want_n);
	CHECK(bytes == want_bytes);
}

/* The live counts, equal to what SQL counts. */
static void
check_live(struct store *s, int64_t want_n, int64_t want_bytes,
    int64_t want_deleted)
{
	int64_t n, bytes, deleted;

	store_ship_live(s, &n, &bytes, &deleted);
	CHECK(n == want_n);
	CHECK(bytes == want_bytes);
	CHECK(deleted == want_deleted);
	check_lag(s, want_n, want_bytes);
}

static void
live(void)
{
	struct error err = { 0 };
	struct store *s;
	int64_t scope, other, id[4], n, bytes, deleted;

	s = ts_open(ts_new_path("live.db"), 0);
	store_ship_live(s, &n, &bytes, &deleted);
	CHECK(n == -1 && bytes == -1 && deleted == -1);
	ts_ok(store_begin(s, &err), "begin", &err);
	scope = ts_ok_id(store_scope(s, "web", 1, &err), "scope", &err);
	other = ts_ok_id(store_scope(s, "db", 1, &err), "scope", &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	id[0] = add(s, scope, 1);
	id[1] = add(s, scope, 2);
	store_set_keep_unshipped(s, 1);
	check_live(s, 2, 200, 0);
	id[2] = add(s, scope, 3);
	id[3] = add(s, other, 4);
	check_live(s, 4, 400, 0);

	/* Rolled back: not counted. */
	ts_ok(store_begin(s, &err), "begin", &err);
	ts_profile(s, scope, 5, 1700000000000000005);
	store_rollback(s);
	check_live(s, 4, 400, 0);

	/* Shipped, then one of them deleted: no unshipped one deleted. */
	ts_ok(store_ship_mark(s, &id[0], 1, 5, &err), "mark", &err);
	check_live(s, 3, 300, 0);
	ts_ok(store_begin(s, &err), "begin", &err);
	ts_ok(store_ship_mark(s, &id[1], 1, 5, &err), "mark", &err);
	store_rollback(s);
	check_live(s, 3, 300, 0);
	ts_ok(store_begin(s, &err), "begin", &err);
	ts_ok(store_profile_delete(s, id[0], &err), "delete", &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	check_live(s, 3, 300, 0);

	/* Unshipped, deleted by id (rolled back first), then a scope. */
	ts_ok(store_begin(s, &err), "begin", &err);
	ts_ok(store_profile_delete(s, id[1], &err), "delete", &err);
	store_rollback(s);
	check_live(s, 3, 300, 0);
	ts_ok(store_begin(s, &err), "begin", &err);
	ts_ok(store_profile_delete(s, id[1], &err), "delete", &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	check_live(s, 2, 200, 1);
	ts_ok(store_begin(s, &err), "begin", &err);
	ts_ok(store_scope_delete(s, scope, &n, &bytes, &err), "scope delete",
	    &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	CHECK(n == 1);
	check_live(s, 1, 100, 2);
	store_close(s);
}

int
main(void)
{
	struct error err = { 0 };
	struct store_ship_profile *p;
	struct store *s, *ro;
	int64_t scope, id[3], again, mark[3];
	size_t n;
	uint8_t h[32];
	unsigned seed;

	s = ts_open(ts_new_path("fleet.db"), 0);
	ro = ts_open(ts_path, 1);
	ts_ok(store_begin(s, &err), "begin", &err);
	scope = ts_ok_id(store_scope(s, "web", 1, &err), "scope", &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	check_lag(s, 0, 0);
	for (seed = 0; seed < 3; seed++)
		id[seed] = add(s, scope, seed + 1);
	check_lag(s, 3, 300);

	ts_ok(store_ship_pending(ro, 2, &p, &n, &err), "pending", &err);
	CHECK(n == 2);
	CHECK(p[0].id == id[0] && p[1].id == id[1]);
	CHECK(strcmp(p[0].scope, "web") == 0 && p[0].scope_id == scope);
	CHECK(p[1].bytes == 100 && p[1].time_ns == 1700000000000000002);
	memset(h, 0, sizeof h);
	seed = 2;
	memcpy(h, &seed, sizeof seed);
	CHECK(memcmp(p[1].hash, h, 32) == 0);
	store_ship_profiles_free(p, n);

	/* Marked in one step; marking again changes nothing. */
	mark[0] = id[0];
	mark[1] = id[1];
	ts_ok(store_ship_mark(s, mark, 2, 5, &err), "mark", &err);
	ts_ok(store_ship_mark(s, mark, 2, 6, &err), "mark again", &err);
	check_lag(s, 1, 100);
	check_lag(ro, 1, 100);
	CHECK(store_ship_is_shipped(ro, id[0], &err) == 1);
	CHECK(store_ship_is_shipped(ro, id[2], &err) == 0);
	CHECK(store_ship_is_shipped(ro, id[2] + 10, &err) == -1 &&
	    err.kind == ERR_NOT_FOUND);
	error_clear(&err);
	ts_ok(store_ship_pending(ro, 10, &p, &n, &err), "pending", &err);
	CHECK(n == 1 && p[0].id == id[2]);
	store_ship_profiles_free(p, n);

	/* Retention sees all three, or the two shipped ones. */
	{
		struct store_old_profile *old;

		ts_ok(store_oldest_profiles(s, 0, INT64_MAX, 10, &old, &n,
		    &err), "oldest", &err);
		CHECK(n == 3);
		free(old);
		store_set_keep_unshipped(s, 1);
		ts_ok(store_oldest_profiles(s, 0, INT64_MAX, 10, &old, &n,
		    &err), "oldest", &err);
		CHECK(n == 2 && old[0].id == id[0] && old[1].id == id[1]);
		free(old);
		store_set_keep_unshipped(s, 0);
	}

	/* The newest, shipped, deleted: its id comes back for a new one. */
	mark[2] = id[2];
	ts_ok(store_ship_mark(s, &mark[2], 1, 7, &err), "mark", &err);
	check_lag(s, 0, 0);
	ts_ok(store_begin(s, &err), "begin", &err);
	ts_ok(store_profile_delete(s, id[2], &err), "delete", &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	again = add(s, scope, 9);
	CHECK(again == id[2]);
	check_lag(s, 1, 100);
	ts_ok(store_ship_pending(s, 10, &p, &n, &err), "pending", &err);
	CHECK(n == 1 && p[0].id == again);
	store_ship_profiles_free(p, n);

	store_close(ro);
	store_close(s);
	live();
	printf("ok\n");
	return 0;
}
