/* flame.h: a flame graph tree (tree.h) as Pyroscope's flame graph levels:
 * the FlameGraph of querier.v1's SelectMergeStacktraces and the
 * flamebearer of /pyroscope/render, which share the encoding.  Level i
 * holds the nodes at depth i, left to right, four numbers each: x offset
 * (from the end of the previous node of the level: a delta), total, self,
 * index into names.  Level 0 is the root, "total". */
#ifndef PROFD_FLAME_H
#define PROFD_FLAME_H

#include <stddef.h>
#include <stdint.h>

struct tree_result;

struct flame_level {
	int64_t *v;			/* 4 per node (7 in a diff) */
	size_t n;			/* numbers, 4 per node (7) */
};

struct flame {
	char **names;			/* owned; names[0] "total" */
	size_t nnames;
	struct flame_level *levels;
	size_t nlevels;
	int64_t total, max_self;
};

/* The tree as levels, pruned to max_nodes nodes below the root (0: every
 * node) as Pyroscope prunes (its rule, in flame.c): the nodes of the
 * max_nodes largest totals kept (all those tied with the last), the cut
 * children of a parent made one "other" child holding their sum, so the
 * totals still add up and the root's is exact.  total is the root's. */
void flame_of_tree(const struct tree_result *, int64_t max_nodes,
    struct flame *);
/* A diff (diff.h; its base left, its current right) as Pyroscope's
 * double flame graph (pkg/model/flamegraph_diff.go): seven numbers a
 * node, [left x offset, left total, left self, right x offset, right
 * total, right self, name index], each side's x offsets deltas within
 * it; pruned to max_nodes (0: none) by the larger of a node's two
 * totals, the root counted, the cut children of a parent one "other" on
 * both sides.  total is the two roots' sum, *left_ticks and
 * *right_ticks the roots' totals. */
struct diff_result;
void flame_of_diff(const struct diff_result *, int64_t max_nodes,
    struct flame *, int64_t *left_ticks, int64_t *right_ticks);
void flame_clear(struct flame *);

#endif
