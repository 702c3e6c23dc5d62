/* diff.c: built from two trees and two tops of the same metric. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "diff.h"
#include "hmap.h"
#include "selection.h"
#include "source.h"
#include "top.h"
#include "tree.h"

static int64_t
scaled(int64_t v, double scale)
{
	return (int64_t)llround((double)v * scale);
}

static size_t
dnode_add(struct diff_result *r, size_t *cap, const char *name)
{
	if (r->nnodes == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		r->nodes = xreallocarray(r->nodes, *cap, sizeof *r->nodes);
	}
	memset(&r->nodes[r->nnodes], 0, sizeof r->nodes[0]);
	r->nodes[r->nnodes].name = xstrdup(name);
	return r->nnodes++;
}

/* Merge node b of the base tree and c of the current one (either may be
 * absent: SIZE_MAX) into diff node d; children are sorted by name in both
 * trees, so a merge join pairs them. */
static void
merge(struct diff_result *r, size_t *cap, size_t d, const struct tree_result *bt,
    size_t b, const struct tree_result *ct, size_t c, double scale)
{
	size_t bk, ck, k, last = 0;
	int cmp;

	if (b != SIZE_MAX) {
		r->nodes[d].base = scaled(bt->nodes[b].total, scale);
		r->nodes[d].base_self = scaled(bt->nodes[b].self, scale);
	}
	if (c != SIZE_MAX) {
		r->nodes[d].cur = ct->nodes[c].total;
		r->nodes[d].cur_self = ct->nodes[c].self;
	}
	bk = b != SIZE_MAX ? bt->nodes[b].child : 0;
	ck = c != SIZE_MAX ? ct->nodes[c].child : 0;
	while (bk != 0 || ck != 0) {
		if (bk == 0)
			cmp = 1;
		else if (ck == 0)
			cmp = -1;
		else
			cmp = strcmp(bt->nodes[bk].name, ct->nodes[ck].name);
		k = dnode_add(r, cap, cmp <= 0 ? bt->nodes[bk].name :
		    ct->nodes[ck].name);
		if (last == 0)
			r->nodes[d].child = k;
		else
			r->nodes[last].next = k;
		last = k;
		merge(r, cap, k, bt, cmp <= 0 ? bk : SIZE_MAX, ct,
		    cmp >= 0 ? ck : SIZE_MAX, scale);
		if (cmp <= 0)
			bk = bt->nodes[bk].next;
		if (cmp >= 0)
			ck = ct->nodes[ck].next;
	}
}

static int
row_cmp(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	int64_t dx = llabs(x->cur_flat - x->base_flat);
	int64_t dy = llabs(y->cur_flat - y->base_flat);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->function, y->function);
}

static void
rows_merge(struct diff_result *r, const struct top_result *bt,
    const struct top_result *ct, double scale)
{
	struct hmap at = { 0 };
	size_t i, n = 0, cap = bt->nrows + ct->nrows;
	int64_t k;

	r->rows = xcalloc(cap ? cap : 1, sizeof *r->rows);
	for (i = 0; i < ct->nrows; i++) {
		r->rows[n].function = xstrdup(ct->rows[i].function);
		r->rows[n].cur_flat = ct->rows[i].flat;
		r->rows[n].cur_cum = ct->rows[i].cum;
		hmap_put(&at, ct->rows[i].function,
		    strlen(ct->rows[i].function), (int64_t)++n);
	}
	for (i = 0; i < bt->nrows; i++) {
		const char *f = bt->rows[i].function;

		if ((k = hmap_get(&at, f, strlen(f))) == 0) {
			r->rows[n].function = xstrdup(f);
			k = (int64_t)++n;
		}
		r->rows[k - 1].base_flat = scaled(bt->rows[i].flat, scale);
		r->rows[k - 1].base_cum = scaled(bt->rows[i].cum, scale);
	}
	r->nrows = n;
	qsort(r->rows, n, sizeof *r->rows, row_cmp);
	hmap_clear(&at);
}

/* The diff of the two selections' trees and tops (the current's metric
 * taken). */
static int
diff_of(struct tree_result *bt, struct tree_result *ct,
    const struct top_result *btop, const struct top_result *ctop,
    int normalize, struct diff_result *r, struct error *err)
{
	size_t cap = 0;

	memset(r, 0, sizeof *r);
	/* One metric is one (type, unit). */
	if (strcmp(bt->metric.type, ct->metric.type) != 0 ||
	    strcmp(bt->metric.unit, ct->metric.unit) != 0)
		return error_set(err, ERR_INPUT, "base.metric: %s/%s cannot be "
		    "compared with %s/%s", bt->metric.type, bt->metric.unit,
		    ct->metric.type, ct->metric.unit);
	r->metric = ct->metric;
	memset(&ct->metric, 0, sizeof ct->metric);
	r->base_total = bt->total;
	r->cur_total = ct->total;
	r->base_profiles = bt->nprofiles;
	r->cur_profiles = ct->nprofiles;
	r->scale = 1;
	if (normalize && bt->total != 0)
		r->scale = (double)ct->total / (double)bt->total;
	dnode_add(r, &cap, "root");
	merge(r, &cap, 0, bt, 0, ct, 0, r->scale);
	rows_merge(r, btop, ctop, r->scale);
	return 0;
}

int
diff_query(struct stack_source *src, const struct diff_params *p,
    struct diff_result *r, struct error *err)
{
	struct tree_result bt, ct;
	struct top_result btop, ctop;
	struct tree_params tp;
	struct top_params op;
	int rc = -1;

	memset(r, 0, sizeof *r);
	memset(&bt, 0, sizeof bt);
	memset(&ct, 0, sizeof ct);
	memset(&btop, 0, sizeof btop);
	memset(&ctop, 0, sizeof ctop);
	memset(&tp, 0, sizeof tp);
	memset(&op, 0, sizeof op);
	tp.sel = op.sel = p->cur;
	if (tree_query(src, &tp, &ct, err) == -1 ||
	    top_query(src, &op, &ctop, err) == -1)
		goto out;
	/* The base is of the current's metric unless it names its own. */
	if (p->base->metric == NULL)
		xasprintf(&p->base->metric, "%s/%s", ct.metric.type,
		    ct.metric.unit);
	tp.sel = op.sel = p->base;
	if (tree_query(src, &tp, &bt, err) == -1 ||
	    top_query(src, &op, &btop, err) == -1)
		goto out;
	rc = diff_of(&bt, &ct, &btop, &ctop, p->normalize, r, err);
out:
	if (rc == -1)
		diff_result_clear(r);
	tree_result_clear(&bt);
	tree_result_clear(&ct);
	top_result_clear(&btop);
	top_result_clear(&ctop);
	return rc;
}

void
diff_result_clear(struct diff_result *r)
{
	size_t i;

	store_metric_clear(&r->metric);
	for (i = 0; i < r->nnodes; i++)
		free(r->nodes[i].name);
	free(r->nodes);
	for (i = 0; i < r->nrows; i++)
		free(r->rows[i].function);
	free(r->rows);
	memset(r, 0, sizeof *r);
}
