/* pbw.h: the protobuf writer: fields appended to a struct buf.
 *
 * One writer for all that writes protobuf: the pprof export, the
 * benchmark's trace generator and the tests' hand-built blobs.  Nested
 * messages either go through a buf of their own (pbw_msg) or in place:
 * pbw_begin() writes the tag and returns a mark, the caller appends the
 * contents, pbw_end() inserts the length in front of them.  Raw bytes
 * (buf_add) let tests write deliberately broken input. */
#ifndef PROFD_PBW_H
#define PROFD_PBW_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "pb.h"

static inline void
pbw_varint(struct buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	while (v >= 0x80) {
		t[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	t[n++] = (uint8_t)v;
	buf_add(b, t, n);
}

void pbw_byte(struct buf *, uint8_t);
void pbw_key(struct buf *, uint32_t num, enum pb_wire);
/* A varint field (int64 fields pass their two's complement). */
void pbw_uint(struct buf *, uint32_t num, uint64_t);
void pbw_int(struct buf *, uint32_t num, int64_t);
/* The same with zero, the default, left out (proto3 scalars). */
void pbw_opt_uint(struct buf *, uint32_t num, uint64_t);
void pbw_opt_int(struct buf *, uint32_t num, int64_t);
void pbw_fixed64(struct buf *, uint32_t num, uint64_t);
void pbw_fixed32(struct buf *, uint32_t num, uint32_t);
void pbw_bytes(struct buf *, uint32_t num, const void *, size_t);
void pbw_str(struct buf *, uint32_t num, const char *);
/* A message field whose body is in msg. */
void pbw_msg(struct buf *, uint32_t num, const struct buf *msg);
/* A repeated varint field, packed into one length-delimited field. */
void pbw_packed(struct buf *, uint32_t num, const uint64_t *, size_t);
/* The same, one tag per value. */
void pbw_unpacked(struct buf *, uint32_t num, const uint64_t *, size_t);
/* A nested message written in place: the mark pbw_end() needs. */
size_t pbw_begin(struct buf *, uint32_t num);
void pbw_end(struct buf *, size_t mark);

#endif
