/* test_tree.c: the flamegraph tree of the Go fixture profiles imported
 * into a store agrees with go tool pprof -top: a function's flat is the
 * sum of the selves of its nodes, its cum the sum of the totals of its
 * outermost nodes (recursion counts once); every node's total is its self
 * plus its children's, children sorted by name; pruned below a fraction,
 * the small children fold into one "other" per parent and every total
 * stays exact; the frame filters reach the tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testquery.h"
#include "tree.h"

static struct testimport ts;

static void
tree(const char *const *kv, double min_fraction, struct tree_result *r)
{
	struct selection sel;
	struct tree_params p = { &sel, min_fraction };
	struct error err = { 0 };

	testquery_sel(&sel, kv);
	if (tree_query(testquery_src(ts.rd, ts.idx), &p, r, &err) == -1) {
		fprintf(stderr, "tree: %s\n", err.msg);
		exit(1);
	}
	selection_clear(&sel);
}

/* Node totals are self plus children; children by name, "other" last;
 * returns the number of "other" nodes at and below node i. */
static size_t
check_node(const struct tree_result *r, size_t i, int64_t cutoff)
{
	const struct tree_node *n = &r->nodes[i], *k, *prev = NULL;
	int64_t sum = n->self;
	size_t j, others = n->other;

	for (j = n->child; j != 0; j = k->next) {
		CHECK(j < r->nnodes);
		k = &r->nodes[j];
		sum += k->total;
		if (prev != NULL && !k->other)
			CHECK(strcmp(prev->name, k->name) < 0);
		if (prev != NULL)
			CHECK(!prev->other);
		if (!k->other)
			CHECK(k->total >= cutoff);
		prev = k;
		others += check_node(r, j, cutoff);
	}
	CHECK(n->total == sum);
	return others;
}

/* Nodes reachable from node i (pruned ones stay in the array). */
static size_t
reachable(const struct tree_result *r, size_t i)
{
	size_t j, n = 1;

	for (j = r->nodes[i].child; j != 0; j = r->nodes[j].next)
		n += reachable(r, j);
	return n;
}

/* Adds the selves of the nodes named f to *flat, and to *cum the totals
 * of those with no ancestor named f. */
static void
sum_function(const struct tree_result *r, size_t i, const char *f,
    int below, int64_t *flat, int64_t *cum)
{
	const struct tree_node *n = &r->nodes[i];
	int is = i != 0 && strcmp(n->name, f) == 0;
	size_t j;

	if (is) {
		*flat += n->self;
		if (!below)
			*cum += n->total;
	}
	for (j = n->child; j != 0; j = r->nodes[j].next)
		sum_function(r, j, f, below || is, flat, cum);
}

static void
test_fixture(const char *profile, const char *metric)
{
	const char *kv[] = { "scope", profile, "metric", metric, NULL };
	struct expected e;
	struct tree_result r;
	int64_t flat, cum;
	size_t i, nnodes;

	testimport_expected(profile, metric, &e);
	tree(kv, 0, &r);
	CHECK(r.total == e.total && r.nodes[0].total == e.total);
	CHECK(r.nprofiles == 1 && strcmp(r.metric.type, metric) == 0);
	CHECK(check_node(&r, 0, 0) == 0);
	for (i = 0; i < e.nrows; i++) {
		flat = cum = 0;
		sum_function(&r, 0, e.rows[i].function, 0, &flat, &cum);
		if (flat != e.rows[i].flat || cum != e.rows[i].cum) {
			fprintf(stderr, "%s.%s %s: tree flat %lld cum %lld, "
			    "pprof %lld %lld\n", profile, metric,
			    e.rows[i].function, (long long)flat,
			    (long long)cum, (long long)e.rows[i].flat,
			    (long long)e.rows[i].cum);
			exit(1);
		}
	}
	nnodes = reachable(&r, 0);
	CHECK(nnodes == r.nnodes);
	tree_result_clear(&r);

	/* Pruned: fewer nodes, the same totals. */
	tree(kv, 0.05, &r);
	CHECK(reachable(&r, 0) < nnodes);
	CHECK(r.nodes[0].total == e.total);
	CHECK(check_node(&r, 0, (int64_t)(0.05 * (double)e.total)) > 0);
	tree_result_clear(&r);
	printf("ok: tree of %s %s: %zu nodes, pprof's flat and cum for %zu "
	    "functions; pruned at 5%%, exact totals\n", profile, metric,
	    nnodes, e.nrows);
	testimport_expected_clear(&e);
}

static void
test_filters(void)
{
	const char *hide[] = { "scope", "cpu", "metric", "samples",
	    "hide", "^runtime\\.", NULL };
	const char *focus[] = { "scope", "cpu", "metric", "samples",
	    "focus", "^main\\.fib$", NULL };
	struct expected e;
	struct tree_result r;
	const struct expected_row *fib;
	int64_t flat, cum;
	size_t i;

	testimport_expected("cpu", "samples", &e);
	/* hide: no runtime frame is left; the stacks of runtime frames only
	 * are left out of the tree (the total is still the selection's). */
	tree(hide, 0, &r);
	CHECK(r.total == e.total);
	CHECK(r.nodes[0].total > 0 && r.nodes[0].total < e.total);
	for (i = 1; i < r.nnodes; i++)
		CHECK(strncmp(r.nodes[i].name, "runtime.", 8) != 0);
	CHECK(check_node(&r, 0, 0) == 0);
	tree_result_clear(&r);
	/* focus: the stacks through main.fib, its cum. */
	CHECK((fib = testimport_expected_row(&e, "main.fib")) != NULL);
	tree(focus, 0, &r);
	CHECK(r.nodes[0].total == fib->cum);
	flat = cum = 0;
	sum_function(&r, 0, "main.fib", 0, &flat, &cum);
	CHECK(flat == fib->flat && cum == fib->cum);
	tree_result_clear(&r);
	testimport_expected_clear(&e);
	printf("ok: hide and focus reach the tree\n");
}

int
main(void)
{
	testimport_open(&ts);
	testimport_push(&ts, "cpu", "cpu.pprof");
	testimport_push(&ts, "heap", "heap.pprof");
	test_fixture("cpu", "samples");
	test_fixture("cpu", "cpu");
	test_fixture("heap", "alloc_space");
	test_fixture("heap", "inuse_space");
	test_filters();
	testimport_close(&ts);
	printf("test_tree: %u checks passed\n", checks);
	return 0;
}
