/* store-space.c: a full disk.  SQLite says SQLITE_FULL when a write finds
 * no space, and a plain I/O error when growing its shared-memory file or
 * syncing fails for the same reason; both are ERR_NO_SPACE (HTTP 507), so
 * that a client or the spool can keep the profile and try again later.
 * The transaction that hit it is rolled back by its caller, and the next
 * one finds the space that has come back. */
#include <errno.h>

#include "store-int.h"

int
store_space_full(struct store *s)
{
	int rc = sqlite3_errcode(s->db) & 0xff, e;

	if (rc == SQLITE_FULL)
		return 1;
	if (rc != SQLITE_IOERR)
		return 0;
	e = sqlite3_system_errno(s->db);
	return e == ENOSPC || e == EDQUOT;
}

int
store_space_fail(struct store *s, struct error *err, const char *what)
{
	const char *path = sqlite3_db_filename(s->db, "main");

	return error_set(err, ERR_NO_SPACE, "store: %s: no space left on "
	    "the disk of %s (%s)", what, path && *path ? path : "the store",
	    sqlite3_errmsg(s->db));
}
