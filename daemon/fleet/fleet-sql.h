/* fleet-sql.h: the SQL of fleet queries: a selection (scopes, metric,
 * time range, label filters) and hosts as a WHERE clause over the
 * samples table, and the statements the views send.  Strings are quoted
 * here, nowhere else.  With a cluster, the tables read are the
 * Distributed ones ({table}_all) and subqueries are GLOBAL. */
#ifndef PROFD_FLEET_SQL_H
#define PROFD_FLEET_SQL_H

#include <stddef.h>
#include <stdint.h>

#include "kind.h"

struct selection;

struct fleet_sql {
	const char *db;
	int cluster;			/* read the Distributed tables */
	int hourly;			/* samples_hourly is there (schema 5) */
	int profile_rows;		/* samples_profiles is (schema 6) */
	int daily;			/* samples_daily is (schema 7) */
	int fsums;			/* functions_* are (schema 8) */
	const struct selection *sel;
	char *const *hosts;		/* none: every host */
	size_t nhosts;
	/* Once the metric is known: it (TYPE/UNIT), how the window
	 * combines its profiles (not AGG_DEFAULT), and for a timeline
	 * combined per series its steps (step_s 0: per second). */
	const char *metric;
	enum metric_aggregate aggregate;
	int64_t first_s, step_s;
};

/* The last metric of the newest profile of the first scope (pprof's
 * default when a profile names none). */
char *fleet_sql_default_metric(const struct fleet_sql *);
/* Per metric matching the selection's (TYPE or TYPE/UNIT) in its scopes:
 * the metric and how many profiles the selection has of it. */
char *fleet_sql_metrics(const struct fleet_sql *, const char *metric);
/* Per distinct stack of the selection of q->metric: its value as
 * q->aggregate combines the window's profiles, and its frames, leaf
 * first: functions, files, lines (stacks), inline flags, start lines,
 * mappings (stack_frames; empty if it has no row). */
char *fleet_sql_stacks(const struct fleet_sql *);
/* Per distinct stack of the selection: its hash and value, as
 * fleet_sql_stacks has them, without the frames. */
char *fleet_sql_sums(const struct fleet_sql *);
/* top's function sums of the window's whole hours and days (schema 8,
 * fleet-fsum.c): per function (kind 0, its key, flat, cum) and edge
 * (kind 1, its key, weight, profiles not inlined); a row of
 * kind 2 with the number of the whole hours' profiles that have sums
 * and their totals summed; with ends, a row of kind 3 with the number
 * of the whole hours' profiles (without, it is the metric's profile
 * count): the sums hold the window's whole hours when the two agree.
 * The window's partial hours are fleet_sql_sum_ends's.  Where its
 * default sums read the hourly sums: fleet_sql_fsum_ok. */
char *fleet_sql_fsums(const struct fleet_sql *);
/* The names of the n keys of function sums (key, caller, name), a
 * row each. */
char *fleet_sql_fnames(const struct fleet_sql *, const uint64_t *keys,
    size_t n);
/* Per distinct stack, hash and value of the rows of the window's
 * partial hours alone (none when it has no ends). */
char *fleet_sql_sum_ends(const struct fleet_sql *);
/* Can the window be read so: q->aggregate delta, no label filter, its
 * ends within DateTime, and whole hours in it. */
int fleet_sql_fsum_ok(const struct fleet_sql *);
/* Per stack of the n hashes h (none: of the selection's stacks): its
 * hash and frames as fleet_sql_stacks has them (each stack's row of
 * stacks, possibly more than one while not merged yet). */
char *fleet_sql_frames(const struct fleet_sql *, const uint64_t *h,
    size_t n);
/* Per scope of the fleet, by name: its profiles, first and last time
 * (ns) and its metrics (TYPE/UNIT), from the profiles table. */
char *fleet_sql_scopes(const struct fleet_sql *);
/* The hosts that shipped profiles, by name. */
char *fleet_sql_hosts(const struct fleet_sql *);
/* The same per time bucket (seconds; with q->step_s, per step, at its
 * start), the bucket first, in time order; without stacks, per bucket
 * only (the arrays empty). */
char *fleet_sql_buckets(const struct fleet_sql *, int stacks);
/* The kind (base/kind.h) of q->metric in the newest profile of the first
 * scope; no row where no profile says (shipped before schema 4). */
char *fleet_sql_kind(const struct fleet_sql *);
/* How many profiles q->aggregate (not AGG_DELTA) combined: with a row
 * of the values as given (sum, avg), or in the window (last, max). */
char *fleet_sql_count(const struct fleet_sql *);
/* The first and last time (seconds) of the window's profiles of
 * q->metric and their number: a timeline's steps per series. */
char *fleet_sql_range(const struct fleet_sql *);

#endif
