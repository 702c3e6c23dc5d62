/* test_flame.c: a call tree as Pyroscope's flame graph levels.  On a
 * tree built by hand, the exact levels (delta x offsets, totals, selves,
 * de-duplicated names, "total" first) and Pyroscope's pruning to
 * max_nodes (the cut children of a parent become one "other"); on the
 * trees of the fixture profiles, the levels decoded back agree with the
 * tree: every node's total is its self plus the nodes over its span one
 * level up, every function's self is the tree's, the root's total is
 * exact, and pruned to max_nodes the levels keep the nodes of the
 * max_nodes largest totals (all those tied at the threshold); a diff
 * built by hand as the double levels of seven numbers, pruned. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "flame.h"
#include "testquery.h"
#include "tree.h"

static struct testimport ts;

/* A hand-built tree: node i's parent is parent[i] (children linked in
 * the order given, as tree.c links them: by name, "other" last). */
static void
hand_tree(struct tree_result *r, const char *const *names,
    const size_t *parent, const int64_t *self, size_t n)
{
	size_t i, j;

	memset(r, 0, sizeof *r);
	r->nodes = xcalloc(n, sizeof *r->nodes);
	r->nnodes = n;
	for (i = 0; i < n; i++) {
		r->nodes[i].name = names[i];
		r->nodes[i].file = r->nodes[i].mapping = "";
		r->nodes[i].self = self[i];
		r->nodes[i].other = strcmp(names[i], "other") == 0;
	}
	/* Totals from the leaves up (parents come before children). */
	for (i = n; i-- > 0;) {
		r->nodes[i].total += r->nodes[i].self;
		if (i > 0)
			r->nodes[parent[i]].total += r->nodes[i].total;
	}
	for (i = 1; i < n; i++) {
		if (r->nodes[parent[i]].child == 0) {
			r->nodes[parent[i]].child = i;
			continue;
		}
		for (j = r->nodes[parent[i]].child; r->nodes[j].next != 0;
		    j = r->nodes[j].next)
			;
		r->nodes[j].next = i;
	}
	r->total = r->nodes[0].total;
}

static void
check_level(const struct flame *f, size_t level, const int64_t *want,
    size_t n)
{
	size_t i;

	CHECK(level < f->nlevels);
	if (f->levels[level].n != n)
		fprintf(stderr, "level %zu: %zu numbers, want %zu\n", level,
		    f->levels[level].n, n);
	CHECK(f->levels[level].n == n);
	for (i = 0; i < n; i++) {
		if (f->levels[level].v[i] != want[i])
			fprintf(stderr, "level %zu [%zu]: %lld, want %lld\n",
			    level, i, (long long)f->levels[level].v[i],
			    (long long)want[i]);
		CHECK(f->levels[level].v[i] == want[i]);
	}
}

static void
test_hand(void)
{
	/* root
	 *   a (self 2)
	 *     b (self 10)
	 *   c (self 1)
	 *     b (self 4)     a second "b": one name
	 *     e (self 3) */
	const char *names[] = { "root", "a", "b", "c", "b", "e" };
	const size_t parent[] = { 0, 0, 1, 0, 3, 3 };
	const int64_t self[] = { 0, 2, 10, 1, 4, 3 };
	const int64_t l0[] = { 0, 20, 0, 0 };
	const int64_t l1[] = { 0, 12, 2, 1, 0, 8, 1, 3 };
	/* b at 2; the second b at 12 + 1 = 13, 1 after the first's end
	 * (12); e at 17, right after. */
	const int64_t l2[] = { 2, 10, 10, 2, 1, 4, 4, 2, 0, 3, 3, 4 };
	/* max_nodes 3: totals 12 10 8 4 3, the threshold 8: c's children
	 * cut, their 7 one "other" at 13. */
	const int64_t l2p3[] = { 2, 10, 10, 2, 1, 7, 7, 4 };
	/* max_nodes 2: the threshold 10: c cut, "other" 8 at 12. */
	const int64_t l1p2[] = { 0, 12, 2, 1, 0, 8, 8, 3 };
	const int64_t l2p2[] = { 2, 10, 10, 2 };
	struct tree_result r;
	struct flame f;

	hand_tree(&r, names, parent, self, 6);
	flame_of_tree(&r, 0, &f);
	CHECK(f.total == 20 && f.max_self == 10);
	CHECK(f.nnames == 5 && f.nlevels == 3);
	CHECK(strcmp(f.names[0], "total") == 0);
	CHECK(strcmp(f.names[1], "a") == 0 && strcmp(f.names[2], "b") == 0);
	CHECK(strcmp(f.names[3], "c") == 0 && strcmp(f.names[4], "e") == 0);
	check_level(&f, 0, l0, 4);
	check_level(&f, 1, l1, 8);
	check_level(&f, 2, l2, 12);
	flame_clear(&f);
	/* max_nodes at or over the tree's size: nothing cut. */
	flame_of_tree(&r, 5, &f);
	check_level(&f, 2, l2, 12);
	flame_clear(&f);

	flame_of_tree(&r, 3, &f);
	CHECK(f.total == 20 && f.max_self == 10 && f.nlevels == 3);
	CHECK(f.nnames == 5 && strcmp(f.names[4], "other") == 0);
	check_level(&f, 1, l1, 8);
	check_level(&f, 2, l2p3, 8);
	flame_clear(&f);

	flame_of_tree(&r, 2, &f);
	CHECK(f.total == 20 && f.nlevels == 3);
	CHECK(f.nnames == 4 && strcmp(f.names[3], "other") == 0);
	check_level(&f, 0, l0, 4);
	check_level(&f, 1, l1p2, 8);
	check_level(&f, 2, l2p2, 4);
	flame_clear(&f);
	tree_result_clear(&r);

	/* An "other" already in the tree (tree.c's pruning) is folded into
	 * the new one, as Pyroscope folds its own. */
	{
		const char *n2[] = { "root", "a", "other" };
		const size_t p2[] = { 0, 0, 0 };
		const int64_t s2[] = { 0, 5, 2 };
		const int64_t want[] = { 0, 5, 5, 1, 0, 2, 2, 2 };

		hand_tree(&r, n2, p2, s2, 3);
		flame_of_tree(&r, 0, &f);
		check_level(&f, 1, want, 8);
		CHECK(f.nnames == 3 && strcmp(f.names[2], "other") == 0);
		flame_clear(&f);
		tree_result_clear(&r);
	}
	/* An empty tree: the root alone. */
	memset(&r, 0, sizeof r);
	flame_of_tree(&r, 10, &f);
	CHECK(f.nlevels == 1 && f.levels[0].n == 4 && f.nnames == 1);
	CHECK(f.total == 0 && f.max_self == 0);
	flame_clear(&f);
	flame_clear(&f);
	printf("ok: levels of a hand-built tree, pruned to 3 and 2 nodes\n");
}

static void
dnode(struct diff_result *d, size_t i, const char *name, size_t parent,
    int64_t base, int64_t base_self, int64_t cur, int64_t cur_self)
{
	struct diff_node *n = &d->nodes[i];
	size_t j;

	n->name = xstrdup(name);
	n->base = base;
	n->base_self = base_self;
	n->cur = cur;
	n->cur_self = cur_self;
	if (i == 0)
		return;
	if (d->nodes[parent].child == 0) {
		d->nodes[parent].child = i;
		return;
	}
	for (j = d->nodes[parent].child; d->nodes[j].next != 0;
	    j = d->nodes[j].next)
		;
	d->nodes[j].next = i;
}

/* A diff by hand: base (left) and current (right) trees merged. */
static void
test_diff(void)
{
	/* root    left 10, right 20
	 *   a     left 6 (self 6), right absent
	 *   b     left 4 (self 1), right 20 (self 5)
	 *     c   left 3 (self 3), right 15 (self 15) */
	const int64_t l0[] = { 0, 10, 0, 0, 20, 0, 0 };
	const int64_t l1[] = { 0, 6, 6, 0, 0, 0, 1, 0, 4, 1, 0, 20, 5, 2 };
	/* c after b's self on each side: left 6 + 1, right 0 + 5. */
	const int64_t l2[] = { 7, 3, 3, 5, 15, 15, 3 };
	/* max_nodes 3: max(|left|, |right|) 20 20 15 6, the threshold 15:
	 * a cut, one "other" after b. */
	const int64_t l1p[] = { 0, 4, 1, 0, 20, 5, 1, 0, 6, 6, 0, 0, 0, 3 };
	const int64_t l2p[] = { 1, 3, 3, 5, 15, 15, 2 };
	struct diff_result d;
	struct flame f;
	int64_t lt, rt;

	memset(&d, 0, sizeof d);
	d.nodes = xcalloc(4, sizeof *d.nodes);
	d.nnodes = 4;
	dnode(&d, 0, "root", 0, 10, 0, 20, 0);
	dnode(&d, 1, "a", 0, 6, 6, 0, 0);
	dnode(&d, 2, "b", 0, 4, 1, 20, 5);
	dnode(&d, 3, "c", 2, 3, 3, 15, 15);
	flame_of_diff(&d, 0, &f, &lt, &rt);
	CHECK(lt == 10 && rt == 20 && f.total == 30 && f.max_self == 15);
	CHECK(f.nnames == 4 && strcmp(f.names[0], "total") == 0 &&
	    strcmp(f.names[3], "c") == 0);
	check_level(&f, 0, l0, 7);
	check_level(&f, 1, l1, 14);
	check_level(&f, 2, l2, 7);
	flame_clear(&f);
	flame_of_diff(&d, 3, &f, &lt, &rt);
	CHECK(lt == 10 && rt == 20 && f.total == 30);
	CHECK(f.nnames == 4 && strcmp(f.names[1], "b") == 0 &&
	    strcmp(f.names[3], "other") == 0);
	check_level(&f, 0, l0, 7);
	check_level(&f, 1, l1p, 14);
	check_level(&f, 2, l2p, 7);
	flame_clear(&f);
	diff_result_clear(&d);
	printf("ok: a diff's double levels, pruned to 3 nodes\n");
}

/* Decodes the x offsets of every level back to absolute ones. */
static void
absolute(struct flame *f)
{
	size_t i, j;

	for (i = 0; i < f->nlevels; i++) {
		int64_t *v = f->levels[i].v, end = 0;

		for (j = 0; j < f->levels[i].n; j += 4) {
			v[j] += end;
			end = v[j] + v[j + 1];
		}
	}
}

/* Checks that every node of the (absolute) levels is its self plus the
 * nodes of the next level over its span; returns the nodes below the
 * root that are not "other", and adds every self to *sum. */
static size_t
check_levels(const struct flame *f, int64_t *sum)
{
	size_t i, j, k, kept = 0;

	*sum = 0;
	for (i = 0; i < f->nlevels; i++) {
		const int64_t *v = f->levels[i].v;

		for (j = 0; j < f->levels[i].n; j += 4) {
			int64_t under = 0;

			CHECK(v[j + 3] >= 0 && (size_t)v[j + 3] < f->nnames);
			if (j > 0)
				CHECK(v[j] >= v[j - 4] + v[j - 3]);
			*sum += v[j + 2];
			CHECK(v[j + 2] <= f->max_self);
			if (i > 0 && strcmp(f->names[v[j + 3]], "other") != 0)
				kept++;
			if (i + 1 == f->nlevels)
				continue;
			for (k = 0; k < f->levels[i + 1].n; k += 4) {
				const int64_t *c = &f->levels[i + 1].v[k];

				if (c[0] >= v[j] && c[0] < v[j] + v[j + 1])
					under += c[1];
			}
			CHECK(v[j + 1] == v[j + 2] + under);
		}
	}
	return kept;
}

static int64_t
self_of(const struct flame *f, const char *name)
{
	int64_t s = 0;
	size_t i, j;

	for (i = 1; i < f->nlevels; i++)
		for (j = 0; j < f->levels[i].n; j += 4)
			if (strcmp(f->names[f->levels[i].v[j + 3]], name) == 0)
				s += f->levels[i].v[j + 2];
	return s;
}

static int
cmp_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

static void
test_fixture(const char *profile, const char *metric)
{
	const char *kv[] = { "scope", profile, "metric", metric, NULL };
	struct selection sel;
	struct tree_params p = { &sel, 0 };
	struct error err = { 0 };
	struct tree_result r;
	struct flame f;
	int64_t sum, *totals, min, maxself = 0;
	size_t i, kept, want;
	const int64_t maxn[] = { 0, 64, 16 };

	testquery_sel(&sel, kv);
	CHECK(tree_query(testquery_src(ts.rd, ts.idx), &p, &r, &err) == 0);
	selection_clear(&sel);
	CHECK(r.nnodes > 16);
	totals = xreallocarray(NULL, r.nnodes, sizeof *totals);
	for (i = 1; i < r.nnodes; i++) {
		totals[i - 1] = r.nodes[i].total;
		if (r.nodes[i].self > maxself)
			maxself = r.nodes[i].self;
	}
	qsort(totals, r.nnodes - 1, sizeof *totals, cmp_desc);
	for (i = 0; i < 3; i++) {
		if ((size_t)maxn[i] >= r.nnodes - 1)
			continue;
		flame_of_tree(&r, maxn[i], &f);
		CHECK(f.total == r.nodes[0].total && f.total == r.total);
		CHECK(strcmp(f.names[0], "total") == 0);
		absolute(&f);
		kept = check_levels(&f, &sum);
		CHECK(sum == f.total);
		if (maxn[i] == 0) {
			size_t j;

			CHECK(kept == r.nnodes - 1 && f.max_self == maxself);
			/* Every function's self is the tree's. */
			for (j = 1; j < r.nnodes; j++) {
				int64_t s = 0;
				size_t k;

				for (k = 1; k < r.nnodes; k++)
					if (strcmp(r.nodes[k].name,
					    r.nodes[j].name) == 0)
						s += r.nodes[k].self;
				CHECK(self_of(&f, r.nodes[j].name) == s);
			}
		} else {
			/* The nodes of the max_nodes largest totals, and
			 * those tied with the last. */
			min = totals[maxn[i] - 1];
			for (want = 0; want < r.nnodes - 1 &&
			    totals[want] >= min; want++)
				;
			CHECK(kept == want && want >= (size_t)maxn[i]);
			CHECK(self_of(&f, "other") > 0);
			printf("ok: %s %s pruned to %lld nodes: %zu kept "
			    "(ties at %lld), sums exact\n", profile, metric,
			    (long long)maxn[i], kept, (long long)min);
		}
		flame_clear(&f);
	}
	free(totals);
	printf("ok: levels of the tree of %s %s (%zu nodes) agree with "
	    "it\n", profile, metric, r.nnodes);
	tree_result_clear(&r);
}

int
main(void)
{
	test_hand();
	test_diff();
	testimport_open(&ts);
	testimport_push(&ts, "cpu", "cpu.pprof");
	testimport_push(&ts, "heap", "heap.pprof");
	test_fixture("cpu", "samples");
	test_fixture("heap", "inuse_space");
	testimport_close(&ts);
	printf("test_flame: %u checks passed\n", checks);
	return 0;
}
