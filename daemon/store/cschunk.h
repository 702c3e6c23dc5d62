/* cschunk.h: the callsites of one chunk (schema 7: callsite_chunk.data),
 * encoded and decoded; knows no SQL.
 *
 * A chunk holds callsites in ascending id order; its row gives first_id,
 * last_id and count, which the decoder checks the data against.  Per
 * callsite, all unsigned LEB128 varints:
 *	id - the previous id (the first: id - (first_id - 1)), >= 1;
 *	0 for a root, else id - parent_id (parents come before children);
 *	when the parent is below first_id (not in the chunk): its depth;
 *	frame_id - the previous callsite's frame_id (0 at the start), zigzag.
 * A callsite's depth is its parent's + 1 (a root's is 0), so it is stored
 * only where the parent is not in the chunk.
 *
 * Packed (issue 41; what the writer stores, cschunk_pack): the same
 * callsites as columns, deflated:
 *	u8 0 | u8 2 | varint length of the columns | zlib stream of them
 * where the columns are the ids' differences (count varints, as above),
 * the parents (count varints, as above), the depths (one per parent below
 * first_id) and the frame ids themselves (count varints, not differences).
 * A plain chunk starts with its first id's difference, >= 1, never a 0
 * byte, so the two are told apart by the first byte and the chunks of a
 * store written before stay as they are.  Why columns: deflate finds the
 * repeated call chains in a stream of frame ids that the ids and parents
 * do not interleave (a drifting CPU series' chunks: 41 % smaller packed,
 * 32 % deflated plain). */
#ifndef PROFD_CSCHUNK_H
#define PROFD_CSCHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "error.h"

/* Callsites as parallel arrays, ids ascending. */
struct cschunk {
	int64_t *id, *parent, *frame, *depth;
	size_t n, cap;
};

void cschunk_push(struct cschunk *, int64_t id, int64_t parent,
    int64_t frame, int64_t depth);
void cschunk_free(struct cschunk *);
/* Callsites [from, from + n) of c appended to b as one chunk's data. */
void cschunk_encode(const struct cschunk *c, size_t from, size_t n,
    struct buf *b);
/* The same one callsite at a time, ids ascending, into e->b: the data of
 * a chunk from first to the last added, n of them. */
struct cschunk_enc {
	struct buf b;
	int64_t first, last, frame;
	size_t n;
};
void cschunk_enc_start(struct cschunk_enc *, int64_t first);
void cschunk_enc_add(struct cschunk_enc *, int64_t id, int64_t parent,
    int64_t frame, int64_t depth);
/* A plain chunk's data (n bytes at v1, its first id first) packed into
 * out (emptied first) when that is smaller, else copied as it is. */
void cschunk_pack(struct buf *out, const uint8_t *v1, size_t n,
    int64_t first);
/* The data of chunk `name` (its last_id, for messages), plain or packed,
 * into c (emptied first), checked: ids ascending from first to last,
 * count of them, parents before their children and inside the chunk
 * unless the depth is given, frames > 0, no byte left over.  -1 with an
 * error naming the chunk and the byte on any of it. */
int cschunk_decode(struct cschunk *c, const uint8_t *p, size_t len,
    int64_t first, int64_t last, int64_t count, struct error *);
/* The index of id in c, or -1. */
ptrdiff_t cschunk_find(const struct cschunk *, int64_t id);

#endif
