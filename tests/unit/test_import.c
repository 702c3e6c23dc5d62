/* test_import.c: the importer's run over a store in a temporary directory
 * with the Go CPU fixture: a profile stored from memory and from a file
 * descriptor (hashed as it is decoded); the same bytes again a duplicate
 * either way, answered with the first push's result and nothing new
 * stored; a bad input, a stack past the depth limit and an import stopped
 * midway rolled back whole (the interning caches dropped, since they may
 * name rows the rollback removed; kept when a duplicate is known before
 * decoding); a blob past max_body refused before anything; a body in
 * memory handed back to its owner once read to its end; each metric's
 * kind inferred from the Go fixtures (a heap profile holds two kinds) or
 * given by the push (kind=METRIC:KIND, push_kind), stored with it and
 * answered as stored for a duplicate; the metrics a push keeps
 * (keep=METRIC, push_keep) stored alone. */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "deflate.h"
#include "inflate.h"
#include "kind.h"
#include "push.h"
#include "testimport.h"

static struct testimport ts;
static uint8_t *cpu;
static size_t cpu_len;

/* An import of data, from memory or (fd) through a file. */
static int
run(const char *scope, const uint8_t *data, size_t len, int from_file,
    struct import_result *res, struct error *err)
{
	struct import_request req;
	char path[128];
	int fd = -1, rc;

	memset(&req, 0, sizeof req);
	req.scope = scope;
	req.format = "auto";
	req.name = "";
	req.fd = -1;
	if (from_file) {
		snprintf(path, sizeof path, "%s/blob", ts.dir);
		CHECK((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) >= 0);
		CHECK(write(fd, data, len) == (ssize_t)len);
		CHECK(lseek(fd, 0, SEEK_SET) == 0);
		CHECK(unlink(path) == 0);
		req.fd = fd;
	} else {
		req.data = data;
		req.len = len;
	}
	rc = importer_run(ts.im, &req, res, err);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Profiles stored in a scope; -1 if the scope does not exist. */
static ssize_t
profiles(const char *scope)
{
	struct store_profile_info *p;
	struct error err = { 0 };
	size_t n;

	if (store_profiles(ts.rd, scope, &p, &n, &err) == -1) {
		CHECK(err.kind == ERR_NOT_FOUND);
		return -1;
	}
	store_profile_info_free(p, n);
	return (ssize_t)n;
}

static void
same_result(const struct import_result *a, const struct import_result *b)
{
	size_t i;

	CHECK(a->profile_id == b->profile_id);
	CHECK(strcmp(a->format, b->format) == 0);
	CHECK(a->samples == b->samples);
	CHECK(a->dropped_samples == b->dropped_samples);
	CHECK(a->nmetrics == b->nmetrics && a->ncounts == b->ncounts);
	for (i = 0; i < a->nmetrics; i++)
		CHECK(a->metrics[i].id == b->metrics[i].id &&
		    strcmp(a->metrics[i].type, b->metrics[i].type) == 0 &&
		    a->metrics[i].kind == b->metrics[i].kind);
}

static void
test_memory(void)
{
	struct import_result first, again;
	struct store_profile_info info;
	struct error err = { 0 };
	size_t cached;

	CHECK(run("mem", cpu, cpu_len, 0, &first, &err) == 0);
	CHECK(first.profile_id > 0 && !first.duplicate);
	CHECK(strcmp(first.format, "pprof") == 0);
	CHECK(first.nmetrics == 2);
	CHECK(strcmp(first.metrics[0].type, "samples") == 0);
	CHECK(strcmp(first.metrics[1].type, "cpu") == 0);
	CHECK(store_profile_get(ts.rd, first.profile_id, &info, &err) == 0);
	CHECK(info.samples == first.samples && info.samples > 0);
	CHECK(info.bytes == (int64_t)cpu_len);
	CHECK(strcmp(info.format, "pprof") == 0);
	store_profile_info_clear(&info);
	CHECK(profiles("mem") == 1);
	cached = importer_cache_bytes(ts.im);
	CHECK(cached > 0);

	/* Again: a duplicate found by its hash before decoding, the caches
	 * kept. */
	CHECK(run("mem", cpu, cpu_len, 0, &again, &err) == 0);
	CHECK(again.duplicate);
	same_result(&first, &again);
	CHECK(profiles("mem") == 1);
	CHECK(importer_cache_bytes(ts.im) == cached);
	import_result_clear(&again);

	/* From a file: known a duplicate only after the decode, whose rows
	 * are rolled back and caches dropped. */
	CHECK(run("mem", cpu, cpu_len, 1, &again, &err) == 0);
	CHECK(again.duplicate);
	same_result(&first, &again);
	CHECK(profiles("mem") == 1);
	CHECK(importer_cache_bytes(ts.im) == 0);
	import_result_clear(&again);
	import_result_clear(&first);
	printf("ok: from memory; the same again from memory and from a file "
	    "is a duplicate\n");
}

static void
test_file(void)
{
	struct import_result first, again;
	struct store_profile_info info;
	struct error err = { 0 };

	CHECK(run("file", cpu, cpu_len, 1, &first, &err) == 0);
	CHECK(!first.duplicate && first.profile_id > 0);
	CHECK(store_profile_get(ts.rd, first.profile_id, &info, &err) == 0);
	CHECK(info.bytes == (int64_t)cpu_len);
	store_profile_info_clear(&info);
	/* Its hash was stored: the same bytes from memory are known. */
	CHECK(run("file", cpu, cpu_len, 0, &again, &err) == 0);
	CHECK(again.duplicate);
	same_result(&first, &again);
	CHECK(profiles("file") == 1);
	import_result_clear(&again);
	import_result_clear(&first);
	printf("ok: from a file, hashed as it is read\n");
}

static void
test_failures(void)
{
	struct import_result res;
	struct error err = { 0 };
	struct limits lim = ts.lim;
	atomic_int stop = 0;
	uint8_t junk[64];

	/* Cut short: a decode error, rolled back whole (the scope too). */
	CHECK(run("bad", cpu, cpu_len / 2, 0, &res, &err) == -1);
	CHECK(err.kind == ERR_INPUT);
	CHECK(profiles("bad") == -1);
	CHECK(importer_cache_bytes(ts.im) == 0);
	error_clear(&err);
	memset(junk, 0x5a, sizeof junk);
	CHECK(run("bad", junk, sizeof junk, 1, &res, &err) == -1);
	CHECK(err.kind == ERR_INPUT);
	CHECK(profiles("bad") == -1);
	error_clear(&err);

	/* Past the stack depth limit. */
	lim.max_stack_depth = 3;
	importer_set_limits(ts.im, &lim);
	CHECK(run("deep", cpu, cpu_len, 0, &res, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE && HAS(err.msg, "max_stack_depth 3"));
	CHECK(profiles("deep") == -1);
	error_clear(&err);
	/* Past max_body: refused before anything. */
	lim = ts.lim;
	lim.max_body = cpu_len - 1;
	CHECK(run("big", cpu, cpu_len, 0, &res, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE && HAS(err.msg, "bytes (limit"));
	CHECK(profiles("big") == -1);
	error_clear(&err);
	importer_set_limits(ts.im, &ts.lim);

	/* Stopping: an import from a file gives up, one from memory ends. */
	atomic_store(&stop, 1);
	importer_set_stop(ts.im, &stop);
	CHECK(run("stop", cpu, cpu_len, 1, &res, &err) == -1);
	CHECK(err.kind == ERR_BUSY && HAS(err.msg, "profd is stopping"));
	CHECK(profiles("stop") == -1);
	error_clear(&err);
	CHECK(run("stop", cpu, cpu_len, 0, &res, &err) == 0);
	CHECK(!res.duplicate && profiles("stop") == 1);
	import_result_clear(&res);
	importer_set_stop(ts.im, NULL);

	/* And the importer goes on as before. */
	CHECK(run("after", cpu, cpu_len, 1, &res, &err) == 0);
	CHECK(!res.duplicate && profiles("after") == 1);
	import_result_clear(&res);
	printf("ok: bad input, too deep, too large, stopping: nothing "
	    "stored\n");
}

/* A bad sample after good ones: samples are read once, so those before
 * it went into the import's rows; rolled back with everything else. */
static void
test_late_error(void)
{
	/* Sample { location_id: 2147483647, value: [1, 1] } */
	static const uint8_t bad[] = { 0x12, 0x0b, 0x0a, 0x05, 0xff, 0xff,
	    0xff, 0xff, 0x07, 0x12, 0x02, 0x01, 0x01 };
	struct import_result res;
	struct error err = { 0 };
	struct stream *in;
	uint8_t *raw, *gz;
	size_t len, gzlen;

	in = inflate_stream(stream_mem(cpu, cpu_len), &ts.lim);
	CHECK(stream_slurp(in, 1u << 20, &raw, &len, &err) == 0);
	stream_free(in);
	raw = xrealloc(raw, len + sizeof bad);
	memcpy(raw + len, bad, sizeof bad);
	CHECK(deflate_gzip(raw, len + sizeof bad, DEFLATE_FILE_LEVEL, &gz, &gzlen,
	    &err) == 0);
	CHECK(run("late", gz, gzlen, 0, &res, &err) == -1);
	CHECK(err.kind == ERR_INPUT);
	CHECK(HAS(err.msg, "Sample.location_id at byte"));
	CHECK(HAS(err.msg, "location id 2147483647 is not defined"));
	CHECK(profiles("late") == -1);
	CHECK(importer_cache_bytes(ts.im) == 0);
	error_clear(&err);
	/* Without it: stored, every sample. */
	CHECK(run("late", raw, len, 1, &res, &err) == 0);
	CHECK(!res.duplicate && profiles("late") == 1 && res.samples > 0);
	import_result_clear(&res);
	free(raw);
	free(gz);
	printf("ok: a bad last sample rolls back the samples before it\n");
}

/* The owner of a body in memory told once it was read to its end, and
 * the body freed there (ASan would see a later read); a duplicate known
 * by its hash never reads it. */
static int released;

static void
release(void *arg)
{
	released++;
	free(arg);
}

static uint8_t *
dup_cpu(void)
{
	uint8_t *p = xmalloc(cpu_len);

	memcpy(p, cpu, cpu_len);
	return p;
}

static void
test_read_all(void)
{
	struct import_request req;
	struct import_result flat, res;
	struct error err = { 0 };
	struct iovec iov[3];
	uint8_t *copy;
	size_t k = cpu_len / 3;

	CHECK(run("flat", cpu, cpu_len, 0, &flat, &err) == 0);
	memset(&req, 0, sizeof req);
	req.scope = "pieces";
	req.format = "auto";
	req.name = "";
	req.fd = -1;
	req.len = cpu_len;
	req.iov = iov;
	req.niov = 3;
	req.read_all = release;
	copy = dup_cpu();
	iov[0].iov_base = copy;
	iov[0].iov_len = k;
	iov[1].iov_base = copy + k;
	iov[1].iov_len = k;
	iov[2].iov_base = copy + 2 * k;
	iov[2].iov_len = cpu_len - 2 * k;
	req.read_all_arg = copy;
	CHECK(importer_run(ts.im, &req, &res, &err) == 0);
	CHECK(released == 1);
	CHECK(!res.duplicate && res.samples == flat.samples);
	CHECK(profiles("pieces") == 1);
	import_result_clear(&res);

	copy = dup_cpu();
	iov[0].iov_base = copy;
	iov[1].iov_base = copy + k;
	iov[2].iov_base = copy + 2 * k;
	req.read_all_arg = copy;
	CHECK(importer_run(ts.im, &req, &res, &err) == 0);
	CHECK(res.duplicate && released == 1);
	free(copy);
	import_result_clear(&res);
	import_result_clear(&flat);
	printf("ok: a body in pieces released once read, not for a "
	    "duplicate\n");
}

/* The kinds of a result's metrics and of the stored profile's, as
 * "type:kind ..." (both must be the same). */
static void
kinds_of(const struct import_result *res, char *buf, size_t size)
{
	struct store_profile_info info;
	struct error err = { 0 };
	size_t i, n = 0;

	buf[0] = '\0';
	CHECK(store_profile_get(ts.rd, res->profile_id, &info, &err) == 0);
	CHECK(info.nmetrics == res->nmetrics);
	for (i = 0; i < res->nmetrics && i < info.nmetrics; i++) {
		CHECK(info.metrics[i].kind == res->metrics[i].kind);
		n += (size_t)snprintf(buf + n, size - n, "%s%s:%s", i ? " " :
		    "", res->metrics[i].type, kind_name(res->metrics[i].kind));
		CHECK(n < size);
	}
	store_profile_info_clear(&info);
}

/* An import of a fixture (or, with a metric, of folded stacks of it in
 * bytes) with what push p says (its kinds and the metrics it keeps). */
static int
run_push(const char *scope, const char *fixture, const char *metric,
    const struct push *p, struct import_result *res, struct error *err)
{
	static const char folded[] = "main;work 3\nmain;idle 1\n";
	struct import_request req;
	uint8_t *data;
	size_t len;
	int rc;

	if (metric != NULL) {
		data = (uint8_t *)xstrdup(folded);
		len = strlen(folded);
	} else
		data = testimport_fixture(fixture, &len);
	memset(&req, 0, sizeof req);
	req.scope = scope;
	req.format = metric != NULL ? "folded" : "auto";
	req.name = fixture;
	req.fd = -1;
	req.data = data;
	req.len = len;
	req.kinds = p->kinds;
	req.nkinds = p->nkinds;
	req.keep = p->keep;
	req.nkeep = p->nkeep;
	req.opts.metric_type = mstr_from(metric);
	req.opts.metric_unit = mstr_from(metric ? "bytes" : NULL);
	rc = importer_run(ts.im, &req, res, err);
	free(data);
	return rc;
}

/* The same with the kinds of a push (NULL: none), which must store it. */
static void
run_kinds(const char *scope, const char *fixture, const char *metric,
    const char *const *kinds, struct import_result *res)
{
	struct error err = { 0 };
	struct push p;

	memset(&p, 0, sizeof p);
	for (; kinds != NULL && *kinds != NULL; kinds++)
		CHECK(push_kind(&p, *kinds, &err) == 0);
	if (run_push(scope, fixture, metric, &p, res, &err) == -1)
		fprintf(stderr, "%s: %s\n", fixture, err.msg);
	CHECK(res->profile_id > 0);
	push_clear(&p);
}

static void
test_kinds(void)
{
	static const struct {
		const char *fixture, *want;
	} go[] = {
		{ "cpu.pprof", "samples:delta cpu:delta" },
		{ "heap.pprof", "alloc_objects:cumulative alloc_space:cumulative "
		    "inuse_objects:gauge inuse_space:gauge" },
		{ "mutex.pprof", "contentions:cumulative delay:cumulative" },
		{ "block.pprof", "contentions:cumulative delay:cumulative" },
	};
	static const char *const heap_kinds[] = {
		"inuse_space:delta",
		/* The last for a metric wins; a unit must match. */
		"alloc_objects:gauge", "alloc_objects/count:cumulative",
		"alloc_space/bytes:gauge", "alloc_space/count:delta",
		/* A metric the profile lacks: nothing to do. */
		"goroutine:delta", NULL
	};
	static const char *const folded_kinds[] = {
		"inuse_space/bytes:gauge", NULL
	};
	struct import_result res, again;
	char got[256];
	size_t i;

	for (i = 0; i < sizeof go / sizeof go[0]; i++) {
		run_kinds("kinds", go[i].fixture, NULL, NULL, &res);
		kinds_of(&res, got, sizeof got);
		if (strcmp(got, go[i].want) != 0)
			fprintf(stderr, "%s: %s\n", go[i].fixture, got);
		CHECK(strcmp(got, go[i].want) == 0);
		import_result_clear(&res);
	}

	/* The push's word over the rule. */
	run_kinds("kinds-push", "heap.pprof", NULL, heap_kinds, &res);
	CHECK(!res.duplicate);
	kinds_of(&res, got, sizeof got);
	CHECK(strcmp(got, "alloc_objects:cumulative alloc_space:gauge "
	    "inuse_objects:gauge inuse_space:delta") == 0);
	/* The same bytes again are a duplicate whatever kinds they come
	 * with: the first push's stay. */
	run_kinds("kinds-push", "heap.pprof", NULL, NULL, &again);
	CHECK(again.duplicate);
	same_result(&res, &again);
	import_result_clear(&again);
	import_result_clear(&res);

	/* Folded stacks add up, whatever they are called, unless the push
	 * says otherwise. */
	run_kinds("kinds-folded", "stacks", "inuse_space", NULL, &res);
	kinds_of(&res, got, sizeof got);
	CHECK(strcmp(got, "inuse_space:delta") == 0);
	import_result_clear(&res);
	run_kinds("kinds-folded2", "stacks", "inuse_space", folded_kinds,
	    &res);
	kinds_of(&res, got, sizeof got);
	CHECK(strcmp(got, "inuse_space:gauge") == 0);
	import_result_clear(&res);
	printf("ok: kinds inferred from the Go profiles, given by the push, "
	    "kept for a duplicate\n");
}

/* Each of bad refused by parse, its error naming it. */
static void
refused_all(int (*parse)(struct push *, const char *, struct error *),
    struct push *p, const char *const *bad)
{
	struct error err;

	for (; *bad != NULL; bad++) {
		memset(&err, 0, sizeof err);
		CHECK(parse(p, *bad, &err) == -1);
		CHECK(err.kind == ERR_INPUT && strstr(err.msg, *bad) != NULL);
	}
}

/* Go's counters differenced by the producer (the Connect push's
 * __delta__="false", godeltaprof): deltas; its states stay gauges. */
static void
test_push_go_differenced(void)
{
	static const struct {
		const char *fixture, *want;
	} go[] = {
		{ "heap.pprof", "alloc_objects:delta alloc_space:delta "
		    "inuse_objects:gauge inuse_space:gauge" },
		{ "mutex.pprof", "contentions:delta delay:delta" },
		{ "cpu.pprof", "samples:delta cpu:delta" },
	};
	struct import_result res;
	struct error err = { 0 };
	struct push p;
	char got[256];
	size_t i;

	memset(&p, 0, sizeof p);
	push_kind_go_differenced(&p);
	CHECK(p.nkinds == 8);
	for (i = 0; i < p.nkinds; i++) {
		CHECK(p.kinds[i].unit == NULL);
		CHECK(p.kinds[i].kind == (strncmp(p.kinds[i].type, "inuse_",
		    6) == 0 || strcmp(p.kinds[i].type, "goroutine") == 0 ||
		    strcmp(p.kinds[i].type, "threadcreate") == 0 ?
		    KIND_GAUGE : KIND_DELTA));
	}
	for (i = 0; i < sizeof go / sizeof go[0]; i++) {
		if (run_push("kinds-differenced", go[i].fixture, NULL, &p,
		    &res, &err) == -1)
			fprintf(stderr, "%s: %s\n", go[i].fixture, err.msg);
		CHECK(res.profile_id > 0);
		kinds_of(&res, got, sizeof got);
		if (strcmp(got, go[i].want) != 0)
			fprintf(stderr, "%s: %s\n", go[i].fixture, got);
		CHECK(strcmp(got, go[i].want) == 0);
		import_result_clear(&res);
	}
	push_clear(&p);
	printf("ok: Go's counters differenced by the producer are deltas, "
	    "its states gauges\n");
}

/* kind=METRIC:KIND as POST /v1/profiles takes it. */
static void
test_push_kind(void)
{
	static const char *const bad[] = {
		"alloc_space", "alloc_space:", ":gauge", "alloc_space:Gauge",
		"alloc_space:gauge ", "/bytes:gauge", "alloc_space/:gauge",
		"alloc_space=gauge", "", NULL
	};
	struct error err = { 0 };
	struct push p;

	memset(&p, 0, sizeof p);
	CHECK(push_kind(&p, "alloc_space:cumulative", &err) == 0);
	CHECK(push_kind(&p, "inuse_space/bytes:gauge", &err) == 0);
	/* The kind's name is after the last ':'; a type may hold one. */
	CHECK(push_kind(&p, "jvm:heap/bytes:delta", &err) == 0);
	CHECK(p.nkinds == 3);
	CHECK(strcmp(p.kinds[0].type, "alloc_space") == 0 &&
	    p.kinds[0].unit == NULL && p.kinds[0].kind == KIND_CUMULATIVE);
	CHECK(strcmp(p.kinds[1].type, "inuse_space") == 0 &&
	    strcmp(p.kinds[1].unit, "bytes") == 0 &&
	    p.kinds[1].kind == KIND_GAUGE);
	CHECK(strcmp(p.kinds[2].type, "jvm:heap") == 0 &&
	    strcmp(p.kinds[2].unit, "bytes") == 0);
	refused_all(push_kind, &p, bad);
	CHECK(p.nkinds == 3);
	push_clear(&p);
	printf("ok: kind=METRIC:KIND parsed, bad ones refused\n");
}

/* keep=METRIC: a Go heap profile's inuse_* only (as a scrape of heap
 * beside allocs keeps them), or its alloc_* with a unit that must match;
 * the kinds of what is kept as inferred; a profile with none of the
 * metrics kept refused, nothing stored; bad specs refused. */
static void
test_keep(void)
{
	static const char *const bad[] = {
		"", "/bytes", "inuse_space/", NULL
	};
	struct import_result res;
	struct error err = { 0 };
	struct store_profile_info info;
	struct push p;
	char got[256];

	memset(&p, 0, sizeof p);
	CHECK(push_keep(&p, "inuse_objects", &err) == 0);
	CHECK(push_keep(&p, "inuse_space", &err) == 0);
	CHECK(push_keep(&p, "goroutine", &err) == 0);
	CHECK(run_push("keep-inuse", "heap.pprof", NULL, &p, &res, &err) ==
	    0);
	kinds_of(&res, got, sizeof got);
	CHECK(strcmp(got, "inuse_objects:gauge inuse_space:gauge") == 0);
	/* The samples are those of the file: every one has a value in
	 * inuse_space or alloc_space. */
	CHECK(res.samples > 0 && res.dropped_samples == 0);
	CHECK(store_profile_get(ts.rd, res.profile_id, &info, &err) == 0);
	CHECK(info.default_metric.id == res.metrics[1].id);
	store_profile_info_clear(&info);
	import_result_clear(&res);
	push_clear(&p);

	CHECK(push_keep(&p, "alloc_space/bytes", &err) == 0);
	CHECK(push_keep(&p, "alloc_objects/bytes", &err) == 0);
	CHECK(run_push("keep-alloc", "heap.pprof", NULL, &p, &res, &err) ==
	    0);
	kinds_of(&res, got, sizeof got);
	CHECK(strcmp(got, "alloc_space:cumulative") == 0);
	import_result_clear(&res);
	push_clear(&p);

	/* None kept: refused, nothing stored. */
	CHECK(push_keep(&p, "cpu", &err) == 0);
	CHECK(push_keep(&p, "samples/count", &err) == 0);
	CHECK(run_push("keep-none", "heap.pprof", NULL, &p, &res, &err) ==
	    -1);
	CHECK(err.kind == ERR_INPUT);
	CHECK(strstr(err.msg, "the profile has none of the metrics kept "
	    "(cpu, samples/count) among its 4") != NULL);
	CHECK(profiles("keep-none") <= 0);
	import_result_clear(&res);
	/* Folded stacks of samples/bytes: the unit kept is another. */
	memset(&err, 0, sizeof err);
	CHECK(run_push("keep-none", "stacks", "samples", &p, &res, &err) ==
	    -1);
	CHECK(strstr(err.msg, "none of the metrics kept") != NULL);
	CHECK(profiles("keep-none") <= 0);
	push_clear(&p);

	refused_all(push_keep, &p, bad);
	CHECK(p.nkeep == 0);
	push_clear(&p);
	printf("ok: keep=METRIC stores only the metrics named\n");
}

int
main(void)
{
	testimport_open(&ts);
	cpu = testimport_fixture("cpu.pprof", &cpu_len);
	test_memory();
	test_file();
	test_failures();
	test_late_error();
	test_read_all();
	test_kinds();
	test_push_kind();
	test_push_go_differenced();
	test_keep();
	free(cpu);
	testimport_close(&ts);
	printf("test_import: %u checks passed\n", checks);
	return 0;
}
