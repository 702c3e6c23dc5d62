/* tree.h: the flamegraph tree of a selection: one node per function name
 * per call path, root first, with self and total values; children sorted
 * by name; nodes under a fraction of the total folded into one "other"
 * node per parent, so totals stay exact. */
#ifndef PROFD_TREE_H
#define PROFD_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct csindex;

struct selection;

struct tree_params {
	const struct selection *sel;
	double min_fraction;		/* 0 = keep every node */
};

/* The strings are the callsite index's, which keeps every name it has
 * read until it is freed: a node costs no allocation of its own. */
struct tree_node {
	const char *name;
	const char *file, *mapping;	/* "" when unknown */
	int64_t line;			/* the function's start line, 0 */
	/* The frames' own line when every frame merged into the node has
	 * the same, else 0 (-1 while building: they differ). */
	int64_t frame_line;
	int inlined;			/* every one inlined into its caller */
	int64_t self, total;
	size_t child, next;		/* first child, next sibling: 0 = none */
	int other;			/* the pruned nodes of a parent */
};

struct tree_result {
	struct store_metric metric;
	int64_t total;			/* sum of |value|, as top's total */
	int64_t nprofiles;
	struct tree_node *nodes;	/* nodes[0] is the root */
	size_t nnodes;
};

struct stack_source;
int tree_query(struct stack_source *, const struct tree_params *,
    struct tree_result *, struct error *);
void tree_result_clear(struct tree_result *);

#endif
