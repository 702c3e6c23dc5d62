/* peek.h: the callers and callees of the functions whose names match a
 * regular expression, as go tool pprof -peek prints them: top's graph,
 * untrimmed (peek sets pprof's node and edge fractions to 0), its nodes
 * in flat order, each matching one with its in and out edges. */
#ifndef PROFD_PEEK_H
#define PROFD_PEEK_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"
#include "top.h"

struct csindex;
struct rx;
struct selection;

struct peek_params {
	const struct selection *sel;
	const struct rx *re;		/* unanchored, on the printable name */
	const char *re_src;		/* its text, for the error */
	int granularity;
};

/* One matching node: its row in top's result and its edges, each sorted
 * as pprof's edgeList (|weight| descending, caller name, callee name). */
struct peek_node {
	size_t row;
	struct top_edge *in, *out;
	size_t nin, nout;
};

struct peek_result {
	struct top_result top;		/* every node, flat order */
	int64_t min_value;		/* pprof's selectOutputUnit minimum */
	struct peek_node *nodes;
	size_t nnodes;
};

/* ERR_NOT_FOUND when no node matches, as pprof's "no matches found for
 * regexp". */
struct stack_source;
int peek_query(struct stack_source *, const struct peek_params *,
    struct peek_result *, struct error *);
void peek_result_clear(struct peek_result *);

#endif
