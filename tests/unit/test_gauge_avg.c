/* test_gauge_avg.c: a gauge's window (aggregate=avg, last, max;
 * query/aggregate.c) answers the same whether its sums come from the
 * rollups (a scope whose window is one series: the runs of whole hours
 * and days, the blocks of the edges) or, as before, from every profile's
 * blocks series by series (store_use_rollups(store, 0)): totals, rows
 * and profile counts, over whole days, whole hours, partial windows,
 * several series in a scope, several scopes, label filters, profile ids,
 * a cumulative metric asked for its average, and after deletes.  The
 * average is also checked against one computed here from the values the
 * generated profiles were given: per series, per stack, the sum over its
 * profiles in the window divided by their number, rounded.
 *
 * The profiles are Go heap profiles as runtime/pprof writes them
 * (alloc_objects, alloc_space, inuse_objects, inuse_space, no duration:
 * alloc_* cumulative, inuse_* gauges), built here with random values over
 * 40 stacks, some with a sample label, two of them at two addresses of the
 * same function and line (one stack as the views see it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "csindex.h"
#include "pbw.h"
#include "rfc3339.h"
#include "selection.h"
#include "store-gauge.h"
#include "store.h"
#include "testimport.h"
#include "testquery.h"
#include "top.h"

#define DAY	86400
#define HOUR	3600
/* 2023-11-14 00:00:00 UTC, a day boundary. */
#define T0	((int64_t)1699920000)
#define NSTACK	40
#define NFN	12

static struct testimport ti;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
rnd(void)
{
	return xorshift64(&rng);
}

/* The profiles pushed: scope, series (0, 1: push label instance=a, b),
 * time, in-use bytes per stack (0: no sample), deleted. */
struct gp {
	int scope, series, gone;
	int64_t id, t;
	int64_t inuse[NSTACK];
};
static struct gp *gps;
static size_t ngps;

/* Stack k: depth 1 + k % 4 frames over NFN functions; stacks 38 and 39
 * are stacks 0 and 1 at another address of their leaf (same function
 * and line). */
static void
stack_of(int k, uint64_t *loc, size_t *n)
{
	size_t d, i;
	int base = k >= 38 ? k - 38 : k;

	d = 1 + (size_t)base % 4;
	for (i = 0; i < d; i++)
		loc[i] = 1 + (uint64_t)((base * 7 + (int)i * 5) % NFN);
	if (k >= 38)
		loc[0] = NFN + 1 + (uint64_t)base;	/* the leaf's twin */
	*n = d;
}

/* A Go heap profile at time t of the values given. */
static void
heap_pprof(struct buf *b, int64_t t, const int64_t *inuse)
{
	static const char *const strs[] = { "", "alloc_objects", "count",
	    "alloc_space", "bytes", "inuse_objects", "inuse_space", "space",
	    "worker", "main.go", "1", "2" };
	const size_t nstr = sizeof strs / sizeof *strs;
	uint64_t loc[8], val[4];
	size_t m, lm, i, n;
	char name[32];
	int k;

	for (k = 0; k < 4; k++) {
		m = pbw_begin(b, 1);
		pbw_uint(b, 1, (uint64_t)(k < 3 ? 1 + 2 * k : 6));
		pbw_uint(b, 2, k % 2 == 0 ? 2 : 4);
		pbw_end(b, m);
	}
	for (k = 0; k < NSTACK; k++) {
		if (inuse[k] == 0)
			continue;
		stack_of(k, loc, &n);
		val[0] = 10 + (uint64_t)k;
		val[1] = (uint64_t)inuse[k] * 3;
		val[2] = 1 + (uint64_t)inuse[k] / 1000;
		val[3] = (uint64_t)inuse[k];
		m = pbw_begin(b, 2);
		pbw_packed(b, 1, loc, n);
		pbw_packed(b, 2, val, 4);
		if (k % 5 == 0) {
			lm = pbw_begin(b, 3);
			pbw_uint(b, 1, 8);
			pbw_uint(b, 2, k % 10 == 0 ? 10 : 11);
			pbw_end(b, lm);
		}
		pbw_end(b, m);
	}
	m = pbw_begin(b, 3);
	pbw_uint(b, 1, 1);
	pbw_uint(b, 2, 0x400000);
	pbw_uint(b, 3, 0x800000);
	pbw_end(b, m);
	/* Locations 1..NFN: function i at 0x401000 + 16 i, line 10 i;
	 * NFN + 1, NFN + 2: functions 1 and 8 (stacks 0 and 1's leaves)
	 * at other addresses. */
	for (k = 1; k <= NFN + 2; k++) {
		int fn = k <= NFN ? k : (k == NFN + 1 ? 1 : 8);

		m = pbw_begin(b, 4);
		pbw_uint(b, 1, (uint64_t)k);
		pbw_uint(b, 2, 1);
		pbw_uint(b, 3, 0x401000 + 16 * (uint64_t)k);
		lm = pbw_begin(b, 4);
		pbw_uint(b, 1, (uint64_t)fn);
		pbw_uint(b, 2, 10 * (uint64_t)fn);
		pbw_end(b, lm);
		pbw_end(b, m);
	}
	for (k = 1; k <= NFN; k++) {
		m = pbw_begin(b, 5);
		pbw_uint(b, 1, (uint64_t)k);
		pbw_uint(b, 2, nstr + (uint64_t)k - 1);
		pbw_uint(b, 3, nstr + (uint64_t)k - 1);
		pbw_uint(b, 4, 9);
		pbw_end(b, m);
	}
	for (i = 0; i < nstr; i++)
		pbw_str(b, 6, strs[i]);
	for (k = 1; k <= NFN; k++) {
		snprintf(name, sizeof name, "main.fn%02d", k);
		pbw_str(b, 6, name);
	}
	pbw_uint(b, 9, (uint64_t)t * 1000000000);
	m = pbw_begin(b, 11);
	pbw_uint(b, 1, 7);
	pbw_uint(b, 2, 4);
	pbw_end(b, m);
	pbw_uint(b, 12, 524288);
}

static const char *const scope_names[] = { "one", "two", "other" };

static void
push(int scope, int series, int64_t t)
{
	const char *lab[3] = { "instance", series ? "b" : "a", NULL };
	struct gp *g;
	struct buf b = { 0 };
	int k;

	gps = xreallocarray(gps, ngps + 1, sizeof *gps);
	g = &gps[ngps++];
	memset(g, 0, sizeof *g);
	g->scope = scope;
	g->series = series;
	g->t = t;
	for (k = 0; k < NSTACK; k++)
		if (rnd() % 3 != 0)
			g->inuse[k] = 1 + (int64_t)(rnd() % 100000);
	g->inuse[k - 1] |= 1;			/* never empty */
	heap_pprof(&b, t, g->inuse);
	g->id = testimport_push_data(&ti, scope_names[scope], "pprof", b.p,
	    b.n, NULL, scope == 1 ? lab : NULL);
	buf_free(&b);
}

/* The first stack of k's frames as the views see them (functions and
 * lines: the twins are their stacks, and k + 12 is k). */
static int
canon(int k)
{
	uint64_t a[8], b[8];
	size_t na, nb, i;
	int j;

	stack_of(k, a, &na);
	for (i = 0; i < na; i++)
		a[i] = a[i] > NFN ? (a[i] == NFN + 1 ? 1 : 8) : a[i];
	for (j = 0; j < k; j++) {
		stack_of(j, b, &nb);
		for (i = 0; i < nb; i++)
			b[i] = b[i] > NFN ? (b[i] == NFN + 1 ? 1 : 8) : b[i];
		if (na == nb && memcmp(a, b, na * sizeof *a) == 0)
			return j;
	}
	return k;
}

/* The average computed here: per series, per stack (the twins one), the
 * window's sum over its profiles, rounded as aggregate.c documents
 * (halves away from zero), summed; and the profiles counted. */
static int64_t
want_avg(int scope, int64_t lo, int64_t hi, int64_t *nprof)
{
	int64_t sum[2][NSTACK], n[2] = { 0, 0 }, tot = 0;
	size_t i;
	int s, k, st;

	memset(sum, 0, sizeof sum);
	for (i = 0; i < ngps; i++) {
		if (gps[i].scope != scope || gps[i].gone || gps[i].t < lo ||
		    gps[i].t > hi)
			continue;
		n[gps[i].series]++;
		for (k = 0; k < NSTACK; k++) {
			st = canon(k);
			sum[gps[i].series][st] += gps[i].inuse[k];
		}
	}
	for (s = 0; s < 2; s++)
		for (k = 0; k < NSTACK && n[s] > 0; k++)
			tot += (2 * sum[s][k] + n[s]) / (2 * n[s]);
	*nprof = n[0] + n[1];
	return tot;
}

static char *
at(const char *key, int64_t s)
{
	static char buf[8][64];
	static int n;
	char *b = buf[n++ % 8];

	snprintf(b, 64, "%s@", key);
	format_rfc3339(s * 1000000000, b + strlen(b), 64 - strlen(b));
	return b;
}

static void
make_sel(struct selection *sel, const char *const *kv)
{
	struct error err = { 0 };
	char *k, *v;
	size_t i;

	memset(sel, 0, sizeof *sel);
	for (i = 0; kv[i] != NULL; i++) {
		k = xstrdup(kv[i]);
		v = k + strcspn(k, "=@");
		*v++ = '\0';
		CHECK(selection_param(sel, k, v, 0, &err) == 1);
		free(k);
	}
	CHECK(selection_check(sel, &err) == 0);
	CHECK(selection_compile(sel, &err) == 0);
}

static void
same_top(const struct top_result *x, const struct top_result *y)
{
	size_t i;

	CHECK(x->total == y->total && x->nprofiles == y->nprofiles);
	CHECK(x->metric.id == y->metric.id && x->nrows == y->nrows);
	for (i = 0; i < x->nrows; i++) {
		CHECK(strcmp(x->rows[i].function, y->rows[i].function) == 0);
		CHECK(x->rows[i].flat == y->rows[i].flat);
		CHECK(x->rows[i].cum == y->rows[i].cum);
	}
}

static int64_t from_sums, answered;

/* top of the selection (kv plus each aggregate) with the rollups and
 * from the blocks alone; want >= 0: the avg's total computed here. */
static void
compare(const char *const *kv, int64_t want, int64_t want_n)
{
	static const char *const aggs[] = { "aggregate=avg", "aggregate=last",
	    "aggregate=max" };
	const char *all[16];
	struct selection sel;
	struct top_result a, b;
	struct top_params tp = { &sel, 0, GRAN_FUNCTION };
	struct error err = { 0 };
	int64_t r0;
	size_t n;
	int g, rca, rcb;

	for (n = 0; kv[n] != NULL; n++)
		all[n] = kv[n];
	for (g = 0; g < 3; g++) {
		all[n] = aggs[g];
		all[n + 1] = NULL;
		make_sel(&sel, all);
		store_use_rollups(ti.rd, 1);
		r0 = store_rollups_read(ti.rd);
		rca = top_query(testquery_src(ti.rd, ti.idx), &tp, &a, &err);
		if (store_rollups_read(ti.rd) > r0)
			from_sums++;
		if (rca != 0 && want >= 0)
			fprintf(stderr, "%s %s %s %s: %s\n", all[0], all[2],
			    all[3], all[n], err.msg);
		error_clear(&err);
		store_use_rollups(ti.rd, 0);
		rcb = top_query(testquery_src(ti.rd, ti.idx), &tp, &b, &err);
		store_use_rollups(ti.rd, 1);
		error_clear(&err);
		CHECK(rca == rcb);
		CHECK(rca == 0 || want < 0);
		if (rca == 0) {
			answered++;
			same_top(&a, &b);
			if (g == 0 && want >= 0) {
				if (a.total != want || a.nprofiles != want_n)
					fprintf(stderr, "avg %lld of %lld, want "
					    "%lld of %lld\n",
					    (long long)a.total,
					    (long long)a.nprofiles,
					    (long long)want, (long long)want_n);
				CHECK(a.total == want);
				CHECK(a.nprofiles == want_n);
			}
			top_result_clear(&a);
			top_result_clear(&b);
		}
		selection_clear(&sel);
	}
}

/* A window of scope (0 one, 1 two), checked against want_avg too. */
static void
window(int scope, int64_t lo, int64_t hi)
{
	char sc[32];
	const char *kv[8];
	int64_t want, n;
	size_t k = 0;

	snprintf(sc, sizeof sc, "scope=%s", scope_names[scope]);
	kv[k++] = sc;
	kv[k++] = "metric=inuse_space";
	kv[k++] = at("since", lo);
	kv[k++] = at("until", hi);
	kv[k] = NULL;
	want = want_avg(scope, lo, hi, &n);
	compare(kv, n > 0 ? want : -1, n);
}

/* A window of scope "other" (profiles every 10 minutes for two hours
 * around T0) whose edges are off the hour but have no profile between
 * them and a day's boundary: its average is read from the day's runs
 * alone, no block (store_gauge_widen), and answers as the blocks do. */
static void
widened(int64_t lo, int64_t hi)
{
	char sc[] = "scope=other";
	const char *kv[8] = { sc, "metric=inuse_space", at("since", lo),
	    at("until", hi), NULL, NULL };
	struct selection sel;
	struct top_result a;
	struct top_params tp = { &sel, 0, GRAN_FUNCTION };
	struct error err = { 0 };
	int64_t b0;

	compare(kv, -1, 0);
	kv[4] = "aggregate=avg";
	make_sel(&sel, kv);
	b0 = store_blocks_read(ti.rd);
	CHECK(top_query(testquery_src(ti.rd, ti.idx), &tp, &a, &err) == 0);
	CHECK(a.nprofiles > 0);
	CHECK(store_blocks_read(ti.rd) == b0);
	top_result_clear(&a);
	selection_clear(&sel);
}

/* A window of 24 hours off the hour (the last day as a user asks for
 * it: partial hours at both ends, hour runs and a day's between) read
 * twice: the second read takes every run's pairs by its id, reading and
 * inflating none (store-gauge-sums.c), and answers the same. */
static void
again(int64_t lo)
{
	char sc[] = "scope=one";
	const char *kv[8] = { sc, "metric=inuse_space", at("since", lo),
	    at("until", lo + DAY - 1), "aggregate=avg", NULL };
	struct selection sel;
	struct top_result a, b;
	struct top_params tp = { &sel, 0, GRAN_FUNCTION };
	struct error err = { 0 };
	int64_t r0, want, n;
	uint64_t g0;

	want = want_avg(0, lo, lo + DAY - 1, &n);
	make_sel(&sel, kv);
	CHECK(top_query(testquery_src(ti.rd, ti.idx), &tp, &a, &err) == 0);
	CHECK(a.total == want && a.nprofiles == n);
	r0 = store_rollups_read(ti.rd);
	g0 = store_gauge_runs_read();
	CHECK(top_query(testquery_src(ti.rd, ti.idx), &tp, &b, &err) == 0);
	CHECK(store_rollups_read(ti.rd) > r0);
	CHECK(store_gauge_runs_read() == g0);
	same_top(&a, &b);
	top_result_clear(&a);
	top_result_clear(&b);
	selection_clear(&sel);
}

#define Q(...) do {							\
	const char *const kv_[] = { __VA_ARGS__, NULL };		\
	compare(kv_, -1, 0);						\
} while (0)

static void
selections(void)
{
	char prof[64];
	int64_t lo, hi;
	int i;

	/* Whole days, whole hours, partial windows, open ends. */
	window(0, T0, T0 + DAY - 1);
	window(0, T0 - DAY, T0 + DAY - 1);
	window(0, T0 - 3 * HOUR, T0 + 5 * HOUR - 1);
	window(0, T0 - DAY - 1234, T0 + 4321);
	window(0, T0 + 17, T0 + HOUR - 17);
	window(0, T0 - 2 * DAY, T0 + 3 * DAY);
	window(1, T0 - DAY, T0 + DAY - 1);
	window(1, T0 - 5 * HOUR + 7, T0 + 30 * HOUR);
	for (i = 0; i < 30; i++) {
		lo = T0 - DAY + (int64_t)(rnd() % (2 * DAY));
		hi = lo + 1 + (int64_t)(rnd() % (2 * DAY));
		if (i % 3 == 0)
			lo = lo / HOUR * HOUR;
		if (i % 4 == 0)
			hi = hi / HOUR * HOUR - 1;
		window(i % 5 == 0 ? 1 : 0, lo, hi);
	}
	/* Edges in the gaps between a series' profiles, and before and
	 * after them all. */
	window(0, T0 - DAY + 5 * 60, T0 + DAY + 4 * 60);
	window(0, T0 - 3 * DAY + 1, T0 + 3 * DAY + 1);
	window(1, T0 - DAY + 14, T0 + 2 * DAY - 17 * 60);
	widened(T0 - HOUR - 1234, T0 + HOUR + 17);
	widened(T0 - 2 * HOUR + 1, T0 + 2 * HOUR - 1);
	again(T0 - DAY + 37 * 60 + 11);
	again(T0 + 5 * HOUR + 59);
	Q("scope=one", "metric=inuse_space");
	Q("scope=one", "metric=inuse_objects");
	Q("scope=one", "scope=other", "metric=inuse_space");
	Q("scope=one", "scope=two", "scope=other", "metric=inuse_space");
	Q("scope=one", "scope=one", "metric=inuse_space");
	/* A cumulative metric's average: its values as given, from the
	 * blocks (its profiles count as differences). */
	Q("scope=one", "metric=alloc_space");
	Q("scope=two", "metric=alloc_space", at("since", T0 - DAY));
	/* Label filters, sample and push labels; profile ids. */
	Q("scope=one", "metric=inuse_space", "label=worker=1");
	Q("scope=one", "metric=inuse_space", "label=worker!=2",
	    at("since", T0 - DAY), at("until", T0 + DAY - 1));
	Q("scope=two", "metric=inuse_space", "label=instance=b");
	Q("scope=two", "scope=one", "metric=inuse_space",
	    "label=instance!=a");
	snprintf(prof, sizeof prof, "profile=%lld", (long long)gps[3].id);
	Q("scope=one", "metric=inuse_space", prof);
	/* Frame filters. */
	Q("scope=one", "metric=inuse_space", "focus=main.fn0[1-4]");
	Q("scope=one", "metric=inuse_space", "ignore=main.fn08",
	    at("since", T0 - DAY), at("until", T0 + DAY - 1));
}

int
main(void)
{
	struct error err = { 0 };
	int64_t t;
	size_t i;

	testimport_open(&ti);
	/* Scope one: one series, every 20 minutes over three days, every
	 * 15 s around midnight; two: instances a and b; other: one series
	 * of a few. */
	for (t = T0 - DAY - 7 * 60; t < T0 + 2 * DAY; t += 20 * 60)
		push(0, 0, t);
	for (t = T0 - 600; t < T0 + 600; t += 15)
		push(0, 0, t + 1);
	for (t = T0 - DAY + 13; t < T0 + 2 * DAY; t += 30 * 60) {
		push(1, 0, t);
		if (rnd() % 4 != 0)
			push(1, 1, t + 5);
	}
	for (t = T0 - HOUR; t < T0 + HOUR; t += 600)
		push(2, 0, t);
	selections();
	/* Deletes: profiles of whole days and of the edges, of runs of
	 * every level. */
	for (i = 0; i < ngps; i += 7) {
		CHECK(store_profile_delete(ti.wr, gps[i].id, &err) == 0);
		gps[i].gone = 1;
	}
	selections();
	/* Pushes after the deletes. */
	for (t = T0 + 3; t < T0 + DAY; t += 45 * 60)
		push(0, 0, t);
	selections();
	/* The sums (rollups) answered the windows of whole hours. */
	CHECK(answered > 300);
	CHECK(from_sums > 20);
	/* Not vacuous: runs went through the kept pairs (store-gauge-sums.c). */
	CHECK(store_gauge_runs_read() > 0);
	testimport_close(&ti);
	free(gps);
	printf("ok: %lld gauge windows the same from the sums (%lld) as from "
	    "the blocks\n", (long long)answered, (long long)from_sums);
	return 0;
}
