/* test_stream.c: a stream over memory in pieces (a request body as
 * libevent received it) reads exactly as the same bytes in one piece:
 * peeks and varints that straddle pieces, empty pieces, a cut end, and
 * slurp with its limit. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "nitems.h"
#include "stream.h"
#include "testlib.h"

#define LEN	70000

static uint8_t data[LEN];

/* data cut at the given offsets (ascending), with an empty piece added
 * after each cut. */
static size_t
cut(const size_t *at, size_t n, struct iovec *iov)
{
	size_t i, k = 0, prev = 0;

	for (i = 0; i <= n; i++) {
		size_t end = i < n ? at[i] : LEN;

		iov[k].iov_base = data + prev;
		iov[k++].iov_len = end - prev;
		iov[k].iov_base = data + end;
		iov[k++].iov_len = 0;
		prev = end;
	}
	return k;
}

static void
same_as_one(const struct iovec *iov, size_t n)
{
	struct stream *a = stream_iov(iov, n), *b = stream_mem(data, LEN);
	struct error err = { 0 };
	const uint8_t *pa, *pb;
	size_t ga, gb, step;
	uint64_t va, vb;
	int ea, eb;

	/* Varints, then peeks and takes of growing sizes, to the end. */
	for (step = 1; ; step = step * 3 + 1) {
		CHECK(stream_varint(a, &va, &ea, "v", &err) == 0);
		CHECK(stream_varint(b, &vb, &eb, "v", &err) == 0);
		CHECK(ea == eb);
		if (ea)
			break;
		CHECK(va == vb);
		CHECK(stream_offset(a) == stream_offset(b));
		CHECK(stream_peek(a, step, &pa, &ga, &err) == 0);
		CHECK(stream_peek(b, step, &pb, &gb, &err) == 0);
		CHECK(ga == gb && memcmp(pa, pb, ga) == 0);
		if (ga < step)
			break;
		CHECK(stream_take(a, step, &pa, "t", &err) == 0);
		CHECK(stream_take(b, step, &pb, "t", &err) == 0);
		CHECK(memcmp(pa, pb, step) == 0);
		if (step > LEN)
			step = 1;
	}
	stream_free(a);
	stream_free(b);
}

static void
slurp(const struct iovec *iov, size_t n)
{
	struct stream *s = stream_iov(iov, n);
	struct error err = { 0 };
	uint8_t *out;
	size_t len;

	CHECK(stream_slurp(s, LEN, &out, &len, &err) == 0);
	CHECK(len == LEN && memcmp(out, data, LEN) == 0);
	free(out);
	stream_free(s);
	/* One byte under the limit: refused, saying so. */
	s = stream_iov(iov, n);
	CHECK(stream_slurp(s, LEN - 1, &out, &len, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE);
	stream_free(s);
}

int
main(void)
{
	static const size_t cuts1[] = { 1, 2, 3, 4096, 4097, 65535 };
	static const size_t cuts2[] = { 33333 };
	struct iovec iov[32];
	size_t i, n;
	struct stream *s;
	struct error err = { 0 };
	const uint8_t *p;
	size_t got;

	/* Varints of every length side by side, then plain bytes. */
	for (i = 0; i < LEN; i++)
		data[i] = (uint8_t)(i % 7 == 6 ? i & 0x7f : (i * 37) | 0x80);
	data[LEN - 1] = 1;

	n = cut(cuts1, NITEMS(cuts1), iov);
	same_as_one(iov, n);
	slurp(iov, n);
	n = cut(cuts2, NITEMS(cuts2), iov);
	same_as_one(iov, n);
	slurp(iov, n);

	/* No pieces, and only empty ones: an empty stream. */
	s = stream_iov(NULL, 0);
	CHECK(stream_peek(s, 10, &p, &got, &err) == 0 && got == 0);
	stream_free(s);
	iov[0].iov_base = data;
	iov[0].iov_len = 0;
	s = stream_iov(iov, 1);
	CHECK(stream_peek(s, 10, &p, &got, &err) == 0 && got == 0);
	stream_free(s);

	/* A take past the end names what and where. */
	iov[0].iov_len = 5;
	s = stream_iov(iov, 1);
	CHECK(stream_take(s, 6, &p, "Thing.field", &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "Thing.field"));
	stream_free(s);

	printf("test_stream: %u checks\n", checks);
	return 0;
}
