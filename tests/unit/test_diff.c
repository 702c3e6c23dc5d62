/* test_diff.c: two selections of the Go CPU fixture compared (the samples
 * of worker 0 against those of worker 1): every row is the two tops' flat
 * and cum side by side, by the change of flat; the merged tree's nodes
 * add up on both sides and its root is each side's tree; normalized, the
 * base is scaled to the current total; a selection against itself has no
 * change; two metrics cannot be compared. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "testquery.h"
#include "top.h"
#include "tree.h"

static struct testimport ts;

/* The base takes the current's metric when it names none. */
static const char *const w0[] = { "scope", "cpu", "label", "worker=0",
    NULL };
static const char *const w1[] = { "scope", "cpu", "metric", "samples",
    "label", "worker=1", NULL };

static int
diff(const char *const *base, const char *const *cur, int normalize,
    struct diff_result *r, struct error *err)
{
	struct selection bs, cs;
	struct diff_params p = { &bs, &cs, normalize };
	int rc;

	testquery_sel(&bs, base);
	testquery_sel(&cs, cur);
	rc = diff_query(testquery_src(ts.rd, ts.idx), &p, r, err);
	selection_clear(&bs);
	selection_clear(&cs);
	return rc;
}

static void
top(const char *const *kv, struct top_result *r)
{
	struct selection sel;
	struct top_params p = { &sel, 0, GRAN_FUNCTION };
	struct error err = { 0 };

	testquery_sel(&sel, kv);
	CHECK(top_query(testquery_src(ts.rd, ts.idx), &p, r, &err) == 0);
	selection_clear(&sel);
}

static int64_t
tree_root(const char *const *kv)
{
	struct selection sel;
	struct tree_params p = { &sel, 0 };
	struct tree_result r;
	struct error err = { 0 };
	int64_t total;

	testquery_sel(&sel, kv);
	CHECK(tree_query(testquery_src(ts.rd, ts.idx), &p, &r, &err) == 0);
	total = r.nodes[0].total;
	tree_result_clear(&r);
	selection_clear(&sel);
	return total;
}

static const struct top_row *
top_row(const struct top_result *t, const char *function)
{
	size_t i;

	for (i = 0; i < t->nrows; i++)
		if (strcmp(t->rows[i].function, function) == 0)
			return &t->rows[i];
	return NULL;
}

/* Both sides of every node add up (scaled selves may round apart). */
static void
check_node(const struct diff_result *r, size_t i, int64_t slack)
{
	const struct diff_node *n = &r->nodes[i];
	int64_t base = n->base_self, cur = n->cur_self;
	size_t j;

	for (j = n->child; j != 0; j = r->nodes[j].next) {
		CHECK(j < r->nnodes);
		base += r->nodes[j].base;
		cur += r->nodes[j].cur;
		check_node(r, j, slack);
	}
	CHECK(cur == n->cur);
	CHECK(llabs(base - n->base) <= slack);
}

static int64_t
scaled(int64_t v, double scale)
{
	return (int64_t)llround((double)v * scale);
}

static void
test_workers(int normalize)
{
	struct diff_result r;
	struct top_result bt, ct;
	const struct top_row *b, *c;
	struct error err = { 0 };
	size_t i, n;
	double scale;
	const char *w0s[] = { "scope", "cpu", "metric", "samples",
	    "label", "worker=0", NULL };

	top(w0s, &bt);
	top(w1, &ct);
	CHECK(diff(w0, w1, normalize, &r, &err) == 0);
	CHECK(strcmp(r.metric.type, "samples") == 0);
	CHECK(r.base_total == bt.total && r.cur_total == ct.total);
	CHECK(r.base_total != r.cur_total);
	CHECK(r.base_profiles == 1 && r.cur_profiles == 1);
	scale = normalize ? (double)ct.total / (double)bt.total : 1;
	CHECK(r.scale == scale);
	/* Every function of either side once, with both sides' values. */
	for (i = 0; i < r.nrows; i++) {
		b = top_row(&bt, r.rows[i].function);
		c = top_row(&ct, r.rows[i].function);
		CHECK(b != NULL || c != NULL);
		CHECK(r.rows[i].base_flat == (b ? scaled(b->flat, scale) : 0));
		CHECK(r.rows[i].base_cum == (b ? scaled(b->cum, scale) : 0));
		CHECK(r.rows[i].cur_flat == (c ? c->flat : 0));
		CHECK(r.rows[i].cur_cum == (c ? c->cum : 0));
		if (i > 0)
			CHECK(llabs(r.rows[i].cur_flat - r.rows[i].base_flat) <=
			    llabs(r.rows[i - 1].cur_flat -
			    r.rows[i - 1].base_flat));
	}
	for (n = i = 0; i < bt.nrows; i++)
		n += top_row(&ct, bt.rows[i].function) == NULL;
	CHECK(r.nrows == ct.nrows + n);
	/* The root is each side's tree, the nodes add up. */
	CHECK(r.nodes[0].cur == tree_root(w1));
	CHECK(r.nodes[0].base == scaled(tree_root(w0s), scale));
	check_node(&r, 0, normalize ? (int64_t)r.nnodes : 0);
	printf("ok: worker=0 (%lld) against worker=1 (%lld)%s: %zu rows, "
	    "%zu nodes\n", (long long)r.base_total, (long long)r.cur_total,
	    normalize ? ", normalized" : "", r.nrows, r.nnodes);
	diff_result_clear(&r);
	top_result_clear(&bt);
	top_result_clear(&ct);
}

static void
test_same_and_errors(void)
{
	const char *all[] = { "scope", "cpu", NULL };
	const char *alloc[] = { "scope", "heap", "metric", "alloc_space",
	    NULL };
	const char *inuse[] = { "scope", "heap", "metric", "inuse_space",
	    NULL };
	const char *none[] = { "scope", "nosuch", NULL };
	struct diff_result r;
	struct error err = { 0 };
	size_t i;

	CHECK(diff(all, all, 1, &r, &err) == 0);
	CHECK(r.base_total == r.cur_total && r.scale == 1);
	for (i = 0; i < r.nrows; i++)
		CHECK(r.rows[i].base_flat == r.rows[i].cur_flat &&
		    r.rows[i].base_cum == r.rows[i].cur_cum);
	for (i = 0; i < r.nnodes; i++)
		CHECK(r.nodes[i].base == r.nodes[i].cur &&
		    r.nodes[i].base_self == r.nodes[i].cur_self);
	diff_result_clear(&r);

	CHECK(diff(alloc, inuse, 0, &r, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "cannot be compared"));
	error_clear(&err);
	CHECK(diff(none, all, 0, &r, &err) == -1);
	CHECK(err.kind == ERR_NOT_FOUND);
	printf("ok: a selection against itself; different metrics, an "
	    "unknown scope\n");
}

int
main(void)
{
	testimport_open(&ts);
	testimport_push(&ts, "cpu", "cpu.pprof");
	testimport_push(&ts, "heap", "heap.pprof");
	test_workers(0);
	test_workers(1);
	test_same_and_errors();
	testimport_close(&ts);
	printf("test_diff: %u checks passed\n", checks);
	return 0;
}
