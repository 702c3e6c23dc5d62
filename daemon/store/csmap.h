/* csmap.h: the writer's callsite map, (parent, frame) -> id, for
 * store-cs.c; store-frames.c's map of frames is one too, keyed by the
 * halves of a frame's 64-bit hash.  Each id's key lives in an
 * id-indexed array (4 + 4 bytes); the table holds only the id and 16
 * bits of the key's hash (6 bytes a slot), so a lookup reads the array
 * on a hash match only.  A growth builds the new table from the key
 * array after freeing the old one: no two tables at once
 * (docs/DESIGN-STORAGE.md, "Callsite chunks"). */
#ifndef PROFD_CSMAP_H
#define PROFD_CSMAP_H

#include <stddef.h>
#include <stdint.h>

#define CSMAP_SLOT	6		/* bytes: id (4), hash tag (2) */
#define CSMAP_NONE	SIZE_MAX	/* no slot */
#define CSMAP_BATCH	32		/* csmap_add's inserts at once */

struct csmap {
	uint8_t *slots;		/* cap slots; id 0: empty */
	size_t cap, n;		/* cap is a power of two */
	/* By id, side by side (one cache miss); frame 0: not in the map. */
	struct csmap_key {
		uint32_t parent, frame;
	} *key;
	size_t ids;		/* keys valid for ids below this */
	size_t idcap;		/* keys allocated */
	/* Keys added (csmap_add) but not yet in the table: their slots
	 * prefetched, inserted CSMAP_BATCH at a time. */
	uint32_t pend[CSMAP_BATCH];
	uint64_t pendh[CSMAP_BATCH];	/* their hashes */
	size_t npend;
};

/* The id of (parent, frame), or 0 when absent; when absent and grow is
 * 1, *slot is where it goes (csmap_fill, with nothing else inserted in
 * between); with grow 0 the map never grows and *slot may be
 * CSMAP_NONE (full). */
uint32_t csmap_find(struct csmap *, uint32_t parent, uint32_t frame,
    int grow, size_t *slot);
/* (parent, frame) -> id at slot (from csmap_find); id > 0 and not in
 * the map. */
void csmap_fill(struct csmap *, size_t slot, uint32_t parent,
    uint32_t frame, uint32_t id);
/* (parent, frame) -> id, the caller knowing that the key is absent (a
 * child of the callsite it has just made): no lookup, and the insert
 * waits for a batch, so that the cache misses of CSMAP_BATCH slots
 * overlap instead of coming one after the other. */
void csmap_add(struct csmap *, uint32_t parent, uint32_t frame,
    uint32_t id);
/* The slot where (parent, frame) is looked for, fetched ahead of a
 * csmap_find that will follow. */
void csmap_prefetch(const struct csmap *, uint32_t parent, uint32_t frame);
/* Insert or overwrite. */
void csmap_put(struct csmap *, uint32_t parent, uint32_t frame,
    uint32_t id);
/* Room for n entries with ids below maxid without growing. */
void csmap_reserve(struct csmap *, size_t n, size_t maxid);
/* (parent, frame) removed, if there. */
void csmap_del(struct csmap *, uint32_t parent, uint32_t frame);
/* Empty, the memory kept. */
void csmap_reset(struct csmap *);
void csmap_clear(struct csmap *);
/* Memory held (the key array as far as used). */
size_t csmap_bytes(const struct csmap *);

#endif
