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

#include "alloc.h"
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

/* ---- a decoder's field loops ----
 *
 * What pprof and Perfetto share on top of the cursor.  Errors read
 * "NAME: WHAT at byte N: why", NAME the decoder's and N counted from the
 * start of its input: base is where the buffer the cursors walk begins
 * in it (Perfetto's packet; 0 for pprof's one message).  bad is set when
 * the error is the input's fault (not a limit's or the sink's). */
struct pb_dec {
	const char	*name;		/* "pprof", "perfetto" */
	uint64_t	 base;
	struct error	*err;
	int		 bad;
};

/* The values of a repeated varint field. */
struct pb_u64s {
	uint64_t	*v;
	size_t		 n, cap;
};

int pb_u64s_add(void *a, uint64_t v);

/* Always -1: err "NAME: WHAT at byte base+off: why" (bad set). */
int pb_dec_fail(struct pb_dec *, enum error_kind, const char *what,
    uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A wire error of pb's (its offsets from the buffer's start) as this
 * decoder's: "NAME: WHAT: why" ("NAME: why" if what is NULL), offsets
 * made absolute. */
int pb_dec_wire(struct pb_dec *, const struct error *pe, const char *what);
/* -1 naming the field, its wire type and wt. */
int pb_dec_wrong(struct pb_dec *, const struct pb_field *, enum pb_wire wt,
    const char *what);
int pb_dec_repeated_slow(struct pb_dec *, const struct pb *,
    const struct pb_field *, struct pb_u64s *, const char *what);
/* "a varint", "length-delimited", ... for messages. */
const char *pb_wire_name(enum pb_wire);

/* The helpers below run on every field: inline, their error paths not. */

/* pb_next with the decoder's errors. */
static inline int
pb_dec_next(struct pb_dec *d, struct pb *c, struct pb_field *f,
    const char *what)
{
	struct error pe;
	int r;

	pe.kind = ERR_NONE;
	pe.msg[0] = '\0';
	if ((r = pb_next(c, f, &pe)) == -1)
		return pb_dec_wire(d, &pe, what);
	return r;
}

/* 0 if f has wire type wt, else -1 naming the field and both types. */
static inline int
pb_dec_want(struct pb_dec *d, const struct pb_field *f, enum pb_wire wt,
    const char *what)
{
	return f->wt == wt ? 0 : pb_dec_wrong(d, f, wt, what);
}

/* A varint field's value, or -1 if f is not a varint. */
static inline int
pb_dec_u64(struct pb_dec *d, const struct pb_field *f, const char *what,
    uint64_t *v)
{
	if (pb_dec_want(d, f, PB_VARINT, what) == -1)
		return -1;
	*v = f->v;
	return 0;
}

static inline int
pb_dec_i64(struct pb_dec *d, const struct pb_field *f, const char *what,
    int64_t *v)
{
	if (pb_dec_want(d, f, PB_VARINT, what) == -1)
		return -1;
	*v = (int64_t)f->v;
	return 0;
}

/* Append the values of a repeated varint field (packed or not) to a.
 * Packed runs, the bulk of a profile, are decoded here without a call
 * per value. */
static inline int
pb_dec_repeated(struct pb_dec *d, const struct pb *c, const struct pb_field *f,
    struct pb_u64s *a, const char *what)
{
	const uint8_t *q, *end;
	uint64_t *v, x;
	unsigned shift;

	if (f->wt == PB_VARINT)
		return pb_u64s_add(a, f->v);
	if (f->wt != PB_LEN)
		return pb_dec_repeated_slow(d, c, f, a, what);
	if (f->len == 0)
		return 0;
	/* At most one value per byte. */
	if (a->cap - a->n < f->len) {
		a->cap = a->cap * 2 > a->n + f->len ? a->cap * 2 :
		    a->n + f->len;
		a->v = xreallocarray(a->v, a->cap, sizeof *a->v);
	}
	v = a->v + a->n;
	q = f->data;
	end = f->data + f->len;
	while (q < end) {
		x = 0;
		shift = 0;
		do {
			if (q == end || shift > 63)
				return pb_dec_repeated_slow(d, c, f, a, what);
			x |= (uint64_t)(*q & 0x7f) << shift;
			shift += 7;
		} while (*q++ & 0x80);
		*v++ = x;
	}
	a->n = (size_t)(v - a->v);
	return 0;
}

#endif
