/* flame.c: a call tree as Pyroscope's flame graph levels, pruned to a
 * number of nodes as Pyroscope prunes.
 *
 * The rule is Pyroscope's (grafana/pyroscope pkg/model/flamegraph.go,
 * NewFlameGraph, and pkg/model/tree.go, minValue): when the tree has more
 * than max_nodes nodes below the root, the threshold is the max_nodes-th
 * largest node total; a child whose total is under it (or a child that is
 * already an "other") is cut with its subtree, and what the cut children
 * of a parent held becomes one "other" child of that parent (self = total
 * = their sum), placed after the kept ones.  So every parent's total is
 * still its self plus its children's and the root's total is exact.  Ties
 * at the threshold are all kept, as Pyroscope keeps them: with distinct
 * totals the levels hold max_nodes nodes below the root, plus the root
 * and the "other" nodes.
 *
 * A diff (flame_of_diff) is laid out the same way on each side, as
 * Pyroscope's NewFlamegraphDiff (pkg/model/flamegraph_diff.go) lays out
 * its two trees made one: a node is kept if either side's total reaches
 * the threshold.
 *
 * profd's trees can hold negative values (a delta metric); Pyroscope's
 * cannot.  Totals are compared by magnitude here, as tree.c prunes. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "diff.h"
#include "flame.h"
#include "hmap.h"
#include "tree.h"

static int64_t
mag(int64_t v)
{
	return v < 0 ? -v : v;
}

static int
cmp_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

/* The least total a node below the root must have to be kept (0: all
 * are): the max_nodes-th largest, as Pyroscope's minValue. */
static int64_t
flame_min_value(const struct tree_result *t, int64_t max_nodes)
{
	size_t *todo, ntodo = 0, n = 0, i, j;
	int64_t *totals, v;

	if (max_nodes < 1 || t->nnodes == 0)
		return 0;
	/* Reachable nodes only: tree.c leaves the ones it pruned in the
	 * array. */
	todo = xreallocarray(NULL, t->nnodes, sizeof *todo);
	totals = xreallocarray(NULL, t->nnodes, sizeof *totals);
	for (j = t->nodes[0].child; j != 0; j = t->nodes[j].next)
		todo[ntodo++] = j;
	while (ntodo > 0) {
		i = todo[--ntodo];
		totals[n++] = mag(t->nodes[i].total);
		for (j = t->nodes[i].child; j != 0; j = t->nodes[j].next)
			todo[ntodo++] = j;
	}
	v = 0;
	if ((uint64_t)n > (uint64_t)max_nodes) {
		qsort(totals, n, sizeof *totals, cmp_desc);
		v = totals[max_nodes - 1];
	}
	free(todo);
	free(totals);
	return v;
}

/* Building the levels. */
struct flame_build {
	struct flame *f;
	size_t *levelcap;
	size_t namecap;
	struct hmap names;		/* name -> 1 + index */
};

static int64_t
flame_name(struct flame_build *b, const char *name)
{
	struct flame *f = b->f;
	size_t len = strlen(name);
	int64_t at;

	if ((at = hmap_get(&b->names, name, len)) != 0)
		return at - 1;
	if (f->nnames == b->namecap) {
		b->namecap = b->namecap ? b->namecap * 2 : 64;
		f->names = xreallocarray(f->names, b->namecap,
		    sizeof *f->names);
	}
	f->names[f->nnames] = xstrdup(name);
	hmap_put(&b->names, name, len, (int64_t)f->nnames + 1);
	return (int64_t)f->nnames++;
}

/* Appends a node's n numbers and its name's index to its level (x
 * offsets absolute for now). */
static void
flame_putv(struct flame_build *b, size_t level, const int64_t *v, size_t n,
    const char *name)
{
	struct flame *f = b->f;
	struct flame_level *l;
	size_t i;

	if (level == f->nlevels) {
		f->levels = xreallocarray(f->levels, level + 1,
		    sizeof *f->levels);
		b->levelcap = xreallocarray(b->levelcap, level + 1,
		    sizeof *b->levelcap);
		memset(&f->levels[level], 0, sizeof f->levels[level]);
		b->levelcap[level] = 0;
		f->nlevels++;
	}
	l = &f->levels[level];
	while (l->n + n + 1 > b->levelcap[level]) {
		b->levelcap[level] = b->levelcap[level] ?
		    b->levelcap[level] * 2 : 64;
		l->v = xreallocarray(l->v, b->levelcap[level], sizeof *l->v);
	}
	for (i = 0; i < n; i++)
		l->v[l->n++] = v[i];
	l->v[l->n++] = flame_name(b, name);
}

static void
flame_put(struct flame_build *b, size_t level, int64_t x, int64_t total,
    int64_t self, const char *name)
{
	int64_t v[3] = { x, total, self };

	flame_putv(b, level, v, 3, name);
	if (self > b->f->max_self)
		b->f->max_self = self;
}

/* x offsets (the numbers at at, every step) as deltas from the end of
 * the level's previous node. */
static void
flame_delta(struct flame *f, size_t at, size_t step)
{
	size_t i, j;

	for (i = 0; i < f->nlevels; i++) {
		int64_t *v = f->levels[i].v, end = 0, abs;

		for (j = at; j < f->levels[i].n; j += step) {
			abs = v[j];
			v[j] = abs - end;
			end = abs + v[j + 1];
		}
	}
}

/* A node still to place: a tree node, or the "other" of a parent's cut
 * children (node 0, which is never anyone's child). */
struct flame_todo {
	size_t node;
	int64_t other;
	int64_t x;
	size_t level;
};

void
flame_of_tree(const struct tree_result *t, int64_t max_nodes,
    struct flame *f)
{
	struct flame_build b;
	struct flame_todo *todo = NULL, cur, *kids = NULL;
	size_t ntodo = 0, cap = 0, nkids, kidcap = 0, i, j;
	int64_t min, x, other;

	memset(f, 0, sizeof *f);
	memset(&b, 0, sizeof b);
	b.f = f;
	flame_name(&b, "total");
	if (t->nnodes == 0) {
		flame_put(&b, 0, 0, 0, 0, "total");
		goto out;
	}
	min = flame_min_value(t, max_nodes);
	f->total = t->nodes[0].total;
	/* Depth first, children left to right: each level fills left to
	 * right. */
	todo = xreallocarray(NULL, cap = 64, sizeof *todo);
	todo[ntodo++] = (struct flame_todo){ 0, 0, 0, 0 };
	while (ntodo > 0) {
		cur = todo[--ntodo];
		if (cur.node == 0 && cur.level > 0) {
			flame_put(&b, cur.level, cur.x, cur.other, cur.other,
			    "other");
			continue;
		}
		flame_put(&b, cur.level, cur.x, t->nodes[cur.node].total,
		    t->nodes[cur.node].self, cur.level == 0 ? "total" :
		    t->nodes[cur.node].name);
		x = cur.x + t->nodes[cur.node].self;
		other = 0;
		nkids = 0;
		for (j = t->nodes[cur.node].child; j != 0;
		    j = t->nodes[j].next) {
			const struct tree_node *k = &t->nodes[j];

			if (mag(k->total) < min || k->other) {
				other += k->total;
				continue;
			}
			if (nkids == kidcap) {
				kidcap = kidcap ? kidcap * 2 : 16;
				kids = xreallocarray(kids, kidcap,
				    sizeof *kids);
			}
			kids[nkids++] = (struct flame_todo){ j, 0, x,
			    cur.level + 1 };
			x += k->total;
		}
		if (ntodo + nkids + 1 > cap) {
			cap = 2 * (ntodo + nkids + 1);
			todo = xreallocarray(todo, cap, sizeof *todo);
		}
		/* Pushed last to first, so that they come off first to
		 * last. */
		if (other != 0)
			todo[ntodo++] = (struct flame_todo){ 0, other, x,
			    cur.level + 1 };
		for (i = nkids; i-- > 0;)
			todo[ntodo++] = kids[i];
	}
out:
	flame_delta(f, 0, 4);
	free(todo);
	free(kids);
	free(b.levelcap);
	hmap_clear(&b.names);
}

/* The least max(|left|, |right|) total a node must have to be kept in a
 * diff: the max_nodes-th largest, the root counted, as Pyroscope's
 * combineMinValues counts it (its capped array's intent). */
static int64_t
flame_diff_min(const struct diff_result *d, int64_t max_nodes)
{
	size_t *todo, ntodo = 0, n = 0, i, j;
	int64_t *m, v = 0;

	if (max_nodes < 1 || d->nnodes == 0)
		return 0;
	todo = xreallocarray(NULL, d->nnodes, sizeof *todo);
	m = xreallocarray(NULL, d->nnodes, sizeof *m);
	todo[ntodo++] = 0;
	while (ntodo > 0) {
		i = todo[--ntodo];
		m[n++] = mag(d->nodes[i].base) > mag(d->nodes[i].cur) ?
		    mag(d->nodes[i].base) : mag(d->nodes[i].cur);
		for (j = d->nodes[i].child; j != 0; j = d->nodes[j].next)
			todo[ntodo++] = j;
	}
	if ((uint64_t)n > (uint64_t)max_nodes) {
		qsort(m, n, sizeof *m, cmp_desc);
		v = m[max_nodes - 1];
	}
	free(todo);
	free(m);
	return v;
}

/* A node of a diff still to place: a diff node, or the "other" of a
 * parent's cut children (node 0 below the root). */
struct flame_dtodo {
	size_t node, level;
	int64_t lx, rx, lother, rother;
};

static void
flame_dput(struct flame_build *b, const struct flame_dtodo *t, int64_t lt,
    int64_t ls, int64_t rt, int64_t rs, const char *name)
{
	int64_t v[6] = { t->lx, lt, ls, t->rx, rt, rs };

	flame_putv(b, t->level, v, 6, name);
	if (ls > b->f->max_self)
		b->f->max_self = ls;
	if (rs > b->f->max_self)
		b->f->max_self = rs;
}

void
flame_of_diff(const struct diff_result *d, int64_t max_nodes,
    struct flame *f, int64_t *left_ticks, int64_t *right_ticks)
{
	struct flame_build b;
	struct flame_dtodo *todo = NULL, cur, *kids = NULL;
	size_t ntodo = 0, cap, nkids, kidcap = 0, i, j;
	int64_t min, lx, rx, lo, ro;
	const struct diff_node *n;

	memset(f, 0, sizeof *f);
	memset(&b, 0, sizeof b);
	b.f = f;
	flame_name(&b, "total");
	*left_ticks = d->nnodes > 0 ? d->nodes[0].base : 0;
	*right_ticks = d->nnodes > 0 ? d->nodes[0].cur : 0;
	f->total = *left_ticks + *right_ticks;
	if (d->nnodes == 0) {
		struct flame_dtodo root = { 0, 0, 0, 0, 0, 0 };

		flame_dput(&b, &root, 0, 0, 0, 0, "total");
		goto out;
	}
	min = flame_diff_min(d, max_nodes);
	todo = xreallocarray(NULL, cap = 64, sizeof *todo);
	todo[ntodo++] = (struct flame_dtodo){ 0, 0, 0, 0, 0, 0 };
	while (ntodo > 0) {
		cur = todo[--ntodo];
		if (cur.node == 0 && cur.level > 0) {
			flame_dput(&b, &cur, cur.lother, cur.lother,
			    cur.rother, cur.rother, "other");
			continue;
		}
		n = &d->nodes[cur.node];
		flame_dput(&b, &cur, n->base, n->base_self, n->cur,
		    n->cur_self, cur.level == 0 ? "total" : n->name);
		lx = cur.lx + n->base_self;
		rx = cur.rx + n->cur_self;
		lo = ro = 0;
		nkids = 0;
		for (j = n->child; j != 0; j = d->nodes[j].next) {
			const struct diff_node *k = &d->nodes[j];

			if (mag(k->base) < min && mag(k->cur) < min) {
				lo += k->base;
				ro += k->cur;
				continue;
			}
			if (nkids == kidcap) {
				kidcap = kidcap ? kidcap * 2 : 16;
				kids = xreallocarray(kids, kidcap,
				    sizeof *kids);
			}
			kids[nkids++] = (struct flame_dtodo){ j,
			    cur.level + 1, lx, rx, 0, 0 };
			lx += k->base;
			rx += k->cur;
		}
		if (ntodo + nkids + 1 > cap) {
			cap = 2 * (ntodo + nkids + 1);
			todo = xreallocarray(todo, cap, sizeof *todo);
		}
		if (lo != 0 || ro != 0)
			todo[ntodo++] = (struct flame_dtodo){ 0,
			    cur.level + 1, lx, rx, lo, ro };
		for (i = nkids; i-- > 0;)
			todo[ntodo++] = kids[i];
	}
out:
	flame_delta(f, 0, 7);
	flame_delta(f, 3, 7);
	free(todo);
	free(kids);
	free(b.levelcap);
	hmap_clear(&b.names);
}

void
flame_clear(struct flame *f)
{
	size_t i;

	for (i = 0; i < f->nnames; i++)
		free(f->names[i]);
	free(f->names);
	for (i = 0; i < f->nlevels; i++)
		free(f->levels[i].v);
	free(f->levels);
	memset(f, 0, sizeof *f);
}
