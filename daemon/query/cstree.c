/* cstree.c: the union of a selection's stacks (see cstree.h).  A stack is
 * walked leaf to root only until it meets a callsite already in the tree;
 * the callsites met on the way are added root first, so that every parent
 * has a smaller index than its children. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cancel.h"
#include "csindex.h"
#include "cstree.h"

int cstree_dense_ok = 1;

static void
cstree_grow(struct cstree *t, size_t cap)
{
	t->cap = cap;
	t->cs = xreallocarray(t->cs, t->cap, sizeof *t->cs);
	t->parent = xreallocarray(t->parent, t->cap, sizeof *t->parent);
	t->self = xreallocarray(t->self, t->cap, sizeof *t->self);
	t->total = xreallocarray(t->total, t->cap, sizeof *t->total);
}

static size_t
cstree_add(struct cstree *t, int64_t cs, size_t parent)
{
	size_t i = t->n;

	if (t->n == t->cap)
		cstree_grow(t, t->cap * 2);
	t->cs[i] = cs;
	t->parent[i] = parent;
	t->self[i] = 0;
	t->total[i] = 0;
	if ((uint64_t)cs < t->ndense && i < UINT32_MAX)
		t->dense[cs] = (uint32_t)i + 1;
	else
		imap_put(&t->at, (uint64_t)cs, (int64_t)i + 1);
	t->n++;
	return i;
}

static int64_t
cstree_at(const struct cstree *t, int64_t cs)
{
	if ((uint64_t)cs < t->ndense)
		return t->dense[cs];
	return imap_get(&t->at, (uint64_t)cs);
}

/* The index of callsite leaf, adding it and its ancestors not yet in. */
static int
cstree_leaf(struct cstree *t, const struct csindex *idx, int64_t leaf,
    size_t *out, struct error *err)
{
	int64_t cs, at = 0, parent;
	size_t n = 0, up;

	for (cs = leaf; cs > 0; cs = parent) {
		if ((at = cstree_at(t, cs)) != 0)
			break;
		if ((parent = csindex_parent(idx, cs)) < 0)
			return error_set(err, ERR_INTERNAL, "callsite %lld is "
			    "not in the store", (long long)cs);
		if (n == t->chaincap) {
			t->chaincap = t->chaincap ? t->chaincap * 2 : 64;
			t->chain = xreallocarray(t->chain, t->chaincap,
			    sizeof *t->chain);
		}
		t->chain[n++] = cs;
	}
	up = at != 0 ? (size_t)at - 1 : CSTREE_ROOT;
	while (n > 0)
		up = cstree_add(t, t->chain[--n], up);
	*out = up;
	return 0;
}

int
cstree_build(struct cstree *t, const struct csindex *idx,
    const struct store_cs_value *vals, size_t nvals, struct error *err)
{
	size_t i, leaf = 0;
	int64_t top = 0;

	memset(t, 0, sizeof *t);
	/* Stacks share their roots: a few callsites per stack is usual. */
	cstree_grow(t, 4 * nvals + 64);
	/* A callsite's ancestors were interned before it: their ids are
	 * smaller, so an array up to the largest leaf holds them all. */
	for (i = 0; i < nvals; i++)
		if (vals[i].callsite > top)
			top = vals[i].callsite;
	if (cstree_dense_ok && (uint64_t)top < 16 * (uint64_t)nvals + 65536) {
		t->ndense = (size_t)top + 1;
		t->dense = xcalloc(t->ndense, sizeof *t->dense);
	} else
		imap_reserve(&t->at, 4 * nvals + 64);
	for (i = 0; i < nvals; i++) {
		if (vals[i].callsite == 0 || vals[i].value == 0)
			continue;
		if (cancel_poll(err) == -1 ||
		    cstree_leaf(t, idx, vals[i].callsite, &leaf, err) == -1)
			return -1;
		t->self[leaf] += vals[i].value;
	}
	/* Children have larger indices: they are summed first. */
	for (i = t->n; i-- > 0;) {
		t->total[i] += t->self[i];
		if (t->parent[i] != CSTREE_ROOT)
			t->total[t->parent[i]] += t->total[i];
	}
	return 0;
}

void
cstree_clear(struct cstree *t)
{
	free(t->cs);
	free(t->parent);
	free(t->self);
	free(t->total);
	free(t->chain);
	free(t->dense);
	imap_clear(&t->at);
	memset(t, 0, sizeof *t);
}
