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

/* aggregate_buckets' plan, for a read that sums its rows itself (a
 * timeline per group of labels, query/groups.c): the profiles of the
 * filter's window, their series and steps (*step_s as there), which of
 * them count (avg: all, last and max: one per series and step), and what
 * a series' sum over a step is divided by. */
struct aggregate_steps;
int aggregate_steps_new(struct store *, const struct store_filter *,
    enum metric_aggregate a, int64_t *step_s, struct aggregate_steps **,
    struct error *);
/* Where a (bucket, profile) row counts: 1 with its series (an index) and
 * its step's start, 0 when it does not. */
int aggregate_steps_row(const struct aggregate_steps *, int64_t profile,
    int64_t bucket, int64_t *series, int64_t *step);
/* A series' sum over a step made what it counts (avg: divided by the
 * series' profiles in the step, rounded as aggregate_buckets rounds). */
int64_t aggregate_steps_value(const struct aggregate_steps *, int64_t step,
    int64_t series, int64_t sum);
void aggregate_steps_free(struct aggregate_steps *);

#endif
