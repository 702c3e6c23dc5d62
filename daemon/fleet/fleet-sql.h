/* fleet-sql.h: the SQL of fleet queries: a selection (scopes, metric,
 * time range, label filters) and hosts as a WHERE clause over the
 * samples table, and the statements the views send.  Strings are quoted
 * here, nowhere else.  With a cluster, the tables read are the
 * Distributed ones ({table}_all) and subqueries are GLOBAL. */
#ifndef PROFD_FLEET_SQL_H
#define PROFD_FLEET_SQL_H

#include <stddef.h>

struct selection;

struct fleet_sql {
	const char *db;
	int cluster;			/* read the Distributed tables */
	const struct selection *sel;
	char *const *hosts;		/* none: every host */
	size_t nhosts;
};

/* The last metric of the newest profile of the first scope (pprof's
 * default when a profile names none). */
char *fleet_sql_default_metric(const struct fleet_sql *);
/* Per metric matching the selection's (TYPE or TYPE/UNIT) in its scopes:
 * the metric and how many profiles the selection has of it. */
char *fleet_sql_metrics(const struct fleet_sql *, const char *metric);
/* Per distinct stack of the selection with metric: its summed value and
 * its frames, leaf first: functions, files, lines (stacks), inline
 * flags, start lines, mappings (stack_frames; empty if it has no row). */
char *fleet_sql_stacks(const struct fleet_sql *, const char *metric);
/* Per scope of the fleet, by name: its profiles, first and last time
 * (ns) and its metrics (TYPE/UNIT), from the profiles table. */
char *fleet_sql_scopes(const struct fleet_sql *);
/* The hosts that shipped profiles, by name. */
char *fleet_sql_hosts(const struct fleet_sql *);
/* The same per time bucket (seconds), the bucket first, in time order;
 * without stacks, per bucket only (the arrays empty). */
char *fleet_sql_buckets(const struct fleet_sql *, const char *metric,
    int stacks);

#endif
