/* fleet-sql-int.h: what fleet-sql.c and fleet-sql-sums.c share: the
 * pieces every statement is written with, and the sums of whole hours
 * and days (fleet-sql-sums.c). */
#ifndef PROFD_FLEET_SQL_INT_H
#define PROFD_FLEET_SQL_INT_H

#include <inttypes.h>
#include <string.h>

#include "buf.h"
#include "fleet-batch.h"
#include "fleet-sql.h"
#include "selection.h"

/* DateTime is 32-bit unsigned seconds. */
#define FLEET_TIME_MAX	4294967295LL

#define sql_lit(b, s)	buf_add((b), (s), sizeof(s) - 1)

static inline void
sql_str(struct buf *b, const char *s)
{
	fleet_quote(b, s, strlen(s));
}

static inline void
sql_table(struct buf *b, const struct fleet_sql *q, const char *table)
{
	buf_printf(b, "%s.%s%s", q->db, table, q->cluster ? "_all" : "");
}

static inline void
sql_in(struct buf *b, const char *col, char *const *v, size_t n)
{
	size_t i;

	buf_printf(b, " AND %s IN (", col);
	for (i = 0; i < n; i++) {
		if (i > 0)
			sql_lit(b, ", ");
		sql_str(b, v[i]);
	}
	sql_lit(b, ")");
}

/* A time bound, in seconds as the store keeps them (selection_window). */
static inline void
sql_time(struct buf *b, int64_t s, const char *op, const char *col)
{
	if (s < 0 || s > FLEET_TIME_MAX) {
		/* Past what DateTime holds: open, or nothing. */
		if ((s < 0) != (op[0] == '>'))
			sql_lit(b, " AND 0");
		return;
	}
	buf_printf(b, " AND date %s toDate(toDateTime(%" PRId64 ")) AND %s "
	    "%s toDateTime(%" PRId64 ")", op, s, col, op, s);
}

/* The conditions of the window: scopes, hosts, time (a table with
 * scope, host, date and time: samples, profiles, profile_metrics; of
 * samples_hourly, its column hour as time: an hour that begins in the
 * window, of which sql_whole_hours takes the whole ones). */
static inline void
sql_window_of(struct buf *b, const struct fleet_sql *q, const char *col)
{
	const struct selection *sel = q->sel;
	int64_t since_s, until_s;

	sql_in(b, "scope", sel->scopes, sel->nscopes);
	if (q->nhosts > 0)
		sql_in(b, "host", q->hosts, q->nhosts);
	selection_window(sel, &since_s, &until_s);
	if (sel->has_since)
		sql_time(b, since_s, ">=", col);
	if (sel->has_until)
		sql_time(b, until_s, "<=", col);
}

static inline void
sql_window(struct buf *b, const struct fleet_sql *q)
{
	sql_window_of(b, q, "time");
}

static inline char *
sql_done(struct buf *b)
{
	sql_lit(b, " FORMAT TabSeparated");
	buf_add(b, "", 1);
	return (char *)b->p;
}

/* AND metric = the selection's metric. */
static inline void
sql_metric(struct buf *b, const struct fleet_sql *q)
{
	sql_lit(b, " AND metric = ");
	sql_str(b, q->metric);
}

/* What fleet_sql_hourly_sums selects: stack_hash, v (the sums per
 * stack of the whole window); stack_hash alone; the sums of the rows of
 * the window's partial hours only (its ends, where the function sums of
 * fleet_sql_fsums stop). */
enum fsql_part { FSQL_SUMS, FSQL_HASHES, FSQL_ENDS };
/* Can the window's sums be read of the hourly and daily sums? */
int fleet_sql_hourly_ok(const struct fleet_sql *, int by_time);
void fleet_sql_hourly_sums(struct buf *, const struct fleet_sql *,
    enum fsql_part);

#endif
