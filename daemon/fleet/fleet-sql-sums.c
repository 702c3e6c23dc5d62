/* fleet-sql-sums.c: the sums a fleet view reads for a window's whole
 * hours and days instead of its sample rows (schema/clickhouse/005,
 * 007, 008): per stack (samples_hourly, samples_daily) or per function
 * and edge (functions_hourly, functions_daily, top's), the rows of the
 * partial hours at the window's ends read as they are; and whether the
 * function sums hold every profile of the whole hours. */
#include <inttypes.h>
#include <stdio.h>

#include "fleet-sql-int.h"
#include "kind.h"

/* Can the sums per stack of the window be read of samples_hourly for
 * its whole hours?  Only where they are what the rows give: the default
 * sum of what each profile counts (AGG_DELTA: delta rows, cumulative
 * ones differenced), no label filter (the hourly sums have none) and no
 * per-second timeline. */
int
fleet_sql_hourly_ok(const struct fleet_sql *q, int by_time)
{
	int64_t since_s, until_s;

	selection_window(q->sel, &since_s, &until_s);
	if ((q->sel->has_since && (since_s < 0 || since_s > FLEET_TIME_MAX)) ||
	    (q->sel->has_until && (until_s < 3599 ||
	    until_s > FLEET_TIME_MAX)))
		return 0;	/* sql_time's odd windows: the rows */
	return q->hourly && !by_time && q->aggregate == AGG_DELTA &&
	    q->sel->nlabels == 0;
}

/* A window of two hours or more has a whole hour in any time zone. */
int
fleet_sql_fsum_ok(const struct fleet_sql *q)
{
	int64_t since_s, until_s;

	selection_window(q->sel, &since_s, &until_s);
	return q->fsums && fleet_sql_hourly_ok(q, 0) &&
	    (!q->sel->has_since || !q->sel->has_until ||
	    until_s - since_s >= 7199);
}

/* The hours (rows of samples_hourly, by their start h) wholly in the
 * window: h >= since and h + 3599 <= until, in the server's time zone as
 * toStartOfHour made them (an hour of a zone 30 minutes off UTC too). */
static void
sql_whole_hours(struct buf *b, const char *col, int64_t since_s,
    int64_t until_s, const struct selection *sel)
{
	buf_printf(b, "(1");
	if (sel->has_since)
		buf_printf(b, " AND %s >= toDateTime(%" PRId64 ")", col,
		    since_s);
	if (sel->has_until)
		buf_printf(b, " AND %s <= toDateTime(%" PRId64 ")", col,
		    until_s - 3599);
	sql_lit(b, ")");
}

/* The days (rows of samples_daily and samples_hourly, by their date, a
 * day of the server's time zone as toDate made it) wholly in the
 * window: from its midnight on, to the next day's midnight. */
static void
sql_whole_days(struct buf *b, int64_t since_s, int64_t until_s,
    const struct selection *sel)
{
	buf_printf(b, "(1");
	if (sel->has_since)
		buf_printf(b, " AND toDateTime(date) >= toDateTime(%" PRId64
		    ")", since_s);
	if (sel->has_until)
		buf_printf(b, " AND toDateTime(date + 1) - 1 <= toDateTime(%"
		    PRId64 ")", until_s);
	sql_lit(b, ")");
}

/* Can the whole days of the window be read of samples_daily?  Its sums
 * are of every host's rows: a window of every host only. */
static int
sql_daily_ok(const struct fleet_sql *q)
{
	return q->daily && q->nhosts == 0;
}

/* SELECT cols, sums FROM table WHERE 1, the conditions to follow. */
static void
sql_sums_of(struct buf *b, const struct fleet_sql *q, const char *table,
    const char *cols, const char *sums)
{
	buf_printf(b, "SELECT %s, %s FROM ", cols, sums);
	sql_table(b, q, table);
	sql_lit(b, " WHERE 1");
}

/* The whole days' part of the window's sums: of table (samples_daily
 * or functions_daily), per key (the columns cols, summed sums), or
 * (group 0) its rows as they are, for the caller to group once. */
static void
sql_days(struct buf *b, const struct fleet_sql *q, const char *table,
    const char *cols, const char *sums, int group)
{
	const struct selection *sel = q->sel;
	int64_t since_s, until_s;

	selection_window(sel, &since_s, &until_s);
	sql_sums_of(b, q, table, cols, sums);
	sql_in(b, "scope", sel->scopes, sel->nscopes);
	sql_metric(b, q);
	if (sel->has_since)
		buf_printf(b, " AND date >= toDate(toDateTime(%" PRId64 "))",
		    since_s);
	if (sel->has_until)
		buf_printf(b, " AND date <= toDate(toDateTime(%" PRId64 "))",
		    until_s);
	sql_lit(b, " AND ");
	sql_whole_days(b, since_s, until_s, sel);
	if (group)
		buf_printf(b, " GROUP BY %s", cols);
}

/* The whole hours' part (of those not in whole days when daily): of
 * table (samples_hourly or functions_hourly), as sql_days. */
static void
sql_hours(struct buf *b, const struct fleet_sql *q, const char *table,
    const char *cols, const char *sums, int daily, int group)
{
	const struct selection *sel = q->sel;
	int64_t since_s, until_s;

	selection_window(sel, &since_s, &until_s);
	sql_sums_of(b, q, table, cols, sums);
	sql_window_of(b, q, "hour");
	sql_metric(b, q);
	sql_lit(b, " AND ");
	sql_whole_hours(b, "hour", since_s, until_s, sel);
	if (daily) {
		sql_lit(b, " AND NOT ");
		sql_whole_days(b, since_s, until_s, sel);
	}
	if (group)
		buf_printf(b, " GROUP BY %s", cols);
}

/* The window's whole days (of days_table, when it asks every host) and
 * its other whole hours (of hours_table), as sql_days and sql_hours
 * select them, joined by UNION ALL: the coarsest span that covers each
 * part, one choice for the sums per stack and top's function sums (a
 * window without ends is whole days only). */
static void
sql_coarse(struct buf *b, const struct fleet_sql *q, const char *days_table,
    const char *hours_table, const char *cols, const char *sums, int group)
{
	const struct selection *sel = q->sel;
	int daily = sql_daily_ok(q), ends = sel->has_since || sel->has_until;

	if (daily)
		sql_days(b, q, days_table, cols, sums, group);
	if (!daily || ends) {
		if (daily)
			sql_lit(b, " UNION ALL ");
		sql_hours(b, q, hours_table, cols, sums, daily, group);
	}
}

/* The window's ends: its sample rows within an hour of an end (the
 * index's range) not of a whole hour, so of no whole day. */
static void
sql_ends(struct buf *b, const struct fleet_sql *q)
{
	const struct selection *sel = q->sel;
	int64_t since_s, until_s;

	selection_window(sel, &since_s, &until_s);
	sql_sums_of(b, q, "samples", "stack_hash", "sum(value) AS v");
	sql_window(b, q);
	sql_metric(b, q);
	sql_lit(b, " AND (0");
	if (sel->has_since)
		buf_printf(b, " OR time < toDateTime(%" PRId64 ")",
		    since_s + 3600);
	if (sel->has_until)
		buf_printf(b, " OR time > toDateTime(%" PRId64 ")",
		    until_s - 3600);
	sql_lit(b, ") AND NOT ");
	sql_whole_hours(b, "toStartOfHour(time)", since_s, until_s, sel);
	sql_lit(b, " GROUP BY stack_hash");
}

/* stack_hash, v: the window's sums per stack, of samples_daily for its
 * whole days when it asks every host, of samples_hourly for its whole
 * hours (the others') and of samples for the rows of the hours at its
 * edges (only: the whole hours' rows are left out); the window's ends
 * within DateTime (sql_parts checks).  A window without ends is whole
 * days only.  FSQL_HASHES: the hashes alone; FSQL_ENDS: the edges'
 * sums alone (the rest is fleet_sql_fsums'). */
void
fleet_sql_hourly_sums(struct buf *b, const struct fleet_sql *q,
    enum fsql_part part)
{
	const struct selection *sel = q->sel;

	if (part == FSQL_HASHES)
		sql_lit(b, "SELECT stack_hash FROM (");
	else
		sql_lit(b, "SELECT stack_hash, sum(v) AS v FROM (");
	if (part != FSQL_ENDS)
		sql_coarse(b, q, "samples_daily", "samples_hourly",
		    "stack_hash", "sum(value) AS v", 1);
	if (sel->has_since || sel->has_until) {
		if (part != FSQL_ENDS)
			sql_lit(b, " UNION ALL ");
		sql_ends(b, q);
	}
	sql_lit(b, ") GROUP BY stack_hash");
}

/* The profiles of table (samples_profiles, functions_profiles) in the
 * window's whole hours, as a row of fleet_sql_fsums' kind k: their
 * number, and with total their totals summed. */
static void
sql_whole_profiles(struct buf *b, const struct fleet_sql *q,
    const char *table, int k, int total)
{
	int64_t since_s, until_s;
	char cols[32];

	selection_window(q->sel, &since_s, &until_s);
	snprintf(cols, sizeof cols, "toUInt8(%d), toUInt64(0)", k);
	sql_lit(b, " UNION ALL ");
	sql_sums_of(b, q, table, cols, total ? "toInt64(uniqExact(host, "
	    "profile)), sum(total)" : "toInt64(uniqExact(host, profile)), "
	    "toInt64(0)");
	sql_window(b, q);
	sql_metric(b, q);
	sql_lit(b, " AND ");
	sql_whole_hours(b, "toStartOfHour(time)", since_s, until_s, q->sel);
}

char *
fleet_sql_fsums(const struct fleet_sql *q)
{
	const struct selection *sel = q->sel;
	struct buf b = { 0 };

	/* Grouped once, by the outer query. */
	sql_lit(&b, "SELECT kind, fn, sum(a), sum(b) FROM (");
	sql_coarse(&b, q, "functions_daily", "functions_hourly", "kind, fn",
	    "a, b", 0);
	/* The profiles summed, and of the window's whole hours (where it
	 * has ends: else the metric's count is theirs). */
	sql_whole_profiles(&b, q, "functions_profiles", 2, 1);
	if (sel->has_since || sel->has_until)
		sql_whole_profiles(&b, q, "samples_profiles", 3, 0);
	sql_lit(&b, ") GROUP BY kind, fn");
	return sql_done(&b);
}

char *
fleet_sql_sum_ends(const struct fleet_sql *q)
{
	struct buf b = { 0 };

	fleet_sql_hourly_sums(&b, q, FSQL_ENDS);
	return sql_done(&b);
}

char *
fleet_sql_fnames(const struct fleet_sql *q, const uint64_t *keys, size_t n)
{
	struct buf b = { 0 };
	size_t i;

	sql_lit(&b, "SELECT fn, any(caller), any(name) FROM ");
	sql_table(&b, q, "function_names");
	sql_lit(&b, " WHERE fn IN (");
	for (i = 0; i < n; i++)
		buf_printf(&b, "%s%" PRIu64, i ? "," : "", keys[i]);
	sql_lit(&b, ") GROUP BY fn");
	return sql_done(&b);
}
