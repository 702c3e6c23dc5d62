/* test_sinkpipe.c: a decoder on a thread of its own (sinkpipe.c) makes
 * the same calls on the sink, in the same order, as the decoder run on
 * the caller's thread: real Go profiles (the fixtures), folded stacks
 * with records larger than the queue's chunks, a truncated profile (the
 * decoder's error, after the calls before it), a sink that fails (its
 * error, no call after it, the decoder stopped), and the look at the
 * next stack (stack_ahead) true to the stack that follows. */
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

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

/* A sink that folds every call (ids included) into a digest, gives ids
 * of its own, fails where told, and checks the hints of stack_ahead. */
struct dsink {
	uint64_t digest;
	size_t calls;
	int64_t next_id;
	size_t fail_at;			/* fail the nth call (0: never) */
	int failed, after_fail;		/* a call came after the failure */
	int meta;
	/* stack_ahead's hint, checked on the next stack. */
	int64_t *last;
	size_t nlast, keep, hints, stacks;
	int64_t frame;
};

static void
ds_mix(struct dsink *d, uint64_t v)
{
	d->digest = (d->digest ^ v) * 0x100000001b3ull;
}

static void
ds_str(struct dsink *d, struct mstr s)
{
	size_t i;

	ds_mix(d, s.n);
	for (i = 0; i < s.n; i++)
		ds_mix(d, (uint8_t)s.p[i]);
}

static int
ds_call(struct dsink *d, char c, struct error *err)
{
	if (d->failed)
		d->after_fail = 1;
	d->calls++;
	ds_mix(d, (uint8_t)c);
	if (d->fail_at != 0 && d->calls == d->fail_at) {
		d->failed = 1;
		return error_set(err, ERR_NO_SPACE, "dsink: call %zu failed",
		    d->calls);
	}
	return 0;
}

static int
ds_metric(void *ctx, struct mstr type, struct mstr unit, struct error *err)
{
	struct dsink *d = ctx;

	if (ds_call(d, 'T', err) == -1)
		return -1;
	ds_str(d, type);
	ds_str(d, unit);
	return 0;
}

static int64_t
ds_mapping(void *ctx, const struct model_mapping *m, struct error *err)
{
	struct dsink *d = ctx;

	if (ds_call(d, 'M', err) == -1)
		return -1;
	ds_mix(d, m->start);
	ds_mix(d, m->limit);
	ds_mix(d, m->offset);
	ds_mix(d, m->flags);
	ds_str(d, m->file);
	ds_str(d, m->build_id);
	return ++d->next_id;
}

static int64_t
ds_function(void *ctx, const struct model_function *f, struct error *err)
{
	struct dsink *d = ctx;

	if (ds_call(d, 'F', err) == -1)
		return -1;
	ds_str(d, f->name);
	ds_str(d, f->system_name);
	ds_str(d, f->file);
	ds_mix(d, (uint64_t)f->start_line);
	return ++d->next_id;
}

static int64_t
ds_frame(void *ctx, const struct model_frame *f, struct error *err)
{
	struct dsink *d = ctx;

	if (ds_call(d, 'R', err) == -1)
		return -1;
	ds_mix(d, (uint64_t)f->function);
	ds_mix(d, (uint64_t)f->mapping);
	ds_mix(d, f->address);
	ds_mix(d, (uint64_t)f->line);
	ds_mix(d, (uint64_t)f->column);
	ds_mix(d, f->flags);
	/* Ids repeat (a sink's frames are deduplicated): 1 in 8 the same. */
	return d->next_id % 8 == 3 ? d->next_id : ++d->next_id;
}

static int64_t
ds_stack_ahead(void *ctx, const int64_t *fr, size_t n, size_t keep,
    int64_t frame, struct error *err)
{
	struct dsink *d = ctx;
	size_t i;

	/* The hint of the stack before was about this one. */
	if (d->keep != SIZE_MAX) {
		CHECK(d->keep <= n && d->keep <= d->nlast);
		for (i = 0; i < d->keep; i++)
			CHECK(fr[n - 1 - i] == d->last[d->nlast - 1 - i]);
		CHECK(d->keep == n || fr[n - 1 - d->keep] == d->frame);
		d->hints++;
	}
	d->stacks++;
	d->keep = keep;
	d->frame = frame;
	d->last = xreallocarray(d->last, n + 1, sizeof *d->last);
	if (n > 0)
		memcpy(d->last, fr, n * sizeof *fr);
	d->nlast = n;
	if (ds_call(d, 'S', err) == -1)
		return -1;
	ds_mix(d, n);
	for (i = 0; i < n; i++)
		ds_mix(d, (uint64_t)fr[i]);
	return ++d->next_id;
}

static int64_t
ds_stack(void *ctx, const int64_t *fr, size_t n, struct error *err)
{
	return ds_stack_ahead(ctx, fr, n, SIZE_MAX, 0, err);
}

static int64_t
ds_labelset(void *ctx, const struct model_label *l, size_t n,
    struct error *err)
{
	struct dsink *d = ctx;
	size_t i;

	if (ds_call(d, 'L', err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		ds_str(d, l[i].key);
		ds_mix(d, (uint64_t)l[i].is_num);
		if (l[i].is_num) {
			ds_mix(d, (uint64_t)l[i].num);
			ds_str(d, l[i].num_unit);
		} else
			ds_str(d, l[i].str);
	}
	return ++d->next_id;
}

static int
ds_sample(void *ctx, const struct model_sample *s, struct error *err)
{
	struct dsink *d = ctx;
	size_t i;

	if (ds_call(d, 'X', err) == -1)
		return -1;
	ds_mix(d, (uint64_t)s->stack);
	ds_mix(d, (uint64_t)s->labelset);
	ds_mix(d, (uint64_t)s->time_ns);
	ds_mix(d, s->nvalues);
	for (i = 0; i < s->nvalues; i++)
		ds_mix(d, (uint64_t)s->values[i]);
	return 0;
}

static int
ds_meta(void *ctx, const struct model_meta *m, struct error *err)
{
	struct dsink *d = ctx;
	size_t i;

	if (ds_call(d, 'Z', err) == -1)
		return -1;
	CHECK(!d->meta);
	d->meta = 1;
	ds_mix(d, (uint64_t)m->time_ns);
	ds_mix(d, (uint64_t)m->duration_ns);
	ds_mix(d, (uint64_t)m->period);
	ds_str(d, m->period_type);
	ds_str(d, m->period_unit);
	for (i = 0; i < m->ncomments; i++)
		ds_str(d, m->comments[i]);
	ds_mix(d, (uint64_t)m->default_metric);
	ds_str(d, m->doc_url);
	ds_mix(d, m->samples);
	ds_mix(d, m->dropped_samples);
	for (i = 0; i < m->ncounts; i++) {
		ds_str(d, mstr_from(m->counts[i].name));
		ds_mix(d, m->counts[i].n);
	}
	return 0;
}

static void
ds_sizes(void *ctx, const struct model_sizes *sz)
{
	struct dsink *d = ctx;

	ds_mix(d, 'Y');
	ds_mix(d, sz->strings + 3 * sz->mappings + 5 * sz->functions +
	    7 * sz->frames + 11 * sz->samples);
	ds_mix(d, (uint64_t)sz->time_ns);
	ds_mix(d, (uint64_t)sz->time_known);
}

struct run {
	int rc;
	struct error err;
	struct dsink d;
};

/* Decodes data (format "auto") into a fresh dsink, through the pipe or
 * not, the sink failing at call fail_at (0: never). */
static struct run
run(const uint8_t *data, size_t len, const struct limits *lim, int piped,
    size_t fail_at)
{
	struct run r;
	struct sink k;
	struct decode_opts opts;
	struct stream *in = stream_mem(data, len);
	const struct format *fmt = NULL;

	memset(&r, 0, sizeof r);
	memset(&opts, 0, sizeof opts);
	r.d.digest = 0xcbf29ce484222325ull;
	r.d.fail_at = fail_at;
	r.d.keep = SIZE_MAX;
	k = (struct sink){ &r.d, ds_metric, ds_mapping, ds_function,
	    ds_frame, ds_stack, ds_labelset, ds_sample, ds_meta, ds_sizes,
	    ds_stack_ahead };
	r.rc = format_open(&in, "auto", lim, &fmt, &r.err);
	CHECK(r.rc == 0);
	r.rc = piped ? sinkpipe_decode(fmt, in, &opts, lim, &k, &r.err) :
	    fmt->decode(in, &opts, lim, &k, &r.err);
	stream_free(in);
	free(r.d.last);
	r.d.last = NULL;
	return r;
}

/* Both ways alike: the result, the error, every call. */
static struct run
same(const uint8_t *data, size_t len, const struct limits *lim,
    size_t fail_at)
{
	struct run a = run(data, len, lim, 0, fail_at);
	struct run b = run(data, len, lim, 1, fail_at);

	CHECK(a.rc == b.rc);
	CHECK(a.err.kind == b.err.kind);
	CHECK(strcmp(a.err.msg, b.err.msg) == 0);
	CHECK(a.d.calls == b.d.calls);
	CHECK(a.d.digest == b.d.digest);
	CHECK(a.d.meta == b.d.meta);
	CHECK(!b.d.after_fail);
	return b;
}

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

/* The real profiles, whole, cut short, and with a sink that fails. */
static void
test_fixtures(const struct limits *lim)
{
	static const char *names[] = { "cpu.pprof", "heap.pprof",
	    "block.pprof", "mutex.pprof" };
	struct buf b;
	struct run r;
	size_t i, calls;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		memset(&b, 0, sizeof b);
		CHECK(read_fixture(names[i], &b));
		r = same(b.p, b.n, lim, 0);
		CHECK(r.rc == 0 && r.d.meta);
		calls = r.d.calls;
		CHECK(calls > 10);
		/* The sink's hints were given and held (checked as they
		 * came). */
		CHECK(r.d.hints > 0);
		/* A sink failing early, half-way, at meta. */
		r = same(b.p, b.n, lim, 3);
		CHECK(r.rc == -1 && r.err.kind == ERR_NO_SPACE);
		CHECK(r.d.calls == 3 && !r.d.meta);
		r = same(b.p, b.n, lim, calls / 2);
		CHECK(r.rc == -1 && HAS(r.err.msg, "dsink: call"));
		r = same(b.p, b.n, lim, calls);
		CHECK(r.rc == -1 && r.d.calls == calls);
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
	struct run r;

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
		r = same(raw.p, cut, lim, 0);
		CHECK(r.rc == -1 && r.err.kind == ERR_INPUT);
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
	struct run r;
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
	r = same(t.p, t.n, &lim, 0);
	CHECK(r.rc == 0 && r.d.meta);
	CHECK(r.d.stacks == 200002);
	/* Hints for the stacks whose next one is in the same chunk and
	 * starts below the shared part with a frame made already: once
	 * the first 1009 lines have made every frame, nearly all. */
	CHECK(r.d.hints * 10 > r.d.stacks * 9);
	r = same(t.p, t.n, &lim, r.d.calls - 10);
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
	struct dsink d;
	struct sink k;
	struct decode_opts opts;
	struct limits lim;
	int rc;

	memset(&d, 0, sizeof d);
	memset(&opts, 0, sizeof opts);
	memset(err, 0, sizeof *err);
	bounds_default(&lim);
	d.keep = SIZE_MAX;
	k = (struct sink){ &d, ds_metric, ds_mapping, ds_function,
	    ds_frame, ds_stack, ds_labelset, ds_sample, ds_meta, NULL, NULL };
	fake_bad = bad;
	rc = sinkpipe_decode(&f, NULL, &opts, &lim, &k, err);
	free(d.last);
	CHECK(rc == -1 || d.meta);
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
