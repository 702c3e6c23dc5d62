/* tree.c: the call tree built once from (callsite, value) pairs: each
 * stack is walked root to leaf through the in-memory callsite index,
 * finding or adding one node per function name under its parent. */
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
#include "tree.h"

/* Building a tree: init (the root made), a child per frame from the
 * root down (add the values to the nodes returned), finish (children
 * sorted, small ones folded), clear.  Strings are the index's. */
struct tree_build {
	struct tree_result *r;
	size_t cap;
	struct imap kids;		/* parent << 32 | name id -> 1 + node */
	uint32_t *name_of;		/* name id per node */
};
struct tree_frame {
	uint32_t name_id;		/* one per distinct name */
	const char *name, *file, *mapping;
	int64_t line, frame_line;
	unsigned flags;			/* FRAME_INLINED */
};

static void
build_reserve(struct tree_build *b, size_t cap)
{
	if (cap <= b->cap)
		return;
	b->cap = cap;
	b->r->nodes = xreallocarray(b->r->nodes, cap, sizeof *b->r->nodes);
	b->name_of = xreallocarray(b->name_of, cap, sizeof *b->name_of);
}

static size_t
node_add(struct tree_build *b, const char *name, size_t parent)
{
	struct tree_result *r = b->r;
	struct tree_node *n;

	if (r->nnodes == b->cap)
		build_reserve(b, b->cap ? b->cap * 2 : 256);
	n = &r->nodes[r->nnodes];
	memset(n, 0, sizeof *n);
	n->name = name;
	n->file = "";
	n->mapping = "";
	if (r->nnodes > 0) {
		n->next = r->nodes[parent].child;
		r->nodes[parent].child = r->nnodes;
	}
	return r->nnodes++;
}

/* Is source a (a file, a mapping) to be shown before b: known, and the
 * lesser? */
static int
src_before(const char *a, const char *b)
{
	return a[0] != '\0' && (b[0] == '\0' || strcmp(a, b) < 0);
}

static size_t
tree_build_child(struct tree_build *b, size_t parent,
    const struct tree_frame *f)
{
	uint64_t key = (uint64_t)parent << 32 | f->name_id;
	struct tree_node *n;
	int64_t at;
	size_t i;

	if ((at = imap_get(&b->kids, key)) != 0) {
		n = &b->r->nodes[at - 1];
		if (n->frame_line != f->frame_line)
			n->frame_line = -1;
		n->inlined &= (f->flags & FRAME_INLINED) != 0;
		/* Frames of one name from other files or programs (the
		 * same code built twice): the least known of each, so that
		 * the node is the same whatever order the stacks came in. */
		if (src_before(f->mapping, n->mapping))
			n->mapping = f->mapping;
		if (src_before(f->file, n->file) || (strcmp(f->file,
		    n->file) == 0 && f->line > 0 && (n->line == 0 ||
		    f->line < n->line))) {
			n->file = f->file;
			n->line = f->line;
		}
		return (size_t)at - 1;
	}
	i = node_add(b, f->name, parent);
	b->name_of[i] = f->name_id;
	n = &b->r->nodes[i];
	n->file = f->file;
	n->line = f->line;
	n->mapping = f->mapping;
	n->frame_line = f->frame_line;
	n->inlined = (f->flags & FRAME_INLINED) != 0;
	imap_put(&b->kids, key, (int64_t)i + 1);
	return i;
}

/* The node of callsite cs under parent, its frame's FRAME_* flags those
 * of the stack walked (frame filters recompute the inline ones). */
static size_t
node_child(struct tree_build *b, const struct csindex *idx, size_t parent,
    int64_t cs, unsigned flags)
{
	struct tree_frame f;

	f.name_id = csindex_name(idx, cs);
	f.name = csindex_name_str(idx, f.name_id);
	csindex_source(idx, cs, &f.file, &f.line, &f.mapping);
	f.frame_line = csindex_line(idx, cs);
	f.flags = flags;
	return tree_build_child(b, parent, &f);
}

static int
name_cmp(const void *a, const void *b, void *arg)
{
	const struct tree_node *nodes = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return strcmp(nodes[x].name, nodes[y].name);
}

/* Sort every node's children by name; fold those under cutoff into one
 * "other" child (their totals and selves summed, their subtrees gone). */
static void
tree_finish(struct tree_build *b, int64_t cutoff)
{
	struct tree_result *r = b->r;
	size_t i, j, n, *kids = NULL, cap = 0, nnodes = r->nnodes;
	int64_t other;

	for (i = 0; i < nnodes; i++) {
		n = 0;
		for (j = r->nodes[i].child; j != 0; j = r->nodes[j].next) {
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				kids = xreallocarray(kids, cap, sizeof *kids);
			}
			kids[n++] = j;
		}
		if (n > 1)
			qsort_r(kids, n, sizeof *kids, name_cmp, r->nodes);
		other = 0;
		r->nodes[i].child = 0;
		for (j = n; j-- > 0;) {
			struct tree_node *k = &r->nodes[kids[j]];

			if ((k->total < 0 ? -k->total : k->total) < cutoff) {
				other += k->total;
				continue;
			}
			k->next = r->nodes[i].child;
			r->nodes[i].child = kids[j];
		}
		if (other != 0) {
			size_t o = node_add(b, "other", i);

			r->nodes[o].self = other;
			r->nodes[o].total = other;
			r->nodes[o].other = 1;
			/* node_add linked it first; "other" goes last. */
			r->nodes[i].child = r->nodes[o].next;
			r->nodes[o].next = 0;
			if (r->nodes[i].child == 0)
				r->nodes[i].child = o;
			else {
				for (j = r->nodes[i].child; r->nodes[j].next;
				    j = r->nodes[j].next)
					;
				r->nodes[j].next = o;
			}
		}
	}
	free(kids);
}

/* With frame filters: stack by stack, root to leaf. */
static int
tree_stacks(struct tree_build *b, const struct query_walk *q, struct stackwalk *w,
    struct error *err)
{
	struct tree_result *r = b->r;
	size_t i, depth, at;
	int rc;

	for (i = 0; (rc = query_walk_next(q, w, &i, err)) == 1; i++) {
		int64_t v = q->vals[i].value;

		at = 0;
		r->nodes[0].total += v;
		for (depth = 0; depth < w->n; depth++) {
			at = node_child(b, w->idx, at, w->cs[depth],
			    w->flags[depth]);
			r->nodes[at].total += v;
		}
		r->nodes[at].self += v;
	}
	return rc;
}

/* Without: callsite by callsite over the union of the stacks, each
 * callsite's node found once under its parent's. */
static int
tree_cstree(struct tree_build *b, const struct query_walk *q,
    const struct csindex *idx, struct error *err)
{
	struct tree_result *r = b->r;
	struct cstree t;
	size_t *node = NULL, i, at;
	int rc = -1;

	if (cstree_build(&t, idx, q->vals, q->nvals, err) == -1)
		goto out;
	node = xreallocarray(NULL, t.n ? t.n : 1, sizeof *node);
	/* A node per callsite at most, and at most one "other" node under
	 * each (pages of the array never used are never touched). */
	build_reserve(b, 2 * t.n + 16);
	imap_reserve(&b->kids, t.n);
	for (i = 0; i < t.n; i++) {
		if (t.parent[i] == CSTREE_ROOT) {
			r->nodes[0].total += t.total[i];
			at = node_child(b, idx, 0, t.cs[i],
			    csindex_flags(idx, t.cs[i]));
		} else
			at = node_child(b, idx, node[t.parent[i]], t.cs[i],
			    csindex_flags(idx, t.cs[i]));
		node[i] = at;
		r->nodes[at].total += t.total[i];
		r->nodes[at].self += t.self[i];
	}
	rc = 0;
out:
	free(node);
	cstree_clear(&t);
	return rc;
}

static void
tree_build_init(struct tree_build *b, struct tree_result *r)
{
	memset(r, 0, sizeof *r);
	memset(b, 0, sizeof *b);
	b->r = r;
	node_add(b, "root", 0);
}

static void
tree_build_finish(struct tree_build *b, double min_fraction)
{
	struct tree_result *r = b->r;

	tree_finish(b, (int64_t)(min_fraction * (double)(r->nodes[0].total <
	    0 ? -r->nodes[0].total : r->nodes[0].total)));
}

static void
tree_build_clear(struct tree_build *b)
{
	imap_clear(&b->kids);
	free(b->name_of);
	memset(b, 0, sizeof *b);
}

int
tree_query(struct stack_source *src, const struct tree_params *p,
    struct tree_result *r, struct error *err)
{
	struct query_walk q;
	struct tree_build b;
	struct stackwalk w;
	size_t i;
	int rc = -1;

	tree_build_init(&b, r);
	if (query_walk_open(src, p->sel, GRAN_FUNCTION, &r->metric,
	    &r->nprofiles, &q, &w, err) == -1)
		goto out;
	for (i = 0; i < q.nvals; i++)
		r->total += q.vals[i].value < 0 ? -q.vals[i].value :
		    q.vals[i].value;
	if ((selection_frame_filters(p->sel) ? tree_stacks(&b, &q, &w, err) :
	    tree_cstree(&b, &q, src->index, err)) == -1)
		goto out;
	tree_build_finish(&b, p->min_fraction);
	rc = 0;
out:
	query_walk_close(&q, &w);
	if (rc == -1)
		tree_result_clear(r);
	tree_build_clear(&b);
	return rc;
}

void
tree_result_clear(struct tree_result *r)
{
	store_metric_clear(&r->metric);
	free(r->nodes);
	memset(r, 0, sizeof *r);
}
