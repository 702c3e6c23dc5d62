/* fleet-index.h: the fleet's callsite indexes, kept by the reader
 * between queries.  A fleet view's stacks become callsites of an index
 * (csindex_put, fleet-stacks.c): building it again from the cached
 * frames at every call was most of a warm fleet top's CPU in profd (a
 * frame's names hashed and interned for each of a stack's 80 frames,
 * 8570 stacks).  A stack's frames never change (its hash is of them), so
 * an index built once can answer the next call: with it goes each
 * stack's leaf callsite by hash, and a call puts only the stacks it has
 * not seen.
 *
 * An index is one source's while it is open (no lock: a view's answer
 * reads it unlocked), so the reader keeps a pool: a source takes one at
 * open and gives it back at free, so there are as many as fleet views
 * ever ran at once.  Only whole frames (with their stack_frames row)
 * are remembered by hash: frames read without it are put into the index
 * for this call only, and asked again next time, as the frame cache
 * does (fleet-cache.h).  Bounded: an index grown past FLEET_INDEX_BYTES
 * is dropped when given back.  Knows no SQL. */
#ifndef PROFD_FLEET_INDEX_H
#define PROFD_FLEET_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "hmap.h"

struct csindex;

/* 64 MiB of callsites, frames and names (csindex_bytes) and leaves. */
#define FLEET_INDEX_BYTES	(64 * 1024 * 1024)

struct fleet_index {
	struct csindex *idx;
	struct imap leaf;		/* stack hash -> 1 + leaf callsite */
	struct fleet_index *next;	/* in the pool */
};

struct fleet_index_pool;

struct fleet_index_pool *fleet_index_pool_new(size_t cap);
void fleet_index_pool_free(struct fleet_index_pool *);
/* An index of the pool, or a new one: the caller's until given back. */
struct fleet_index *fleet_index_take(struct fleet_index_pool *);
/* Back to the pool, or freed past the pool's cap. */
void fleet_index_give(struct fleet_index_pool *, struct fleet_index *);

/* The leaf callsite of the stack of this hash put before (0: a stack of
 * no frames), -1 if not. */
static inline int64_t
fleet_index_leaf(const struct fleet_index *x, uint64_t hash)
{
	return imap_get(&x->leaf, hash) - 1;
}

/* Remember a whole stack's leaf. */
static inline void
fleet_index_remember(struct fleet_index *x, uint64_t hash, int64_t leaf)
{
	imap_put(&x->leaf, hash, leaf + 1);
}

#endif
