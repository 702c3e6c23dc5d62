/* aggregate.h: a window, and a timeline's steps, combined per series as
 * aggregate=avg|last|max says (docs/TIME.md), from the store. */
#ifndef PROFD_AGGREGATE_H
#define PROFD_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kind.h"
#include "store.h"

/* The aggregates read here, series by series; the others are sums the
 * store's reads give (AGG_DELTA: what each profile counts, AGG_SUM: the
 * values as given, store_filter.raw). */
#define AGGREGATE_PER_SERIES(a) \
	((a) == AGG_AVG || (a) == AGG_LAST || (a) == AGG_MAX)

struct csindex;

/* The pairs of the filter's window, summed over its series after each
 * series' profiles were combined as a says (AGG_AVG, AGG_LAST, AGG_MAX);
 * *nprofiles the profiles that made them.  idx, the store's callsite
 * index (not held), names the stacks an average is rounded per. */
int aggregate_select(struct store *, struct csindex *idx,
    const struct store_filter *, enum metric_aggregate a,
    struct store_cs_value **, size_t *, int64_t *nprofiles,
    struct error *);
/* The same per timeline step: *step_s in, the step (coarser if the
 * window needs it, timeline_step) out; each value at its step's start,
 * per callsite when stacks, else summed (callsite -1). */
int aggregate_buckets(struct store *, struct csindex *idx,
    const struct store_filter *, enum metric_aggregate a, int stacks,
    int64_t *step_s, struct store_bucket_value **, size_t *,
    struct error *);

#endif
