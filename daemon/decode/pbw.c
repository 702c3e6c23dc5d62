/* pbw.c: the protobuf writer (see pbw.h). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "pb.h"
#include "pbw.h"

void
pbw_byte(struct buf *b, uint8_t c)
{
	buf_add(b, &c, 1);
}

void
pbw_key(struct buf *b, uint32_t num, enum pb_wire wt)
{
	pbw_varint(b, (uint64_t)num << 3 | (uint64_t)wt);
}

void
pbw_uint(struct buf *b, uint32_t num, uint64_t v)
{
	pbw_key(b, num, PB_VARINT);
	pbw_varint(b, v);
}

void
pbw_int(struct buf *b, uint32_t num, int64_t v)
{
	pbw_uint(b, num, (uint64_t)v);
}

void
pbw_opt_uint(struct buf *b, uint32_t num, uint64_t v)
{
	if (v != 0)
		pbw_uint(b, num, v);
}

void
pbw_opt_int(struct buf *b, uint32_t num, int64_t v)
{
	if (v != 0)
		pbw_uint(b, num, (uint64_t)v);
}

static void
pbw_le(struct buf *b, uint64_t v, int n)
{
	uint8_t t[8];
	int i;

	for (i = 0; i < n; i++)
		t[i] = (uint8_t)(v >> (8 * i));
	buf_add(b, t, (size_t)n);
}

void
pbw_fixed64(struct buf *b, uint32_t num, uint64_t v)
{
	pbw_key(b, num, PB_FIXED64);
	pbw_le(b, v, 8);
}

void
pbw_fixed32(struct buf *b, uint32_t num, uint32_t v)
{
	pbw_key(b, num, PB_FIXED32);
	pbw_le(b, v, 4);
}

void
pbw_bytes(struct buf *b, uint32_t num, const void *p, size_t n)
{
	pbw_key(b, num, PB_LEN);
	pbw_varint(b, n);
	buf_add(b, p, n);
}

void
pbw_str(struct buf *b, uint32_t num, const char *s)
{
	pbw_bytes(b, num, s, strlen(s));
}

void
pbw_msg(struct buf *b, uint32_t num, const struct buf *msg)
{
	pbw_bytes(b, num, msg->p, msg->n);
}

void
pbw_packed(struct buf *b, uint32_t num, const uint64_t *v, size_t n)
{
	struct buf tmp = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < n; i++)
		pbw_varint(&tmp, v[i]);
	pbw_msg(b, num, &tmp);
	buf_free(&tmp);
}

void
pbw_unpacked(struct buf *b, uint32_t num, const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		pbw_uint(b, num, v[i]);
}

size_t
pbw_begin(struct buf *b, uint32_t num)
{
	pbw_key(b, num, PB_LEN);
	return b->n;
}

void
pbw_end(struct buf *b, size_t mark)
{
	uint8_t hdr[10];
	size_t len = b->n - mark, n = 0;
	uint64_t v = len;

	while (v >= 0x80) {
		hdr[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	hdr[n++] = (uint8_t)v;
	buf_reserve(b, n);
	memmove(b->p + mark + n, b->p + mark, len);
	memcpy(b->p + mark, hdr, n);
	b->n += n;
}
