/* store-sql.h: the store side of POST /v1/query: one user-written SELECT
 * over the public views of schema/002-views.sql (docs/SQL.md).
 *
 * store-sql.c is part of the store module and so, like store.c, includes
 * <sqlite3.h>; callers see plain C values, never sqlite3_*.  Each call
 * opens its own read-only connection (so no user statement can leave state
 * behind on the query threads' stores) guarded by an authorizer that
 * allows only reads, with extension loading off, tight limits and a
 * deadline enforced by a progress handler. */
#ifndef PROFD_STORE_SQL_H
#define PROFD_STORE_SQL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define STORE_SQL_MAX_LEN	(1024 * 1024)	/* bytes of SQL text */

enum store_sql_type {
	STORE_SQL_NULL,
	STORE_SQL_INT,
	STORE_SQL_REAL,
	STORE_SQL_TEXT,
	STORE_SQL_BLOB,
};

/* A value of the current row; p is valid until the row callback returns. */
struct store_sql_value {
	enum store_sql_type type;
	int64_t i;
	double d;
	const void *p;			/* TEXT (not NUL-checked) or BLOB */
	size_t n;
};

struct store_sql_params {
	const char *sql;
	size_t len;
	int64_t max_rows;		/* rows handed to the callback */
	int64_t timeout_ms;		/* from the call to the last row */
	const atomic_int *abort;	/* set: stop now (NULL: never) */
	/* The call's (base/cancel.h; NULL: none): once it says to stop,
	 * the run fails with its reason (cancel_error). */
	struct cancel *cancel;
};

/* Each returns 0 to go on, -1 to fail the run with err set; row may
 * also return 1 to stop as if max_rows had been reached. */
struct store_sql_cb {
	int (*columns)(void *, const char *const *names, size_t n,
	    struct error *);
	int (*row)(void *, const struct store_sql_value *, size_t n,
	    struct error *);
};

/* The error of a query past its time limit (ERR_TIMEOUT, 503); -1. */
int store_sql_timeout(struct error *, int64_t timeout_ms);

struct cancel;
/* Runs exactly one read-only statement on the store at path, handing its
 * column names once, then each row, to cb.  *truncated is set when rows
 * were left out (max_rows, or the row callback asked to stop).  Errors:
 * ERR_INPUT for the statement (SQLite's message, a refused write, a
 * second statement), ERR_TIMEOUT (the time limit), ERR_BUSY, ERR_TOO_LARGE
 * (out of memory), ERR_INTERNAL, or the row callback's error. */
int store_sql_run(const char *path, const struct store_sql_params *,
    const struct store_sql_cb *, void *arg, int *truncated, struct error *);

#endif
