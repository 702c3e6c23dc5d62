/* test_sinkpipe.c: a decoder on a thread of its own (sinkpipe.c) makes
 * the same calls on the sink, in the same order, as the decoder run on
 * the caller's thread: real Go profiles (the fixtures), folded stacks
 * with records larger than the queue's chunks, a truncated profile (the
 * decoder's error, after the calls before it), a sink that fails (its
 * error, no call after it, the decoder stopped), and the look at the
 * next stack (stack_ahead) true to the stack that follows; a decoder
 * that keeps its stack ids, and one that breaks its format's word. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bounds.h"
#include "buf.h"
#include "error.h"
#include "format.h"
#include "model.h"
#include "mstr.h"
#include "sinkpipe.h"
#include "stream.h"
#include "testlib.h"
/* The checking sink of the fuzz harnesses (tests/fuzz/fuzz.h): a digest
 * of every call, a call made to fail, stack_ahead's word checked, and
 * fz_decode_piped: a decode both ways, compared. */
#include "../fuzz/fuzz.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

static int
read_fixture(const char *name, struct buf *b)
{
	char path[512];
	uint8_t chunk[65536];
	size_t n;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", FIXTURES_DIR, name);
	if ((f = fopen(path, "rb")) == NULL)
		return 0;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(b, chunk, n);
	fclose(f);
	return 1;
}

/* The real profiles, whole, and with a sink that fails. */
static void
test_fixtures(const struct limits *lim)
{
	static const char *names[] = { "cpu.pprof", "heap.pprof",
	    "block.pprof", "mutex.pprof" };
	struct buf b;
	struct fz_result r;
	size_t i, calls;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		memset(&b, 0, sizeof b);
		CHECK(read_fixture(names[i], &b));
		r = fz_decode_piped(b.p, b.n, lim, 0);
		CHECK(r.rc == 0 && r.meta);
		calls = r.calls;
		CHECK(calls > 10);
		/* stack_ahead's words were given, and held (fuzz.h). */
		CHECK(r.hints > 0);
		/* A sink failing early, half-way, at meta. */
		r = fz_decode_piped(b.p, b.n, lim, 3);
		CHECK(r.rc == -1 && r.kind == ERR_NO_SPACE);
		CHECK(r.calls == 3 && !r.meta);
		r = fz_decode_piped(b.p, b.n, lim, calls / 2);
		CHECK(r.rc == -1 && HAS(r.msg, "fuzz sink: call"));
		r = fz_decode_piped(b.p, b.n, lim, calls);
		CHECK(r.rc == -1 && r.calls == calls && !r.meta);
		buf_free(&b);
	}
}

/* A pprof cut short: the decoder's error, once every call before it was
 * made (the sink's digests compare those). */
static void
test_truncated(const struct limits *lim)
{
	struct buf b, raw;
	struct stream *in;
	struct error err = { 0 };
	const struct format *fmt = NULL;
	const uint8_t *p;
	size_t got, cut;
	struct fz_result r;

	memset(&b, 0, sizeof b);
	memset(&raw, 0, sizeof raw);
	CHECK(read_fixture("heap.pprof", &b));
	in = stream_mem(b.p, b.n);
	CHECK(format_open(&in, "pprof", lim, &fmt, &err) == 0);
	for (;;) {
		CHECK(stream_some(in, &p, &got, &err) == 0);
		if (got == 0)
			break;
		buf_add(&raw, p, got);
		CHECK(stream_take(in, got, &p, "t", &err) == 0);
	}
	stream_free(in);
	for (cut = raw.n / 7; cut < raw.n; cut += raw.n / 7) {
		r = fz_decode_piped(raw.p, cut, lim, 0);
		CHECK(r.rc == -1 && r.kind == ERR_INPUT);
	}
	buf_free(&raw);
	buf_free(&b);
}

/* Folded stacks whose records pass a chunk of the queue: a stack of
 * 40,000 frames, a function name of 400 kB, and 200,000 stacks after
 * them (the queue fills and the decoder waits). */
static void
test_large_records(void)
{
	struct limits lim;
	struct buf t;
	struct fz_result r;
	size_t i;
	char line[64];

	bounds_default(&lim);
	lim.max_stack_depth = 50000;
	lim.max_string_len = 1u << 20;
	memset(&t, 0, sizeof t);
	buf_add(&t, "main", strlen("main"));
	for (i = 0; i < 40000; i++) {
		snprintf(line, sizeof line, ";f%zu", i % 977);
		buf_add(&t, line, strlen(line));
	}
	buf_add(&t, " 7\nmain;", strlen(" 7\nmain;"));
	for (i = 0; i < 400000; i++)
		buf_add(&t, "abcdefghij" + i % 10, 1);
	buf_add(&t, " 3\n", strlen(" 3\n"));
	for (i = 0; i < 200000; i++) {
		snprintf(line, sizeof line, "main;g%zu;h%zu;k%zu %zu\n",
		    i % 13, i % 101, i % 1009, i % 5 + 1);
		buf_add(&t, line, strlen(line));
	}
	r = fz_decode_piped(t.p, t.n, &lim, 0);
	CHECK(r.rc == 0 && r.meta);
	CHECK(r.stacks == 200002);
	/* Hints for the stacks whose next one is in the same chunk and
	 * starts below the shared part with a frame made already: once
	 * the first 1009 lines have made every frame, nearly all. */
	CHECK(r.hints * 10 > r.stacks * 9);
	r = fz_decode_piped(t.p, t.n, &lim, r.calls - 10);
	CHECK(r.rc == -1);
	buf_free(&t);
}

/* A decoder of no bytes that keeps its stack ids: two stacks, then a
 * sample of each (as Perfetto's decoder does with a callstack it has
 * seen), or, with `bad`, a sample naming an id it was never given. */
static int fake_bad;

static int
fake_decode(struct stream *in, const struct decode_opts *opts,
    const struct limits *lim, const struct sink *k, struct error *err)
{
	struct model_function fn = { MSTR_LIT("f"), MSTR_LIT("f"),
	    MSTR_LIT(""), 0 };
	struct model_frame fr;
	struct model_sample sm;
	struct model_meta mm;
	int64_t frame, s1, s2, v = 1;

	memset(&fr, 0, sizeof fr);
	memset(&sm, 0, sizeof sm);
	memset(&mm, 0, sizeof mm);
	if (k->metric(k->ctx, MSTR_LIT("samples"), MSTR_LIT("count"),
	    err) == -1 || (fr.function = k->function(k->ctx, &fn, err)) <= 0 ||
	    (frame = k->frame(k->ctx, &fr, err)) <= 0 ||
	    (s1 = k->stack(k->ctx, &frame, 1, err)) <= 0 ||
	    (s2 = k->stack(k->ctx, (int64_t[]){ frame, frame }, 2,
	    err)) <= 0)
		return -1;
	sm.values = &v;
	sm.nvalues = 1;
	sm.stack = fake_bad ? s2 + 5 : s1;
	if (k->sample(k->ctx, &sm, err) == -1)
		return -1;
	sm.stack = s2;
	if (k->sample(k->ctx, &sm, err) == -1)
		return -1;
	mm.default_metric = -1;
	return k->meta(k->ctx, &mm, err);
}

static int
fake_run(int stacks_once, int bad, struct error *err)
{
	struct format f = { "fake", NULL, fake_decode, stacks_once };
	struct fz_sink s;
	struct decode_opts opts;
	struct limits lim;
	struct sink k;
	int rc;

	memset(&opts, 0, sizeof opts);
	memset(err, 0, sizeof *err);
	bounds_default(&lim);
	k = fz_sink_init(&s, &lim);
	fake_bad = bad;
	rc = sinkpipe_decode(&f, NULL, &opts, &lim, &k, err);
	free(s.last);
	CHECK(rc == -1 || s.meta);
	return rc;
}

/* Ids kept by a decoder map back whatever their age, unless its format
 * says its stacks are used once; an id never given is an error. */
static void
test_ids(void)
{
	struct error err;

	CHECK(fake_run(0, 0, &err) == 0);
	CHECK(fake_run(1, 0, &err) == -1 && err.kind == ERR_INTERNAL);
	CHECK(HAS(err.msg, "fake decoder: stack 1 used after the next one"));
	CHECK(fake_run(0, 1, &err) == -1);
	CHECK(HAS(err.msg, "a sink id 7 it was not given"));
}

int
main(void)
{
	struct limits lim;

	bounds_default(&lim);
	test_fixtures(&lim);
	test_truncated(&lim);
	test_large_records();
	test_ids();
	printf("test_sinkpipe: %u checks passed\n", checks);
	return 0;
}
