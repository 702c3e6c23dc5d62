/* test_perfetto.c: the Perfetto decoder against traces built by hand with
 * pftenc.h, into a recording sink; and its sniffer against those traces
 * and the pprof fixtures. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "buf.h"
#include "error.h"
#include "bounds.h"
#include "model.h"
#include "nitems.h"
#include "perfetto.h"
#include "pftenc.h"
#include "stream.h"
#include "testrec.h"

#ifndef FIXTURES_DIR
#define FIXTURES_DIR "tests/fixtures"
#endif

static unsigned tests;

/* Perfetto's own checks on what reaches the recording sink. */
static void
pft_check_stack(const struct rec *r, const int64_t *ids, size_t n)
{
	size_t i;

	/* The decoder dedupes stacks: never the same one twice. */
	for (i = 0; i < r->nstacks; i++)
		CHECK(r->stacks[i].n != n ||
		    memcmp(r->stacks[i].ids, ids, n * sizeof *ids) != 0);
}

static void
pft_check_sample(const struct rec *r, const struct model_sample *s)
{
	CHECK(s->values[0] == 1);
}

static const struct rec_hooks pft_hooks = {
	.stack = pft_check_stack,
	.sample = pft_check_sample,
};

/* The recording sink, emptied, with the checks above. */
static struct sink
pft_sink(struct rec *r)
{
	struct sink s = rec_sink(r);

	r->hooks = &pft_hooks;
	return s;
}

/* ---- looking at what was recorded ---- */

/* "leaf;mid;root" by function name ("@0x..." without one), or "". */
static const char *
stack_str(const struct rec *r, int64_t stack, char *buf, size_t size)
{
	const struct rstack *s;
	size_t i, n = 0;

	buf[0] = '\0';
	if (stack == 0)
		return buf;
	s = &r->stacks[stack - 1];
	for (i = 0; i < s->n; i++) {
		const struct model_frame *f = &r->frames[s->ids[i] - 1];

		if (f->function != 0)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
			    i ? ";" : "", r->funcs[f->function - 1].name);
		else
			n += (size_t)snprintf(buf + n, size - n, "%s@%#" PRIx64,
			    i ? ";" : "", f->address);
		CHECK(n < size);
	}
	return buf;
}

static const char *
sample_stack(const struct rec *r, size_t i)
{
	static char buf[1024];

	CHECK(i < r->nsamples);
	return stack_str(r, r->samples[i].stack, buf, sizeof buf);
}

static const struct rlabel *
label(const struct rec *r, size_t sample, const char *key)
{
	const struct rlabelset *ls;
	size_t i;

	CHECK(sample < r->nsamples);
	if (r->samples[sample].labelset == 0)
		return NULL;
	ls = &r->labelsets[r->samples[sample].labelset - 1];
	for (i = 0; i < ls->n; i++)
		if (strcmp(ls->l[i].key, key) == 0)
			return &ls->l[i];
	return NULL;
}

static const char *
label_str(const struct rec *r, size_t sample, const char *key)
{
	const struct rlabel *l = label(r, sample, key);

	if (l == NULL)
		return NULL;
	CHECK(!l->is_num);
	return l->str;
}

static int64_t
label_num(const struct rec *r, size_t sample, const char *key)
{
	const struct rlabel *l = label(r, sample, key);

	if (l == NULL)
		return -1;
	CHECK(l->is_num);
	return l->num;
}

static int
metric(const struct rec *r, const char *type, const char *unit)
{
	size_t i;

	for (i = 0; i < r->nmetrics; i++)
		if (strcmp(r->mtype[i], type) == 0 &&
		    strcmp(r->munit[i], unit) == 0)
			return (int)i;
	return -1;
}

static int64_t
value(const struct rec *r, size_t sample, int m)
{
	CHECK(sample < r->nsamples);
	CHECK(m >= 0);
	return (size_t)m < r->samples[sample].nvalues ?
	    r->samples[sample].values[m] : 0;
}

static uint64_t
count(const struct rec *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->meta.ncounts; i++)
		if (strcmp(r->cname[i], name) == 0)
			return r->cn[i];
	return 0;
}

static int
decode(const struct buf *e, struct rec *r, struct error *err)
{
	struct decode_opts opts;
	struct limits lim;
	struct stream *in;
	struct sink s = pft_sink(r);
	int rc;

	memset(&opts, 0, sizeof opts);
	bounds_default(&lim);
	error_clear(err);
	/* (stream_mem copies from its pointer even when empty.) */
	in = stream_mem(e->p != NULL ? e->p : (const uint8_t *)"", e->n);
	rc = perfetto_decode(in, &opts, &lim, &s, err);
	stream_free(in);
	if (rc == 0) {
		CHECK(r->has_meta);
		CHECK(!r->after_meta);
		CHECK(err->kind == ERR_NONE);
	} else
		CHECK(err->kind != ERR_NONE);
	return rc;
}

static void
decode_ok(const struct buf *e, struct rec *r)
{
	struct error err;

	if (decode(e, r, &err) != 0) {
		fprintf(stderr, "decode: %s\n", err.msg);
		CHECK(0);
	}
}

/* Decode must fail with kind, and the message must hold each word. */
static void
decode_bad(const struct buf *e, enum error_kind kind, const char *w1,
    const char *w2)
{
	struct error err;
	struct rec r;

	CHECK(decode(e, &r, &err) == -1);
	if (err.kind != kind || strstr(err.msg, "byte") == NULL ||
	    (w1 != NULL && strstr(err.msg, w1) == NULL) ||
	    (w2 != NULL && strstr(err.msg, w2) == NULL)) {
		fprintf(stderr, "unexpected error (%d): %s\n", err.kind,
		    err.msg);
		CHECK(0);
	}
	rec_free(&r);
}

/* The decode succeeds, skipping npkt packets whose contents do not parse
 * and dropping nsmp of their samples as malformed, and stores nstored. */
static void
decode_malformed(const struct buf *e, uint64_t npkt, uint64_t nsmp,
    size_t nstored)
{
	struct rec r;

	decode_ok(e, &r);
	if (count(&r, "malformed_packets") != npkt ||
	    count(&r, "malformed") != nsmp || r.nsamples != nstored) {
		fprintf(stderr, "malformed_packets %" PRIu64 ", malformed %"
		    PRIu64 ", stored %zu\n", count(&r, "malformed_packets"),
		    count(&r, "malformed"), r.nsamples);
		CHECK(0);
	}
	CHECK(r.meta.samples == r.nsamples + r.meta.dropped_samples);
	rec_free(&r);
}

/* ---- building blocks ---- */

/* One packet interning functions names[0..n) (root first) as function
 * names, frames and source-less frames with iids base.., and callstack
 * cs = those frames. */
static void
put_stack(struct buf *e, uint64_t seq, uint64_t flags, uint64_t cs,
    uint64_t base, const char *const *names, size_t n)
{
	uint64_t ids[16];
	size_t p, m, i;

	CHECK(n <= NITEMS(ids));
	p = pftenc_packet(e);
	pftenc_header(e, PFTENC_NONE, seq, flags);
	m = pbw_begin(e, PFT_INTERNED_DATA);
	for (i = 0; i < n; i++) {
		pftenc_istring(e, PFT_I_FUNCTION_NAMES, base + i, names[i]);
		pftenc_frame(e, base + i, base + i, PFTENC_NONE, PFTENC_NONE,
		    PFTENC_NONE, PFTENC_NONE);
		ids[i] = base + i;
	}
	pftenc_callstack(e, cs, ids, n, 1);
	pbw_end(e, m);
	pbw_end(e, p);
}

/* An empty packet that only clears (or marks dropped) a sequence. */
static void
put_flags(struct buf *e, uint64_t seq, uint64_t flags, int cleared_bool,
    int dropped)
{
	size_t p = pftenc_packet(e);

	pftenc_header(e, PFTENC_NONE, seq, flags);
	if (cleared_bool)
		pbw_uint(e, PFT_STATE_CLEARED, 1);
	if (dropped)
		pbw_uint(e, PFT_PACKET_DROPPED, 1);
	pbw_end(e, p);
}

/* ---- the tests ---- */

static void
test_stack_sample_interned(void)
{
	static const uint8_t bid[] = { 0xde, 0xad, 0xbe, 0xef };
	uint64_t paths[] = { 1, 2, 3 }, frames[] = { 1, 2, 3 };
	struct buf e = { 0 };
	struct rec r;
	size_t p, m, i;
	int wall;

	/* Names of the process and thread first. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 50, 7, PFTENC_NONE);
	m = pbw_begin(&e, PFT_PROCESS_TREE);
	{
		size_t pr = pbw_begin(&e, 1), th;

		pbw_uint(&e, 1, 10);
		pbw_str(&e, 3, "/usr/bin/server");
		pbw_str(&e, 3, "--flag");
		pbw_end(&e, pr);
		th = pbw_begin(&e, 2);
		pbw_uint(&e, 1, 11);
		pbw_str(&e, 2, "worker");
		pbw_uint(&e, 3, 10);
		pbw_end(&e, th);
	}
	pbw_end(&e, m);
	pbw_end(&e, p);

	/* The sampler's sequence: clear and intern everything. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 100, 1, PFT_SEQ_CLEARED | PFT_SEQ_NEEDS);
	pbw_uint(&e, PFT_PACKET_DROPPED, 1);	/* first packet: set too */
	m = pbw_begin(&e, PFT_INTERNED_DATA);
	pftenc_istring(&e, PFT_I_FUNCTION_NAMES, 1, "main");
	pftenc_istring(&e, PFT_I_FUNCTION_NAMES, 2, "serve");
	pftenc_istring(&e, PFT_I_FUNCTION_NAMES, 3, "parse");
	pftenc_istring(&e, PFT_I_SOURCE_PATHS, 1, "src/server.c");
	{
		size_t b = pbw_begin(&e, PFT_I_BUILD_IDS);

		pbw_uint(&e, 1, 1);
		pbw_bytes(&e, 2, bid, sizeof bid);
		pbw_end(&e, b);
	}
	pftenc_istring(&e, PFT_I_MAPPING_PATHS, 1, "usr");
	pftenc_istring(&e, PFT_I_MAPPING_PATHS, 2, "lib");
	pftenc_istring(&e, PFT_I_MAPPING_PATHS, 3, "libserver.so");
	pftenc_mapping(&e, 1, 1, 0x1000, 0x9000, 0x200, paths, 3);
	pftenc_frame(&e, 1, 1, 1, 0x10, 1, 5);
	pftenc_frame(&e, 2, 2, 1, 0x20, 1, 15);
	pftenc_frame(&e, 3, 3, 1, 0x30, PFTENC_NONE, PFTENC_NONE);
	pftenc_callstack(&e, 1, frames, 3, 0);
	pftenc_callstack(&e, 2, frames, 2, 1);
	pftenc_task(&e, PFT_I_TASKS, 1, PFTENC_NONE, 11, PFTENC_NONE);
	pftenc_exec(&e, PFT_I_EXECS, 1, 2, 2);
	pftenc_counter(&e, PFT_I_COUNTERS, 1, "wall-time", 1, NULL,
	    PFTENC_NONE);
	pbw_end(&e, m);
	pbw_end(&e, p);

	pftenc_stack_sample_iids(&e, 1000, 1, PFT_SEQ_NEEDS, 1, 1, 1, 1, 500);
	pftenc_stack_sample_iids(&e, 3000, 1, PFT_SEQ_NEEDS, 2, 1, 1, 1, 700);
	pftenc_stack_sample_iids(&e, 2000, 1, PFT_SEQ_NEEDS, 1, 1, 1, 1, 300);

	decode_ok(&e, &r);
	CHECK(r.nmetrics == 2);
	CHECK(STREQ(r.mtype[0], "samples") && STREQ(r.munit[0], "count"));
	CHECK((wall = metric(&r, "wall_time", "nanoseconds")) == 1);
	CHECK(r.meta.default_metric == wall);
	CHECK(r.nsamples == 3);
	CHECK(STREQ(sample_stack(&r, 0), "parse;serve;main"));
	CHECK(STREQ(sample_stack(&r, 1), "serve;main"));
	CHECK(r.samples[0].stack == r.samples[2].stack);
	CHECK(value(&r, 0, wall) == 500 && value(&r, 1, wall) == 700 &&
	    value(&r, 2, wall) == 300);
	CHECK(r.samples[0].time_ns == 1000 && r.samples[1].time_ns == 3000);
	CHECK(r.meta.time_ns == 1000 && r.meta.duration_ns == 2000);
	CHECK(r.meta.samples == 3 && r.meta.dropped_samples == 0);
	CHECK(r.meta.ncounts == 0);
	for (i = 0; i < 3; i++) {
		/* pid inferred from the thread's tgid. */
		CHECK(label_num(&r, i, "pid") == 10);
		CHECK(label_num(&r, i, "tid") == 11);
		CHECK(label_num(&r, i, "cpu") == 2);
		CHECK(STREQ(label_str(&r, i, "cpu_mode"), "kernel"));
		CHECK(STREQ(label_str(&r, i, "process"), "/usr/bin/server"));
		CHECK(STREQ(label_str(&r, i, "thread"), "worker"));
	}
	CHECK(r.nlabelsets == 1);
	/* Mapping, functions and frames, each once. */
	CHECK(r.nmaps == 1);
	CHECK(STREQ(r.maps[0].file, "/usr/lib/libserver.so"));
	CHECK(STREQ(r.maps[0].build_id, "deadbeef"));
	CHECK(r.maps[0].m.start == 0x1000 && r.maps[0].m.limit == 0x9000 &&
	    r.maps[0].m.offset == 0x200);
	CHECK(r.nfuncs == 3 && r.nframes == 3 && r.nstacks == 2);
	CHECK(STREQ(r.funcs[r.frames[r.stacks[0].ids[2] - 1].function - 1].file,
	    "src/server.c"));
	/* Leaf first: parse at 0x30, then serve at 0x20 line 15. */
	CHECK(r.frames[r.stacks[0].ids[0] - 1].address == 0x30);
	CHECK(r.frames[r.stacks[0].ids[1] - 1].address == 0x20);
	CHECK(r.frames[r.stacks[0].ids[1] - 1].line == 15);
	CHECK(r.frames[r.stacks[0].ids[0] - 1].mapping == 1);
	rec_free(&r);
	buf_free(&e);
	tests++;
}

static void
test_stack_sample_inline(void)
{
	struct buf e = { 0 };
	struct rec r;
	size_t p, m, cs;
	int ticks;

	/* No sequence state needed: everything inline, no flags. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 42, 3, PFTENC_NONE);
	m = pbw_begin(&e, PFT_STACK_SAMPLE);
	pftenc_task(&e, 1, PFTENC_NONE, 20, 21, 99);
	pftenc_exec(&e, 3, PFTENC_NONE, 1, 1);
	cs = pbw_begin(&e, 5);
	pftenc_inline_frame(&e, "main", "main.py", 3);
	pftenc_inline_frame(&e, "run", "main.py", 10);
	pftenc_inline_frame(&e, "step", NULL, PFTENC_NONE);
	pbw_end(&e, cs);
	pbw_str(&e, 7, "partial stack");
	pftenc_counter(&e, 9, PFTENC_NONE, "ticks", 4, "ticks", 10);
	pbw_uint(&e, 11, 7);
	pbw_end(&e, m);
	pbw_end(&e, p);

	decode_ok(&e, &r);
	CHECK(r.nsamples == 1);
	CHECK(STREQ(sample_stack(&r, 0), "step;run;main"));
	/* unit_str wins over the enum; the multiplier scales. */
	CHECK((ticks = metric(&r, "ticks", "ticks")) >= 0);
	CHECK(value(&r, 0, ticks) == 70);
	CHECK(r.meta.default_metric == ticks);
	CHECK(label_num(&r, 0, "pid") == 20 && label_num(&r, 0, "tid") == 21);
	CHECK(label_num(&r, 0, "async_id") == 99);
	CHECK(STREQ(label_str(&r, 0, "cpu_mode"), "user"));
	CHECK(label_str(&r, 0, "process") == NULL);
	CHECK(r.frames[r.stacks[0].ids[1] - 1].line == 10);
	CHECK(r.frames[r.stacks[0].ids[0] - 1].mapping == 0);
	CHECK(count(&r, "unwind_error") == 1);
	CHECK(r.meta.dropped_samples == 0);
	CHECK(r.samples[0].time_ns == 42);
	rec_free(&r);
	buf_free(&e);
	tests++;
}

/* Units: the enum, unit_str, and the multiplier; unnamed counters. */
static void
test_units(void)
{
	static const struct {
		uint64_t	 unit;
		const char	*unit_str;
		uint64_t	 mult;
		const char	*name, *type, *want_unit;
		int64_t		 weight, want;
	} cases[] = {
		{ 1, NULL, PFTENC_NONE, "cpu", "cpu", "nanoseconds", 5, 5 },
		{ 2, NULL, PFTENC_NONE, "cycles", "cycles", "cycles", 5, 5 },
		{ 3, NULL, 2, "instructions", "instructions", "instructions",
		    5, 10 },
		{ 4, NULL, 1024, "alloc space", "alloc_space", "bytes", 3,
		    3072 },
		{ 5, NULL, 0, "pf", "pf", "page_faults", 4, 4 },
		{ 6, NULL, PFTENC_NONE, "cm", "cm", "cache_misses", 1, 1 },
		{ 7, NULL, PFTENC_NONE, "cr", "cr", "cache_references", 1, 1 },
		{ 8, NULL, PFTENC_NONE, "bm", "bm", "branch_misses", 1, 1 },
		{ 9, NULL, PFTENC_NONE, "n", "n", "count", 1, 1 },
		{ 0, NULL, PFTENC_NONE, "u", "u", "count", 1, 1 },
		{ 77, NULL, PFTENC_NONE, "f", "f", "unknown", 1, 1 },
		{ PFTENC_NONE, "widgets", 3, NULL, "counter", "widgets", 2, 6 },
	};
	size_t i;

	for (i = 0; i < NITEMS(cases); i++) {
		struct buf e = { 0 };
		struct rec r;
		size_t p, m, cs;
		int idx;

		p = pftenc_packet(&e);
		m = pbw_begin(&e, PFT_STACK_SAMPLE);
		cs = pbw_begin(&e, 5);
		pftenc_inline_frame(&e, "f", NULL, PFTENC_NONE);
		pbw_end(&e, cs);
		pftenc_counter(&e, 9, PFTENC_NONE, cases[i].name,
		    cases[i].unit, cases[i].unit_str, cases[i].mult);
		pbw_uint(&e, 11, (uint64_t)cases[i].weight);
		pbw_end(&e, m);
		pbw_end(&e, p);
		decode_ok(&e, &r);
		idx = metric(&r, cases[i].type, cases[i].want_unit);
		if (idx < 0)
			fprintf(stderr, "case %zu: got %s/%s\n", i,
			    r.mtype[r.nmetrics - 1], r.munit[r.nmetrics - 1]);
		CHECK(idx == 1);
		CHECK(value(&r, 0, idx) == cases[i].want);
		CHECK(r.samples[0].time_ns == 0);
		CHECK(r.meta.time_ns == 0 && r.meta.duration_ns == 0);
		rec_free(&r);
		buf_free(&e);
	}
	tests++;
}

static void
test_followers(void)
{
	uint64_t fiids[] = { 2, 3 }, fw[] = { 40, 50, 60 };
	struct buf e = { 0 };
	struct rec r;
	size_t p, m, cs, i;
	int cyc, ins, miss, refs;

	p = pftenc_packet(&e);
	pftenc_header(&e, 10, 1, PFT_SEQ_CLEARED);
	m = pbw_begin(&e, PFT_INTERNED_DATA);
	pftenc_counter(&e, PFT_I_COUNTERS, 1, "cycles", 2, NULL, PFTENC_NONE);
	pftenc_counter(&e, PFT_I_COUNTERS, 2, "instructions", 3, NULL,
	    PFTENC_NONE);
	/* Upstream's extension number for the same table. */
	pftenc_counter(&e, 2002, 3, "cache-misses", 6, NULL, 2);
	pbw_end(&e, m);
	pbw_end(&e, p);

	for (i = 0; i < 2; i++) {
		p = pftenc_packet(&e);
		pftenc_header(&e, 20 + i, 1, PFT_SEQ_NEEDS);
		m = pbw_begin(&e, PFT_STACK_SAMPLE);
		cs = pbw_begin(&e, 5);
		pftenc_inline_frame(&e, "main", NULL, PFTENC_NONE);
		pftenc_inline_frame(&e, i ? "b" : "a", NULL, PFTENC_NONE);
		pbw_end(&e, cs);
		pbw_uint(&e, 10, 1);
		pbw_uint(&e, 11, 1000 + i);
		if (i == 0) {
			/* Interned followers, packed. */
			pbw_packed(&e, 13, fiids, 2);
			pbw_packed(&e, 14, fw, 2);
		} else {
			/* Inline followers, one new; weights unpacked. */
			pftenc_counter(&e, 12, PFTENC_NONE, "cache-misses", 6,
			    NULL, PFTENC_NONE);
			pftenc_counter(&e, 12, PFTENC_NONE, "cache-refs", 7,
			    NULL, PFTENC_NONE);
			pbw_unpacked(&e, 14, fw + 1, 2);
		}
		pbw_end(&e, m);
		pbw_end(&e, p);
	}
	decode_ok(&e, &r);
	CHECK(r.nsamples == 2);
	cyc = metric(&r, "cycles", "cycles");
	ins = metric(&r, "instructions", "instructions");
	miss = metric(&r, "cache_misses", "cache_misses");
	refs = metric(&r, "cache_refs", "cache_references");
	CHECK(cyc == 1 && ins >= 0 && miss >= 0 && refs >= 0);
	CHECK(r.meta.default_metric == cyc);
	CHECK(value(&r, 0, cyc) == 1000 && value(&r, 0, ins) == 40 &&
	    value(&r, 0, miss) == 100 && value(&r, 0, refs) == 0);
	/* The inline cache-misses has no multiplier. */
	CHECK(value(&r, 1, cyc) == 1001 && value(&r, 1, ins) == 0 &&
	    value(&r, 1, miss) == 50 && value(&r, 1, refs) == 60);
	/* The first sample came before refs existed: fewer values. */
	CHECK(r.samples[0].nvalues < r.samples[1].nvalues);
	CHECK(STREQ(sample_stack(&r, 0), "a;main"));
	CHECK(STREQ(sample_stack(&r, 1), "b;main"));
	rec_free(&r);
	buf_free(&e);

	/* Weights that do not match the descriptors: the packet is
	 * skipped, its sample dropped as malformed. */
	p = pftenc_packet(&e);
	m = pbw_begin(&e, PFT_STACK_SAMPLE);
	cs = pbw_begin(&e, 5);
	pftenc_inline_frame(&e, "main", NULL, PFTENC_NONE);
	pbw_end(&e, cs);
	pftenc_counter(&e, 12, PFTENC_NONE, "x", 9, NULL, PFTENC_NONE);
	pbw_packed(&e, 14, fw, 2);
	pbw_end(&e, m);
	pbw_end(&e, p);
	decode_malformed(&e, 1, 1, 0);
	buf_free(&e);
	tests++;
}

static void
test_perf_sample(void)
{
	static const char *const names[] = { "start", "work", "spin" };
	uint64_t follow[] = { 7, 8 };
	struct buf e = { 0 };
	struct rec r;
	size_t p, m, d, ps, tb;
	int clk, f0, f1;

	/* Defaults name the timebase: cpu-clock counts nanoseconds. */
	p = pftenc_packet(&e);
	pftenc_header(&e, PFTENC_NONE, 4, PFT_SEQ_CLEARED);
	d = pbw_begin(&e, PFT_DEFAULTS);
	ps = pbw_begin(&e, 12);
	tb = pbw_begin(&e, 1);
	pbw_uint(&e, 2, 100);		/* frequency */
	pbw_uint(&e, 4, 1);		/* SW_CPU_CLOCK */
	pbw_end(&e, tb);
	pbw_end(&e, ps);
	pbw_end(&e, d);
	pbw_end(&e, p);
	put_stack(&e, 4, PFT_SEQ_NEEDS, 1, 1, names, 3);

	pftenc_perf_sample(&e, 5000, 4, PFT_SEQ_NEEDS, 3, 30, 31, 1, 2,
	    10000);
	/* With followers and an unwind error; kernel mode. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 6000, 4, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_PERF_SAMPLE);
	pbw_uint(&e, 1, 0);
	pbw_uint(&e, 2, 30);
	pbw_uint(&e, 3, 32);
	pbw_uint(&e, 4, 1);
	pbw_uint(&e, 5, 1);
	pbw_uint(&e, 6, 20000);
	pbw_packed(&e, 7, follow, 2);
	pbw_uint(&e, 16, 2);		/* UNWIND_ERROR_MEMORY_INVALID */
	pbw_end(&e, m);
	pbw_end(&e, p);
	/* UNWIND_ERROR_NONE is no error. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 6500, 4, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_PERF_SAMPLE);
	pbw_uint(&e, 4, 1);
	pbw_uint(&e, 16, 1);
	pbw_end(&e, m);
	pbw_end(&e, p);
	/* Lost kernel records: not a sample. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 7000, 4, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_PERF_SAMPLE);
	pbw_uint(&e, 1, 1);
	pbw_uint(&e, 17, 12);
	pbw_end(&e, m);
	pbw_end(&e, p);
	/* A skipped sample. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 7100, 4, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_PERF_SAMPLE);
	pbw_uint(&e, 2, 30);
	pbw_uint(&e, 18, 2);
	pbw_end(&e, m);
	pbw_end(&e, p);
	/* No callstack. */
	pftenc_perf_sample(&e, 7200, 4, PFT_SEQ_NEEDS, 1, 30, 31, PFTENC_NONE,
	    2, 10000);

	decode_ok(&e, &r);
	CHECK(r.nsamples == 3);
	CHECK((clk = metric(&r, "cpu_clock", "nanoseconds")) >= 0);
	CHECK(r.meta.default_metric == clk);
	CHECK((f0 = metric(&r, "follower_0", "count")) >= 0);
	CHECK((f1 = metric(&r, "follower_1", "count")) >= 0);
	CHECK(value(&r, 0, clk) == 10000 && value(&r, 1, clk) == 20000);
	CHECK(value(&r, 1, f0) == 7 && value(&r, 1, f1) == 8);
	CHECK(value(&r, 2, clk) == 0);
	CHECK(STREQ(sample_stack(&r, 0), "spin;work;start"));
	CHECK(STREQ(label_str(&r, 0, "cpu_mode"), "user"));
	CHECK(STREQ(label_str(&r, 1, "cpu_mode"), "kernel"));
	CHECK(label_num(&r, 0, "cpu") == 3 && label_num(&r, 1, "cpu") == 0);
	CHECK(label_num(&r, 1, "tid") == 32 && label_num(&r, 1, "pid") == 30);
	CHECK(label(&r, 2, "pid") == NULL);
	CHECK(r.meta.samples == 5);
	CHECK(r.meta.dropped_samples == 2);
	CHECK(count(&r, "kernel_records_lost") == 12);
	CHECK(count(&r, "skipped") == 1);
	CHECK(count(&r, "no_callstack") == 1);
	CHECK(count(&r, "unwind_error") == 1);
	CHECK(r.meta.time_ns == 5000 && r.meta.duration_ns == 1500);
	rec_free(&r);
	buf_free(&e);

	/* Without defaults: timebase/count; a named timebase. */
	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, names, 1);
	pftenc_perf_sample(&e, 1, 1, PFT_SEQ_NEEDS, 0, 1, 1, 1, 2, 3);
	p = pftenc_packet(&e);
	pftenc_header(&e, PFTENC_NONE, 2, PFT_SEQ_CLEARED);
	d = pbw_begin(&e, PFT_DEFAULTS);
	ps = pbw_begin(&e, 12);
	tb = pbw_begin(&e, 1);
	pbw_uint(&e, 4, 10);		/* HW_CPU_CYCLES, but named: */
	pbw_str(&e, 10, "my-cycles");
	pbw_end(&e, tb);
	pbw_end(&e, ps);
	pbw_end(&e, d);
	pbw_end(&e, p);
	put_stack(&e, 2, 0, 1, 1, names, 2);
	pftenc_perf_sample(&e, 2, 2, PFT_SEQ_NEEDS, 0, 1, 1, 1, 2, 5);
	decode_ok(&e, &r);
	CHECK(r.nsamples == 2);
	CHECK(metric(&r, "timebase", "count") == 1);
	CHECK(metric(&r, "my_cycles", "count") == 2);
	CHECK(r.meta.default_metric == 1);
	CHECK(value(&r, 0, 1) == 3 && value(&r, 1, 2) == 5);
	CHECK(STREQ(sample_stack(&r, 0), "start"));
	CHECK(STREQ(sample_stack(&r, 1), "work;start"));
	rec_free(&r);
	buf_free(&e);
	tests++;
}

static void
test_streaming(void)
{
	static const char *const a[] = { "RunLoop", "Task" };
	static const char *const b[] = { "RunLoop", "Idle" };
	uint64_t cs[] = { 1, 2, 1 }, dt[] = { 0, 5, (uint64_t)-2 };
	struct buf e = { 0 };
	struct rec r;
	size_t p, m, td, x;
	size_t i;

	/* The sequence's thread comes from a TrackDescriptor. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 10, 9, PFT_SEQ_CLEARED);
	td = pbw_begin(&e, PFT_TRACK_DESCRIPTOR);
	pbw_uint(&e, 1, 1234);
	x = pbw_begin(&e, 3);
	pbw_uint(&e, 1, 5);
	pbw_str(&e, 2, "/opt/chrome/chrome");
	pbw_str(&e, 6, "Browser");
	pbw_end(&e, x);
	x = pbw_begin(&e, 4);
	pbw_uint(&e, 1, 5);
	pbw_uint(&e, 2, 6);
	pbw_str(&e, 5, "CrBrowserMain");
	pbw_end(&e, x);
	pbw_end(&e, td);
	pbw_end(&e, p);
	put_stack(&e, 9, PFT_SEQ_NEEDS, 1, 1, a, 2);
	put_stack(&e, 9, PFT_SEQ_NEEDS, 2, 3, b, 2);

	p = pftenc_packet(&e);
	pftenc_header(&e, 1000000, 9, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_STREAMING_PROFILE);
	pbw_packed(&e, 1, cs, 3);
	pbw_packed(&e, 2, dt, 3);
	pbw_end(&e, m);
	pbw_end(&e, p);

	decode_ok(&e, &r);
	CHECK(r.nmetrics == 1);
	CHECK(r.meta.default_metric == 0);
	CHECK(r.nsamples == 3);
	CHECK(STREQ(sample_stack(&r, 0), "Task;RunLoop"));
	CHECK(STREQ(sample_stack(&r, 1), "Idle;RunLoop"));
	CHECK(STREQ(sample_stack(&r, 2), "Task;RunLoop"));
	/* Deltas accumulate, and may go back. */
	CHECK(r.samples[0].time_ns == 1000000);
	CHECK(r.samples[1].time_ns == 1005000);
	CHECK(r.samples[2].time_ns == 1003000);
	CHECK(r.meta.time_ns == 1000000 && r.meta.duration_ns == 5000);
	for (i = 0; i < 3; i++) {
		CHECK(label_num(&r, i, "pid") == 5);
		CHECK(label_num(&r, i, "tid") == 6);
		CHECK(STREQ(label_str(&r, i, "process"), "Browser"));
		CHECK(STREQ(label_str(&r, i, "thread"), "CrBrowserMain"));
	}
	/* Two distinct RunLoop frames? No: one function, one frame. */
	CHECK(r.nfuncs == 3 && r.nframes == 3);
	rec_free(&r);
	buf_free(&e);

	/* Deltas that do not match the callstacks: skipped likewise. */
	put_stack(&e, 9, PFT_SEQ_CLEARED, 1, 1, a, 2);
	p = pftenc_packet(&e);
	pftenc_header(&e, 1000, 9, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_STREAMING_PROFILE);
	pbw_packed(&e, 1, cs, 1);
	pbw_packed(&e, 2, dt, 2);
	pbw_end(&e, m);
	pbw_end(&e, p);
	decode_malformed(&e, 1, 1, 0);
	buf_free(&e);
	tests++;
}

/* Two sequences use the same iids for different frames. */
static void
test_two_sequences(void)
{
	static const char *const a[] = { "alpha_main", "alpha_leaf" };
	static const char *const b[] = { "beta_main", "beta_mid", "beta_leaf" };
	struct buf e = { 0 };
	struct rec r;

	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 2);
	put_stack(&e, 2, PFT_SEQ_CLEARED, 1, 1, b, 3);
	pftenc_stack_sample_iids(&e, 1, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	pftenc_stack_sample_iids(&e, 2, 2, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	pftenc_stack_sample_iids(&e, 3, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	decode_ok(&e, &r);
	CHECK(r.nsamples == 3);
	CHECK(STREQ(sample_stack(&r, 0), "alpha_leaf;alpha_main"));
	CHECK(STREQ(sample_stack(&r, 1), "beta_leaf;beta_mid;beta_main"));
	CHECK(STREQ(sample_stack(&r, 2), "alpha_leaf;alpha_main"));
	CHECK(r.samples[0].labelset == 0);
	rec_free(&r);
	buf_free(&e);
	tests++;
}

/* Sparse iids (past the dense arrays) and an iid defined twice in one
 * state (the later definition wins, cached stacks too). */
static void
test_sparse_iids(void)
{
	static const char *const a[] = { "main", "old" };
	static const char *const b[] = { "main", "new" };
	uint64_t big = (uint64_t)1 << 40;
	struct buf e = { 0 };
	struct rec r;

	put_stack(&e, 1, PFT_SEQ_CLEARED, big, 1000000, a, 2);
	put_stack(&e, 1, 0, 2, 1, b, 2);
	pftenc_stack_sample_iids(&e, 1, 1, PFT_SEQ_NEEDS, big, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	pftenc_stack_sample_iids(&e, 2, 1, PFT_SEQ_NEEDS, 2, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	/* Redefine name iid 1000001 ("old" -> "newer"). */
	{
		size_t p = pftenc_packet(&e), m;

		pftenc_header(&e, PFTENC_NONE, 1, 0);
		m = pbw_begin(&e, PFT_INTERNED_DATA);
		pftenc_istring(&e, PFT_I_FUNCTION_NAMES, 1000001, "newer");
		pbw_end(&e, m);
		pbw_end(&e, p);
	}
	pftenc_stack_sample_iids(&e, 3, 1, PFT_SEQ_NEEDS, big, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	pftenc_stack_sample_iids(&e, 4, 1, PFT_SEQ_NEEDS, 2, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	decode_ok(&e, &r);
	CHECK(r.nsamples == 4);
	CHECK(STREQ(sample_stack(&r, 0), "old;main"));
	CHECK(STREQ(sample_stack(&r, 1), "new;main"));
	CHECK(STREQ(sample_stack(&r, 2), "newer;main"));
	CHECK(STREQ(sample_stack(&r, 3), "new;main"));
	CHECK(r.samples[1].stack == r.samples[3].stack);
	rec_free(&r);
	buf_free(&e);
	tests++;
}

/* A clear mid-trace redefines the iids; both the flag and the old bool. */
static void
test_state_reset(void)
{
	static const char *const a[] = { "old_main", "old_leaf" };
	static const char *const b[] = { "new_main", "new_leaf" };
	struct buf e = { 0 };
	struct rec r;
	int how;

	for (how = 0; how < 2; how++) {
		put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 2);
		pftenc_stack_sample_iids(&e, 1, 1, PFT_SEQ_NEEDS, 1,
		    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
		if (how == 0)
			put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, b, 2);
		else {
			/* incremental_state_cleared = true, same packet as
			 * the new interned data. */
			size_t p = pftenc_packet(&e), m;
			uint64_t ids[] = { 5, 6 };

			pftenc_header(&e, PFTENC_NONE, 1, PFTENC_NONE);
			pbw_uint(&e, PFT_STATE_CLEARED, 1);
			m = pbw_begin(&e, PFT_INTERNED_DATA);
			pftenc_istring(&e, PFT_I_FUNCTION_NAMES, 1, "new_main");
			pftenc_istring(&e, PFT_I_FUNCTION_NAMES, 2, "new_leaf");
			pftenc_frame(&e, 5, 1, PFTENC_NONE, PFTENC_NONE,
			    PFTENC_NONE, PFTENC_NONE);
			pftenc_frame(&e, 6, 2, PFTENC_NONE, PFTENC_NONE,
			    PFTENC_NONE, PFTENC_NONE);
			pftenc_callstack(&e, 1, ids, 2, 0);
			pbw_end(&e, m);
			pbw_end(&e, p);
		}
		pftenc_stack_sample_iids(&e, 2, 1, PFT_SEQ_NEEDS, 1,
		    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
		decode_ok(&e, &r);
		CHECK(r.nsamples == 2);
		CHECK(STREQ(sample_stack(&r, 0), "old_leaf;old_main"));
		CHECK(STREQ(sample_stack(&r, 1), "new_leaf;new_main"));
		rec_free(&r);
		buf_free(&e);

		/* After the clear, the old frames are gone: iid 2 was only
		 * defined before it. */
		put_stack(&e, 1, PFT_SEQ_CLEARED, 2, 1, a, 2);
		if (how == 0)
			put_flags(&e, 1, PFT_SEQ_CLEARED, 0, 0);
		else
			put_flags(&e, 1, PFTENC_NONE, 1, 0);
		pftenc_stack_sample_iids(&e, 2, 1, PFT_SEQ_NEEDS, 2,
		    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
		/* ... and the old frames too, under a callstack defined
		 * after the clear. */
		{
			size_t q = pftenc_packet(&e), n;
			uint64_t ids[] = { 1, 2 };

			pftenc_header(&e, PFTENC_NONE, 1, PFT_SEQ_NEEDS);
			n = pbw_begin(&e, PFT_INTERNED_DATA);
			pftenc_callstack(&e, 3, ids, 2, 1);
			pbw_end(&e, n);
			pbw_end(&e, q);
		}
		pftenc_stack_sample_iids(&e, 3, 1, PFT_SEQ_NEEDS, 3,
		    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
		put_stack(&e, 1, PFT_SEQ_NEEDS, 4, 1, b, 2);
		pftenc_stack_sample_iids(&e, 4, 1, PFT_SEQ_NEEDS, 4,
		    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
		decode_ok(&e, &r);
		CHECK(r.meta.samples == 3 && r.nsamples == 1);
		CHECK(r.samples[0].time_ns == 4);
		CHECK(STREQ(sample_stack(&r, 0), "new_leaf;new_main"));
		CHECK(r.meta.dropped_samples == 2);
		CHECK(count(&r, "unknown_callstack_iid") == 1);
		CHECK(count(&r, "unknown_frame_iid") == 1);
		CHECK(count(&r, "packets_skipped_no_state") == 0);
		CHECK(r.meta.ncounts == 2);
		rec_free(&r);
		buf_free(&e);
	}
	tests++;
}

/* previous_packet_dropped: unresolved until the next clear. */
static void
test_packet_dropped(void)
{
	static const char *const a[] = { "main", "f" };
	struct buf e = { 0 };
	struct rec r;

	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 2);
	pftenc_stack_sample_iids(&e, 1, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	put_flags(&e, 1, PFTENC_NONE, 0, 1);
	/* Flagged: skipped, whatever the iid.  Not flagged: the iid it
	 * names was lost with the state. */
	pftenc_stack_sample_iids(&e, 2, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	pftenc_stack_sample_iids(&e, 3, 1, PFTENC_NONE, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	pftenc_stack_sample_iids(&e, 4, 1, PFT_SEQ_NEEDS, 77, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	/* Interned data without a clear does not revive the state. */
	put_stack(&e, 1, PFT_SEQ_NEEDS, 1, 1, a, 2);
	pftenc_stack_sample_iids(&e, 5, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	/* Another sequence is not affected. */
	put_stack(&e, 2, PFT_SEQ_CLEARED, 1, 1, a, 1);
	pftenc_stack_sample_iids(&e, 6, 2, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	/* The next clear makes it valid again. */
	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 2);
	pftenc_stack_sample_iids(&e, 7, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	decode_ok(&e, &r);
	CHECK(r.meta.samples == 7);
	CHECK(r.nsamples == 3);
	CHECK(r.samples[0].time_ns == 1 && r.samples[1].time_ns == 6 &&
	    r.samples[2].time_ns == 7);
	CHECK(STREQ(sample_stack(&r, 1), "main"));
	CHECK(r.meta.dropped_samples == 4);
	CHECK(count(&r, "unresolved_no_state") == 3);
	CHECK(count(&r, "unknown_callstack_iid") == 1);
	/* t 2, t 4, the interning and t 5. */
	CHECK(count(&r, "packets_skipped_no_state") == 4);
	CHECK(r.meta.ncounts == 3);
	CHECK(r.meta.time_ns == 1 && r.meta.duration_ns == 6);
	rec_free(&r);
	buf_free(&e);
	tests++;
}

/* SEQ_NEEDS_INCREMENTAL_STATE before any clear. */
static void
test_needs_before_clear(void)
{
	static const char *const a[] = { "main" };
	struct buf e = { 0 };
	struct rec r;
	size_t p, m, cs;

	/* Interned data without a clear, then samples that need state. */
	put_stack(&e, 3, PFTENC_NONE, 1, 1, a, 1);
	pftenc_stack_sample_iids(&e, 1, 3, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	pftenc_perf_sample(&e, 2, 3, PFT_SEQ_NEEDS, 0, 1, 1, 1, 2, 1);
	/* Even an inline sample, when it says it needs state. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 3, 3, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_STACK_SAMPLE);
	cs = pbw_begin(&e, 5);
	pftenc_inline_frame(&e, "x", NULL, PFTENC_NONE);
	pbw_end(&e, cs);
	pbw_end(&e, m);
	pbw_end(&e, p);
	/* Without the flag, known iids on a never-cleared sequence resolve
	 * (old producers); unknown ones are counted, not errors. */
	pftenc_stack_sample_iids(&e, 4, 3, PFTENC_NONE, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	pftenc_stack_sample_iids(&e, 5, 3, PFTENC_NONE, 9, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	/* Interning flagged as needing state is skipped like the rest: its
	 * callstack 2 stays unknown. */
	put_stack(&e, 3, PFT_SEQ_NEEDS, 2, 5, a, 1);
	pftenc_stack_sample_iids(&e, 6, 3, PFTENC_NONE, 2, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	/* A StreamingProfilePacket's samples are each counted. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 7, 3, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_STREAMING_PROFILE);
	{
		uint64_t iids[] = { 1, 1, 1 };

		pbw_packed(&e, 1, iids, 3);
	}
	pbw_end(&e, m);
	pbw_end(&e, p);
	decode_ok(&e, &r);
	CHECK(r.meta.samples == 9);
	CHECK(r.nsamples == 1);
	CHECK(r.samples[0].time_ns == 4);
	CHECK(STREQ(sample_stack(&r, 0), "main"));
	CHECK(count(&r, "unresolved_no_state") == 6);
	CHECK(count(&r, "unknown_callstack_iid") == 2);
	CHECK(count(&r, "packets_skipped_no_state") == 5);
	CHECK(r.meta.dropped_samples == 8);
	rec_free(&r);
	buf_free(&e);
	tests++;
}

/* A trace whose interning is partly lost: every sample naming an iid its
 * sequence does not define is dropped and counted by the kind of the
 * first such iid; every other one is stored whole. */
static void
test_unknown_iids(void)
{
	struct buf e = { 0 };
	struct rec r;
	uint64_t ids[2] = { 1, 0 }, path[] = { 1 }, badpath[] = { 7 };
	size_t p, m, i;
	int wall;

	p = pftenc_packet(&e);
	pftenc_header(&e, PFTENC_NONE, 1, PFT_SEQ_CLEARED);
	m = pbw_begin(&e, PFT_INTERNED_DATA);
	pftenc_istring(&e, PFT_I_FUNCTION_NAMES, 1, "main");
	pftenc_istring(&e, PFT_I_FUNCTION_NAMES, 2, "leaf");
	pftenc_istring(&e, PFT_I_MAPPING_PATHS, 1, "lib.so");
	pftenc_mapping(&e, 1, PFTENC_NONE, 0x1000, 0x2000, 0, path, 1);
	pftenc_mapping(&e, 2, PFTENC_NONE, 0x3000, 0x4000, 0, badpath, 1);
	pftenc_frame(&e, 1, 1, PFTENC_NONE, PFTENC_NONE, PFTENC_NONE,
	    PFTENC_NONE);
	pftenc_frame(&e, 2, 2, PFTENC_NONE, PFTENC_NONE, PFTENC_NONE,
	    PFTENC_NONE);
	pftenc_frame(&e, 3, 6, PFTENC_NONE, PFTENC_NONE, PFTENC_NONE,
	    PFTENC_NONE);			/* function name 6: unknown */
	pftenc_frame(&e, 4, 2, 9, 0x10, PFTENC_NONE, PFTENC_NONE);
	pftenc_frame(&e, 5, 2, 1, 0x20, PFTENC_NONE, 12);
	pftenc_frame(&e, 6, 2, 2, 0x30, PFTENC_NONE, PFTENC_NONE);
	/* Callstacks main -> X for X = 2 (fine), 8 (no such frame), 3, 4
	 * (no such mapping), 5 (fine, mapped), 6 (mapping path 7 unknown). */
	ids[1] = 2;
	pftenc_callstack(&e, 1, ids, 2, 1);
	ids[1] = 8;
	pftenc_callstack(&e, 2, ids, 2, 1);
	ids[1] = 3;
	pftenc_callstack(&e, 3, ids, 2, 0);
	ids[1] = 4;
	pftenc_callstack(&e, 4, ids, 2, 1);
	ids[1] = 5;
	pftenc_callstack(&e, 5, ids, 2, 1);
	ids[1] = 6;
	pftenc_callstack(&e, 6, ids, 2, 1);
	pftenc_task(&e, PFT_I_TASKS, 1, 10, 11, PFTENC_NONE);
	pftenc_exec(&e, PFT_I_EXECS, 1, 2, 1);
	pftenc_counter(&e, PFT_I_COUNTERS, 1, "wall", 1, NULL, PFTENC_NONE);
	pbw_end(&e, m);
	pbw_end(&e, p);

	/* ts, callstack, task, exec, counter, weight. */
	pftenc_stack_sample_iids(&e, 1, 1, PFT_SEQ_NEEDS, 1, 1, 1, 1, 100);
	pftenc_stack_sample_iids(&e, 2, 1, PFT_SEQ_NEEDS, 9, 1, 1, 1, 1);
	pftenc_stack_sample_iids(&e, 3, 1, PFT_SEQ_NEEDS, 2, 1, 1, 1, 1);
	pftenc_stack_sample_iids(&e, 4, 1, PFT_SEQ_NEEDS, 3, 1, 1, 1, 1);
	pftenc_stack_sample_iids(&e, 5, 1, PFT_SEQ_NEEDS, 4, 1, 1, 1, 1);
	pftenc_stack_sample_iids(&e, 6, 1, PFT_SEQ_NEEDS, 5, PFTENC_NONE,
	    PFTENC_NONE, 1, 50);
	pftenc_stack_sample_iids(&e, 7, 1, PFT_SEQ_NEEDS, 6, 1, 1, 1, 1);
	pftenc_stack_sample_iids(&e, 8, 1, PFT_SEQ_NEEDS, 1, 3, 1, 1, 1);
	pftenc_stack_sample_iids(&e, 9, 1, PFT_SEQ_NEEDS, 1, 1, 4, 1, 1);
	pftenc_stack_sample_iids(&e, 10, 1, PFT_SEQ_NEEDS, 1, 1, 1, 5, 1);
	/* Two unknown iids: the first looked up (the task, before the
	 * callstack) names the reason. */
	pftenc_stack_sample_iids(&e, 11, 1, PFT_SEQ_NEEDS, 9, 3, 1, 1, 1);
	pftenc_perf_sample(&e, 12, 1, PFT_SEQ_NEEDS, 3, 20, 21, 77, 2,
	    PFTENC_NONE);
	pftenc_perf_sample(&e, 13, 1, PFT_SEQ_NEEDS, 3, 20, 21, 1, 2,
	    PFTENC_NONE);
	/* Streaming: callstacks 1, 77, 5 at 14 us, +1 us, +1 us. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 14000, 1, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_STREAMING_PROFILE);
	{
		uint64_t iids[] = { 1, 77, 5 }, dt[] = { 0, 1, 1 };

		pbw_packed(&e, 1, iids, 3);
		pbw_packed(&e, 2, dt, 3);
	}
	pbw_end(&e, m);
	pbw_end(&e, p);

	decode_ok(&e, &r);
	CHECK(r.meta.samples == 16);
	CHECK(r.nsamples == 5);
	CHECK(r.meta.dropped_samples == 11);
	CHECK(count(&r, "unknown_callstack_iid") == 3);
	CHECK(count(&r, "unknown_frame_iid") == 1);
	CHECK(count(&r, "unknown_function_name_iid") == 1);
	CHECK(count(&r, "unknown_mapping_iid") == 1);
	CHECK(count(&r, "unknown_mapping_path_iid") == 1);
	CHECK(count(&r, "unknown_task_context_iid") == 2);
	CHECK(count(&r, "unknown_execution_context_iid") == 1);
	CHECK(count(&r, "unknown_counter_descriptor_iid") == 1);
	CHECK(r.meta.ncounts == 8);
	CHECK(count(&r, "unresolved_no_state") == 0);

	/* What was stored, whole. */
	wall = metric(&r, "wall", "nanoseconds");
	CHECK(wall >= 0);
	CHECK(r.samples[0].time_ns == 1);
	CHECK(STREQ(sample_stack(&r, 0), "leaf;main"));
	CHECK(value(&r, 0, 0) == 1 && value(&r, 0, wall) == 100);
	CHECK(label_num(&r, 0, "pid") == 10 && label_num(&r, 0, "tid") == 11);
	CHECK(label_num(&r, 0, "cpu") == 2);
	CHECK(STREQ(label_str(&r, 0, "cpu_mode"), "user"));
	CHECK(r.samples[1].time_ns == 6);
	CHECK(STREQ(sample_stack(&r, 1), "leaf;main"));
	CHECK(value(&r, 1, wall) == 50);
	CHECK(r.samples[1].labelset == 0);
	{
		const struct rstack *st = &r.stacks[r.samples[1].stack - 1];
		const struct model_frame *f = &r.frames[st->ids[0] - 1];

		CHECK(f->mapping > 0 && f->address == 0x20 && f->line == 12);
		CHECK(STREQ(r.maps[f->mapping - 1].file, "/lib.so"));
		CHECK(r.maps[f->mapping - 1].m.start == 0x1000);
	}
	CHECK(r.samples[2].time_ns == 13);
	CHECK(STREQ(sample_stack(&r, 2), "leaf;main"));
	CHECK(label_num(&r, 2, "pid") == 20 && label_num(&r, 2, "cpu") == 3);
	CHECK(r.samples[3].time_ns == 14000);
	CHECK(STREQ(sample_stack(&r, 3), "leaf;main"));
	CHECK(r.samples[4].time_ns == 16000);
	CHECK(r.samples[4].stack != r.samples[3].stack);
	CHECK(STREQ(sample_stack(&r, 4), "leaf;main"));
	for (i = 0; i < r.nsamples; i++)
		CHECK(value(&r, i, 0) == 1);
	CHECK(r.meta.time_ns == 1 && r.meta.duration_ns == 15999);
	rec_free(&r);
	buf_free(&e);
	tests++;
}

/* Packets whose framing is sound but whose contents do not parse are
 * skipped and counted; broken interning leaves its sequence without state
 * until the next clear; the rest of the trace is read. */
static void
test_malformed_contents(void)
{
	static const char *const a[] = { "main" };
	struct buf e = { 0 };
	struct rec r;
	size_t p, m, x;

	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 1);
	put_stack(&e, 2, PFT_SEQ_CLEARED, 1, 1, a, 1);
	pftenc_stack_sample_iids(&e, 1, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	/* callstack_iid (6) length-delimited. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 2, 1, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_STACK_SAMPLE);
	pbw_str(&e, 6, "x");
	pbw_end(&e, m);
	pbw_end(&e, p);
	pftenc_stack_sample_iids(&e, 3, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	/* Interning with a Frame whose function_name_id (2) is a string. */
	p = pftenc_packet(&e);
	pftenc_header(&e, PFTENC_NONE, 1, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_INTERNED_DATA);
	x = pbw_begin(&e, PFT_I_FRAMES);
	pbw_uint(&e, 1, 7);
	pbw_str(&e, 2, "x");
	pbw_end(&e, x);
	pbw_end(&e, m);
	pbw_end(&e, p);
	pftenc_stack_sample_iids(&e, 4, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	pftenc_stack_sample_iids(&e, 5, 2, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 1);
	pftenc_stack_sample_iids(&e, 6, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	/* A PerfSample's pid (2) as a string: not known to be a sample. */
	p = pftenc_packet(&e);
	pftenc_header(&e, 7, 1, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_PERF_SAMPLE);
	pbw_str(&e, 2, "x");
	pbw_end(&e, m);
	pbw_end(&e, p);
	decode_ok(&e, &r);
	CHECK(r.nsamples == 4);
	CHECK(r.samples[0].time_ns == 1 && r.samples[1].time_ns == 3 &&
	    r.samples[2].time_ns == 5 && r.samples[3].time_ns == 6);
	CHECK(STREQ(sample_stack(&r, 3), "main"));
	CHECK(r.meta.samples == 6 && r.meta.dropped_samples == 2);
	CHECK(count(&r, "malformed_packets") == 3);
	CHECK(count(&r, "malformed") == 1);
	CHECK(count(&r, "unresolved_no_state") == 1);
	CHECK(count(&r, "packets_skipped_no_state") == 1);
	CHECK(r.meta.ncounts == 4);
	rec_free(&r);
	buf_free(&e);
	tests++;
}

/* A callstack given inline as frame ids, with interned follower
 * descriptors: neither list overwrites the other. */
static void
test_inline_ids_followers(void)
{
	struct buf e = { 0 };
	struct rec r;
	uint64_t frames[] = { 5, 6 }, iids[] = { 2 }, w[] = { 7 };
	size_t p, m, cs;
	int cyc;

	p = pftenc_packet(&e);
	pftenc_header(&e, PFTENC_NONE, 1, PFT_SEQ_CLEARED);
	m = pbw_begin(&e, PFT_INTERNED_DATA);
	pftenc_istring(&e, PFT_I_FUNCTION_NAMES, 1, "main");
	pftenc_istring(&e, PFT_I_FUNCTION_NAMES, 2, "leaf");
	pftenc_frame(&e, 5, 1, PFTENC_NONE, PFTENC_NONE, PFTENC_NONE,
	    PFTENC_NONE);
	pftenc_frame(&e, 6, 2, PFTENC_NONE, PFTENC_NONE, PFTENC_NONE,
	    PFTENC_NONE);
	pftenc_counter(&e, PFT_I_COUNTERS, 2, "cyc", 2, NULL, PFTENC_NONE);
	pbw_end(&e, m);
	pbw_end(&e, p);
	p = pftenc_packet(&e);
	pftenc_header(&e, 1, 1, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_STACK_SAMPLE);
	pbw_packed(&e, 13, iids, 1);
	pbw_packed(&e, 14, w, 1);
	cs = pbw_begin(&e, 5);
	pbw_packed(&e, 2, frames, 2);
	pbw_end(&e, cs);
	pbw_end(&e, m);
	pbw_end(&e, p);
	decode_ok(&e, &r);
	CHECK(r.nsamples == 1 && r.meta.dropped_samples == 0);
	CHECK(STREQ(sample_stack(&r, 0), "leaf;main"));
	cyc = metric(&r, "cyc", "cycles");
	CHECK(cyc > 0 && value(&r, 0, cyc) == 7);
	rec_free(&r);
	buf_free(&e);
	tests++;
}

/* Names known only after a sample do not relabel it. */
static void
test_names_late(void)
{
	static const char *const a[] = { "main" };
	struct buf e = { 0 };
	struct rec r;
	size_t p, m, x;

	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 1);
	pftenc_perf_sample(&e, 1, 1, PFT_SEQ_NEEDS, 0, 40, 41, 1, 2, 1);
	p = pftenc_packet(&e);
	m = pbw_begin(&e, PFT_PROCESS_TREE);
	x = pbw_begin(&e, 1);
	pbw_uint(&e, 1, 40);
	pbw_str(&e, 3, "late");
	/* A deprecated thread inside the process. */
	{
		size_t t = pbw_begin(&e, 4);

		pbw_uint(&e, 1, 41);
		pbw_str(&e, 2, "t41");
		pbw_end(&e, t);
	}
	pbw_end(&e, x);
	pbw_end(&e, m);
	pbw_end(&e, p);
	pftenc_perf_sample(&e, 2, 1, PFT_SEQ_NEEDS, 0, 40, 41, 1, 2, 1);
	pftenc_perf_sample(&e, 3, 1, PFT_SEQ_NEEDS, 0, PFTENC_NONE, 41, 1, 2,
	    1);
	decode_ok(&e, &r);
	CHECK(r.nsamples == 3);
	CHECK(label_str(&r, 0, "process") == NULL);
	CHECK(STREQ(label_str(&r, 1, "process"), "late"));
	CHECK(STREQ(label_str(&r, 1, "thread"), "t41"));
	CHECK(r.samples[1].labelset == r.samples[2].labelset);
	CHECK(r.samples[0].labelset != r.samples[1].labelset);
	rec_free(&r);
	buf_free(&e);
	tests++;
}

/* A small random trace: flat and cum per function computed by the test
 * from what it wrote, against the recorded stacks. */
static void
test_flat_cum(void)
{
	static const char *const fn[] = { "main", "a", "b", "c", "d" };
	/* Callstacks by function index, root first; recursion in 3. */
	static const int stacks[][4] = {
		{ 0, 1, -1 }, { 0, 1, 2, -1 }, { 0, 2, 3, -1 },
		{ 0, 1, 0, 1 }, { 0, 4, -1 },
	};
	int64_t wflat[5] = { 0 }, wcum[5] = { 0 };
	int64_t gflat[5] = { 0 }, gcum[5] = { 0 };
	struct buf e = { 0 };
	struct rec r;
	uint32_t rng = 12345;
	size_t p, m, i, j, k;
	int wall;

	p = pftenc_packet(&e);
	pftenc_header(&e, PFTENC_NONE, 1, PFT_SEQ_CLEARED);
	m = pbw_begin(&e, PFT_INTERNED_DATA);
	for (i = 0; i < NITEMS(fn); i++) {
		pftenc_istring(&e, PFT_I_FUNCTION_NAMES, i + 1, fn[i]);
		pftenc_frame(&e, i + 1, i + 1, PFTENC_NONE, PFTENC_NONE,
		    PFTENC_NONE, PFTENC_NONE);
	}
	for (i = 0; i < NITEMS(stacks); i++) {
		uint64_t ids[4];

		for (j = 0; j < 4 && stacks[i][j] >= 0; j++)
			ids[j] = (uint64_t)stacks[i][j] + 1;
		pftenc_callstack(&e, i + 1, ids, j, 1);
	}
	pftenc_counter(&e, PFT_I_COUNTERS, 1, "wall", 1, NULL, PFTENC_NONE);
	pbw_end(&e, m);
	pbw_end(&e, p);
	for (k = 0; k < 500; k++) {
		size_t s;
		int64_t w;
		int seen[5] = { 0 };

		rng = rng * 1103515245 + 12345;
		s = (rng >> 16) % NITEMS(stacks);
		w = (int64_t)((rng >> 8) % 1000) + 1;
		pftenc_stack_sample_iids(&e, 1000 + k, 1, PFT_SEQ_NEEDS, s + 1,
		    PFTENC_NONE, PFTENC_NONE, 1, (uint64_t)w);
		for (j = 0; j < 4 && stacks[s][j] >= 0; j++) {
			if (!seen[stacks[s][j]])
				wcum[stacks[s][j]] += w;
			seen[stacks[s][j]] = 1;
		}
		wflat[stacks[s][j - 1]] += w;
	}
	decode_ok(&e, &r);
	CHECK(r.nsamples == 500);
	wall = metric(&r, "wall", "nanoseconds");
	CHECK(wall == 1);
	CHECK(r.nstacks == NITEMS(stacks));
	for (k = 0; k < r.nsamples; k++) {
		const struct rstack *st = &r.stacks[r.samples[k].stack - 1];
		int seen[5] = { 0 };

		for (j = 0; j < st->n; j++) {
			const struct model_frame *f = &r.frames[st->ids[j] - 1];
			const char *name = r.funcs[f->function - 1].name;

			for (i = 0; i < NITEMS(fn); i++)
				if (strcmp(fn[i], name) == 0)
					break;
			CHECK(i < NITEMS(fn));
			if (j == 0)
				gflat[i] += value(&r, k, wall);
			if (!seen[i])
				gcum[i] += value(&r, k, wall);
			seen[i] = 1;
		}
	}
	for (i = 0; i < NITEMS(fn); i++) {
		CHECK(gflat[i] == wflat[i]);
		CHECK(gcum[i] == wcum[i]);
	}
	CHECK(r.meta.time_ns == 1000 && r.meta.duration_ns == 499);
	rec_free(&r);
	buf_free(&e);
	tests++;
}

/* Fields we do not know are skipped, at both levels. */
static void
test_unknown_fields(void)
{
	static const char *const a[] = { "main" };
	struct buf e = { 0 };
	struct rec r;
	size_t p, m;

	pbw_uint(&e, 5, 1);			/* Trace: unknown varint */
	pbw_str(&e, 6, "skip me");		/* unknown bytes */
	pbw_fixed64(&e, 7, 1);
	pbw_fixed32(&e, 8, 1);
	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 1);
	p = pftenc_packet(&e);
	pftenc_header(&e, 9, 1, PFT_SEQ_NEEDS);
	pbw_str(&e, 900, "for_testing");
	pbw_fixed64(&e, 3000, 1);
	m = pbw_begin(&e, PFT_STACK_SAMPLE);
	pbw_uint(&e, 6, 1);
	pbw_str(&e, 99, "future");
	pbw_end(&e, m);
	pbw_end(&e, p);
	/* Other packets: a track event, a clock snapshot. */
	p = pftenc_packet(&e);
	pbw_str(&e, 11, "\x08\x01");
	pbw_end(&e, p);
	decode_ok(&e, &r);
	CHECK(r.nsamples == 1);
	CHECK(STREQ(sample_stack(&r, 0), "main"));
	rec_free(&r);
	buf_free(&e);

	/* An empty trace is a valid one, with no samples. */
	decode_ok(&e, &r);
	CHECK(r.nsamples == 0 && r.meta.samples == 0 && r.nmetrics == 1);
	CHECK(r.meta.default_metric == 0 && r.meta.time_ns == 0);
	rec_free(&r);
	tests++;
}

static void
test_malformed(void)
{
	static const char *const a[] = { "main" };
	struct buf e = { 0 };
	struct error err;
	struct rec r;
	size_t p, m, at;
	char want[64];

	/* A packet cut short. */
	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 1);
	e.n -= 3;
	decode_bad(&e, ERR_INPUT, "TracePacket", NULL);
	buf_free(&e);

	/* A packet length past the end of the input. */
	pbw_key(&e, 1, PB_LEN);
	pbw_varint(&e, 100);
	pbw_uint(&e, 8, 1);
	decode_bad(&e, ERR_INPUT, "TracePacket", "byte 2");
	buf_free(&e);

	/* A length past the end of its packet, inside it. */
	p = pftenc_packet(&e);
	pbw_uint(&e, 8, 1);
	pbw_key(&e, PFT_STACK_SAMPLE, PB_LEN);
	pbw_varint(&e, 50);
	pbw_uint(&e, 6, 1);
	pbw_end(&e, p);
	/* The packet starts at byte 2; its timestamp takes 2 bytes; the
	 * stack_sample's tag (2 bytes) is at packet byte 2: its length at
	 * packet byte 4, stream byte 6. */
	decode_bad(&e, ERR_INPUT, "byte 6", "past the end");
	buf_free(&e);

	/* The same after a packet skipped for a wire error inside it: the
	 * error is the second packet's, not the first one's again. */
	p = pftenc_packet(&e);
	m = pbw_begin(&e, PFT_STACK_SAMPLE);
	buf_add(&e, "\x30\x80", 2);		/* callstack_iid, cut short */
	pbw_end(&e, m);
	pbw_end(&e, p);
	at = e.n;
	p = pftenc_packet(&e);
	pbw_uint(&e, 8, 1);
	pbw_uint(&e, 10, 7);
	pbw_key(&e, PFT_STACK_SAMPLE, PB_LEN);
	pbw_varint(&e, 50);
	pbw_uint(&e, 6, 1);
	pbw_end(&e, p);
	/* Its length at packet byte 6, after a 2-byte packet header. */
	snprintf(want, sizeof want, "byte %zu:", at + 8);
	decode_bad(&e, ERR_INPUT, want, "past the end");
	buf_free(&e);

	/* Trace.packet that is not length-delimited. */
	pbw_uint(&e, 1, 5);
	decode_bad(&e, ERR_INPUT, "Trace.packet", "wire type 0");
	buf_free(&e);

	/* A known field with the wrong wire type: of the TracePacket, an
	 * error; inside a message of the packet, the packet is skipped. */
	p = pftenc_packet(&e);
	pbw_str(&e, PFT_TIMESTAMP, "x");
	pbw_end(&e, p);
	decode_bad(&e, ERR_INPUT, "TracePacket", "wire type 2");
	buf_free(&e);
	p = pftenc_packet(&e);
	m = pbw_begin(&e, PFT_STACK_SAMPLE);
	pbw_str(&e, 6, "x");
	pbw_end(&e, m);
	pbw_end(&e, p);
	decode_malformed(&e, 1, 1, 0);
	buf_free(&e);
	p = pftenc_packet(&e);
	pbw_uint(&e, PFT_STACK_SAMPLE, 1);
	pbw_end(&e, p);
	decode_bad(&e, ERR_INPUT, "expected length-delimited", NULL);
	buf_free(&e);

	/* Groups are not protobuf we take. */
	pbw_key(&e, 4, 3);
	decode_bad(&e, ERR_INPUT, "wire type 3", NULL);
	buf_free(&e);

	/* A partial trace (its interning lost) still fails when its framing
	 * is broken: the last packet's length runs past the end. */
	pftenc_stack_sample_iids(&e, 1, 1, PFT_SEQ_NEEDS, 8, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	at = e.n;
	pftenc_stack_sample_iids(&e, 2, 1, PFT_SEQ_NEEDS, 8, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	e.n -= 2;
	/* The packet's tag is at `at`, its length at at + 1 (one byte): the
	 * error names where its body starts. */
	snprintf(want, sizeof want, "byte %zu", at + 2);
	decode_bad(&e, ERR_INPUT, "TracePacket", want);
	buf_free(&e);

	/* A packet over the size limit. */
	pbw_key(&e, 1, PB_LEN);
	pbw_varint(&e, (uint64_t)PERFETTO_MAX_PACKET + 1);
	decode_bad(&e, ERR_TOO_LARGE, "TracePacket", NULL);
	buf_free(&e);

	/* A timestamp delta that overflows: skipped. */
	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 1);
	p = pftenc_packet(&e);
	pftenc_header(&e, 1, 1, PFT_SEQ_NEEDS);
	m = pbw_begin(&e, PFT_STREAMING_PROFILE);
	pbw_uint(&e, 1, 1);
	pbw_uint(&e, 2, (uint64_t)INT64_MAX);
	pbw_end(&e, m);
	pbw_end(&e, p);
	decode_malformed(&e, 1, 1, 0);
	buf_free(&e);

	/* A sink error stops the decode with its message. */
	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 1);
	pftenc_stack_sample_iids(&e, 1, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	{
		const char *kinds = "FRKSX";

		for (; *kinds != '\0'; kinds++) {
			struct decode_opts opts;
			struct limits lim;
			struct stream *in;
			struct sink s = pft_sink(&r);

			memset(&opts, 0, sizeof opts);
			bounds_default(&lim);
			r.fail_on = *kinds;
			error_clear(&err);
			in = stream_mem(e.p, e.n);
			CHECK(perfetto_decode(in, &opts, &lim, &s, &err) == -1);
			CHECK(err.kind == ERR_INTERNAL);
			CHECK(strstr(err.msg, "refused") != NULL);
			stream_free(in);
			rec_free(&r);
		}
	}
	buf_free(&e);
	tests++;
}

/* ---- detection ---- */

static int
gunzip_file(const char *path, uint8_t **out, size_t *len)
{
	gzFile f = gzopen(path, "rb");
	struct buf b = { 0 };
	uint8_t tmp[65536];
	int n;

	if (f == NULL)
		return -1;
	while ((n = gzread(f, tmp, sizeof tmp)) > 0)
		buf_add(&b, tmp, (size_t)n);
	gzclose(f);
	*out = b.p;
	*len = b.n;
	return n < 0 ? -1 : 0;
}

static void
test_sniff(void)
{
	static const char *fixtures[] = { "cpu.pprof", "heap.pprof",
	    "block.pprof", "mutex.pprof" };
	static const char *const a[] = { "main", "f" };
	/* A hand-made pprof head: sample_type { type: 1, unit: 2 }. */
	static const uint8_t pprof_head[] = { 0x0a, 0x04, 0x08, 0x01, 0x10,
	    0x02, 0x0a, 0x04, 0x08, 0x03, 0x10, 0x04, 0x12, 0x02 };
	static const uint8_t text[] = "main;foo;bar 12\nmain;foo 3\n";
	struct buf e = { 0 };
	char path[1024];
	uint8_t *data;
	size_t i, n, len, found = 0;

	/* Our traces, whole and as a short head. */
	put_stack(&e, 1, PFT_SEQ_CLEARED, 1, 1, a, 2);
	pftenc_stack_sample_iids(&e, 1, 1, PFT_SEQ_NEEDS, 1, PFTENC_NONE,
	    PFTENC_NONE, PFTENC_NONE, PFTENC_NONE);
	CHECK(perfetto_sniff(e.p, e.n) == 1);
	for (n = 3; n < e.n; n++)
		CHECK(perfetto_sniff(e.p, n) == 1);
	buf_free(&e);
	pftenc_perf_sample(&e, 1, 1, 0, 0, 1, 1, 1, 1, 1);
	CHECK(perfetto_sniff(e.p, e.n) == 1);
	buf_free(&e);
	/* A packet of a field we do not list, then a known one. */
	{
		size_t p = pftenc_packet(&e);

		pbw_str(&e, 900, "x");
		pbw_uint(&e, PFT_SEQUENCE_ID, 3);
		pbw_end(&e, p);
		CHECK(perfetto_sniff(e.p, e.n) == 1);
		buf_free(&e);
	}
	/* Only unknown fields, or a known field with a wrong wire type. */
	{
		size_t p = pftenc_packet(&e);

		pbw_str(&e, 900, "x");
		pbw_end(&e, p);
		CHECK(perfetto_sniff(e.p, e.n) == 0);
		buf_free(&e);
		p = pftenc_packet(&e);
		pbw_str(&e, PFT_TIMESTAMP, "x");
		pbw_end(&e, p);
		CHECK(perfetto_sniff(e.p, e.n) == 0);
		buf_free(&e);
	}
	/* A packet followed by something that is not a packet. */
	pftenc_perf_sample(&e, 1, 1, 0, 0, 1, 1, 1, 1, 1);
	pbw_uint(&e, 2, 1);
	CHECK(perfetto_sniff(e.p, e.n) == 0);
	buf_free(&e);

	CHECK(perfetto_sniff(pprof_head, sizeof pprof_head) == 0);
	for (n = 1; n <= sizeof pprof_head; n++)
		CHECK(perfetto_sniff(pprof_head, n) == 0);
	CHECK(perfetto_sniff(text, sizeof text - 1) == 0);
	CHECK(perfetto_sniff((const uint8_t *)"\n", 1) == 0);
	CHECK(perfetto_sniff((const uint8_t *)"\nmain;foo 1\n", 12) == 0);
	CHECK(perfetto_sniff(NULL, 0) == 0);

	for (i = 0; i < NITEMS(fixtures); i++) {
		snprintf(path, sizeof path, "%s/%s", FIXTURES_DIR, fixtures[i]);
		if (gunzip_file(path, &data, &len) == -1) {
			free(data);
			continue;
		}
		found++;
		CHECK(len > 0);
		CHECK(perfetto_sniff(data, len < 4096 ? len : 4096) == 0);
		for (n = 1; n < 64 && n < len; n++)
			CHECK(perfetto_sniff(data, n) == 0);
		free(data);
	}
	CHECK(found > 0);
	tests++;
}

int
main(void)
{
	test_stack_sample_interned();
	test_stack_sample_inline();
	test_units();
	test_followers();
	test_perf_sample();
	test_streaming();
	test_two_sequences();
	test_sparse_iids();
	test_state_reset();
	test_packet_dropped();
	test_needs_before_clear();
	test_unknown_iids();
	test_malformed_contents();
	test_inline_ids_followers();
	test_names_late();
	test_flat_cum();
	test_unknown_fields();
	test_malformed();
	test_sniff();
	printf("test_perfetto: %u tests, %u checks passed\n", tests, checks);
	return 0;
}
