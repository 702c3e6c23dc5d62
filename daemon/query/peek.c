/* peek.c: pprof's printTree restricted to the nodes a regular expression
 * matches (report.go, "peek"): the graph is top's, built with every edge
 * kept, and nothing is trimmed. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "peek.h"
#include "rx.h"
#include "top.h"

static int64_t
peek_abs(int64_t v)
{
	return v < 0 ? -v : v;
}

/* pprof's edgeList.Less. */
static int
edge_cmp(const void *a, const void *b, void *arg)
{
	const struct top_edge *x = a, *y = b;
	const struct top_row *rows = arg;
	int c;

	if (x->weight != y->weight) {
		int64_t xa = peek_abs(x->weight), ya = peek_abs(y->weight);

		return xa > ya ? -1 : xa < ya;
	}
	if ((c = strcmp(rows[x->caller].function,
	    rows[y->caller].function)) != 0)
		return c;
	return strcmp(rows[x->callee].function, rows[y->callee].function);
}

/* Every matching node's in and out edges, in one pass over the edges
 * (counted first, so that each list is one allocation), then sorted. */
static void
peek_edges(struct peek_result *r)
{
	const struct top_result *t = &r->top;
	size_t *node_of, i, k;

	node_of = xreallocarray(NULL, t->nrows ? t->nrows : 1,
	    sizeof *node_of);
	for (i = 0; i < t->nrows; i++)
		node_of[i] = SIZE_MAX;
	for (k = 0; k < r->nnodes; k++)
		node_of[r->nodes[k].row] = k;
	for (i = 0; i < t->nedges; i++) {
		if ((k = node_of[t->edges[i].callee]) != SIZE_MAX)
			r->nodes[k].nin++;
		if ((k = node_of[t->edges[i].caller]) != SIZE_MAX)
			r->nodes[k].nout++;
	}
	for (k = 0; k < r->nnodes; k++) {
		struct peek_node *n = &r->nodes[k];

		n->in = xreallocarray(NULL, n->nin + 1, sizeof *n->in);
		n->out = xreallocarray(NULL, n->nout + 1, sizeof *n->out);
		n->nin = n->nout = 0;
	}
	for (i = 0; i < t->nedges; i++) {
		if ((k = node_of[t->edges[i].callee]) != SIZE_MAX)
			r->nodes[k].in[r->nodes[k].nin++] = t->edges[i];
		if ((k = node_of[t->edges[i].caller]) != SIZE_MAX)
			r->nodes[k].out[r->nodes[k].nout++] = t->edges[i];
	}
	for (k = 0; k < r->nnodes; k++) {
		struct peek_node *n = &r->nodes[k];

		if (n->nin > 1)
			qsort_r(n->in, n->nin, sizeof *n->in, edge_cmp,
			    t->rows);
		if (n->nout > 1)
			qsort_r(n->out, n->nout, sizeof *n->out, edge_cmp,
			    t->rows);
	}
	free(node_of);
}

static int peek_of_graph(struct top_result *, const struct peek_params *,
    struct peek_result *, struct error *);

int
peek_query(struct stack_source *src, const struct peek_params *p,
    struct peek_result *r, struct error *err)
{
	struct top_params tp;
	struct top_result t;

	memset(&tp, 0, sizeof tp);
	tp.sel = p->sel;
	tp.granularity = p->granularity;
	if (top_graph(src, &tp, &t, err) == -1) {
		memset(r, 0, sizeof *r);
		return -1;
	}
	return peek_of_graph(&t, p, r, err);
}

/* The peek of top's graph, taken. */
static int
peek_of_graph(struct top_result *t, const struct peek_params *p,
    struct peek_result *r, struct error *err)
{
	struct peek_node *n;
	size_t i, cap = 0;

	memset(r, 0, sizeof *r);
	r->top = *t;
	memset(t, 0, sizeof *t);
	for (i = 0; i < r->top.nrows; i++) {
		const struct top_row *row = &r->top.rows[i];
		int64_t m = peek_abs(row->flat);

		if (m == 0)
			m = peek_abs(row->cum);
		if (m > 0 && (r->min_value == 0 || m < r->min_value))
			r->min_value = m;
		if (!rx_match(p->re, row->function, strlen(row->function)))
			continue;
		if (r->nnodes == cap) {
			cap = cap ? cap * 2 : 16;
			r->nodes = xreallocarray(r->nodes, cap,
			    sizeof *r->nodes);
		}
		n = &r->nodes[r->nnodes++];
		memset(n, 0, sizeof *n);
		n->row = i;
	}
	peek_edges(r);
	if (r->nnodes == 0) {
		peek_result_clear(r);
		return error_set(err, ERR_NOT_FOUND, "no matches found for "
		    "regexp: %s", p->re_src);
	}
	return 0;
}

void
peek_result_clear(struct peek_result *r)
{
	size_t i;

	for (i = 0; i < r->nnodes; i++) {
		free(r->nodes[i].in);
		free(r->nodes[i].out);
	}
	free(r->nodes);
	top_result_clear(&r->top);
	memset(r, 0, sizeof *r);
}
