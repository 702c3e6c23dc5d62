/* diff.h: two selections compared: their trees merged node by node (by
 * name along the call path) and their top functions side by side, the
 * base optionally scaled to the current total. */
#ifndef PROFD_DIFF_H
#define PROFD_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct csindex;
struct selection;

struct diff_params {
	struct selection *base;		/* its metric defaults to current's */
	const struct selection *cur;
	int normalize;			/* scale base to the current total */
};

struct diff_node {
	char *name;
	int64_t base, cur, base_self, cur_self;
	size_t child, next;		/* 0 = none */
};

struct diff_row {
	char *function;
	int64_t base_flat, cur_flat, base_cum, cur_cum;
};

struct diff_result {
	struct store_metric metric;
	int64_t base_total, cur_total;	/* before scaling */
	int64_t base_profiles, cur_profiles;
	double scale;			/* applied to base values */
	struct diff_node *nodes;	/* nodes[0] is the root */
	size_t nnodes;
	struct diff_row *rows;		/* by |current - base| of flat */
	size_t nrows;
};

struct stack_source;
int diff_query(struct stack_source *, const struct diff_params *,
    struct diff_result *, struct error *);
void diff_result_clear(struct diff_result *);

#endif
