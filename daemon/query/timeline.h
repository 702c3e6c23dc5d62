/* timeline.h: a selection's totals per time step, so a user can see when
 * a service got hot. */
#ifndef PROFD_TIMELINE_H
#define PROFD_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct csindex;
struct selection;

/* Points of one reply at most: a longer range gets a coarser step. */
#define TIMELINE_MAX_POINTS	10000

struct timeline_params {
	const struct selection *sel;
	int64_t step_s;			/* 0 = the bucket size, 1 s */
};

struct timeline_result {
	struct store_metric metric;
	int64_t start_s, step_s;	/* point i is at start + i * step */
	int64_t *values;
	size_t npoints;
	int64_t total;
};

struct stack_source;
int timeline_query(struct stack_source *, const struct timeline_params *,
    struct timeline_result *, struct error *);
/* The step of the points from the first to the last bucket (seconds):
 * step_s (0: 1 s), coarser past TIMELINE_MAX_POINTS. */
int64_t timeline_step(int64_t first, int64_t last, int64_t step_s);
/* The points from the first to the last bucket (seconds) at step_s (0:
 * 1 s, coarser past TIMELINE_MAX_POINTS), all 0. */
void timeline_points(struct timeline_result *, int64_t first, int64_t last,
    int64_t step_s);
void timeline_result_clear(struct timeline_result *);

#endif
