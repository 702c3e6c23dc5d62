/* fleet-stacks.h: the fleet's stacks as ClickHouse answers them (one row
 * per distinct stack: its summed value and its frames, leaf first; per
 * time bucket for a timeline) made what a stack source hands its views:
 * each stack's frames callsites of an index (csindex_put, the same
 * printable names, inline flags, files and mappings the store's index
 * has), its value the pair of its leaf.  Knows no HTTP and no SQL. */
#ifndef PROFD_FLEET_STACKS_H
#define PROFD_FLEET_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fleet-tsv.h"
#include "hmap.h"
#include "store.h"

struct csindex;
struct fleet_frames;

struct fleet_stacks {
	struct csindex *idx;		/* the caller's, grown */
	struct fleet_tsv_array a[6];
	int by_bucket;			/* rows start with a time bucket */
	int sums;			/* a bucket's sum over its stacks */
	struct imap at;			/* leaf -> 1 + its bucket's pair */
	struct store_bucket_value *vals;	/* the reply's pairs */
	size_t nvals, cap;
};

void fleet_stacks_init(struct fleet_stacks *, struct csindex *);
/* A new reply: rows with their time bucket first, or not; sums: the
 * arrays are empty by design (a bucket's total, callsite -1). */
void fleet_stacks_reset(struct fleet_stacks *, int by_bucket, int sums);
/* fleet_tsv's row callback (arg: the fleet_stacks). */
int fleet_stacks_row(void *arg, struct fleet_tsv_field *, size_t n,
    struct error *);
/* A row of fleet_sql_frames (hash, then the 6 arrays) into *f, a new
 * allocation (fleet-cache.h). */
int fleet_stacks_frames(struct fleet_stacks *, struct fleet_tsv_field *,
    size_t n, struct fleet_frames **f, struct error *);
/* A stack of the cache into the index: its leaf callsite (0: a stack
 * of no frames; after fleet_stacks_reset(x, 0, 0)). */
int64_t fleet_stacks_leaf(struct fleet_stacks *,
    const struct fleet_frames *);
/* value added to the pair of leaf, summed as fleet_stacks_row's. */
void fleet_stacks_add(struct fleet_stacks *, int64_t leaf, int64_t value);
/* The pairs, taken (freed by the caller). */
void fleet_stacks_take(struct fleet_stacks *, struct store_bucket_value **,
    size_t *);
void fleet_stacks_clear(struct fleet_stacks *);

#endif
