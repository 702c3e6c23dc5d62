/* store-fleet.c: the fleet shipping cursor (schema 8): the profiles that
 * have not shipped to ClickHouse yet, the size of that backlog, and a
 * batch marked shipped once ClickHouse acknowledged it.  What a profile
 * holds is read as export reads it (store_select_all).
 *
 * The writer also keeps the backlog's counts as its commits change
 * them, for /v1/status: counting by SQL at the shipper's rounds left them
 * stale between rounds (0 while profiles waited with ClickHouse away),
 * and every path that adds, ships or deletes a profile (an import, a
 * marked batch, retention, each kind of DELETE) would have to report.
 * TEMP triggers on profile see every one of them on the writer's
 * connection and add its change to the open transaction's (ship_pend);
 * store_commit publishes it, store_rollback drops it (store_ship_end). */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "store-int.h"

enum { SHIP_PROFILES, SHIP_BYTES, SHIP_DELETED };

/* profd_ship(profiles, bytes, deleted): a trigger's change. */
static void
ship_change(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct store *s = sqlite3_user_data(ctx);
	int i;

	for (i = 0; i < argc && i < 3; i++)
		s->ship_pend[i] += sqlite3_value_int64(argv[i]);
	sqlite3_result_null(ctx);
}

/* An unshipped profile: counted when inserted, its bytes when they are
 * set (an import streamed sets them last), taken off when it ships (or
 * is marked expired) or is deleted, which is also counted. */
static const char ship_triggers[] =
    "CREATE TEMP TRIGGER IF NOT EXISTS ship_add AFTER INSERT ON "
    "main.profile WHEN NEW.shipped_ns = 0 BEGIN "
    "SELECT profd_ship(1, NEW.bytes, 0); END;"
    "CREATE TEMP TRIGGER IF NOT EXISTS ship_update AFTER UPDATE OF "
    "shipped_ns, bytes ON main.profile WHEN OLD.shipped_ns = 0 OR "
    "NEW.shipped_ns = 0 BEGIN "
    "SELECT profd_ship((NEW.shipped_ns = 0) - (OLD.shipped_ns = 0), "
    "(NEW.shipped_ns = 0) * NEW.bytes - (OLD.shipped_ns = 0) * OLD.bytes, "
    "0); END;"
    "CREATE TEMP TRIGGER IF NOT EXISTS ship_delete AFTER DELETE ON "
    "main.profile WHEN OLD.shipped_ns = 0 BEGIN "
    "SELECT profd_ship(-1, -OLD.bytes, 1); END;";

/* The counts start from the store's (on the loop at start-up, before
 * the writer's first job); if they cannot, store_ship_live says so. */
static void
ship_track(struct store *s)
{
	int64_t n, bytes;

	if (s->ship_tracked || s->readonly)
		return;
	if (sqlite3_create_function_v2(s->db, "profd_ship", 3, SQLITE_UTF8,
	    s, ship_change, NULL, NULL, NULL) != SQLITE_OK ||
	    store_exec(s, ship_triggers, NULL) == -1 ||
	    store_ship_lag(s, &n, &bytes, NULL) == -1)
		return;
	atomic_store(&s->ship_live[SHIP_PROFILES], n);
	atomic_store(&s->ship_live[SHIP_BYTES], bytes);
	atomic_store(&s->ship_live[SHIP_DELETED], 0);
	s->ship_tracked = 1;
}

void
store_set_keep_unshipped(struct store *s, int on)
{
	s->keep_unshipped = on != 0;
	if (on)
		ship_track(s);
}

void
store_ship_end(struct store *s, int committed)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (committed && s->ship_pend[i] != 0)
			atomic_fetch_add(&s->ship_live[i], s->ship_pend[i]);
		s->ship_pend[i] = 0;
	}
}

void
store_ship_live(struct store *s, int64_t *profiles, int64_t *bytes,
    int64_t *deleted)
{
	if (!s->ship_tracked) {
		*profiles = *bytes = *deleted = -1;
		return;
	}
	*profiles = atomic_load(&s->ship_live[SHIP_PROFILES]);
	*bytes = atomic_load(&s->ship_live[SHIP_BYTES]);
	*deleted = atomic_load(&s->ship_live[SHIP_DELETED]);
}

void
store_set_backlog_max(struct store *s, int64_t bytes)
{
	s->backlog_max = bytes;
}

int64_t
store_backlog_over(const struct store *s, int64_t *max)
{
	*max = s->backlog_max;
	return s->backlog_over;
}

void
store_ship_profiles_free(struct store_ship_profile *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].scope);
		free(p[i].name);
	}
	free(p);
}

int
store_ship_pending(struct store *s, size_t max,
    struct store_ship_profile **out, size_t *nout, struct error *err)
{
	struct store_ship_profile *p = NULL, *e;
	sqlite3_stmt *st = NULL;
	const void *h;
	size_t n = 0;
	int rc;

	*out = NULL;
	*nout = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT p.id, p.scope_id, s.name, "
	    "p.name, p.hash, p.bytes, p.time_ns, p.duration_ns, p.series "
	    "FROM profile p "
	    "JOIN scope s ON s.id = p.scope_id WHERE p.shipped_ns = 0 "
	    "ORDER BY p.id LIMIT ?1", -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, err, "listing unshipped profiles");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)(max > INT64_MAX ?
	    INT64_MAX : max));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p = xreallocarray(p, n + 1, sizeof *p);
		e = &p[n++];
		memset(e, 0, sizeof *e);
		e->id = sqlite3_column_int64(st, 0);
		e->scope_id = sqlite3_column_int64(st, 1);
		e->scope = xstrdup((const char *)sqlite3_column_text(st, 2));
		e->name = xstrdup((const char *)sqlite3_column_text(st, 3));
		h = sqlite3_column_blob(st, 4);
		if (h != NULL && sqlite3_column_bytes(st, 4) == 32)
			memcpy(e->hash, h, 32);
		e->bytes = sqlite3_column_int64(st, 5);
		e->time_ns = sqlite3_column_int64(st, 6);
		e->duration_ns = sqlite3_column_int64(st, 7);
		e->series = sqlite3_column_int64(st, 8);
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "listing unshipped profiles");
		sqlite3_finalize(st);
		store_ship_profiles_free(p, n);
		return -1;
	}
	sqlite3_finalize(st);
	*out = p;
	*nout = n;
	return 0;
}

int
store_ship_lag(struct store *s, int64_t *profiles, int64_t *bytes,
    struct error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT count(*), ifnull(sum(bytes), 0) "
	    "FROM profile WHERE shipped_ns = 0", -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, err, "counting unshipped profiles");
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		store_fail(s, err, "counting unshipped profiles");
		sqlite3_finalize(st);
		return -1;
	}
	*profiles = sqlite3_column_int64(st, 0);
	*bytes = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return 0;
}

/* One statement for the whole batch, in the caller's transaction or its
 * own: a crash leaves all of them unshipped or none. */
int
store_ship_mark(struct store *s, const int64_t *ids, size_t n, int64_t now_ns,
    struct error *err)
{
	sqlite3_stmt *st = NULL;
	int64_t pend[3];
	size_t i;
	int ret = 0, own;

	if (n == 0)
		return 0;
	if (sqlite3_prepare_v2(s->db, "UPDATE profile SET shipped_ns = ?1 "
	    "WHERE id = ?2 AND shipped_ns = 0", -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, err, "marking profiles shipped");
	/* Outside a transaction the savepoint is one (RELEASE commits it);
	 * a rollback to it undoes its share of the backlog's changes. */
	own = sqlite3_get_autocommit(s->db);
	memcpy(pend, s->ship_pend, sizeof pend);
	if (store_exec(s, "SAVEPOINT ship", err) == -1) {
		sqlite3_finalize(st);
		return -1;
	}
	for (i = 0; i < n && ret == 0; i++) {
		sqlite3_bind_int64(st, 1, now_ns > 0 ? now_ns : 1);
		sqlite3_bind_int64(st, 2, ids[i]);
		ret = store_step_done(s, st, err, "marking a profile shipped");
	}
	sqlite3_finalize(st);
	if (ret == -1) {
		store_exec(s, "ROLLBACK TO ship", NULL);
		store_exec(s, "RELEASE ship", NULL);
		memcpy(s->ship_pend, pend, sizeof pend);
		return -1;
	}
	ret = store_exec(s, "RELEASE ship", err);
	if (own)
		store_ship_end(s, ret == 0);
	return ret;
}

int
store_ship_is_shipped(struct store *s, int64_t profile_id, struct error *err)
{
	sqlite3_stmt *st = NULL;
	int rc, ret;

	if (sqlite3_prepare_v2(s->db, "SELECT shipped_ns FROM profile "
	    "WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, err, "reading a profile's shipping");
	sqlite3_bind_int64(st, 1, profile_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		ret = sqlite3_column_int64(st, 0) != 0;
	else if (rc == SQLITE_DONE)
		ret = error_set(err, ERR_NOT_FOUND, "no profile %lld",
		    (long long)profile_id);
	else
		ret = store_fail(s, err, "reading a profile's shipping");
	sqlite3_finalize(st);
	return ret;
}
