/* fleet-fsum.c: top's per-function sums in ClickHouse (schema 8).  The
 * shipper's side: one profile's sums of a metric, computed by top itself
 * (top_graph over the profile's pairs, so they are what a top of that
 * profile alone counts: flat, cum once per stack, each edge once per
 * stack and whether it was inlined on all of them), as function_rows'
 * TabSeparated rows.  The reader's side: the rows fleet_sql_fsums sums
 * over a window, as one store_fsum_view that top adds to what it walks
 * of the rest (the window's partial hours), as it does the store's. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "csindex.h"
#include "fleet-fsum.h"
#include "fleet-tsv.h"
#include "selection.h"
#include "source.h"
#include "top.h"

/* ---- the shipper's side ---- */

/* One profile's pairs as a stack source for top_graph. */
struct pairs_source {
	struct stack_source src;
	const struct store_cs_value *v;
	size_t n;
};

static int
pairs_select(struct stack_source *src, const struct selection *sel,
    struct store_metric *m, struct store_cs_value **vals, size_t *nvals,
    int64_t *nprofiles, struct error *err)
{
	struct pairs_source *x = (struct pairs_source *)src;

	(void)sel;
	(void)err;
	memset(m, 0, sizeof *m);
	*vals = xreallocarray(NULL, x->n ? x->n : 1, sizeof **vals);
	if (x->n > 0)
		memcpy(*vals, x->v, x->n * sizeof **vals);
	*nvals = x->n;
	*nprofiles = 1;
	return 0;
}

static void
pairs_release(struct stack_source *src)
{
	(void)src;
}

static const struct stack_source_ops pairs_ops = {
	.select = pairs_select,
	.release = pairs_release,
	.free = pairs_release,
};

static void
fsum_name(struct buf *out, const char *name)
{
	fleet_tsv_put(out, name, strlen(name));
}

int
fleet_fsum_rows(struct buf *out, const struct csindex *idx,
    const char *head, const struct store_cs_value *v, size_t n,
    size_t *rows, struct error *err)
{
	static const struct selection all;
	struct pairs_source ps;
	struct top_params p;
	struct top_result r;
	const struct top_edge *e;
	size_t i;

	*rows = 0;
	/* Sums of a negative value are not the window's (top's total is
	 * of |value| per stack of the window): none, and the window's
	 * readers read its stacks. */
	for (i = 0; i < n; i++)
		if (v[i].value < 0)
			return 0;
	memset(&ps, 0, sizeof ps);
	ps.src.ops = &pairs_ops;
	ps.src.index = idx;
	ps.v = v;
	ps.n = n;
	memset(&p, 0, sizeof p);
	p.sel = &all;
	p.granularity = GRAN_FUNCTION;
	if (top_graph(&ps.src, &p, &r, err) == -1)
		return -1;
	for (i = 0; i < r.nrows; i++) {
		buf_printf(out, "%s0\t\t", head);
		fsum_name(out, r.rows[i].function);
		buf_printf(out, "\t%" PRId64 "\t%" PRId64 "\n", r.rows[i].flat,
		    r.rows[i].cum);
	}
	for (i = 0; i < r.nedges; i++) {
		e = &r.edges[i];
		buf_printf(out, "%s1\t", head);
		fsum_name(out, r.rows[e->caller].function);
		buf_add(out, "\t", 1);
		fsum_name(out, r.rows[e->callee].function);
		buf_printf(out, "\t%" PRId64 "\t%d\n", e->weight, !e->inl);
	}
	buf_printf(out, "%s2\t\t\t%" PRId64 "\t0\n", head, r.total);
	*rows = r.nrows + r.nedges + 1;
	top_result_clear(&r);
	return 0;
}

/* ---- the reader's side ---- */

void
fleet_fsum_init(struct fleet_fsum *f, struct csindex *idx)
{
	memset(f, 0, sizeof *f);
	f->idx = idx;
}

/* kind, caller, name, a, b: a function (0), an edge (1), the profiles
 * summed (2) or of the whole hours (3). */
int
fleet_fsum_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_fsum *f = arg;
	struct store_fsum_edge *e;
	int64_t kind, a, b;
	size_t len;

	if (n != 5)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 5 (kind, caller, name, sums)", n);
	if (fleet_tsv_int(&v[0], &kind, err) == -1 ||
	    fleet_tsv_int(&v[3], &a, err) == -1 ||
	    fleet_tsv_int(&v[4], &b, err) == -1)
		return -1;
	if (kind == 0) {
		f->fn = xappendarray(f->fn, f->nfn, sizeof *f->fn);
		f->fn[f->nfn].name = csindex_intern(f->idx,
		    fleet_tsv_str(&v[2], &len));
		f->fn[f->nfn].flat = a;
		f->fn[f->nfn].cum = b;
		f->nfn++;
	} else if (kind == 1) {
		f->edge = xappendarray(f->edge, f->nedge, sizeof *f->edge);
		e = &f->edge[f->nedge];
		memset(e, 0, sizeof *e);
		e->caller = csindex_intern(f->idx, fleet_tsv_str(&v[1], &len));
		e->callee = csindex_intern(f->idx, fleet_tsv_str(&v[2], &len));
		e->gid = (uint32_t)f->nedge;
		e->inl = b == 0;
		e->weight = a;
		f->nedge++;
	} else if (kind == 2) {
		f->profiles = a;
		f->total = b;
	} else if (kind == 3) {
		f->whole = a;
	} else
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "function sums of kind %lld", (long long)kind);
	return 0;
}

const struct store_fsum_view *
fleet_fsum_view(struct fleet_fsum *f)
{
	f->view.fn = f->fn;
	f->view.nfn = f->nfn;
	f->view.edge = f->edge;
	f->view.nedge = f->nedge;
	f->view.total = f->total;
	f->view.ngid = f->nedge;
	return &f->view;
}

void
fleet_fsum_reset(struct fleet_fsum *f)
{
	f->nfn = f->nedge = 0;
	f->profiles = f->total = 0;
	f->whole = -1;
}

void
fleet_fsum_clear(struct fleet_fsum *f)
{
	free(f->fn);
	free(f->edge);
	memset(f, 0, sizeof *f);
}
