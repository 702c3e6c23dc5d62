/* groups.h: a selection's timeline per group of label values, what
 * Grafana's SelectSeries answers with group_by.  The window's values are
 * read once per (time bucket, profile, label set) (store_select_groups)
 * and each row goes to its group by hash: the work is that of the rows
 * read, whatever the number of groups, where a timeline per group read
 * the window once per group. */
#ifndef PROFD_GROUPS_H
#define PROFD_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct selection;

struct groups_params {
	/* Its frame filters are not applied (SelectSeries has none). */
	const struct selection *sel;
	/* The keys: service_name is the scope; another key is the push
	 * label of the row's profile, else the label of its samples (a
	 * string one), else "". */
	const char *const *by;
	size_t nby;
	int64_t step_s;			/* 0: 1 s */
};

/* A step with a value of a group: at its start (seconds). */
struct groups_point {
	int64_t step, value;
};

struct groups_series {
	char **values;			/* in by's order */
	size_t nvalues;			/* nby */
	int64_t total;
	struct groups_point *points;	/* the steps with a value, in order */
	size_t npoints;
};

struct groups_result {
	struct store_metric metric;
	int64_t step_s;			/* the steps' (coarser than asked
					 * past TIMELINE_MAX_POINTS) */
	struct groups_series *v;	/* by their values, key by key */
	size_t n;
};

/* The groups with a value in the window, each the sum of its rows per
 * step as a timeline of the selection narrowed to the group's values
 * sums it (the metric's aggregate applied per series, aggregate.c).
 * ERR_NOT_FOUND for an unknown scope or one without profiles. */
int groups_query(struct store *, const struct groups_params *,
    struct groups_result *, struct error *);
void groups_result_clear(struct groups_result *);

#endif
