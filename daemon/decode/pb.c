/* pb.c: a zero-copy protobuf wire cursor.
 *
 * Only the wire format: which fields mean what is the decoders' business.
 * Input is hostile, so every read is bounded by the cursor's end and every
 * error says what was being read and at which byte (from base).  Error
 * texts carry no prefix: a decoder adds its own ("pprof: Sample: ..."). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "pb.h"

/* The largest field number protobuf allows (2^29 - 1). */
#define PB_MAX_FIELD	0x1fffffffu

/* Why a varint could not be read. */
enum pb_varint_status {
	PB_VARINT_OK = 0,
	PB_VARINT_TRUNCATED = -1,
	PB_VARINT_TOO_LONG = -2,
};

static enum pb_varint_status
pb_varint_read(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;
	unsigned i;

	/* Bits past the 64th in the tenth byte are dropped, as Go does. */
	for (i = 0; i < 10; i++) {
		if (p >= end)
			return PB_VARINT_TRUNCATED;
		x |= (uint64_t)(*p & 0x7f) << (7 * i);
		if ((*p++ & 0x80) == 0) {
			*v = x;
			*pp = p;
			return PB_VARINT_OK;
		}
	}
	return PB_VARINT_TOO_LONG;
}

static const char *
pb_varint_why(enum pb_varint_status s)
{
	if (s == PB_VARINT_TOO_LONG)
		return "varint longer than 10 bytes";
	return "truncated varint";
}

int
pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	return pb_varint_read(p, end, v) == PB_VARINT_OK ? 0 : -1;
}

void
pb_init(struct pb *c, const uint8_t *data, size_t len)
{
	/* NULL + 0 is undefined; an empty buffer may come as NULL. */
	c->base = c->p = data;
	c->end = len != 0 ? data + len : data;
}

size_t
pb_offset(const struct pb *c)
{
	return (size_t)(c->p - c->base);
}

void
pb_sub(const struct pb *c, const struct pb_field *f, struct pb *sub)
{
	sub->base = c->base;
	sub->p = f->data;
	sub->end = f->len != 0 ? f->data + f->len : f->data;
}

/* Stop the cursor so a caller that ignores -1 cannot loop. */
static int
pb_fail(struct pb *c)
{
	c->p = c->end;
	return -1;
}

int
pb_next(struct pb *c, struct pb_field *f, struct error *err)
{
	enum pb_varint_status s;
	const uint8_t *at;
	uint64_t tag, n;
	size_t left;
	unsigned wt;

	if (c->p >= c->end)
		return 0;

	f->off = pb_offset(c);
	f->v = 0;
	f->data = NULL;
	f->len = 0;
	if ((s = pb_varint_read(&c->p, c->end, &tag)) != PB_VARINT_OK) {
		error_set(err, ERR_INPUT, "tag at byte %zu: %s", f->off,
		    pb_varint_why(s));
		return pb_fail(c);
	}
	if ((tag >> 3) == 0) {
		error_set(err, ERR_INPUT, "tag at byte %zu: field number 0",
		    f->off);
		return pb_fail(c);
	}
	if ((tag >> 3) > PB_MAX_FIELD) {
		error_set(err, ERR_INPUT,
		    "tag at byte %zu: field number %llu out of range", f->off,
		    (unsigned long long)(tag >> 3));
		return pb_fail(c);
	}
	f->num = (uint32_t)(tag >> 3);
	wt = (unsigned)(tag & 7);

	at = c->p;
	left = (size_t)(c->end - c->p);
	switch (wt) {
	case PB_VARINT:
		s = pb_varint_read(&c->p, c->end, &f->v);
		if (s != PB_VARINT_OK) {
			error_set(err, ERR_INPUT,
			    "field %u varint at byte %zu: %s", f->num,
			    (size_t)(at - c->base), pb_varint_why(s));
			return pb_fail(c);
		}
		break;
	case PB_FIXED64:
		if (left < 8) {
			error_set(err, ERR_INPUT, "field %u fixed64 at byte "
			    "%zu: truncated (8 bytes needed, %zu left)", f->num,
			    (size_t)(at - c->base), left);
			return pb_fail(c);
		}
		f->v = (uint64_t)at[0] | (uint64_t)at[1] << 8 |
		    (uint64_t)at[2] << 16 | (uint64_t)at[3] << 24 |
		    (uint64_t)at[4] << 32 | (uint64_t)at[5] << 40 |
		    (uint64_t)at[6] << 48 | (uint64_t)at[7] << 56;
		c->p += 8;
		break;
	case PB_FIXED32:
		if (left < 4) {
			error_set(err, ERR_INPUT, "field %u fixed32 at byte "
			    "%zu: truncated (4 bytes needed, %zu left)", f->num,
			    (size_t)(at - c->base), left);
			return pb_fail(c);
		}
		f->v = (uint64_t)at[0] | (uint64_t)at[1] << 8 |
		    (uint64_t)at[2] << 16 | (uint64_t)at[3] << 24;
		c->p += 4;
		break;
	case PB_LEN:
		if ((s = pb_varint_read(&c->p, c->end, &n)) != PB_VARINT_OK) {
			error_set(err, ERR_INPUT,
			    "field %u length at byte %zu: %s", f->num,
			    (size_t)(at - c->base), pb_varint_why(s));
			return pb_fail(c);
		}
		left = (size_t)(c->end - c->p);
		if (n > left) {
			error_set(err, ERR_INPUT, "field %u length at byte "
			    "%zu: %llu bytes past the end of the message (%zu "
			    "left)", f->num, (size_t)(at - c->base),
			    (unsigned long long)n, left);
			return pb_fail(c);
		}
		f->data = c->p;
		f->len = (size_t)n;
		c->p += f->len;
		break;
	case 3:
	case 4:
		error_set(err, ERR_INPUT, "field %u at byte %zu: group wire "
		    "type %u is not supported", f->num, f->off, wt);
		return pb_fail(c);
	default:
		error_set(err, ERR_INPUT, "field %u at byte %zu: unknown wire "
		    "type %u", f->num, f->off, wt);
		return pb_fail(c);
	}
	f->wt = (enum pb_wire)wt;
	return 1;
}

int
pb_repeated_varint(const struct pb *c, const struct pb_field *f,
    int (*fn)(void *, uint64_t), void *arg, const char *what,
    struct error *err)
{
	enum pb_varint_status s;
	const uint8_t *p, *at, *end;
	uint64_t v;

	switch (f->wt) {
	case PB_VARINT:
		if (fn(arg, f->v) == -1)
			return error_set(err, ERR_INPUT,
			    "%s at byte %zu: value %llu rejected", what, f->off,
			    (unsigned long long)f->v);
		return 0;
	case PB_LEN:
		p = f->data;
		end = f->len != 0 ? p + f->len : p;
		while (p < end) {
			at = p;
			if ((s = pb_varint_read(&p, end, &v)) != PB_VARINT_OK)
				return error_set(err, ERR_INPUT,
				    "%s at byte %zu: %s in packed field", what,
				    (size_t)(at - c->base), pb_varint_why(s));
			/* If fn filled err itself, its message wins. */
			if (fn(arg, v) == -1)
				return error_set(err, ERR_INPUT,
				    "%s at byte %zu: value %llu rejected", what,
				    (size_t)(at - c->base),
				    (unsigned long long)v);
		}
		return 0;
	default:
		break;
	}
	return error_set(err, ERR_INPUT, "%s at byte %zu: wire type %u, "
	    "expected a varint or packed varints", what, f->off,
	    (unsigned)f->wt);
}

/* ---- a decoder's field loops ---- */

int
pb_u64s_add(void *arg, uint64_t v)
{
	struct pb_u64s *a = arg;

	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = xreallocarray(a->v, a->cap, sizeof *a->v);
	}
	a->v[a->n++] = v;
	return 0;
}

int
pb_dec_fail(struct pb_dec *d, enum error_kind kind, const char *what,
    uint64_t off, const char *fmt, ...)
{
	char why[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	d->bad = 1;
	return error_set(d->err, kind, "%s: %s at byte %llu: %s", d->name,
	    what, (unsigned long long)(d->base + off), why);
}

int
pb_dec_wire(struct pb_dec *d, const struct error *pe, const char *what)
{
	char out[sizeof pe->msg];
	const char *p = pe->msg;
	size_t n = 0;
	unsigned long long v;
	char *end;

	/* pb counts bytes from the start of the buffer it was given. */
	while (*p != '\0' && n + 24 < sizeof out) {
		if (strncmp(p, "byte ", 5) == 0 && p[5] >= '0' && p[5] <= '9') {
			v = strtoull(p + 5, &end, 10);
			n += (size_t)snprintf(out + n, sizeof out - n,
			    "byte %llu", v + (unsigned long long)d->base);
			p = end;
			continue;
		}
		out[n++] = *p++;
	}
	out[n] = '\0';
	d->bad = 1;
	return error_set(d->err, pe->kind != ERR_NONE ? pe->kind : ERR_INPUT,
	    "%s%s%s: %s", d->name, what != NULL ? ": " : "",
	    what != NULL ? what : "", out);
}

const char *
pb_wire_name(enum pb_wire wt)
{
	switch (wt) {
	case PB_VARINT:
		return "varint";
	case PB_FIXED64:
		return "fixed64";
	case PB_LEN:
		return "length-delimited";
	case PB_FIXED32:
		return "fixed32";
	}
	return "?";
}

int
pb_dec_wrong(struct pb_dec *d, const struct pb_field *f, enum pb_wire wt,
    const char *what)
{
	return pb_dec_fail(d, ERR_INPUT, what, f->off, "field %u has wire "
	    "type %u, expected %s", f->num, (unsigned)f->wt,
	    pb_wire_name(wt));
}

/* Packed runs that pb_dec_repeated could not take in one go: either they
 * are bad, and pb_repeated_varint reads the field again to say what is
 * wrong, or the values are not packed. */
int
pb_dec_repeated_slow(struct pb_dec *d, const struct pb *c,
    const struct pb_field *f, struct pb_u64s *a, const char *what)
{
	struct error pe;

	pe.kind = ERR_NONE;
	pe.msg[0] = '\0';
	if (pb_repeated_varint(c, f, pb_u64s_add, a, what, &pe) == -1)
		/* pb's message names the field and the byte already. */
		return pb_dec_wire(d, &pe, NULL);
	return 0;
}
