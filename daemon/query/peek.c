/* peek.c: pprof's printTree restricted to the nodes a regular expression
 * matches (report.go, "peek"): the graph is top's, built with every edge
 * kept, and nothing is trimmed. */
#include <stdlib.h>
#include <string.h>

#include "peek.h"
#include "rx.h"
#include "top.h"
#include "util.h"

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

/* The edges of one side of a row, sorted. */
static struct top_edge *
peek_edges(const struct top_result *t, size_t row, int in, size_t *n)
{
	struct top_edge *e = NULL;
	size_t i;

	*n = 0;
	for (i = 0; i < t->nedges; i++) {
		if ((in ? t->edges[i].callee : t->edges[i].caller) != row)
			continue;
		e = xreallocarray(e, *n + 1, sizeof *e);
		e[(*n)++] = t->edges[i];
	}
	if (*n > 1)
		qsort_r(e, *n, sizeof *e, edge_cmp, t->rows);
	return e;
}

int
peek_query(struct store *s, struct csindex *idx, const struct peek_params *p,
    struct peek_result *r, struct error *err)
{
	struct top_params tp;
	struct peek_node *n;
	size_t i;

	memset(r, 0, sizeof *r);
	memset(&tp, 0, sizeof tp);
	tp.sel = p->sel;
	tp.granularity = p->granularity;
	if (top_graph(s, idx, &tp, &r->top, err) == -1)
		return -1;
	for (i = 0; i < r->top.nrows; i++) {
		const struct top_row *row = &r->top.rows[i];
		int64_t m = peek_abs(row->flat);

		if (m == 0)
			m = peek_abs(row->cum);
		if (m > 0 && (r->min_value == 0 || m < r->min_value))
			r->min_value = m;
		if (!rx_match(p->re, row->function, strlen(row->function)))
			continue;
		r->nodes = xreallocarray(r->nodes, r->nnodes + 1,
		    sizeof *r->nodes);
		n = &r->nodes[r->nnodes++];
		n->row = i;
		n->in = peek_edges(&r->top, i, 1, &n->nin);
		n->out = peek_edges(&r->top, i, 0, &n->nout);
	}
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
