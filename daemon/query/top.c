/* top.c: top functions, flat and cum, as go tool pprof -top computes them
 * at function granularity: flat goes to the leaf frame of each stack, cum
 * to every distinct function on it once (recursion counts once), nodes are
 * keyed by the printable name, the total is the sum of |value|.  An edge
 * caller -> callee is inline when every stack through it has the callee
 * inlined into the caller; a function is "(inline)" when all its incoming
 * edges are, "(partial-inline)" when some are. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "csindex.h"
#include "cstree.h"
#include "hmap.h"
#include "model.h"
#include "query.h"
#include "selection.h"
#include "source.h"
#include "stackwalk.h"
#include "store-fsum.h"
#include "top.h"

/* Building a result stack by stack (with frame filters) or callsite by
 * callsite.  Zeroed before use. */
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
	size_t rowcap;			/* of seen and the result's rows */
	int64_t flat_sum;
};

static int64_t
abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* pprof's FlatNameOrder and CumNameOrder. */
static int
row_cmp(const void *a, const void *b, void *arg)
{
	const struct top_row *x = a, *y = b;
	int sort_cum = *(const int *)arg;
	int64_t xk = sort_cum ? abs64(x->cum) : abs64(x->flat);
	int64_t yk = sort_cum ? abs64(y->cum) : abs64(y->flat);
	int c;

	if (xk != yk)
		return xk > yk ? -1 : 1;
	if ((c = strcmp(x->function, y->function)) != 0)
		return c;
	xk = sort_cum ? abs64(x->flat) : abs64(x->cum);
	yk = sort_cum ? abs64(y->flat) : abs64(y->cum);
	return xk > yk ? -1 : xk < yk;
}

static struct top_build_edge *
edge_get(struct top_build *b, int64_t caller, int64_t callee)
{
	uint64_t key = (uint64_t)caller << 32 | (uint32_t)callee;
	int64_t at;
	struct top_build_edge *e;

	if ((at = imap_get(&b->index, key)) != 0)
		return &b->edges[at - 1];
	if (b->nedges == b->edgecap) {
		b->edgecap = b->edgecap ? b->edgecap * 2 : 256;
		b->edges = xreallocarray(b->edges, b->edgecap,
		    sizeof *b->edges);
	}
	e = &b->edges[b->nedges++];
	e->caller = caller;
	e->callee = callee;
	e->weight = 0;
	e->inl = 1;
	e->last_stack = SIZE_MAX;
	imap_put(&b->index, key, (int64_t)b->nedges);
	return e;
}

/* The edge's share of one stack (counted once per stack: stack is its
 * number), or of every stack through one callsite (stack SIZE_MAX). */
static void
edge_add(struct top_build *b, int64_t caller, int64_t callee, int inl,
    int64_t value, size_t stack)
{
	struct top_build_edge *e;

	/* pprof adds no edge from a node to itself. */
	if (caller == callee)
		return;
	e = edge_get(b, caller, callee);
	if (stack != SIZE_MAX) {
		if (e->last_stack == stack)
			return;
		e->last_stack = stack;
	}
	e->weight += value;
	if (!inl)
		e->inl = 0;
}

/* pprof trims edges under edgefraction (0.001) of the flat sum before it
 * labels nodes, so only the edges left decide "(inline)". */
static void
edges_label(const struct top_build *b, int64_t flat_sum, struct top_row *rows,
    size_t nrows)
{
	double c = (double)flat_sum * 0.001;
	int64_t cutoff = (int64_t)c;
	unsigned *in = xcalloc(nrows ? nrows : 1, sizeof *in);
	size_t i;

	if (cutoff < 0)
		cutoff = -cutoff;
	for (i = 0; i < b->nedges; i++) {
		const struct top_build_edge *e = &b->edges[i];
		int64_t w = e->weight < 0 ? -e->weight : e->weight;

		if (w < cutoff)
			continue;
		in[e->callee] |= e->inl ? 1 : 2;
	}
	for (i = 0; i < nrows; i++)
		rows[i].inl = in[i] == 1 ? TOP_INLINED : in[i] == 3 ?
		    TOP_PARTIAL_INLINE : TOP_NOT_INLINED;
	free(in);
}

static int64_t
top_build_row(struct top_build *b, struct top_result *r, const char *name)
{
	/* Doubled, not grown by one: a fleet answer has tens of thousands
	 * of names, and under ASan every realloc copies. */
	if (r->nrows == b->rowcap) {
		b->rowcap = b->rowcap ? b->rowcap * 2 : 256;
		r->rows = xreallocarray(r->rows, b->rowcap, sizeof *r->rows);
		b->seen = xreallocarray(b->seen, b->rowcap, sizeof *b->seen);
	}
	r->rows[r->nrows].function = xstrdup(name);
	r->rows[r->nrows].flat = 0;
	r->rows[r->nrows].cum = 0;
	r->rows[r->nrows].inl = TOP_NOT_INLINED;
	r->rows[r->nrows].made = r->nrows;
	b->seen[r->nrows] = 0;
	return (int64_t)r->nrows++;
}

/* The row of a printable name, made when first met. */
static int64_t
top_row(struct top_result *r, struct top_build *b, int64_t *rowof,
    const struct csindex *idx, uint32_t name)
{
	if (rowof[name] < 0)
		rowof[name] = top_build_row(b, r, csindex_name_str(idx, name));
	return rowof[name];
}

static void
top_build_stack(struct top_build *b, struct top_result *r,
    const int64_t *row, const unsigned *flags, size_t n, int64_t v,
    size_t stack)
{
	size_t depth;

	b->flat_sum += v;
	r->rows[row[n - 1]].flat += v;
	/* Root to leaf, as pprof walks a sample. */
	for (depth = 0; depth < n; depth++) {
		if (b->seen[row[depth]] != (int64_t)stack + 1) {
			b->seen[row[depth]] = (int64_t)stack + 1;
			r->rows[row[depth]].cum += v;
		}
		if (depth + 1 < n)
			edge_add(b, row[depth], row[depth + 1],
			    (flags[depth + 1] & FRAME_INLINED) != 0, v, stack);
	}
}

/* With frame filters: stack by stack, as pprof walks its samples. */
static int
top_stacks(const struct query_walk *q, struct stackwalk *w,
    struct top_build *b, int64_t *rowof, struct top_result *r,
    struct error *err)
{
	int64_t *row = NULL;
	size_t i, depth, cap = 0;
	int rc;

	for (i = 0; (rc = query_walk_next(q, w, &i, err)) == 1; i++) {
		if (w->n > cap) {
			cap = w->n;
			row = xreallocarray(row, cap, sizeof *row);
		}
		for (depth = 0; depth < w->n; depth++)
			row[depth] = top_row(r, b, rowof, w->idx,
			    w->name[depth]);
		top_build_stack(b, r, row, w->flags, w->n, q->vals[i].value, i);
	}
	free(row);
	return rc;
}

/* A filter of the rows (or pairs of rows) on the path above a callsite:
 * 256 bits, so that a path of 30 functions leaves most bits clear. */
#define TOP_FILTER_WORDS	4

struct top_filter {
	uint64_t w[TOP_FILTER_WORDS];
};

/* The word and bit of a row or a pair of rows. */
static void
top_bit(uint64_t key, size_t *word, uint64_t *bit)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;

	*word = (size_t)(h >> 62);
	*bit = 1ULL << ((h >> 56) & 63);
}

/* Without frame filters: callsite by callsite over the union of the
 * stacks.  A stack's cum and edges count once however often a function
 * recurs on it, so each goes to the topmost callsite where the function
 * (or the caller -> callee pair) appears: the values of every stack
 * through that callsite.  A filter of the rows and pairs above each
 * callsite tells "topmost" at once, but for recursion (or a clash of
 * bits), which walks up to be sure. */
static int
top_cstree(const struct query_walk *q, const struct csindex *idx,
    int granularity, struct top_build *b, int64_t *rowof,
    struct top_result *r, struct error *err)
{
	static const struct top_filter none;
	struct cstree t;
	int64_t *row = NULL;
	struct top_filter *rows_above = NULL, *pairs_above = NULL;
	const struct top_filter *rf, *pf;
	size_t i, j, p, word;
	int rc = -1;

	if (cstree_build(&t, idx, q->vals, q->nvals, err) == -1)
		goto out;
	row = xreallocarray(NULL, t.n ? t.n : 1, sizeof *row);
	rows_above = xreallocarray(NULL, t.n ? t.n : 1, sizeof *rows_above);
	pairs_above = xreallocarray(NULL, t.n ? t.n : 1,
	    sizeof *pairs_above);
	for (i = 0; i < t.n; i++) {
		int64_t me, caller;
		uint64_t bit, pair;
		int first;

		me = row[i] = top_row(r, b, rowof, idx,
		    csindex_name_at(idx, t.cs[i], (enum granularity)
		    granularity));
		p = t.parent[i];
		rf = p != CSTREE_ROOT ? &rows_above[p] : &none;
		pf = p != CSTREE_ROOT ? &pairs_above[p] : &none;
		top_bit((uint64_t)me, &word, &bit);
		first = (rf->w[word] & bit) == 0;
		for (j = p; !first && j != CSTREE_ROOT; j = t.parent[j])
			if (row[j] == me)
				break;
		if (first || j == CSTREE_ROOT)
			r->rows[me].cum += t.total[i];
		rows_above[i] = *rf;
		rows_above[i].w[word] |= bit;
		r->rows[me].flat += t.self[i];
		b->flat_sum += t.self[i];
		pairs_above[i] = *pf;
		if (p == CSTREE_ROOT || (caller = row[p]) == me)
			continue;
		pair = (uint64_t)caller << 32 | (uint32_t)me;
		top_bit(pair, &word, &bit);
		first = (pf->w[word] & bit) == 0;
		for (j = p; !first && t.parent[j] != CSTREE_ROOT;
		    j = t.parent[j])
			if (row[t.parent[j]] == caller && row[j] == me)
				break;
		if (first || t.parent[j] == CSTREE_ROOT)
			edge_add(b, caller, me, (csindex_flags(idx, t.cs[i]) &
			    FRAME_INLINED) != 0, t.total[i], SIZE_MAX);
		pairs_above[i].w[word] |= bit;
	}
	rc = 0;
out:
	free(row);
	free(rows_above);
	free(pairs_above);
	cstree_clear(&t);
	return rc;
}

/* The edges by the rows' sorted indices. */
static void
top_edges_out(const struct top_build *b, struct top_result *r)
{
	size_t *at = xreallocarray(NULL, r->nrows ? r->nrows : 1, sizeof *at);
	size_t i;

	for (i = 0; i < r->nrows; i++)
		at[r->rows[i].made] = i;
	r->edges = xreallocarray(NULL, b->nedges ? b->nedges : 1,
	    sizeof *r->edges);
	for (i = 0; i < b->nedges; i++) {
		r->edges[i].caller = at[b->edges[i].caller];
		r->edges[i].callee = at[b->edges[i].callee];
		r->edges[i].weight = b->edges[i].weight;
		r->edges[i].inl = b->edges[i].inl;
	}
	r->nedges = b->nedges;
	free(at);
}

static void
top_build_finish(struct top_build *b, struct top_result *r, int sort_cum,
    int edges)
{
	edges_label(b, b->flat_sum, r->rows, r->nrows);
	r->flat_sum = b->flat_sum;
	if (r->nrows > 0)
		qsort_r(r->rows, r->nrows, sizeof *r->rows, row_cmp,
		    (void *)(uintptr_t)&sort_cum);
	if (edges)
		top_edges_out(b, r);
}

static void
top_build_clear(struct top_build *b)
{
	imap_clear(&b->index);
	free(b->edges);
	free(b->seen);
	memset(b, 0, sizeof *b);
}

/* The per-function sums of parts of the window (store-fsum.h) added to
 * what the callsite tree gave for the rest: flat and cum add up, an edge's
 * weight adds up and it is inline if it is in every part.  The parts
 * share most of their edges: each edge's entry is found by the map once,
 * by its number (gid) in the parts after. */
static void
top_fsum_add(struct top_build *b, struct top_result *r, int64_t *rowof,
    const struct csindex *idx, const struct store_fsum_view *v, size_t nv)
{
	struct top_build_edge *e;
	const struct store_fsum_edge *pe;
	uint32_t *at;
	size_t i, k, ngid = nv > 0 ? v[0].ngid : 0;
	int64_t me;

	at = xcalloc(ngid ? ngid : 1, sizeof *at);
	for (i = 0; i < nv; i++) {
		r->total += v[i].total;
		for (k = 0; k < v[i].nfn; k++) {
			me = top_row(r, b, rowof, idx, v[i].fn[k].name);
			r->rows[me].flat += v[i].fn[k].flat;
			r->rows[me].cum += v[i].fn[k].cum;
			b->flat_sum += v[i].fn[k].flat;
		}
		for (k = 0; k < v[i].nedge; k++) {
			pe = &v[i].edge[k];
			if (at[pe->gid] == 0) {
				e = edge_get(b, top_row(r, b, rowof, idx,
				    pe->caller), top_row(r, b, rowof, idx,
				    pe->callee));
				at[pe->gid] = (uint32_t)(e - b->edges) + 1;
			}
			e = &b->edges[at[pe->gid] - 1];
			e->weight += pe->weight;
			if (!pe->inl)
				e->inl = 0;
		}
	}
	free(at);
}

/* A selection's pairs, from the source's per-function sums where it has
 * them (top without frame filters at function granularity, DESIGN-
 * STORAGE.md "Function sums"): 1 when it has none (query_walk_open). */
static int
top_walk_fsum(struct stack_source *src, const struct top_params *p,
    struct top_result *r, struct query_walk *q,
    const struct store_fsum_view **v, size_t *nv, struct error *err)
{
	int rc;

	memset(q, 0, sizeof *q);
	if (src->ops->select_fsum == NULL || p->granularity != GRAN_FUNCTION ||
	    selection_frame_filters(p->sel))
		return 1;
	if ((rc = src->ops->select_fsum(src, p->sel, &r->metric, &q->vals,
	    &q->nvals, &r->nprofiles, v, nv, err)) == 0)
		q->src = src;
	return rc;
}

static int
top_build_rows(struct stack_source *src, const struct top_params *p,
    int edges, struct top_result *r, struct error *err)
{
	struct query_walk q;
	struct top_build b;
	struct stackwalk w;
	const struct csindex *idx;
	const struct store_fsum_view *v = NULL;
	int64_t *rowof = NULL;
	size_t nnames, i, nv = 0;
	int rc = -1, fs;

	memset(r, 0, sizeof *r);
	memset(&b, 0, sizeof b);
	memset(&w, 0, sizeof w);
	/* The graph keeps its edges' order of the callsite tree's walk. */
	if ((fs = edges ? 1 : top_walk_fsum(src, p, r, &q, &v, &nv,
	    err)) == -1)
		goto out;
	if (fs == 1 && query_walk_open(src, p->sel, p->granularity,
	    &r->metric, &r->nprofiles, &q, &w, err) == -1)
		goto out;
	idx = src->index;
	/* pprof's total is taken before its frame filters. */
	for (i = 0; i < q.nvals; i++)
		r->total += abs64(q.vals[i].value);
	nnames = csindex_nnames(idx);
	rowof = xreallocarray(NULL, nnames ? nnames : 1, sizeof *rowof);
	for (i = 0; i < nnames; i++)
		rowof[i] = -1;
	if ((selection_frame_filters(p->sel) ?
	    top_stacks(&q, &w, &b, rowof, r, err) :
	    top_cstree(&q, idx, p->granularity, &b, rowof, r, err)) == -1)
		goto out;
	top_fsum_add(&b, r, rowof, idx, v, nv);
	top_build_finish(&b, r, p->sort_cum, edges);
	rc = 0;
out:
	query_walk_close(&q, &w);
	if (rc == -1)
		top_result_clear(r);
	top_build_clear(&b);
	free(rowof);
	return rc;
}

int
top_query(struct stack_source *src, const struct top_params *p,
    struct top_result *r, struct error *err)
{
	return top_build_rows(src, p, 0, r, err);
}

int
top_graph(struct stack_source *src, const struct top_params *p,
    struct top_result *r, struct error *err)
{
	return top_build_rows(src, p, 1, r, err);
}

void
top_result_clear(struct top_result *r)
{
	size_t i;

	store_metric_clear(&r->metric);
	for (i = 0; i < r->nrows; i++)
		free(r->rows[i].function);
	free(r->rows);
	free(r->edges);
	memset(r, 0, sizeof *r);
}
