/* test_query.c: a selection resolved and its values read from a store
 * holding the Go CPU fixture (query_resolve, query_select) and walked
 * (query_walk_*): the metric named or the newest profile's default, the
 * values summing to pprof's total, several scopes and profiles summed per
 * callsite, profile ids, time windows and push labels, and the errors: an
 * unknown scope or metric, one metric name with two units. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mstr.h"
#include "query.h"
#include "rfc3339.h"
#include "stackwalk.h"
#include "testquery.h"

static struct testimport ts;
static int64_t cpu_id, cpu2_id;

/* Selects kv: the sum of the values (0 with *nvals 0 when none), or -1
 * with err. */
static int64_t
select_sum(const char *const *kv, struct store_metric *m, size_t *nvals,
    int64_t *nprofiles, struct error *err)
{
	struct selection sel;
	struct store_cs_value *v = NULL;
	int64_t sum = 0;
	size_t i;

	testquery_sel(&sel, kv);
	if (query_select(ts.rd, ts.idx, &sel, m, &v, nvals, nprofiles,
	    err) == -1) {
		selection_clear(&sel);
		return -1;
	}
	for (i = 0; i < *nvals; i++) {
		CHECK(v[i].callsite > 0);
		if (i > 0)
			CHECK(v[i].callsite != v[i - 1].callsite);
		sum += v[i].value;
	}
	free(v);
	selection_clear(&sel);
	return sum;
}

static int64_t
sum_of(const char *const *kv, size_t *nvals, int64_t *nprofiles)
{
	struct store_metric m;
	struct error err = { 0 };
	int64_t sum;

	if ((sum = select_sum(kv, &m, nvals, nprofiles, &err)) == -1) {
		fprintf(stderr, "select: %s\n", err.msg);
		exit(1);
	}
	store_metric_clear(&m);
	return sum;
}

static void
test_select(void)
{
	const char *samples[] = { "scope", "cpu", "metric", "samples", NULL };
	const char *unit[] = { "scope", "cpu", "metric", "samples/count",
	    NULL };
	const char *dflt[] = { "scope", "cpu", NULL };
	const char *both[] = { "scope", "cpu", "scope", "cpu2",
	    "metric", "samples", NULL };
	char id[32];
	const char *one[] = { "scope", "cpu", "scope", "cpu2",
	    "metric", "samples", "profile", id, NULL };
	struct expected s, c;
	struct store_metric m;
	struct error err = { 0 };
	size_t n, n2;
	int64_t np;

	testimport_expected("cpu", "samples", &s);
	testimport_expected("cpu", "cpu", &c);
	CHECK(select_sum(samples, &m, &n, &np, &err) == s.total);
	CHECK(np == 1 && n > 0);
	CHECK(strcmp(m.type, "samples") == 0 && strcmp(m.unit, "count") == 0);
	store_metric_clear(&m);
	CHECK(sum_of(unit, &n2, &np) == s.total && n2 == n);
	/* No metric: the profile's default, the last sample type. */
	CHECK(select_sum(dflt, &m, &n2, &np, &err) == c.total);
	CHECK(strcmp(m.type, "cpu") == 0 && strcmp(m.unit, "nanoseconds") == 0);
	store_metric_clear(&m);
	/* Two scopes of the same stacks: summed per callsite. */
	CHECK(sum_of(both, &n2, &np) == 2 * s.total);
	CHECK(np == 2 && n2 == n);
	snprintf(id, sizeof id, "%lld", (long long)cpu2_id);
	CHECK(sum_of(one, &n2, &np) == s.total && np == 1);
	testimport_expected_clear(&s);
	testimport_expected_clear(&c);
	printf("ok: metric named or default, %zu callsites summing to "
	    "pprof's total, scopes summed, a profile id\n", n);
}

/* The selection of scopes cpu and cpu2 with the label filter f. */
static const char *const *
re(const char *f)
{
	static const char *kv[] = { "scope", "cpu", "scope", "cpu2",
	    "label", NULL, NULL };

	kv[5] = f;
	return kv;
}

static void
test_windows_labels(void)
{
	struct store_profile_info info;
	struct error err = { 0 };
	char at[64], after[64];
	const char *from[] = { "scope", "cpu", "since", at, NULL };
	const char *to[] = { "scope", "cpu", "until", at, NULL };
	const char *later[] = { "scope", "cpu", "since", after, NULL };
	const char *prod[] = { "scope", "cpu", "scope", "cpu2",
	    "label", "env=prod", NULL };
	const char *dev[] = { "scope", "cpu", "scope", "cpu2",
	    "label", "env=dev", NULL };
	const char *notprod[] = { "scope", "cpu", "scope", "cpu2",
	    "label", "env!=prod", NULL };
	int64_t all, np;
	size_t n;

	CHECK(store_profile_get(ts.rd, cpu_id, &info, &err) == 0);
	format_rfc3339(info.time_ns / 1000000000 * 1000000000, at, sizeof at);
	format_rfc3339((info.time_ns / 1000000000 + 1) * 1000000000, after,
	    sizeof after);
	store_profile_info_clear(&info);
	all = sum_of((const char *[]){ "scope", "cpu", NULL }, &n, &np);
	/* The window holds the profile's second at both ends. */
	CHECK(sum_of(from, &n, &np) == all && np == 1);
	CHECK(sum_of(to, &n, &np) == all && np == 1);
	CHECK(sum_of(later, &n, &np) == 0 && n == 0);
	/* Push labels: only cpu2 was pushed with env=prod. */
	CHECK(sum_of(prod, &n, &np) == all && np == 1);
	CHECK(sum_of(dev, &n, &np) == 0 && n == 0);
	CHECK(sum_of(notprod, &n, &np) == all && np == 1);
	/* As patterns matched whole; cpu has no env, which reads as "". */
	CHECK(sum_of(re("env=~pro.*"), &n, &np) == all && np == 1);
	CHECK(sum_of(re("env=~pro"), &n, &np) == 0 && n == 0);
	CHECK(sum_of(re("env!~prod"), &n, &np) == all && np == 1);
	CHECK(sum_of(re("env=~.*"), &n, &np) == 2 * all && np == 2);
	CHECK(sum_of(re("env=~.+"), &n, &np) == all && np == 1);
	CHECK(sum_of(re("env=~|dev"), &n, &np) == all && np == 1);
	CHECK(sum_of(re("env!~.*"), &n, &np) == 0 && n == 0);
	printf("ok: time windows at %s, push labels, as patterns\n", at);
}

static void
test_errors(void)
{
	const char *scope[] = { "scope", "cpu", "scope", "nosuch", NULL };
	const char *metric[] = { "scope", "cpu", "metric", "nosuch", NULL };
	const char *units[] = { "scope", "cpu", "scope", "odd",
	    "metric", "samples", NULL };
	struct store_metric m;
	struct error err = { 0 };
	size_t n;
	int64_t np;

	CHECK(select_sum(scope, &m, &n, &np, &err) == -1);
	CHECK(err.kind == ERR_NOT_FOUND && HAS(err.msg, "\"nosuch\""));
	error_clear(&err);
	CHECK(select_sum(metric, &m, &n, &np, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "no selected scope has "
	    "metric \"nosuch\""));
	error_clear(&err);
	CHECK(select_sum(units, &m, &n, &np, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "several units"));
	printf("ok: unknown scope, unknown metric, two units\n");
}

/* The walk keeps the values whose stacks the frame filters keep. */
static void
test_walk(void)
{
	const char *kv[] = { "scope", "cpu", "metric", "samples",
	    "focus", "^main\\.fib$", NULL };
	struct selection sel;
	struct query_walk q;
	struct stackwalk w;
	struct store_metric m;
	struct expected e;
	struct error err = { 0 };
	const struct expected_row *fib;
	int64_t np, kept = 0;
	size_t i = 0, n = 0;
	int rc;

	testimport_expected("cpu", "samples", &e);
	CHECK((fib = testimport_expected_row(&e, "main.fib")) != NULL);
	testquery_sel(&sel, kv);
	CHECK(query_walk_open(testquery_src(ts.rd, ts.idx), &sel,
	    GRAN_FUNCTION, &m, &np, &q, &w, &err) == 0);
	CHECK(q.src != NULL && w.idx == q.src->index && np == 1);
	while ((rc = query_walk_next(&q, &w, &i, &err)) == 1) {
		CHECK(i < q.nvals && w.cs[w.n - 1] == q.vals[i].callsite);
		kept += q.vals[i].value;
		n++;
		i++;
	}
	CHECK(rc == 0);
	CHECK(kept == fib->cum && n > 0 && n < q.nvals);
	query_walk_close(&q, &w);
	store_metric_clear(&m);
	selection_clear(&sel);
	testimport_expected_clear(&e);
	printf("ok: the walk keeps %zu stacks through main.fib\n", n);
}

int
main(void)
{
	static const char folded[] = "main;work 7\n";
	const char *prod[] = { "env", "prod", NULL };
	struct decode_opts opts;
	uint8_t *buf;
	size_t len;

	testimport_open(&ts);
	cpu_id = testimport_push(&ts, "cpu", "cpu.pprof");
	buf = testimport_fixture("cpu.pprof", &len);
	cpu2_id = testimport_push_data(&ts, "cpu2", "auto", buf, len, NULL,
	    prod);
	free(buf);
	memset(&opts, 0, sizeof opts);
	opts.metric_type = MSTR_LIT("samples");
	opts.metric_unit = MSTR_LIT("bytes");
	testimport_push_data(&ts, "odd", "folded", folded, sizeof folded - 1,
	    &opts, NULL);
	test_select();
	test_windows_labels();
	test_errors();
	test_walk();
	testimport_close(&ts);
	printf("test_query: %u checks passed\n", checks);
	return 0;
}
