/* kv.h: (key, value) pairs: sorted by key, summed per key. */
#ifndef PROFD_KV_H
#define PROFD_KV_H

#include <stddef.h>
#include <stdint.h>

/* Sort (key, value) pairs by key (radix); equal keys stay in order. */
struct kv {
	uint64_t k;
	int64_t v;
};
void kv_sort(struct kv *, size_t n);
/* Sort then sum the values of equal keys; returns the new count. */
size_t kv_sort_merge(struct kv *, size_t n);

#endif
