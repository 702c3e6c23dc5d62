/* store-gauge.c: a read transaction held across the reads of a gauge's
 * window (query/aggregate.c, docs/TIME.md "How a gauge window is read"):
 * the profiles of each series come from the profile table, which profiles
 * have a row in the window from the per-bucket totals, and the window's
 * sums from the rollups and blocks; an import committed between two of
 * them would make a count and a sum disagree.  Each read alone opens a
 * transaction only when none is open (store-select.c, store-totals.c),
 * so inside this one they all see the same commit. */
#include <sqlite3.h>

#include "store-gauge.h"
#include "store-int.h"

int
store_gauge_hold(struct store *s, int *held, struct error *err)
{
	*held = sqlite3_get_autocommit(s->db);
	if (*held && store_step_done(s, s->sb[SB_READ_BEGIN], err,
	    "begin") == -1) {
		*held = 0;
		return -1;
	}
	return 0;
}

int
store_gauge_release(struct store *s, int held, struct error *err)
{
	/* An interrupted statement may have rolled the read back. */
	if (!held || sqlite3_get_autocommit(s->db))
		return 0;
	return store_step_done(s, s->sb[SB_READ_END], err, "end");
}
