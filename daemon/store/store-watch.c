/* store-watch.c: a query thread's statements stop when the call they work
 * for is cancelled (base/cancel.h: its client left, query-timeout, the
 * shutdown): SQLite's progress handler looks at the call's cancel every
 * WATCH_OPS virtual machine steps and interrupts the statement, however
 * long it would run.  The C loops between the steps poll the same cancel
 * themselves (cancel_poll). */
#include <sqlite3.h>

#include "cancel.h"
#include "store-int.h"

/* About 10-50 µs of a statement: a clock read in each is nothing. */
#define WATCH_OPS	4096

static int
watch_progress(void *arg)
{
	return cancel_due(arg) != CANCEL_NONE;
}

void
store_watch_cancel(struct store *s, struct cancel *c)
{
	sqlite3_stmt *st = NULL;

	if (c != NULL) {
		sqlite3_progress_handler(s->db, WATCH_OPS, watch_progress, c);
		return;
	}
	sqlite3_progress_handler(s->db, 0, NULL, NULL);
	/* An interrupted read may have left a statement stepped and its
	 * read transaction open (a read's COMMIT is a statement too): the
	 * next call on this connection must see the store as it is now. */
	while ((st = sqlite3_next_stmt(s->db, st)) != NULL)
		if (sqlite3_stmt_busy(st))
			sqlite3_reset(st);
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}
