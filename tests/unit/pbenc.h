/* pbenc.h: a tiny protobuf encoder for building test blobs by hand.
 *
 * Header-only (static inline, so a test that uses part of it gets no
 * unused-function warnings).  Nested messages: pbenc_begin() writes the
 * tag and returns a mark, the caller appends the contents, pbenc_end()
 * inserts the length in front of them.  Raw bytes (pbenc_raw) let tests
 * write deliberately broken input. */
#ifndef PROFD_PBENC_H
#define PROFD_PBENC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct pbenc {
	uint8_t		*p;
	size_t		 n, cap;
};

#define PBENC_VARINT	0
#define PBENC_FIXED64	1
#define PBENC_LEN	2
#define PBENC_FIXED32	5

static inline void
pbenc_reserve(struct pbenc *e, size_t extra)
{
	size_t cap = e->cap != 0 ? e->cap : 64;

	if (e->n + extra <= e->cap)
		return;
	while (cap < e->n + extra)
		cap *= 2;
	e->p = xrealloc(e->p, cap);
	e->cap = cap;
}

static inline void
pbenc_raw(struct pbenc *e, const void *p, size_t n)
{
	pbenc_reserve(e, n);
	if (n != 0)
		memcpy(e->p + e->n, p, n);
	e->n += n;
}

static inline void
pbenc_byte(struct pbenc *e, uint8_t b)
{
	pbenc_raw(e, &b, 1);
}

static inline void
pbenc_varint(struct pbenc *e, uint64_t v)
{
	while (v >= 0x80) {
		pbenc_byte(e, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	pbenc_byte(e, (uint8_t)v);
}

static inline void
pbenc_tag(struct pbenc *e, uint32_t num, unsigned wt)
{
	pbenc_varint(e, (uint64_t)num << 3 | wt);
}

/* field = v as a varint (int64 fields pass their two's complement). */
static inline void
pbenc_uint(struct pbenc *e, uint32_t num, uint64_t v)
{
	pbenc_tag(e, num, PBENC_VARINT);
	pbenc_varint(e, v);
}

static inline void
pbenc_int(struct pbenc *e, uint32_t num, int64_t v)
{
	pbenc_uint(e, num, (uint64_t)v);
}

static inline void
pbenc_fixed64(struct pbenc *e, uint32_t num, uint64_t v)
{
	int i;

	pbenc_tag(e, num, PBENC_FIXED64);
	for (i = 0; i < 8; i++)
		pbenc_byte(e, (uint8_t)(v >> (8 * i)));
}

static inline void
pbenc_fixed32(struct pbenc *e, uint32_t num, uint32_t v)
{
	int i;

	pbenc_tag(e, num, PBENC_FIXED32);
	for (i = 0; i < 4; i++)
		pbenc_byte(e, (uint8_t)(v >> (8 * i)));
}

static inline void
pbenc_bytes(struct pbenc *e, uint32_t num, const void *p, size_t n)
{
	pbenc_tag(e, num, PBENC_LEN);
	pbenc_varint(e, n);
	pbenc_raw(e, p, n);
}

static inline void
pbenc_str(struct pbenc *e, uint32_t num, const char *s)
{
	pbenc_bytes(e, num, s, strlen(s));
}

/* A repeated varint field, packed into one length-delimited field. */
static inline void
pbenc_packed(struct pbenc *e, uint32_t num, const uint64_t *v, size_t n)
{
	struct pbenc tmp = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < n; i++)
		pbenc_varint(&tmp, v[i]);
	pbenc_bytes(e, num, tmp.p, tmp.n);
	free(tmp.p);
}

/* The same, one tag per value. */
static inline void
pbenc_unpacked(struct pbenc *e, uint32_t num, const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		pbenc_uint(e, num, v[i]);
}

/* Start a nested message: returns the mark pbenc_end() needs. */
static inline size_t
pbenc_begin(struct pbenc *e, uint32_t num)
{
	pbenc_tag(e, num, PBENC_LEN);
	return e->n;
}

static inline void
pbenc_end(struct pbenc *e, size_t mark)
{
	uint8_t hdr[10];
	size_t len = e->n - mark, n = 0;
	uint64_t v = len;

	while (v >= 0x80) {
		hdr[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	hdr[n++] = (uint8_t)v;
	pbenc_reserve(e, n);
	/* GCC 12 inlining this into long tests sees len as possibly
	 * wrapped (e->n < mark), which no caller does. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
	memmove(e->p + mark + n, e->p + mark, len);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
	memcpy(e->p + mark, hdr, n);
	e->n += n;
}

static inline void
pbenc_free(struct pbenc *e)
{
	free(e->p);
	e->p = NULL;
	e->n = e->cap = 0;
}

#endif
