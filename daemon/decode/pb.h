/* pb.h: a zero-copy protobuf wire cursor.
 *
 * A cursor walks the fields of one message; a length-delimited field can be
 * opened as a sub-cursor bounded by its length.  Offsets in errors are
 * relative to the start of the outermost buffer (base), so a message can
 * name the byte where input went wrong.  The first error wins. */
#ifndef PROFD_PB_H
#define PROFD_PB_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum pb_wire {
	PB_VARINT = 0,
	PB_FIXED64 = 1,
	PB_LEN = 2,
	PB_FIXED32 = 5,
};

struct pb {
	const uint8_t *base;		/* start of the outermost buffer */
	const uint8_t *p, *end;
};

struct pb_field {
	uint32_t num;
	enum pb_wire wt;
	uint64_t v;			/* PB_VARINT, PB_FIXED64, PB_FIXED32 */
	const uint8_t *data;		/* PB_LEN */
	size_t len;			/* PB_LEN */
	size_t off;			/* offset of the tag from base */
};

void pb_init(struct pb *, const uint8_t *, size_t);
/* 1: a field was read into *f; 0: end of message; -1: error (err filled,
 * naming what and the byte offset). */
int pb_next(struct pb *, struct pb_field *, struct error *);
/* A cursor over the contents of a PB_LEN field. */
void pb_sub(const struct pb *, const struct pb_field *, struct pb *);
size_t pb_offset(const struct pb *);
/* Read one varint at *p (bounded by end); -1 on overrun or > 10 bytes. */
int pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);

/* Iterate a repeated varint field that may be packed (PB_LEN) or not
 * (PB_VARINT): calls fn for each value; -1 on error. */
int pb_repeated_varint(const struct pb *, const struct pb_field *,
    int (*fn)(void *, uint64_t), void *arg, const char *what,
    struct error *);

#endif
