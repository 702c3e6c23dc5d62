/* fleet-view.h: the views built from the fleet's stacks as ClickHouse
 * sums them (one row per distinct stack: its value and its frames, leaf
 * first) after the frame filters (fleet-frames.c): top (and its graph)
 * with the local top's builder, the tree with the local tree's, the
 * timeline (stacks per second) laid out as timeline.c's, so that each
 * equals what one store holding the same profiles answers.  Knows no
 * HTTP and no SQL. */
#ifndef PROFD_FLEET_VIEW_H
#define PROFD_FLEET_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fleet-frames.h"
#include "hmap.h"
#include "top.h"
#include "timeline.h"
#include "tree.h"

enum fleet_view_kind {
	FV_TOP = 1, FV_TREE = 2, FV_BOTH = 3,
	FV_TIMELINE = 4,		/* stacks come per time bucket */
};

struct fleet_view {
	enum fleet_view_kind kind;
	int sort_cum, edges;		/* top */
	double min_fraction;		/* tree */
	int64_t step_s;			/* timeline */
	struct fleet_frames w;
	int64_t total;			/* sum of |value|, before filters */
	struct top_result top;
	struct top_build tb;
	struct tree_result tree;
	struct tree_build trb;
	/* Each distinct string once, for the rows and nodes to point to. */
	struct hmap ids;		/* string -> 1 + index */
	char **strs;
	size_t nstrs;
	struct imap bucket;		/* timeline: bucket - first + 1 -> 1 + i */
	int64_t *bucket_s, *bucket_v, first, last;
	size_t nbuckets;
	int64_t *row;			/* per string id: 1 + top row */
	int64_t *rows;			/* a stack's rows */
	size_t nstacks, cap;
};

void fleet_view_init(struct fleet_view *, enum fleet_view_kind,
    const struct selection *);
/* A stack (of the time bucket in seconds, for a timeline). */
int fleet_view_stack(struct fleet_view *, const struct fleet_stack *,
    int64_t bucket);
/* The top or tree, taken.  A tree's strings are the view's: it is to be
 * used before fleet_view_clear. */
void fleet_view_top(struct fleet_view *, struct top_result *);
void fleet_view_tree(struct fleet_view *, struct tree_result *);
void fleet_view_timeline(struct fleet_view *, struct timeline_result *);
void fleet_view_clear(struct fleet_view *);

#endif
