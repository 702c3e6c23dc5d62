/* top.h: a selection's functions by flat or cum value, as go tool pprof
 * -top prints them. */
#ifndef PROFD_TOP_H
#define PROFD_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "hmap.h"
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

/* Building a result stack by stack, for stacks that are not in the store
 * (fleet queries).  Zeroed before use. */
struct top_build_edge {
	int64_t caller, callee, weight;
	int inl;			/* inlined on every stack through it */
	size_t last_stack;		/* dedupe within one stack */
};
struct top_build {
	struct imap index;		/* caller << 32 | callee -> 1 + edge */
	struct top_build_edge *edges;
	size_t nedges, edgecap;
	int64_t *seen;			/* per row: last stack + 1 that counted */
	int64_t flat_sum;
};
/* A new row (a function name): its index in r->rows. */
int64_t top_build_row(struct top_build *, struct top_result *,
    const char *name);
/* One stack (number stack, each its own), root first: its rows and frame
 * flags (FRAME_INLINED: inlined into the frame before), n > 0. */
void top_build_stack(struct top_build *, struct top_result *,
    const int64_t *row, const unsigned *flags, size_t n, int64_t value,
    size_t stack);
/* Inline labels, flat_sum, the order (and the edges if asked). */
void top_build_finish(struct top_build *, struct top_result *, int sort_cum,
    int edges);
void top_build_clear(struct top_build *);

int top_query(struct store *, struct csindex *, const struct top_params *,
    struct top_result *, struct error *);
/* The same with every call edge kept in the result (pprof's graph, as
 * peek prints it). */
int top_graph(struct store *, struct csindex *, const struct top_params *,
    struct top_result *, struct error *);
void top_result_clear(struct top_result *);

#endif
