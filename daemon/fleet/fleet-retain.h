/* fleet-retain.h: retention in ClickHouse.  18.16 has no TTL, so the
 * tables are partitioned by day and the shipper drops the day partitions
 * of its node that lie wholly before the host's max-age, at most once a
 * retention interval.  This part builds the SQL and reads the replies;
 * fleet.c sends them on the loop.  Knows no HTTP. */
#ifndef PROFD_FLEET_RETAIN_H
#define PROFD_FLEET_RETAIN_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct retention;

struct fleet_retain {
	int64_t max_age;		/* seconds; 0: nothing is dropped */
	int64_t interval;		/* seconds between two passes */
	int64_t last_pass_ns;		/* CLOCK_REALTIME; 0: none yet */
	int64_t cutoff_s;		/* the pass's: older rows may go */
	char **tables, **parts;		/* the pass's partitions to drop */
	size_t n, next;			/* how many; the one in flight + 1 */
	int listed;			/* the list came back */
	uint64_t dropped;		/* partitions, since the start */
	int64_t last_drop_ns;		/* 0: none yet */
};

/* The age ClickHouse may drop past: every scope's rows share the day
 * partitions, so the longest max-age of the policy (0 when the policy
 * has none: its scopes' overrides are then ages of their own, but the
 * others keep their profiles forever). */
/* The tables partitioned by day, which retention drops from. */
extern const char *const fleet_retain_tables[];
extern const size_t fleet_retain_ntables;

void fleet_retain_set(struct fleet_retain *, const struct retention *);
/* A pass, if one is due at now_ns: the SQL listing the partitions past
 * the age; NULL if none is due (and always with max-age 0). */
char *fleet_retain_start(struct fleet_retain *, const char *db,
    int64_t now_ns);
/* The reply to the pass's last statement: the next DROP to send, or NULL
 * with the pass over (err set if the reply is not what was asked). */
char *fleet_retain_next(struct fleet_retain *, const char *db,
    const char *reply, size_t n, struct error *);
/* Profiles older than this (Unix seconds) need not ship: their day
 * partition lies wholly before the age, so the next pass would drop
 * them (INT64_MIN with max-age 0). */
int64_t fleet_retain_unsent_before(const struct fleet_retain *,
    int64_t now_ns);
void fleet_retain_clear(struct fleet_retain *);

#endif
