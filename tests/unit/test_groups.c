/* test_groups.c: a timeline per group of label values (query/groups.c)
 * against the timeline of the selection narrowed to each group's values
 * (timeline_query with label filters, k!~".+" for ""), step by step: the
 * Go CPU fixture by its sample labels, folded profiles by their push
 * labels and scope, a gauge averaged and a cumulative metric counted per
 * series as the timeline does; every group once, their sum the whole
 * selection's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "mstr.h"
#include "testquery.h"
#include "timeline.h"

static struct testimport ts;

/* kv's selection narrowed to the group: a label filter per key (the
 * scope for service_name), as SelectSeries' groups mean it. */
static void
check_group(const char *const *kv, const char *const *by, size_t nby,
    const struct groups_series *g, int64_t step_s)
{
	const char *nkv[32];
	char filt[8][256];
	struct selection sel;
	struct timeline_params p;
	struct timeline_result r;
	struct error err = { 0 };
	size_t n = 0, i, k, at;
	int64_t sum = 0;
	int by_scope = 0;

	for (i = 0; i < nby; i++)
		by_scope |= strcmp(by[i], "service_name") == 0;
	/* By service_name, the group's scope in place of kv's. */
	for (; kv[0] != NULL; kv += 2) {
		if (by_scope && strcmp(kv[0], "scope") == 0)
			continue;
		nkv[n++] = kv[0];
		nkv[n++] = kv[1];
	}
	for (i = 0; i < nby; i++) {
		if (strcmp(by[i], "service_name") == 0) {
			nkv[n++] = "scope";
			nkv[n++] = g->values[i];
			continue;
		}
		if (g->values[i][0] == '\0')
			snprintf(filt[i], sizeof filt[i], "%s!~.+", by[i]);
		else
			snprintf(filt[i], sizeof filt[i], "%s=%s", by[i],
			    g->values[i]);
		nkv[n++] = "label";
		nkv[n++] = filt[i];
	}
	nkv[n] = NULL;
	testquery_sel(&sel, nkv);
	memset(&p, 0, sizeof p);
	p.sel = &sel;
	p.step_s = step_s;
	CHECK(timeline_query(testquery_src(ts.rd, ts.idx), &p, &r, &err) == 0);
	CHECK(r.total == g->total);
	/* Each step of the group's is the timeline's; the others are 0. */
	for (k = 0; k < g->npoints; k++) {
		CHECK(g->points[k].step >= r.start_s);
		at = (size_t)((g->points[k].step - r.start_s) / r.step_s);
		CHECK(at < r.npoints && r.values[at] == g->points[k].value);
		CHECK(g->points[k].value != 0);
		sum += g->points[k].value;
	}
	CHECK(sum == r.total);
	timeline_result_clear(&r);
	selection_clear(&sel);
}

/* groups_query of kv by by, each group checked; the groups' count. */
static size_t
check_groups(const char *const *kv, const char *const *by, size_t nby,
    int64_t step_s)
{
	struct selection sel;
	struct groups_params p;
	struct groups_result r;
	struct timeline_params tp;
	struct timeline_result all;
	struct error err = { 0 };
	int64_t sum = 0;
	size_t i, j, n;

	testquery_sel(&sel, kv);
	memset(&p, 0, sizeof p);
	p.sel = &sel;
	p.by = by;
	p.nby = nby;
	p.step_s = step_s;
	if (groups_query(ts.rd, &p, &r, &err) == -1) {
		fprintf(stderr, "groups_query: %s\n", err.msg);
		exit(1);
	}
	memset(&tp, 0, sizeof tp);
	tp.sel = &sel;
	tp.step_s = step_s;
	CHECK(timeline_query(testquery_src(ts.rd, ts.idx), &tp, &all,
	    &err) == 0);
	for (i = 0; i < r.n; i++) {
		CHECK(r.v[i].nvalues == nby);
		check_group(kv, by, nby, &r.v[i], r.step_s);
		sum += r.v[i].total;
		/* Once each, in the order of their values. */
		for (j = 0; i > 0 && j < nby; j++)
			if (strcmp(r.v[i - 1].values[j], r.v[i].values[j]) != 0)
				break;
		CHECK(i == 0 || (j < nby && strcmp(r.v[i - 1].values[j],
		    r.v[i].values[j]) < 0));
	}
	CHECK(sum == all.total);
	CHECK(r.step_s == all.step_s);
	n = r.n;
	timeline_result_clear(&all);
	groups_result_clear(&r);
	selection_clear(&sel);
	return n;
}

/* A folded profile of one stack and value, with push labels. */
static void
folded(const char *scope, const char *metric, const char *stack,
    long long v, const char *const *labels)
{
	struct decode_opts opts;
	char text[256];

	memset(&opts, 0, sizeof opts);
	opts.metric_type = mstr_from(metric);
	opts.metric_unit = MSTR_LIT("bytes");
	snprintf(text, sizeof text, "%s %lld\n", stack, v);
	testimport_push_data(&ts, scope, "folded", text, strlen(text), &opts,
	    labels);
}

int
main(void)
{
	const char *cpu[] = { "scope", "cpu", "metric", "samples", NULL };
	const char *w[] = { "worker" }, *wp[] = { "worker", "phase" };
	const char *heap[] = { "scope", "h1", "scope", "h2", "metric",
	    "inuse_space", NULL };
	const char *alloc[] = { "scope", "h1", "scope", "h2", "metric",
	    "alloc_space", NULL };
	const char *rs[] = { "region", "service_name" };
	const char *la[] = { "region", "a", NULL }, *lb[] = { "region", "b",
	    NULL };
	size_t n;

	testimport_open(&ts);
	testimport_push(&ts, "cpu", "cpu.pprof");
	/* Sample labels: a group per value, "" for the samples without. */
	n = check_groups(cpu, w, 1, 0);
	CHECK(n >= 2);
	printf("ok: %zu groups by worker, each its timeline's\n", n);
	n = check_groups(cpu, wp, 2, 60);
	CHECK(n >= 2);
	printf("ok: %zu groups by worker and phase\n", n);
	/* A gauge: region a's two profiles of a step averaged (20), b's
	 * one (7), per scope; h2's a alone. */
	folded("h1", "inuse_space", "main;a", 10, la);
	folded("h1", "inuse_space", "main;b", 30, la);
	folded("h1", "inuse_space", "main;a", 7, lb);
	folded("h2", "inuse_space", "main;c", 5, la);
	n = check_groups(heap, rs, 2, 3600);
	CHECK(n == 3);
	n = check_groups(heap, rs, 1, 3600);
	CHECK(n == 2);
	printf("ok: a gauge by region and scope, averaged per series\n");
	/* A cumulative metric: what grew between a series' profiles. */
	folded("h1", "alloc_space", "main;a", 100, la);
	folded("h1", "alloc_space", "main;a", 250, la);
	folded("h1", "alloc_space", "main;a", 40, lb);
	n = check_groups(alloc, rs, 1, 3600);
	CHECK(n >= 1);
	printf("ok: a cumulative metric by region\n");
	testimport_close(&ts);
	printf("test_groups: %u checks passed\n", checks);
	return 0;
}
