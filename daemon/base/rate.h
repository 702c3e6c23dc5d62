/* rate.h: the recent rate at which a backlog drains (the spool's
 * imports, the shipper's batches), from its completions: a ring of
 * (when, bytes) on a monotonic clock, the rate over the last
 * RATE_WINDOW_NS of them.  The caller gives the times, so a test
 * gives its own clock; the owner's thread (the loop) alone touches
 * it. */
#ifndef PROFD_RATE_H
#define PROFD_RATE_H

#include <stddef.h>
#include <stdint.h>

#define RATE_SLOTS	256		/* completions kept */
#define RATE_WINDOW_NS	(60 * INT64_C(1000000000))

struct rate {
	int64_t t[RATE_SLOTS];		/* mono_ns of each completion */
	uint64_t bytes[RATE_SLOTS];
	size_t next, n;			/* ring: the next slot, how full */
};

/* bytes left the backlog at now (mono_ns). */
void rate_add(struct rate *, int64_t now, uint64_t bytes);
/* Bytes per second at now: the bytes of the completions in the window
 * but its oldest, over the time from the oldest to now (so a stall
 * lowers it; the oldest only says when the measure starts).  0 when
 * not known: fewer than two completions in the window (or more than
 * RATE_SLOTS: the newest RATE_SLOTS then). */
double rate_per_s(const struct rate *, int64_t now);
/* Seconds to drain backlog bytes at per_s, rounded up: never 0 while
 * something waits.  -1 when nothing waits or the rate is not known. */
int64_t rate_eta_s(double per_s, int64_t backlog);

#endif
