/* test_timeline.c: the totals per time step of the Go fixture profiles
 * imported into a store: each profile's total (go tool pprof's) at its
 * time, one point per step between the first and the last, a coarser
 * step merging them, at most TIMELINE_MAX_POINTS points over a long
 * range, label and frame filters applied, an unknown scope an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mstr.h"
#include "testquery.h"
#include "timeline.h"

static struct testimport ts;

static void
timeline(const char *const *kv, int64_t step_s, struct timeline_result *r)
{
	struct selection sel;
	struct timeline_params p = { &sel, step_s };
	struct error err = { 0 };

	testquery_sel(&sel, kv);
	if (timeline_query(testquery_src(ts.rd, ts.idx), &p, r, &err) == -1) {
		fprintf(stderr, "timeline: %s\n", err.msg);
		exit(1);
	}
	selection_clear(&sel);
}

/* The profile's time, whole seconds. */
static int64_t
profile_s(int64_t id)
{
	struct store_profile_info info;
	struct error err = { 0 };
	int64_t s;

	CHECK(store_profile_get(ts.rd, id, &info, &err) == 0);
	s = info.time_ns / 1000000000;
	store_profile_info_clear(&info);
	return s;
}

static int64_t
expected_total(const char *profile, const char *metric)
{
	struct expected e;
	int64_t total;

	testimport_expected(profile, metric, &e);
	total = e.total;
	testimport_expected_clear(&e);
	return total;
}

static void
test_points(int64_t mutex_id, int64_t block_id)
{
	const char *kv[] = { "scope", "lock", "metric", "contentions", NULL };
	const char *ign[] = { "scope", "lock", "metric", "contentions",
	    "ignore", ".", NULL };
	int64_t m = expected_total("mutex", "contentions");
	int64_t b = expected_total("block", "contentions");
	int64_t ms = profile_s(mutex_id), bs = profile_s(block_id);
	struct timeline_result r;
	size_t i;

	CHECK(ms < bs);
	/* Step 1 s: a point per second from the first profile's time to the
	 * last's, zero in between. */
	timeline(kv, 0, &r);
	CHECK(r.step_s == 1 && r.start_s == ms);
	CHECK(r.npoints == (size_t)(bs - ms + 1));
	CHECK(r.values[0] == m && r.values[r.npoints - 1] == b);
	for (i = 1; i + 1 < r.npoints; i++)
		CHECK(r.values[i] == 0);
	CHECK(r.total == m + b);
	CHECK(strcmp(r.metric.type, "contentions") == 0);
	timeline_result_clear(&r);
	/* A day: one point, aligned to the step. */
	timeline(kv, 86400, &r);
	CHECK(r.step_s == 86400 && r.start_s == ms / 86400 * 86400);
	CHECK(r.npoints == 1 && r.values[0] == m + b && r.total == m + b);
	timeline_result_clear(&r);
	/* Every stack dropped by a frame filter: nothing left. */
	timeline(ign, 0, &r);
	CHECK(r.total == 0);
	for (i = 0; i < r.npoints; i++)
		CHECK(r.values[i] == 0);
	timeline_result_clear(&r);
	printf("ok: mutex (%lld) at %lld and block (%lld) at %lld\n",
	    (long long)m, (long long)ms, (long long)b, (long long)bs);
}

static void
test_labels(int64_t cpu_id)
{
	const char *w0[] = { "scope", "cpu", "metric", "samples",
	    "label", "worker=0", NULL };
	const char *n0[] = { "scope", "cpu", "metric", "samples",
	    "label", "worker!=0", NULL };
	int64_t total = expected_total("cpu", "samples"), a;
	struct timeline_result r;

	timeline(w0, 0, &r);
	CHECK(r.npoints == 1 && r.start_s == profile_s(cpu_id));
	a = r.total;
	CHECK(a > 0 && a < total && r.values[0] == a);
	timeline_result_clear(&r);
	timeline(n0, 0, &r);
	CHECK(r.total == total - a);
	timeline_result_clear(&r);
	printf("ok: worker=0 and worker!=0 split the CPU samples\n");
}

/* A folded profile has no time of its own: it is at its import's, days
 * after the fixtures were made. */
static void
test_long_range(int64_t cpu_id)
{
	const char *kv[] = { "scope", "far", "metric", "samples", NULL };
	static const char folded[] = "main;work 7\nmain;idle 3\n";
	struct decode_opts opts;
	struct timeline_result r;
	int64_t cs = profile_s(cpu_id), fs, first, last, step;
	int64_t total = expected_total("cpu", "samples");

	testimport_push(&ts, "far", "cpu.pprof");
	memset(&opts, 0, sizeof opts);
	opts.metric_type = MSTR_LIT("samples");
	opts.metric_unit = MSTR_LIT("count");
	fs = profile_s(testimport_push_data(&ts, "far", "folded", folded,
	    sizeof folded - 1, &opts, NULL));
	first = cs < fs ? cs : fs;
	last = cs < fs ? fs : cs;
	step = last - first + 1 > TIMELINE_MAX_POINTS ?
	    (last - first) / TIMELINE_MAX_POINTS + 1 : 1;
	timeline(kv, 1, &r);
	CHECK(r.step_s == step && r.npoints <= TIMELINE_MAX_POINTS);
	CHECK(r.start_s == first / step * step);
	CHECK(r.npoints == (size_t)((last - r.start_s) / step + 1));
	CHECK(r.values[(cs - r.start_s) / step] == total);
	CHECK(r.values[(fs - r.start_s) / step] == 10);
	CHECK(r.total == total + 10);
	printf("ok: %lld s in %zu points of %lld s\n",
	    (long long)(last - first), r.npoints, (long long)step);
	timeline_result_clear(&r);
}

static void
test_errors(void)
{
	const char *kv[] = { "scope", "nosuch", NULL };
	struct selection sel;
	struct timeline_params p = { &sel, 0 };
	struct timeline_result r;
	struct error err = { 0 };

	testquery_sel(&sel, kv);
	CHECK(timeline_query(testquery_src(ts.rd, ts.idx), &p, &r, &err) == -1);
	CHECK(err.kind == ERR_NOT_FOUND && HAS(err.msg, "nosuch"));
	CHECK(r.values == NULL && r.npoints == 0);
	selection_clear(&sel);
}

int
main(void)
{
	int64_t cpu, mutex, block;

	testimport_open(&ts);
	cpu = testimport_push(&ts, "cpu", "cpu.pprof");
	mutex = testimport_push(&ts, "lock", "mutex.pprof");
	block = testimport_push(&ts, "lock", "block.pprof");
	test_points(mutex, block);
	test_labels(cpu);
	test_long_range(cpu);
	test_errors();
	testimport_close(&ts);
	printf("test_timeline: %u checks passed\n", checks);
	return 0;
}
