/* cstree.h: the stacks of a selection as one prefix tree of callsites.
 * Each callsite on the selected stacks is read from the callsite index
 * once, however many stacks share it, with the values of the stacks that
 * end at it (self) and of those that pass through it (total).  A parent
 * comes before its children, so one pass in order goes root to leaf and
 * one in reverse leaf to root.  Queries without frame filters derive top
 * and the call tree from it in time that follows the distinct callsites,
 * not the stacks times their depth. */
#ifndef PROFD_CSTREE_H
#define PROFD_CSTREE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "hmap.h"
#include "store.h"

struct csindex;

#define CSTREE_ROOT	SIZE_MAX	/* the parent of a root callsite */

struct cstree {
	size_t n, cap;
	int64_t *cs;			/* the callsite id */
	size_t *parent;			/* its parent's index, or CSTREE_ROOT */
	int64_t *self, *total;
	/* Callsite id -> 1 + index: an array for ids up to ndense, when
	 * the selection's largest id is not far past its size, else (and
	 * above) the map. */
	uint32_t *dense;
	size_t ndense;
	struct imap at;
	int64_t *chain;			/* scratch: callsites of one stack */
	size_t chaincap;
};

/* The tree of the stacks ending at vals' callsites (callsite 0 and value
 * 0 skipped), with the index held.  -1 (ERR_INTERNAL) if a callsite is not
 * in the index. */
int cstree_build(struct cstree *, const struct csindex *,
    const struct store_cs_value *, size_t, struct error *);
void cstree_clear(struct cstree *);

/* 0: every tree keeps its callsites in the map, as a selection far
 * smaller than its callsite ids does (for tests; 1 by default). */
extern int cstree_dense_ok;

#endif
