/* test_otlp.c: the OTLP profiles decoder (decode/otlp*.c) on requests
 * built here field by field with pbw, and the same request in OTLP's
 * JSON: what reaches a recording sink (metric, frames with inlining,
 * stacks, labels, values and timestamps, meta), the scope and labels of
 * each Profile, every dictionary index checked, another version's wire
 * format named, every prefix of a request refused or read cleanly. */
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
#include "nitems.h"
#include "otlp-int.h"
#include "otlp.h"
#include "pbw.h"
#include "stream.h"
#include "testrec.h"

/* What a request is built of; a test changes one thing and builds it. */
struct spec {
	int64_t line_fn;		/* Line.function_index of location 1 */
	int64_t stack_loc;		/* Stack 1's second location */
	int64_t attr_key;		/* attribute 1's key_strindex */
	int64_t sample_stack;		/* Profile 0's sample's stack_index */
	int first_string_x;		/* string_table[0] = "x" */
	int old_sample;			/* v1.9.0's Sample: attrs at 3 */
	int no_service;
};

static const char *const strs[] = { "", "cpu", "nanoseconds", "main",
    "work", "inl", "main.c", "thread.name", "t1", "bytes", "alloc",
    "service.name", "host.name", "samples", "count", "/bin/app" };
enum { S_CPU = 1, S_NS, S_MAIN, S_WORK, S_INL, S_FILE, S_THREAD, S_T1,
    S_BYTES, S_ALLOC, S_SVC, S_HOST, S_SAMPLES, S_COUNT, S_APP };

static void
kv_str(struct buf *b, uint32_t num, const char *key, int64_t key_strindex,
    const char *value)
{
	size_t m = pbw_begin(b, num), v;

	if (key != NULL)
		pbw_str(b, 1, key);
	v = pbw_begin(b, 2);
	pbw_str(b, 1, value);
	pbw_end(b, v);
	if (key_strindex != 0)
		pbw_int(b, 3, key_strindex);
	pbw_end(b, m);
}

static void
build(const struct spec *sp, struct buf *b)
{
	size_t rp, res, scp, scope, prof, d, m, s, l, ln;
	uint64_t u[4];
	size_t i;

	memset(b, 0, sizeof *b);
	rp = pbw_begin(b, 1);			/* ResourceProfiles */
	res = pbw_begin(b, 1);			/* Resource */
	if (!sp->no_service)
		kv_str(b, 1, "service.name", 0, "checkout");
	kv_str(b, 1, NULL, S_HOST, "web1");	/* key by strindex */
	pbw_end(b, res);
	scp = pbw_begin(b, 2);			/* ScopeProfiles */
	scope = pbw_begin(b, 1);
	pbw_str(b, 1, "ebpf-profiler");
	kv_str(b, 3, "scope.attr", 0, "yes");
	pbw_end(b, scope);
	/* Profile 0: cpu nanoseconds, one sample of value 30 on stack 1,
	 * labelled thread.name=t1 and bytes=512, linked. */
	prof = pbw_begin(b, 2);
	m = pbw_begin(b, 1);
	pbw_int(b, 1, S_CPU);
	pbw_int(b, 2, S_NS);
	pbw_end(b, m);
	s = pbw_begin(b, 2);
	pbw_int(b, 1, sp->sample_stack);
	u[0] = 1;
	u[1] = 2;
	pbw_packed(b, sp->old_sample ? 3 : 2, u, 2);
	if (!sp->old_sample) {
		pbw_int(b, 3, 1);
		u[0] = 30;
		pbw_packed(b, 4, u, 1);
	}
	pbw_end(b, s);
	pbw_fixed64(b, 3, 1700000000000000000ull);
	pbw_uint(b, 4, 10000000000ull);
	m = pbw_begin(b, 5);
	pbw_int(b, 1, S_CPU);
	pbw_int(b, 2, S_NS);
	pbw_end(b, m);
	pbw_int(b, 6, 10000000);
	pbw_end(b, prof);
	/* Profile 1: samples/count, timestamps only (each a 1), on stack
	 * 2; the Profile's own attribute 1 (thread.name=t1). */
	prof = pbw_begin(b, 2);
	m = pbw_begin(b, 1);
	pbw_int(b, 1, S_SAMPLES);
	pbw_int(b, 2, S_COUNT);
	pbw_end(b, m);
	s = pbw_begin(b, 2);
	pbw_int(b, 1, 2);
	pbw_key(b, 5, PB_LEN);
	pbw_varint(b, 24);
	for (i = 0; i < 3; i++) {
		uint64_t t = 1700000001000000000ull + i * 1000000000ull;
		uint8_t le[8];
		size_t k;

		for (k = 0; k < 8; k++)
			le[k] = (uint8_t)(t >> (8 * k));
		buf_add(b, le, 8);
	}
	pbw_end(b, s);
	u[0] = 1;
	pbw_packed(b, 11, u, 1);
	pbw_end(b, prof);
	pbw_end(b, scp);
	pbw_end(b, rp);

	d = pbw_begin(b, 2);			/* ProfilesDictionary */
	pbw_bytes(b, 1, "", 0);			/* mapping 0 */
	m = pbw_begin(b, 1);			/* mapping 1 */
	pbw_uint(b, 1, 0x400000);
	pbw_uint(b, 2, 0x500000);
	pbw_int(b, 4, S_APP);
	pbw_end(b, m);
	pbw_bytes(b, 2, "", 0);			/* location 0 */
	l = pbw_begin(b, 2);			/* location 1: inl in work */
	pbw_int(b, 1, 1);
	pbw_uint(b, 2, 0x401000);
	ln = pbw_begin(b, 3);
	pbw_int(b, 1, sp->line_fn);
	pbw_int(b, 2, 7);
	pbw_end(b, ln);
	ln = pbw_begin(b, 3);
	pbw_int(b, 1, 2);
	pbw_int(b, 2, 20);
	pbw_end(b, ln);
	pbw_end(b, l);
	l = pbw_begin(b, 2);			/* location 2: main */
	pbw_int(b, 1, 1);
	pbw_uint(b, 2, 0x400100);
	ln = pbw_begin(b, 3);
	pbw_int(b, 1, 1);
	pbw_int(b, 2, 3);
	pbw_end(b, ln);
	pbw_end(b, l);
	l = pbw_begin(b, 2);			/* location 3: unsymbolized */
	pbw_int(b, 1, 1);
	pbw_uint(b, 2, 0x402000);
	pbw_end(b, l);
	pbw_bytes(b, 3, "", 0);			/* function 0 */
	for (i = 0; i < 3; i++) {		/* main, work, inl */
		m = pbw_begin(b, 3);
		pbw_int(b, 1, S_MAIN + (int64_t)i);
		pbw_int(b, 2, S_MAIN + (int64_t)i);
		pbw_int(b, 3, S_FILE);
		pbw_end(b, m);
	}
	pbw_bytes(b, 4, "", 0);			/* link 0 */
	m = pbw_begin(b, 4);
	pbw_bytes(b, 1, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"
	    "\x0d\x0e\x0f\x10", 16);
	pbw_bytes(b, 2, "\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7", 8);
	pbw_end(b, m);
	for (i = 0; i < NITEMS(strs); i++)
		pbw_str(b, 5, i == 0 && sp->first_string_x ? "x" : strs[i]);
	pbw_bytes(b, 6, "", 0);			/* attribute 0 */
	m = pbw_begin(b, 6);			/* thread.name = t1 */
	pbw_int(b, 1, sp->attr_key);
	s = pbw_begin(b, 2);
	pbw_int(b, 8, S_T1);			/* string_value_strindex */
	pbw_end(b, s);
	pbw_end(b, m);
	m = pbw_begin(b, 6);			/* bytes = 512 bytes */
	pbw_int(b, 1, S_BYTES);
	s = pbw_begin(b, 2);
	pbw_int(b, 3, 512);
	pbw_end(b, s);
	pbw_int(b, 3, S_BYTES);
	pbw_end(b, m);
	pbw_bytes(b, 7, "", 0);			/* stack 0 */
	u[0] = 1;				/* stack 1: inl, work, main */
	u[1] = (uint64_t)sp->stack_loc;
	m = pbw_begin(b, 7);
	pbw_packed(b, 1, u, 2);
	pbw_end(b, m);
	m = pbw_begin(b, 7);			/* stack 2: unsymbolized, main */
	u[0] = 3;
	u[1] = 2;
	pbw_packed(b, 1, u, 2);
	pbw_end(b, m);
	pbw_end(b, d);
}

static const struct spec good = { 3, 2, S_THREAD, 1, 0, 0, 0 };

/* The JSON form of good's request, as OTLP writes it. */
static const char json_good[] =
    "{\"resourceProfiles\": [{\"resource\": {\"attributes\": ["
    "{\"key\": \"service.name\", \"value\": {\"stringValue\": \"checkout\"}},"
    "{\"keyStrindex\": 12, \"value\": {\"stringValue\": \"web1\"}}]},"
    "\"scopeProfiles\": [{\"scope\": {\"name\": \"ebpf-profiler\","
    "\"attributes\": [{\"key\": \"scope.attr\", \"value\": {\"stringValue\":"
    "\"yes\"}}]}, \"profiles\": ["
    "{\"sampleType\": {\"typeStrindex\": 1, \"unitStrindex\": 2},"
    "\"samples\": [{\"stackIndex\": 1, \"attributeIndices\": [1, 2],"
    "\"linkIndex\": 1, \"values\": [\"30\"]}],"
    "\"timeUnixNano\": \"1700000000000000000\", \"durationNano\": 10000000000,"
    "\"periodType\": {\"typeStrindex\": 1, \"unitStrindex\": 2},"
    "\"period\": \"10000000\"},"
    "{\"sampleType\": {\"typeStrindex\": 13, \"unitStrindex\": 14},"
    "\"samples\": [{\"stackIndex\": 2, \"timestampsUnixNano\": ["
    "\"1700000001000000000\", \"1700000002000000000\","
    "\"1700000003000000000\"]}], \"attributeIndices\": [1]}]}]}],"
    "\"dictionary\": {"
    "\"mappingTable\": [{}, {\"memoryStart\": \"4194304\","
    "\"memoryLimit\": \"5242880\", \"filenameStrindex\": 15}],"
    "\"locationTable\": [{}, {\"mappingIndex\": 1, \"address\": \"4198400\","
    "\"lines\": [{\"functionIndex\": 3, \"line\": \"7\"}, {\"functionIndex\": 2,"
    "\"line\": \"20\"}]}, {\"mappingIndex\": 1, \"address\": \"4194560\","
    "\"lines\": [{\"functionIndex\": 1, \"line\": \"3\"}]},"
    "{\"mappingIndex\": 1, \"address\": \"4202496\"}],"
    "\"functionTable\": [{}, {\"nameStrindex\": 3, \"systemNameStrindex\": 3,"
    "\"filenameStrindex\": 6}, {\"nameStrindex\": 4, \"systemNameStrindex\": 4,"
    "\"filenameStrindex\": 6}, {\"nameStrindex\": 5, \"systemNameStrindex\": 5,"
    "\"filenameStrindex\": 6}],"
    "\"linkTable\": [{}, {\"traceId\": \"0102030405060708090A0B0C0D0E0F10\","
    "\"spanId\": \"a0a1a2a3a4a5a6a7\"}],"
    "\"stringTable\": [\"\", \"cpu\", \"nanoseconds\", \"main\", \"work\","
    "\"inl\", \"main.c\", \"thread.name\", \"t1\", \"bytes\", \"alloc\","
    "\"service.name\", \"host.name\", \"samples\", \"count\", \"/bin/app\"],"
    "\"attributeTable\": [{}, {\"keyStrindex\": 7, \"value\": "
    "{\"stringValueStrindex\": 8}}, {\"keyStrindex\": 9, \"value\": "
    "{\"intValue\": \"512\"}, \"unitStrindex\": 9}],"
    "\"stackTable\": [{}, {\"locationIndices\": [1, 2]},"
    "{\"locationIndices\": [3, 2]}]}}";

static struct limits lim;

static int
decode(const void *p, size_t n, int json, struct otlp_req **r,
    struct error *err)
{
	error_clear(err);
	return otlp_req_decode(p, n, json, &lim, r, err);
}

/* The labels of a Profile, "k=v;..." */
static void
label_cb(void *arg, struct mstr k, struct mstr v)
{
	struct buf *b = arg;

	buf_printf(b, "%.*s=%.*s;", (int)k.n, k.p, (int)v.n, v.p);
}

static const char *
fname(const struct rec *r, int64_t frame)
{
	int64_t fn = r->frames[frame - 1].function;

	return fn == 0 ? "" : r->funcs[fn - 1].name;
}

/* Profile 0 of good's request, as the sink received it. */
static void
check_profile0(struct otlp_req *q)
{
	struct rec r;
	struct sink sink = rec_sink(&r);
	struct error err = { 0 };
	const struct rstack *s;
	const struct rlabelset *ls;

	CHECK(otlp_profile_check(q, 0, &err) == 0);
	CHECK(otlp_emit(q, 0, &sink, &err) == 0);
	CHECK(!r.bad_order && r.nmeta == 1);
	CHECK(r.nmetrics == 1 && STREQ(r.mtype[0], "cpu") &&
	    STREQ(r.munit[0], "nanoseconds"));
	CHECK(r.nsamples == 1 && r.samples[0].values[0] == 30 &&
	    r.samples[0].time_ns == 0);
	/* Leaf first, the inlined function before the one it is in. */
	s = &r.stacks[r.samples[0].stack - 1];
	CHECK(s->n == 3);
	CHECK(STREQ(fname(&r, s->ids[0]), "inl"));
	CHECK(r.frames[s->ids[0] - 1].flags == FRAME_INLINED);
	CHECK(r.frames[s->ids[0] - 1].line == 7);
	CHECK(STREQ(fname(&r, s->ids[1]), "work"));
	CHECK(r.frames[s->ids[1] - 1].flags == 0);
	CHECK(r.frames[s->ids[1] - 1].address == 0x401000);
	CHECK(STREQ(fname(&r, s->ids[2]), "main"));
	CHECK(r.nmaps == 1 && STREQ(r.maps[0].file, "/bin/app") &&
	    r.maps[0].m.start == 0x400000);
	/* Its labels: the string by index, the number with its unit, the
	 * link's ids in hex. */
	ls = &r.labelsets[r.samples[0].labelset - 1];
	CHECK(ls->n == 4);
	CHECK(STREQ(ls->l[0].key, "thread.name") && STREQ(ls->l[0].str, "t1"));
	CHECK(STREQ(ls->l[1].key, "bytes") && ls->l[1].is_num &&
	    ls->l[1].num == 512 && STREQ(ls->l[1].unit, "bytes"));
	CHECK(STREQ(ls->l[2].key, "trace_id") &&
	    STREQ(ls->l[2].str, "0102030405060708090a0b0c0d0e0f10"));
	CHECK(STREQ(ls->l[3].key, "span_id") &&
	    STREQ(ls->l[3].str, "a0a1a2a3a4a5a6a7"));
	CHECK(r.meta.time_ns == 1700000000000000000ll &&
	    r.meta.duration_ns == 10000000000ll && r.meta.period == 10000000);
	CHECK(STREQ(r.period_type, "cpu") && r.meta.samples == 1);
	rec_free(&r);
}

/* Profile 1: each timestamp a sample of 1 at its time. */
static void
check_profile1(struct otlp_req *q)
{
	struct rec r;
	struct sink sink = rec_sink(&r);
	struct error err = { 0 };
	const struct rstack *s;
	size_t i;

	CHECK(otlp_profile_check(q, 1, &err) == 0);
	CHECK(otlp_emit(q, 1, &sink, &err) == 0);
	CHECK(STREQ(r.mtype[0], "samples"));
	CHECK(r.nsamples == 3);
	for (i = 0; i < 3; i++)
		CHECK(r.samples[i].values[0] == 1 && r.samples[i].time_ns ==
		    1700000001000000000ll + (int64_t)i * 1000000000ll);
	s = &r.stacks[r.samples[0].stack - 1];
	/* An unsymbolized location: one frame, its address. */
	CHECK(s->n == 2 && r.frames[s->ids[0] - 1].function == 0 &&
	    r.frames[s->ids[0] - 1].address == 0x402000);
	CHECK(r.samples[0].labelset == 0);
	rec_free(&r);
}

static void
check_request(struct otlp_req *q)
{
	struct buf b = { 0 };
	struct mstr svc, f, p;

	CHECK(otlp_req_profiles(q) == 2);
	CHECK(otlp_profile_service(q, 0, &svc) == 0 &&
	    mstr_eqs(svc, "checkout"));
	otlp_profile_labels(q, 0, label_cb, &b);
	buf_add(&b, "", 1);
	CHECK(STREQ((char *)b.p, "host.name=web1;scope.attr=yes;"));
	b.n = 0;
	otlp_profile_labels(q, 1, label_cb, &b);
	buf_add(&b, "", 1);
	CHECK(STREQ((char *)b.p,
	    "host.name=web1;scope.attr=yes;thread.name=t1;"));
	buf_free(&b);
	CHECK(otlp_profile_samples(q, 0) == 1);
	otlp_profile_payload(q, 0, &f, &p);
	CHECK(f.n == 0 && p.n == 0);
	check_profile0(q);
	check_profile1(q);
}

static void
test_good(void)
{
	struct otlp_req *q;
	struct error err;
	struct buf b;

	build(&good, &b);
	CHECK(decode(b.p, b.n, 0, &q, &err) == 0);
	check_request(q);
	otlp_req_free(q);
	buf_free(&b);
	CHECK(decode(json_good, strlen(json_good), 1, &q, &err) == 0);
	check_request(q);
	otlp_req_free(q);
}

/* A request made of good with one thing changed: refused whole (or
 * Profile 0 refused, whole 0) with a message holding want. */
static void
bad(const struct spec *sp, int whole, const char *want)
{
	struct otlp_req *q;
	struct error err;
	struct buf b;

	build(sp, &b);
	if (whole) {
		CHECK(decode(b.p, b.n, 0, &q, &err) == -1);
		CHECK(err.kind == ERR_INPUT);
	} else {
		CHECK(decode(b.p, b.n, 0, &q, &err) == 0);
		CHECK(otlp_profile_check(q, 0, &err) == -1);
		/* The other Profile is fine. */
		CHECK(otlp_profile_check(q, 1, &(struct error){ 0 }) == 0);
		otlp_req_free(q);
	}
	if (!HAS(err.msg, want))
		fprintf(stderr, "message: %s\n", err.msg);
	CHECK(HAS(err.msg, want));
	buf_free(&b);
}

static void
test_bad(void)
{
	struct spec sp;

	sp = good, sp.line_fn = 4;
	bad(&sp, 1, "location_table[1].lines[0].function_index is 4, out of "
	    "function_table (4 entries)");
	sp = good, sp.line_fn = -1;
	bad(&sp, 1, "function_index is -1");
	sp = good, sp.stack_loc = 9;
	bad(&sp, 1, "stack_table[1].location_indices[1] is 9, out of "
	    "location_table");
	sp = good, sp.attr_key = 99;
	bad(&sp, 1, "attribute_table[1].key_strindex is 99");
	sp = good, sp.first_string_x = 1;
	bad(&sp, 1, "string_table[0] is not \"\"");
	sp = good, sp.sample_stack = 3;
	bad(&sp, 0, "profile 0: samples[0].stack_index is 3, out of "
	    "stack_table (3 entries)");
	sp = good, sp.old_sample = 1;
	bad(&sp, 1, "not an ExportProfilesServiceRequest of "
	    "opentelemetry-proto v1.11.0 (profiles v1development), which "
	    "profd speaks: Sample.link_index (field 3)");
}

/* The format table's way: format=otlp by name, Profile part of it. */
static void
test_stream(void)
{
	const struct format *fmt;
	struct decode_opts opts = { 0 };
	struct error err = { 0 };
	struct stream *in;
	struct sink sink;
	struct rec r;
	struct buf b;

	build(&good, &b);
	CHECK((fmt = format_find("otlp")) != NULL);
	CHECK(!fmt->sniff(b.p, b.n));
	CHECK(fmt->sniff((const uint8_t *)json_good, strlen(json_good)));
	opts.part = 2;
	sink = rec_sink(&r);
	in = stream_mem(b.p, b.n);
	CHECK(fmt->decode(in, &opts, &lim, &sink, &err) == 0);
	stream_free(in);
	CHECK(r.nsamples == 3 && STREQ(r.mtype[0], "samples"));
	rec_free(&r);
	/* Two Profiles and no part: refused, saying where they go. */
	opts.part = 0;
	sink = rec_sink(&r);
	in = stream_mem(b.p, b.n);
	CHECK(fmt->decode(in, &opts, &lim, &sink, &err) == -1);
	CHECK(HAS(err.msg, "holds 2 Profiles"));
	stream_free(in);
	rec_free(&r);
	buf_free(&b);
}

/* Every prefix of the request (and of its JSON) is refused or read
 * cleanly, and what is read is checked before it is followed. */
static void
test_prefixes(void)
{
	struct otlp_req *q;
	struct error err;
	struct buf b;
	struct rec r;
	struct sink sink;
	size_t n, i;

	build(&good, &b);
	for (n = 0; n < b.n; n++) {
		uint8_t *p = xmalloc(n + 1);

		memcpy(p, b.p, n);
		if (decode(p, n, 0, &q, &err) == 0) {
			for (i = 0; i < otlp_req_profiles(q); i++) {
				if (otlp_profile_check(q, i, &err) == -1)
					continue;
				sink = rec_sink(&r);
				CHECK(otlp_emit(q, i, &sink, &err) == 0);
				rec_free(&r);
			}
			otlp_req_free(q);
		} else
			CHECK(err.kind == ERR_INPUT);
		free(p);
	}
	buf_free(&b);
	for (n = 0; n < strlen(json_good); n++) {
		CHECK(decode(json_good, n, 1, &q, &err) == -1);
		CHECK(err.kind == ERR_INPUT);
	}
}

int
main(void)
{
	bounds_default(&lim);
	/* What a failed decode leaves (the fuzzer's first find: the
	 * request was read through before the NULL check). */
	otlp_req_free(NULL);
	test_good();
	test_bad();
	test_stream();
	test_prefixes();
	printf("test_otlp: %u checks passed\n", checks);
	return 0;
}
