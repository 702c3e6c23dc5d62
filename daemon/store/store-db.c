/* store-db.c: the lowest part of the store, which every other file of it
 * uses and which uses none of them but store-space.c: an SQLite error made
 * a struct error, running SQL, stepping a statement (reset on every path),
 * preparing or finalizing a table of statements, and a virtual table's
 * connect. */
#include <sqlite3.h>
#include <string.h>

#include "cancel.h"
#include "store-int.h"

int
store_fail(struct store *s, struct error *err, const char *what)
{
	int rc = sqlite3_errcode(s->db);
	struct cancel *c;

	/* Interrupted by the call's cancel (store-watch.c): the error is the
	 * cancel's reason, whichever statement it stopped, as a C loop's
	 * cancel_poll says it. */
	if (rc == SQLITE_INTERRUPT && (c = cancel_current()) != NULL &&
	    cancel_fired(c) != CANCEL_NONE)
		return cancel_error(c, err);
	if (store_space_full(s))
		return store_space_fail(s, err, what);
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return error_set(err, ERR_BUSY, "store: %s: %s", what,
		    sqlite3_errmsg(s->db));
	return error_set(err, ERR_INTERNAL, "store: %s: %s", what,
	    sqlite3_errmsg(s->db));
}

int
store_exec(struct store *s, const char *sql, struct error *err)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		if (store_space_full(s))
			store_space_fail(s, err, msg ? msg : "exec");
		else
			error_set(err, ERR_INTERNAL, "store: %s",
			    msg ? msg : "exec");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int64_t
store_get_int(struct store *s, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int64_t
store_step_id(struct store *s, sqlite3_stmt *st, struct error *err,
    const char *what)
{
	int64_t id = 0;
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE) {
		store_fail(s, err, what);
		id = -1;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return id;
}

int64_t
store_step_insert(struct store *s, sqlite3_stmt *st, struct error *err,
    const char *what)
{
	if (store_step_id(s, st, err, what) == -1)
		return -1;
	return sqlite3_last_insert_rowid(s->db);
}

int
store_step_done(struct store *s, sqlite3_stmt *st, struct error *err,
    const char *what)
{
	return store_step_id(s, st, err, what) == -1 ? -1 : 0;
}

int
store_prepare_table(struct store *s, const struct store_sql *sql, int n,
    sqlite3_stmt **st, const char *what, struct error *err)
{
	int i;

	for (i = 0; i < n; i++) {
		if (s->readonly && sql[i].writer)
			continue;
		if (sqlite3_prepare_v3(s->db, sql[i].sql, -1,
		    SQLITE_PREPARE_PERSISTENT, &st[i], NULL) != SQLITE_OK)
			return error_set(err, ERR_INTERNAL, "store: preparing "
			    "%s %d: %s", what, i, sqlite3_errmsg(s->db));
	}
	return 0;
}

sqlite3_stmt *
store_stmt_lazy(struct store *s, sqlite3_stmt **st, const char *sql,
    const char *what, struct error *err)
{
	if (*st == NULL && sqlite3_prepare_v3(s->db, sql, -1,
	    SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
		store_fail(s, err, what);
		return NULL;
	}
	return *st;
}

void
store_finalize_table(sqlite3_stmt **st, int n)
{
	int i;

	for (i = 0; st != NULL && i < n; i++) {
		sqlite3_finalize(st[i]);
		st[i] = NULL;
	}
}

int
store_vtab_new(sqlite3 *db, const char *decl, size_t size,
    sqlite3_vtab **out)
{
	int rc = sqlite3_declare_vtab(db, decl);

	if (rc != SQLITE_OK)
		return rc;
	/* Reads only: fine in views on connections that trust no schema. */
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	if ((*out = sqlite3_malloc64(size)) == NULL)
		return SQLITE_NOMEM;
	memset(*out, 0, size);
	return SQLITE_OK;
}
