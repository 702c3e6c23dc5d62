/* test_pb.c: the protobuf wire cursor against hand-made bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "nitems.h"
#include "pb.h"
#include "pbw.h"
#include "testlib.h"

/* The error is set and its message holds every given piece. */
static int
err_has(const struct error *e, const char *a, const char *b)
{
	if (e->kind == ERR_NONE) {
		fprintf(stderr, "expected an error, got none\n");
		return 0;
	}
	if (strstr(e->msg, a) == NULL || (b != NULL &&
	    strstr(e->msg, b) == NULL)) {
		fprintf(stderr, "unexpected error message: %s\n", e->msg);
		return 0;
	}
	return 1;
}

/* Read one field from bytes; returns pb_next's result. */
static int
read_one(const uint8_t *p, size_t n, struct pb_field *f, struct error *e)
{
	struct pb c;

	error_clear(e);
	pb_init(&c, p, n);
	return pb_next(&c, f, e);
}

static void
test_varint_lengths(void)
{
	struct buf e = { NULL, 0, 0 };
	const uint8_t *p;
	uint64_t v, want;
	unsigned k;

	for (k = 1; k <= 10; k++) {
		/* The largest value that fits k bytes; 10 bytes: all 64. */
		want = k < 10 ? ((uint64_t)1 << (7 * k)) - 1 : UINT64_MAX;
		e.n = 0;
		pbw_varint(&e, want);
		CHECK(e.n == k);
		p = e.p;
		CHECK(pb_varint(&p, e.p + e.n, &v) == 0);
		CHECK(v == want);
		CHECK(p == e.p + k);

		/* The smallest value that needs k bytes. */
		want = k > 1 ? (uint64_t)1 << (7 * (k - 1)) : 0;
		e.n = 0;
		pbw_varint(&e, want);
		CHECK(e.n == k);
		p = e.p;
		CHECK(pb_varint(&p, e.p + e.n, &v) == 0 && v == want);
	}
	buf_free(&e);
}

static void
test_varint_errors(void)
{
	static const uint8_t eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	    0x80, 0x80, 0x80, 0x80, 0x01 };
	static const uint8_t trunc[] = { 0xff, 0xff };
	/* Non-minimal but 10 bytes: fine (value 1). */
	static const uint8_t padded[] = { 0x81, 0x80, 0x80, 0x80, 0x80, 0x80,
	    0x80, 0x80, 0x80, 0x00 };
	const uint8_t *p;
	uint64_t v = 7;
	struct pb_field f;
	struct error e;
	uint8_t buf[16];

	p = eleven;
	CHECK(pb_varint(&p, eleven + sizeof eleven, &v) == -1);
	CHECK(p == eleven && v == 7);
	p = trunc;
	CHECK(pb_varint(&p, trunc + sizeof trunc, &v) == -1);
	p = trunc;
	CHECK(pb_varint(&p, trunc, &v) == -1);
	p = padded;
	CHECK(pb_varint(&p, padded + sizeof padded, &v) == 0 && v == 1);

	/* In a tag. */
	CHECK(read_one(eleven, sizeof eleven, &f, &e) == -1);
	CHECK(e.kind == ERR_INPUT);
	CHECK(err_has(&e, "tag at byte 0", "longer than 10 bytes"));
	CHECK(read_one(trunc, sizeof trunc, &f, &e) == -1);
	CHECK(err_has(&e, "tag at byte 0", "truncated varint"));

	/* In a value, after a two-byte tag: offset 2. */
	buf[0] = 0x80 | (20 << 3 & 0x7f);
	buf[1] = 20 >> 4;
	memcpy(buf + 2, eleven, sizeof eleven);
	CHECK(read_one(buf, 2 + sizeof eleven, &f, &e) == -1);
	CHECK(err_has(&e, "field 20 varint at byte 2",
	    "longer than 10 bytes"));
	CHECK(read_one(buf, 2 + 3, &f, &e) == -1);
	CHECK(err_has(&e, "field 20 varint at byte 2", "truncated varint"));
}

static void
test_wire_types(void)
{
	struct buf e = { NULL, 0, 0 };
	struct pb c;
	struct pb_field f;
	struct error err;

	pbw_uint(&e, 1, 300);
	pbw_fixed64(&e, 2, 0x0102030405060708ull);
	pbw_fixed32(&e, 3, 0xdeadbeef);
	pbw_str(&e, 4, "hello");
	pbw_int(&e, 5, -2);
	pbw_bytes(&e, 536870911, "", 0);	/* the largest field number */

	error_clear(&err);
	pb_init(&c, e.p, e.n);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(f.num == 1 && f.wt == PB_VARINT && f.v == 300 && f.off == 0);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(f.num == 2 && f.wt == PB_FIXED64 &&
	    f.v == 0x0102030405060708ull && f.off == 3);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(f.num == 3 && f.wt == PB_FIXED32 && f.v == 0xdeadbeef &&
	    f.off == 12);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(f.num == 4 && f.wt == PB_LEN && f.len == 5 &&
	    memcmp(f.data, "hello", 5) == 0 && f.off == 17);
	CHECK(pb_offset(&c) == 24);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(f.num == 5 && f.wt == PB_VARINT && (int64_t)f.v == -2);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(f.num == 536870911 && f.wt == PB_LEN && f.len == 0);
	CHECK(pb_next(&c, &f, &err) == 0);
	CHECK(pb_next(&c, &f, &err) == 0);
	CHECK(err.kind == ERR_NONE);
	CHECK(pb_offset(&c) == e.n);
	buf_free(&e);
}

static void
test_empty(void)
{
	struct pb c;
	struct pb_field f;
	struct error err;

	error_clear(&err);
	pb_init(&c, NULL, 0);
	CHECK(pb_next(&c, &f, &err) == 0);
	CHECK(pb_offset(&c) == 0);
	pb_init(&c, (const uint8_t *)"", 0);
	CHECK(pb_next(&c, &f, &err) == 0);
	CHECK(err.kind == ERR_NONE);
}

static void
test_truncation(void)
{
	static const uint8_t f64[] = { 0x09, 1, 2, 3, 4, 5, 6, 7 };
	static const uint8_t f32[] = { 0x0d, 1, 2, 3 };
	static const uint8_t len[] = { 0x0a, 0x05, 'a', 'b' };
	static const uint8_t lenvar[] = { 0x0a, 0x85 };
	static const uint8_t huge[] = { 0x0a, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0x01 };
	struct pb_field f;
	struct error e;

	CHECK(read_one(f64, sizeof f64, &f, &e) == -1);
	CHECK(err_has(&e, "field 1 fixed64 at byte 1", "7 left"));
	CHECK(read_one(f32, sizeof f32, &f, &e) == -1);
	CHECK(err_has(&e, "field 1 fixed32 at byte 1", "3 left"));
	CHECK(read_one(len, sizeof len, &f, &e) == -1);
	CHECK(err_has(&e, "field 1 length at byte 1",
	    "5 bytes past the end of the message (2 left)"));
	CHECK(read_one(lenvar, sizeof lenvar, &f, &e) == -1);
	CHECK(err_has(&e, "field 1 length at byte 1", "truncated varint"));
	CHECK(read_one(huge, sizeof huge, &f, &e) == -1);
	CHECK(err_has(&e, "field 1 length at byte 1", "past the end"));
	/* A tag with nothing after it. */
	CHECK(read_one(len, 1, &f, &e) == -1);
	CHECK(err_has(&e, "field 1 length at byte 1", "truncated varint"));
	CHECK(read_one((const uint8_t *)"\x08", 1, &f, &e) == -1);
	CHECK(err_has(&e, "field 1 varint at byte 1", "truncated"));
}

static void
test_bad_tags(void)
{
	struct buf e = { NULL, 0, 0 };
	struct pb c;
	struct pb_field f;
	struct error err;
	unsigned wt;

	for (wt = 3; wt <= 4; wt++) {
		e.n = 0;
		pbw_uint(&e, 1, 1);
		pbw_key(&e, 7, wt);
		pbw_byte(&e, 0);
		error_clear(&err);
		pb_init(&c, e.p, e.n);
		CHECK(pb_next(&c, &f, &err) == 1);
		CHECK(pb_next(&c, &f, &err) == -1);
		CHECK(err_has(&err, "field 7 at byte 2", "group wire type"));
		/* The cursor stopped. */
		CHECK(pb_next(&c, &f, &err) == 0);
	}
	for (wt = 6; wt <= 7; wt++) {
		e.n = 0;
		pbw_key(&e, 9, wt);
		CHECK(read_one(e.p, e.n, &f, &err) == -1);
		CHECK(err_has(&err, "field 9 at byte 0", "unknown wire type"));
	}

	/* Tag 0, and field number 0 with a wire type. */
	CHECK(read_one((const uint8_t *)"\x00\x01", 2, &f, &err) == -1);
	CHECK(err_has(&err, "tag at byte 0", "field number 0"));
	CHECK(read_one((const uint8_t *)"\x02\x00", 2, &f, &err) == -1);
	CHECK(err_has(&err, "tag at byte 0", "field number 0"));

	/* A field number past 2^29 - 1. */
	e.n = 0;
	pbw_uint(&e, 1, 5);
	pbw_varint(&e, (uint64_t)1 << 32);
	pbw_byte(&e, 0);
	error_clear(&err);
	pb_init(&c, e.p, e.n);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(pb_next(&c, &f, &err) == -1);
	CHECK(err_has(&err, "tag at byte 2", "out of range"));
	buf_free(&e);
}

static void
test_first_error_wins(void)
{
	struct pb c;
	struct pb_field f;
	struct error err;

	error_clear(&err);
	pb_init(&c, (const uint8_t *)"\x0b", 1);
	CHECK(pb_next(&c, &f, &err) == -1);
	pb_init(&c, (const uint8_t *)"\x00", 1);
	CHECK(pb_next(&c, &f, &err) == -1);
	CHECK(err_has(&err, "group wire type", NULL));
}

/* Walk a message, skipping fields we do not know. */
static void
test_skip_unknown(void)
{
	struct buf e = { NULL, 0, 0 };
	struct pb c;
	struct pb_field f;
	struct error err;
	size_t m;
	int seen = 0;
	uint64_t v = 0;

	pbw_fixed64(&e, 100, 1);
	pbw_fixed32(&e, 101, 2);
	pbw_str(&e, 102, "skip me");
	m = pbw_begin(&e, 103);
	pbw_uint(&e, 2, 99);		/* field 2 of a sub-message */
	pbw_end(&e, m);
	pbw_uint(&e, 104, 3);
	pbw_uint(&e, 2, 42);

	error_clear(&err);
	pb_init(&c, e.p, e.n);
	while (pb_next(&c, &f, &err) == 1) {
		if (f.num == 2) {
			seen++;
			v = f.v;
		}
	}
	CHECK(err.kind == ERR_NONE);
	CHECK(seen == 1 && v == 42);
	buf_free(&e);
}

/* Offsets stay relative to the outermost buffer inside sub-cursors. */
static void
test_sub_offsets(void)
{
	struct buf e = { NULL, 0, 0 };
	struct pb c, s, s2;
	struct pb_field f, g, h;
	struct error err;
	size_t m1, m2, inner_at;
	char want[64];

	pbw_str(&e, 15, "abc");		/* 5 bytes */
	m1 = pbw_begin(&e, 1);		/* tag at 5 */
	pbw_uint(&e, 1, 7);
	m2 = pbw_begin(&e, 2);
	pbw_uint(&e, 3, 1);
	inner_at = e.n;
	pbw_byte(&e, 0x0b);			/* a group tag */
	pbw_end(&e, m2);
	pbw_end(&e, m1);
	/* Both length varints are one byte: shift the inner offset. */
	inner_at += 2;

	error_clear(&err);
	pb_init(&c, e.p, e.n);
	CHECK(pb_next(&c, &f, &err) == 1 && f.num == 15);
	CHECK(pb_next(&c, &f, &err) == 1 && f.num == 1 && f.off == 5);
	pb_sub(&c, &f, &s);
	CHECK(pb_offset(&s) == 7);
	CHECK(pb_next(&s, &g, &err) == 1 && g.num == 1 && g.v == 7 &&
	    g.off == 7);
	CHECK(pb_next(&s, &g, &err) == 1 && g.num == 2 && g.off == 9);
	pb_sub(&s, &g, &s2);
	CHECK(pb_next(&s2, &h, &err) == 1 && h.num == 3 && h.off == 11);
	CHECK(pb_next(&s2, &h, &err) == -1);
	snprintf(want, sizeof want, "field 1 at byte %zu", inner_at);
	CHECK(inner_at == 13);
	CHECK(err_has(&err, want, "group wire type"));
	/* The parent goes on past the sub-message. */
	CHECK(pb_next(&s, &g, &err) == 0);
	CHECK(pb_next(&c, &f, &err) == 0);
	buf_free(&e);
}

struct collect {
	uint64_t	v[64];
	size_t		n;
	uint64_t	reject;		/* fn fails on this value */
};

static int
collect_fn(void *arg, uint64_t v)
{
	struct collect *c = arg;

	if (v == c->reject || c->n == NITEMS(c->v))
		return -1;
	c->v[c->n++] = v;
	return 0;
}

static void
test_repeated(void)
{
	static const uint64_t vals[] = { 1, 300, 0, UINT64_MAX, 127, 128 };
	struct buf e = { NULL, 0, 0 };
	struct collect col;
	struct pb c;
	struct pb_field f;
	struct error err;
	size_t i;

	/* Packed, then unpacked, then packed again: all add up in order. */
	pbw_packed(&e, 1, vals, 3);
	pbw_unpacked(&e, 1, vals + 3, 2);
	pbw_str(&e, 2, "other");
	pbw_packed(&e, 1, vals + 5, 1);
	pbw_packed(&e, 1, NULL, 0);		/* empty packed */

	memset(&col, 0, sizeof col);
	col.reject = 999;
	error_clear(&err);
	pb_init(&c, e.p, e.n);
	while (pb_next(&c, &f, &err) == 1) {
		if (f.num == 1)
			CHECK(pb_repeated_varint(&c, &f, collect_fn, &col,
			    "T.ids", &err) == 0);
	}
	CHECK(err.kind == ERR_NONE);
	CHECK(col.n == NITEMS(vals));
	for (i = 0; i < NITEMS(vals); i++)
		CHECK(col.v[i] == vals[i]);

	/* A bad varint inside the packed run: offset of that varint. */
	e.n = 0;
	pbw_str(&e, 9, "x");			/* 3 bytes */
	pbw_key(&e, 1, PB_LEN);
	pbw_varint(&e, 3);
	pbw_byte(&e, 5);
	pbw_byte(&e, 0x80);
	pbw_byte(&e, 0x80);			/* truncated at byte 6 */
	memset(&col, 0, sizeof col);
	col.reject = 999;
	error_clear(&err);
	pb_init(&c, e.p, e.n);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(pb_repeated_varint(&c, &f, collect_fn, &col, "T.ids",
	    &err) == -1);
	CHECK(err_has(&err, "T.ids at byte 6", "truncated varint"));
	CHECK(col.n == 1 && col.v[0] == 5);

	/* A wrong wire type. */
	e.n = 0;
	pbw_fixed32(&e, 1, 5);
	error_clear(&err);
	pb_init(&c, e.p, e.n);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(pb_repeated_varint(&c, &f, collect_fn, &col, "T.ids",
	    &err) == -1);
	CHECK(err_has(&err, "T.ids at byte 0", "wire type 5"));

	/* fn refusing a value: packed and unpacked. */
	e.n = 0;
	pbw_uint(&e, 1, 4);
	pbw_packed(&e, 1, vals, 3);
	memset(&col, 0, sizeof col);
	col.reject = 300;
	error_clear(&err);
	pb_init(&c, e.p, e.n);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(pb_repeated_varint(&c, &f, collect_fn, &col, "T.ids",
	    &err) == 0);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(pb_repeated_varint(&c, &f, collect_fn, &col, "T.ids",
	    &err) == -1);
	CHECK(err_has(&err, "T.ids at byte 5", "300 rejected"));
	col.reject = 4;
	error_clear(&err);
	pb_init(&c, e.p, e.n);
	CHECK(pb_next(&c, &f, &err) == 1);
	CHECK(pb_repeated_varint(&c, &f, collect_fn, &col, "T.ids",
	    &err) == -1);
	CHECK(err_has(&err, "T.ids at byte 0", "4 rejected"));
	buf_free(&e);
}

static void
test_encoder_nesting(void)
{
	struct buf e = { NULL, 0, 0 };
	struct pb c, s;
	struct pb_field f;
	struct error err;
	size_t m, i;

	/* A sub-message over 127 bytes needs a two-byte length. */
	m = pbw_begin(&e, 3);
	for (i = 0; i < 100; i++)
		pbw_uint(&e, 1, i);
	pbw_end(&e, m);
	CHECK(e.n == 1 + 2 + 100 * 2);
	error_clear(&err);
	pb_init(&c, e.p, e.n);
	CHECK(pb_next(&c, &f, &err) == 1 && f.len == 200);
	pb_sub(&c, &f, &s);
	for (i = 0; i < 100; i++)
		CHECK(pb_next(&s, &f, &err) == 1 && f.v == i);
	CHECK(pb_next(&s, &f, &err) == 0);
	buf_free(&e);
}

int
main(void)
{
	test_varint_lengths();
	test_varint_errors();
	test_wire_types();
	test_empty();
	test_truncation();
	test_bad_tags();
	test_first_error_wins();
	test_skip_unknown();
	test_sub_offsets();
	test_repeated();
	test_encoder_nesting();
	printf("test_pb: %u checks passed\n", checks);
	return 0;
}
