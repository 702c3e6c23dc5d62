/* kv.h: (key, value) pairs: sorted by key, summed per key. */
#ifndef PROFD_KV_H
#define PROFD_KV_H

#include <stddef.h>
#include <stdint.h>

#include "hmap.h"

/* Sort (key, value) pairs by key (radix); equal keys stay in order. */
struct kv {
	uint64_t k;
	int64_t v;
};
void kv_sort(struct kv *, size_t n);
/* Sort then sum the values of equal keys; returns the new count. */
size_t kv_sort_merge(struct kv *, size_t n);

/* Values summed per key as they come, not collected and sorted: a week
 * of rollups has tens of times more rows than callsites, and a table of
 * the callsites stays in cache where sorting every row would not.  The
 * pairs in kv[0..n) in the order their keys came; a key below
 * KVSUM_DENSE_MAX (callsite ids are dense: store-cs.c hands them out in
 * order) found by an array by key, one past it by a hash map.  Zeroed:
 * empty. */
#define KVSUM_DENSE_MAX	((size_t)1 << 22)
struct kvsum {
	struct kv *kv;
	size_t n, cap;
	uint32_t *dense;		/* key -> 1 + its pair in kv */
	size_t ndense;
	struct imap far;		/* the same past KVSUM_DENSE_MAX */
};
void kvsum_add(struct kvsum *, uint64_t key, int64_t v);
/* Empty again, its memory kept. */
void kvsum_reset(struct kvsum *);
void kvsum_free(struct kvsum *);

#endif
