/* store-vacuum.c: giving the space of deleted profiles back to the file
 * system.  The store runs with auto_vacuum = INCREMENTAL: pages freed by a
 * delete or a collection stay on SQLite's free list until
 * store_vacuum_step moves them to the end of the file and cuts it, a
 * bounded number at a time (a retention step on the import thread).  A
 * store made before (auto_vacuum = NONE) is rebuilt once, when it is
 * opened: the setting only takes on a VACUUM. */
#include <stdio.h>

#include "store-int.h"

int
store_vacuum_setup(struct store *s, struct error *err)
{
	int64_t mode = store_get_int(s, "PRAGMA auto_vacuum");
	char *msg = NULL;

	if (mode == 2)
		return 0;
	if (sqlite3_exec(s->db, "PRAGMA auto_vacuum = INCREMENTAL", NULL, NULL,
	    NULL) != SQLITE_OK)
		return store_fail(s, err, "setting auto_vacuum");
	/* A new store (no page yet) takes the setting with its first
	 * table; an older one is rebuilt, and the WAL that holds the copy
	 * goes into the file before anything else is written. */
	if (store_get_int(s, "PRAGMA page_count") == 0)
		return 0;
	if (sqlite3_exec(s->db, "VACUUM", NULL, NULL, &msg) != SQLITE_OK) {
		sqlite3_free(msg);
		/* The copy needs room the size of the store: without it
		 * the store works as it did, and the next start tries
		 * again. */
		if (store_space_full(s))
			return 0;
		return store_fail(s, err, "rebuilding the store for "
		    "incremental vacuum");
	}
	sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE,
	    NULL, NULL);
	return 0;
}

int
store_vacuum_step(struct store *s, int64_t pages, int64_t *left,
    struct error *err)
{
	char sql[64];
	char *msg = NULL;

	snprintf(sql, sizeof sql, "PRAGMA incremental_vacuum(%lld)",
	    (long long)(pages > 0 ? pages : 1));
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		sqlite3_free(msg);
		return store_fail(s, err, "giving free pages back");
	}
	if ((*left = store_get_int(s, "PRAGMA freelist_count")) < 0)
		return store_fail(s, err, "reading the free page count");
	return 0;
}
