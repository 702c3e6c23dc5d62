/* top.h: a selection's functions by flat or cum value, as go tool pprof
 * -top prints them. */
#ifndef PROFD_TOP_H
#define PROFD_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct csindex;
struct selection;

struct top_params {
	const struct selection *sel;
	int sort_cum;
	int granularity;		/* enum granularity: function, line, file */
};

/* How a function was reached from its callers, as pprof labels it. */
enum top_inline {
	TOP_NOT_INLINED,		/* no label */
	TOP_INLINED,			/* "(inline)": always inlined */
	TOP_PARTIAL_INLINE,		/* "(partial-inline)" */
};

struct top_row {
	char *function;
	int64_t flat, cum;
	enum top_inline inl;
	size_t made;			/* the order rows were made in */
};

/* A call edge between rows (indices into rows), with pprof's weight: the
 * value of the stacks through it, each stack once; inline when the callee
 * was inlined into the caller on all of them. */
struct top_edge {
	size_t caller, callee;
	int64_t weight;
	int inl;
};

struct top_result {
	struct store_metric metric;
	int64_t total;			/* sum of |value|, pprof's total */
	int64_t nprofiles;
	struct top_row *rows;
	size_t nrows;
	int64_t flat_sum;		/* of every row */
	struct top_edge *edges;		/* top_graph's, untrimmed */
	size_t nedges;
};

struct stack_source;
int top_query(struct stack_source *, const struct top_params *,
    struct top_result *, struct error *);
/* The same with every call edge kept in the result (pprof's graph, as
 * peek prints it). */
int top_graph(struct stack_source *, const struct top_params *,
    struct top_result *, struct error *);
void top_result_clear(struct top_result *);

#endif
