/* store-sql.c: one user-written SELECT on a private read-only connection,
 * for POST /v1/query.  Part of the store module (it includes <sqlite3.h>,
 * as store.c does).  Defence in depth, each enough on its own for writes:
 * the connection is opened read-only with query_only set; an authorizer
 * refuses every action but reading; a statement SQLite does not call
 * read-only is refused.  Beside that: extension loading is off, ATTACH is
 * limited to zero databases, values and SQL text are bounded, and a
 * progress handler enforces the deadline. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cancel.h"
#include "clock.h"
#include "nitems.h"
#include "store-int.h"
#include "store-sql.h"

#define SQL_MAX_VALUE		(16 * 1024 * 1024)	/* bytes of a value */
#define SQL_PROGRESS_OPS	1000	/* VM steps between deadline checks */

struct sql_run {
	int64_t deadline_ns;
	const atomic_int *abort;
	struct cancel *cancel;
	int timed_out, aborted, cancelled;
	char denied[160];		/* what the authorizer refused first */
};

static const char *const sql_action_names[] = {
	[SQLITE_CREATE_INDEX] = "CREATE INDEX",
	[SQLITE_CREATE_TABLE] = "CREATE TABLE",
	[SQLITE_CREATE_TEMP_INDEX] = "CREATE TEMP INDEX",
	[SQLITE_CREATE_TEMP_TABLE] = "CREATE TEMP TABLE",
	[SQLITE_CREATE_TEMP_TRIGGER] = "CREATE TEMP TRIGGER",
	[SQLITE_CREATE_TEMP_VIEW] = "CREATE TEMP VIEW",
	[SQLITE_CREATE_TRIGGER] = "CREATE TRIGGER",
	[SQLITE_CREATE_VIEW] = "CREATE VIEW",
	[SQLITE_DELETE] = "DELETE",
	[SQLITE_DROP_INDEX] = "DROP INDEX",
	[SQLITE_DROP_TABLE] = "DROP TABLE",
	[SQLITE_DROP_TEMP_INDEX] = "DROP TEMP INDEX",
	[SQLITE_DROP_TEMP_TABLE] = "DROP TEMP TABLE",
	[SQLITE_DROP_TEMP_TRIGGER] = "DROP TEMP TRIGGER",
	[SQLITE_DROP_TEMP_VIEW] = "DROP TEMP VIEW",
	[SQLITE_DROP_TRIGGER] = "DROP TRIGGER",
	[SQLITE_DROP_VIEW] = "DROP VIEW",
	[SQLITE_INSERT] = "INSERT",
	[SQLITE_PRAGMA] = "PRAGMA",
	[SQLITE_READ] = "read",
	[SQLITE_SELECT] = "SELECT",
	[SQLITE_TRANSACTION] = "a transaction",
	[SQLITE_UPDATE] = "UPDATE",
	[SQLITE_ATTACH] = "ATTACH",
	[SQLITE_DETACH] = "DETACH",
	[SQLITE_ALTER_TABLE] = "ALTER TABLE",
	[SQLITE_REINDEX] = "REINDEX",
	[SQLITE_ANALYZE] = "ANALYZE",
	[SQLITE_CREATE_VTABLE] = "CREATE VIRTUAL TABLE",
	[SQLITE_DROP_VTABLE] = "DROP VIRTUAL TABLE",
	[SQLITE_FUNCTION] = "function",
	[SQLITE_SAVEPOINT] = "SAVEPOINT",
	[SQLITE_RECURSIVE] = "WITH RECURSIVE",
};

/* Pragmas that only describe the schema, whatever their argument. */
static const char *const sql_pragmas_allowed[] = {
	"table_info", "table_xinfo", "table_list",
};

/* Functions that reach outside the database (the last three exist only
 * in the sqlite3 shell, named here in case a build ever links them). */
static const char *const sql_functions_denied[] = {
	"load_extension", "fts3_tokenizer", "readfile", "writefile", "edit",
};

static int
sql_deny(struct sql_run *r, int action, const char *what)
{
	const char *name = action >= 0 && (size_t)action <
	    NITEMS(sql_action_names) && sql_action_names[action] != NULL ?
	    sql_action_names[action] : "this statement";

	if (r->denied[0] != '\0')
		return SQLITE_DENY;
	/* DDL shows first as a write to the schema table. */
	if (what != NULL && (strcmp(what, "sqlite_master") == 0 ||
	    strcmp(what, "sqlite_temp_master") == 0 ||
	    strcmp(what, "sqlite_schema") == 0))
		snprintf(r->denied, sizeof r->denied, "a schema change");
	else if (action == SQLITE_TRANSACTION && what != NULL)
		snprintf(r->denied, sizeof r->denied, "%.100s", what);
	else if (action == SQLITE_INSERT || action == SQLITE_UPDATE ||
	    action == SQLITE_DELETE)
		snprintf(r->denied, sizeof r->denied, "%s on %.100s", name,
		    what ? what : "?");
	else
		snprintf(r->denied, sizeof r->denied, "%s%s%.100s", name,
		    what ? " " : "", what ? what : "");
	return SQLITE_DENY;
}

static int
sql_authorize(void *arg, int action, const char *a1, const char *a2,
    const char *dbname, const char *inner)
{
	struct sql_run *r = arg;
	size_t i;

	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_FUNCTION:
		for (i = 0; i < NITEMS(sql_functions_denied); i++)
			if (a2 != NULL &&
			    strcasecmp(a2, sql_functions_denied[i]) == 0)
				return sql_deny(r, action, a2);
		return SQLITE_OK;
	case SQLITE_PRAGMA:
		for (i = 0; i < NITEMS(sql_pragmas_allowed); i++)
			if (a1 != NULL &&
			    strcasecmp(a1, sql_pragmas_allowed[i]) == 0)
				return SQLITE_OK;
		return sql_deny(r, action, a1);
	case SQLITE_UPDATE:
		/* An eponymous virtual table (json_each, pragma_table_info)
		 * declares its columns through an UPDATE of sqlite_master
		 * when first used.  A user's UPDATE of it fails anyway: the
		 * connection is read-only and the statement is not. */
		if (a1 != NULL && (strcmp(a1, "sqlite_master") == 0 ||
		    strcmp(a1, "sqlite_schema") == 0))
			return SQLITE_OK;
		return sql_deny(r, action, a1);
	default:
		return sql_deny(r, action, a1);
	}
}

static int
sql_progress(void *arg)
{
	struct sql_run *r = arg;

	if (r->abort != NULL && atomic_load(r->abort)) {
		r->aborted = 1;
		return 1;
	}
	if (r->cancel != NULL && cancel_due(r->cancel) != CANCEL_NONE) {
		r->cancelled = 1;
		return 1;
	}
	if (mono_ns() < r->deadline_ns)
		return 0;
	r->timed_out = 1;
	return 1;
}

int
store_sql_timeout(struct error *err, int64_t timeout_ms)
{
	return error_set(err, ERR_TIMEOUT, "the query ran longer than its "
	    "time limit (timeout_ms = %lld)", (long long)timeout_ms);
}

/* The first error of the statement, for the user: SQLite's message with
 * what the authorizer refused, or the time limit. */
static int
sql_fail(sqlite3 *db, struct sql_run *r, const struct store_sql_params *p,
    int rc, struct error *err)
{
	if (r->aborted)
		return error_set(err, ERR_BUSY, "profd is stopping: the query "
		    "was interrupted");
	if (r->cancelled)
		return cancel_error(r->cancel, err);
	if (r->timed_out || rc == SQLITE_INTERRUPT)
		return store_sql_timeout(err, p->timeout_ms);
	if (rc == SQLITE_AUTH || r->denied[0] != '\0')
		return error_set(err, ERR_INPUT, "%s: %s (the SQL endpoint "
		    "only reads)", sqlite3_errmsg(db), r->denied[0] ?
		    r->denied : "refused");
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return error_set(err, ERR_BUSY, "store: %s",
		    sqlite3_errmsg(db));
	if (rc == SQLITE_NOMEM)
		return error_set(err, ERR_TOO_LARGE, "the query ran out of "
		    "memory");
	return error_set(err, ERR_INPUT, "%s", sqlite3_errmsg(db));
}

static sqlite3 *
sql_open(const char *path, struct sql_run *r, int64_t timeout_ms,
    struct error *err)
{
	sqlite3 *db = NULL;
	int busy_ms = timeout_ms < 1000 ? (int)timeout_ms : 1000;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY |
	    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE, NULL) !=
	    SQLITE_OK) {
		error_set(err, ERR_INTERNAL, "store: cannot open %s: %s", path,
		    db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_extended_result_codes(db, 0);
	sqlite3_busy_timeout(db, busy_ms);
	/* The sample table of the samples view. */
	if (store_vtab_register(db) != SQLITE_OK) {
		error_set(err, ERR_INTERNAL, "store: registering the sample "
		    "table: %s", sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
#endif
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, SQL_MAX_VALUE);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, STORE_SQL_MAX_LEN);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
	if (sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		error_set(err, ERR_INTERNAL, "store: query_only: %s",
		    sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_set_authorizer(db, sql_authorize, r);
	sqlite3_progress_handler(db, SQL_PROGRESS_OPS, sql_progress, r);
	return db;
}

/* Exactly one statement: what follows the first must compile to nothing
 * (whitespace, comments, semicolons). */
static int
sql_prepare_one(sqlite3 *db, struct sql_run *r,
    const struct store_sql_params *p, sqlite3_stmt **stp, struct error *err)
{
	sqlite3_stmt *st = NULL, *next = NULL;
	const char *tail = NULL;
	size_t off;
	int rc;

	if (p->len > STORE_SQL_MAX_LEN)
		return error_set(err, ERR_TOO_LARGE, "the SQL text has %zu "
		    "bytes (limit %d)", p->len, STORE_SQL_MAX_LEN);
	rc = sqlite3_prepare_v3(db, p->sql, (int)p->len, 0, &st, &tail);
	if (rc != SQLITE_OK)
		return sql_fail(db, r, p, rc, err);
	if (st == NULL)
		return error_set(err, ERR_INPUT, "the body holds no SQL "
		    "statement");
	off = tail != NULL ? (size_t)(tail - p->sql) : p->len;
	if (off < p->len) {
		rc = sqlite3_prepare_v3(db, tail, (int)(p->len - off), 0, &next,
		    NULL);
		sqlite3_finalize(next);
		if (rc != SQLITE_OK || next != NULL) {
			sqlite3_finalize(st);
			return error_set(err, ERR_INPUT, "only one SQL "
			    "statement is allowed; another starts at byte %zu",
			    off);
		}
	}
	if (!sqlite3_stmt_readonly(st)) {
		sqlite3_finalize(st);
		return error_set(err, ERR_INPUT, "not a read-only statement "
		    "(the SQL endpoint only reads)");
	}
	*stp = st;
	return 0;
}

/* -1 when SQLite could not convert a value for want of memory. */
static int
sql_row_values(sqlite3_stmt *st, struct store_sql_value *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		memset(&v[i], 0, sizeof v[i]);
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			v[i].type = STORE_SQL_INT;
			v[i].i = sqlite3_column_int64(st, i);
			break;
		case SQLITE_FLOAT:
			v[i].type = STORE_SQL_REAL;
			v[i].d = sqlite3_column_double(st, i);
			break;
		case SQLITE_TEXT:
			v[i].type = STORE_SQL_TEXT;
			v[i].p = sqlite3_column_text(st, i);
			v[i].n = (size_t)sqlite3_column_bytes(st, i);
			if (v[i].p == NULL && sqlite3_errcode(
			    sqlite3_db_handle(st)) == SQLITE_NOMEM)
				return -1;
			if (v[i].p == NULL)
				v[i].p = "";
			break;
		case SQLITE_BLOB:
			v[i].type = STORE_SQL_BLOB;
			v[i].p = sqlite3_column_blob(st, i);
			v[i].n = (size_t)sqlite3_column_bytes(st, i);
			if (v[i].p == NULL)
				v[i].n = 0;
			break;
		default:
			v[i].type = STORE_SQL_NULL;
			break;
		}
	}
	return 0;
}

int
store_sql_run(const char *path, const struct store_sql_params *p,
    const struct store_sql_cb *cb, void *arg, int *truncated,
    struct error *err)
{
	struct sql_run r;
	sqlite3 *db;
	sqlite3_stmt *st = NULL;
	struct store_sql_value *vals = NULL;
	const char **names = NULL;
	int64_t nrows = 0;
	int i, n, rc, ret = -1;

	*truncated = 0;
	memset(&r, 0, sizeof r);
	r.deadline_ns = mono_ns() + p->timeout_ms * 1000000;
	r.abort = p->abort;
	r.cancel = p->cancel;
	if ((db = sql_open(path, &r, p->timeout_ms, err)) == NULL)
		return -1;
	if (sql_prepare_one(db, &r, p, &st, err) == -1)
		goto out;
	n = sqlite3_column_count(st);
	/* No allocation on this path may abort the daemon. */
	names = calloc((size_t)n + 1, sizeof *names);
	vals = calloc((size_t)n + 1, sizeof *vals);
	if (names == NULL || vals == NULL) {
		error_set(err, ERR_BUSY, "out of memory for %d columns", n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		/* NULL for want of memory as well. */
		if ((names[i] = sqlite3_column_name(st, i)) == NULL) {
			error_set(err, ERR_BUSY, "out of memory for the "
			    "column names");
			goto out;
		}
	}
	if (cb->columns(arg, names, (size_t)n, err) == -1)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (nrows >= p->max_rows) {
			*truncated = 1;
			break;
		}
		if (sql_row_values(st, vals, n) == -1) {
			rc = SQLITE_NOMEM;
			break;
		}
		if ((rc = cb->row(arg, vals, (size_t)n, err)) == -1)
			goto out;
		if (rc != 0) {
			*truncated = 1;
			rc = SQLITE_ROW;
			break;
		}
		rc = SQLITE_ROW;
		nrows++;
		if (mono_ns() >= r.deadline_ns) {
			r.timed_out = 1;
			rc = SQLITE_INTERRUPT;
			break;
		}
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		sql_fail(db, &r, p, rc, err);
		goto out;
	}
	ret = 0;
out:
	free(names);
	free(vals);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ret;
}
