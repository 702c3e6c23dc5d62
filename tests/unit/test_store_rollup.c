/* test_store_rollup.c: the store's rollups (hour and day sums beside the
 * sample blocks, store-rollup.c once the store is split) never disagree
 * with the sample blocks; checked through the queries that read them.
 *
 * A store gets the pprof fixtures and generated Perfetto traces whose
 * samples are spread, out of time order, over three days (hour and day
 * windows, partial windows at both ends), with sample labels, push labels
 * and a writer buffer small enough that every profile has many blocks with
 * overlapping time ranges and untimed blocks written before their bucket
 * is known.  For many selections (open and bounded windows, aligned or
 * not, label filters, profile ids, several scopes, frame filters) top,
 * tree, timeline and export answered with the rollups are the same as
 * answered from the blocks alone (with the callsite trees of top and tree
 * in a map instead of an array); so again after profiles are deleted
 * (their values taken out of the rollups).  The sample table shows each
 * key once and sums to the same totals, and store_referenced names
 * exactly the keys of the stored rows.  A run's id is never used again
 * (schema 14: the function sums are kept by it), and a store of schema
 * 13 upgraded answers the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "buf.h"
#include "csindex.h"
#include "cstree.h"
#include "export.h"
#include "hmap.h"
#include "import.h"
#include "inflate.h"
#include "pftenc.h"
#include "rfc3339.h"
#include "selection.h"
#include "store-fsum.h"
#include "store-gauge.h"
#include "store-sql.h"
#include "store.h"
#include "testimport.h"
#include "testquery.h"
#include "timeline.h"
#include "top.h"
#include "tree.h"

#define DAY	86400
#define HOUR	3600
/* 2023-11-14 00:00:00 UTC, a day boundary. */
#define T0	((int64_t)1699920000)

static struct testimport ti;
static char dbpath[256];
static struct store *wr, *rd;
static struct csindex *idx;
static int64_t trace_ids[8];
static size_t ntraces;
/* Scope e: many small pushes into the same windows, so that runs of
 * several levels, windows merged whole and level-0 runs mix. */
#define NE	48
static int64_t e_ids[NE], x_ids[3];

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t
rnd(void)
{
	return xorshift64(&rng);
}

/* A push with one push label "key=value" (or none). */
static int64_t
push(const char *scope, const void *data, size_t len, const char *label,
    int64_t bucket_ns)
{
	struct decode_opts opts;
	const char *kv[3] = { NULL, NULL, NULL };
	char *key = NULL;
	int64_t id;

	memset(&opts, 0, sizeof opts);
	opts.bucket_ns = bucket_ns;
	if (label != NULL) {
		key = xstrdup(label);
		kv[0] = key;
		kv[1] = strchr(key, '=') + 1;
		key[kv[1] - key - 1] = '\0';
	}
	id = testimport_push_data(&ti, scope, "auto", data, len, &opts, kv);
	free(key);
	return id;
}

static int64_t
push_fixture(const char *scope, const char *name, const char *label)
{
	uint8_t *buf;
	size_t n;
	int64_t id;

	buf = testimport_fixture(name, &n);
	id = push(scope, buf, n, label, 0);
	free(buf);
	return id;
}

/* A trace of perf samples on sequence 1: 14 functions, 40 stacks of depth
 * 1..7 over them, and n samples at random times in [t0, t0 + span) with
 * pid 100, tid 200..202, cpu 0..2, user or kernel mode, and a count. */
static void
trace(struct buf *e, size_t n, int64_t t0, int64_t span, uint64_t seed)
{
	char name[32];
	uint64_t ids[8];
	size_t p, m, d, ps, tb, i, k, depth;

	rng = seed;
	p = pftenc_packet(e);
	pftenc_header(e, PFTENC_NONE, 1, PFT_SEQ_CLEARED);
	d = pbw_begin(e, PFT_DEFAULTS);
	ps = pbw_begin(e, 12);
	tb = pbw_begin(e, 1);
	pbw_uint(e, 2, 100);
	pbw_uint(e, 4, 1);			/* SW_CPU_CLOCK */
	pbw_end(e, tb);
	pbw_end(e, ps);
	pbw_end(e, d);
	pbw_end(e, p);
	p = pftenc_packet(e);
	pftenc_header(e, PFTENC_NONE, 1, PFT_SEQ_NEEDS);
	m = pbw_begin(e, PFT_INTERNED_DATA);
	for (i = 1; i <= 14; i++) {
		snprintf(name, sizeof name, "fn%zu", i);
		pftenc_istring(e, PFT_I_FUNCTION_NAMES, i, name);
		pftenc_frame(e, i, i, PFTENC_NONE, PFTENC_NONE, PFTENC_NONE,
		    PFTENC_NONE);
	}
	for (i = 1; i <= 40; i++) {
		depth = 1 + rnd() % 7;
		ids[0] = 1 + i % 3;
		for (k = 1; k < depth; k++)
			ids[k] = 1 + rnd() % 14;
		pftenc_callstack(e, i, ids, depth, 1);
	}
	pbw_end(e, m);
	pbw_end(e, p);
	for (i = 0; i < n; i++)
		pftenc_perf_sample(e, (uint64_t)(t0 * 1000000000 +
		    (int64_t)(rnd() % (uint64_t)span) * 1000000000 +
		    (int64_t)(rnd() % 1000000000)), 1, PFT_SEQ_NEEDS,
		    rnd() % 3, 100, 200 + rnd() % 3, 1 + rnd() % 40,
		    1 + rnd() % 2, 1000000 * (1 + rnd() % 5));
}

static int64_t
push_trace(const char *scope, size_t n, int64_t t0, int64_t span,
    uint64_t seed, const char *label, int64_t bucket_ns)
{
	struct buf e = { 0 };
	int64_t id;

	trace(&e, n, t0, span, seed);
	id = push(scope, e.p, e.n, label, bucket_ns);
	buf_free(&e);
	return id;
}

/* ---- one selection, both ways ---- */

static void
time_param(struct selection *sel, const char *key, int64_t s)
{
	char v[64];
	struct error err = { 0 };

	format_rfc3339(s * 1000000000, v, sizeof v);
	CHECK(selection_param(sel, key, v, 0, &err) == 1);
}

/* kv: "key=value" parameters; "since@N"/"until@N" are seconds. */
static void
make_sel(struct selection *sel, const char *const *kv)
{
	struct error err = { 0 };
	char *k, *v;
	size_t i;

	memset(sel, 0, sizeof *sel);
	for (i = 0; kv[i] != NULL; i++) {
		k = xstrdup(kv[i]);
		if ((v = strchr(k, '@')) != NULL) {
			*v++ = '\0';
			time_param(sel, k, strtoll(v, NULL, 10));
		} else {
			v = strchr(k, '=');
			*v++ = '\0';
			CHECK(selection_param(sel, k, v, 0, &err) == 1);
		}
		free(k);
	}
	CHECK(selection_check(sel, &err) == 0);
	CHECK(selection_compile(sel, &err) == 0);
}

struct answers {
	int rc_top, rc_tree, rc_tl, rc_ex;
	struct top_result top, topcum, top2;
	struct tree_result tree, tree2;
	struct timeline_result tl, tlh;
	uint8_t *ex;
	size_t nex;
};

static void
answer(const struct selection *sel, struct answers *a)
{
	struct top_params tp = { sel, 0, GRAN_FUNCTION };
	struct tree_params rp = { sel, 0.0 };
	struct timeline_params lp = { sel, 0 };
	struct error err = { 0 };
	uint64_t runs0;

	memset(a, 0, sizeof *a);
	a->rc_top = top_query(testquery_src(rd, idx), &tp, &a->top, &err);
	/* Again: the runs the first read decoded now answer from their
	 * function sums (store-fsum.c). */
	error_clear(&err);
	if (a->rc_top == 0)
		CHECK(top_query(testquery_src(rd, idx), &tp, &a->top2,
		    &err) == 0);
	tp.sort_cum = 1;
	tp.granularity = GRAN_LINE;
	error_clear(&err);
	if (a->rc_top == 0)
		CHECK(top_query(testquery_src(rd, idx), &tp, &a->topcum, &err) == 0);
	error_clear(&err);
	a->rc_tree = tree_query(testquery_src(rd, idx), &rp, &a->tree, &err);
	error_clear(&err);
	/* Again: every run the first read took is known by its id, its
	 * pairs kept (store-gauge-sums.c), so none is read or inflated. */
	runs0 = store_gauge_runs_read();
	if (a->rc_tree == 0) {
		CHECK(tree_query(testquery_src(rd, idx), &rp, &a->tree2,
		    &err) == 0);
		CHECK(store_gauge_runs_read() == runs0);
	}
	error_clear(&err);
	a->rc_tl = timeline_query(testquery_src(rd, idx), &lp, &a->tl, &err);
	lp.step_s = HOUR;
	error_clear(&err);
	if (a->rc_tl == 0)
		CHECK(timeline_query(testquery_src(rd, idx), &lp, &a->tlh, &err) == 0);
	error_clear(&err);
	a->rc_ex = export_pprof(rd, idx, sel, &a->ex, &a->nex, &err);
}

static void
answers_clear(struct answers *a)
{
	top_result_clear(&a->top);
	top_result_clear(&a->topcum);
	top_result_clear(&a->top2);
	tree_result_clear(&a->tree);
	tree_result_clear(&a->tree2);
	timeline_result_clear(&a->tl);
	timeline_result_clear(&a->tlh);
	free(a->ex);
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
		CHECK(x->rows[i].inl == y->rows[i].inl);
	}
}

static void
same_timeline(const struct timeline_result *x,
    const struct timeline_result *y)
{
	CHECK(x->start_s == y->start_s && x->step_s == y->step_s);
	CHECK(x->npoints == y->npoints && x->total == y->total);
	CHECK(x->npoints == 0 ||
	    memcmp(x->values, y->values, x->npoints * sizeof *x->values) == 0);
}

static int64_t rollup_queries, nonempty;

/* Returns the total of top (for callers that want some data). */
static int64_t
compare(const char *const *kv)
{
	struct selection sel;
	struct answers a, b;
	int64_t before, total;
	size_t i;

	make_sel(&sel, kv);
	before = store_rollups_read(rd);
	store_use_rollups(rd, 1);
	answer(&sel, &a);
	if (store_rollups_read(rd) > before)
		rollup_queries++;
	/* The blocks alone, and the callsite trees of top and tree keyed
	 * by the map rather than the array. */
	store_use_rollups(rd, 0);
	cstree_dense_ok = 0;
	before = store_rollups_read(rd);
	answer(&sel, &b);
	CHECK(store_rollups_read(rd) == before);
	store_use_rollups(rd, 1);
	cstree_dense_ok = 1;

	CHECK(a.rc_top == b.rc_top && a.rc_tree == b.rc_tree &&
	    a.rc_tl == b.rc_tl && a.rc_ex == b.rc_ex);
	if (a.rc_top == 0) {
		same_top(&a.top, &b.top);
		same_top(&a.topcum, &b.topcum);
		same_top(&a.top2, &b.top);
		same_top(&a.top2, &b.top2);
	}
	if (a.rc_tree == 0) {
		CHECK(a.tree.total == b.tree.total);
		CHECK(a.tree.nprofiles == b.tree.nprofiles);
		CHECK(a.tree.nnodes == b.tree.nnodes);
		CHECK(a.tree2.total == b.tree.total &&
		    a.tree2.nprofiles == b.tree.nprofiles &&
		    a.tree2.nnodes == b.tree.nnodes);
		for (i = 0; i < a.tree.nnodes && i < a.tree2.nnodes; i++) {
			CHECK(strcmp(a.tree2.nodes[i].name,
			    b.tree.nodes[i].name) == 0);
			CHECK(a.tree2.nodes[i].self == b.tree.nodes[i].self);
			CHECK(a.tree2.nodes[i].total == b.tree.nodes[i].total);
		}
		for (i = 0; i < a.tree.nnodes; i++) {
			CHECK(strcmp(a.tree.nodes[i].name,
			    b.tree.nodes[i].name) == 0);
			CHECK(a.tree.nodes[i].self == b.tree.nodes[i].self);
			CHECK(a.tree.nodes[i].total == b.tree.nodes[i].total);
			CHECK(a.tree.nodes[i].child == b.tree.nodes[i].child);
			CHECK(a.tree.nodes[i].next == b.tree.nodes[i].next);
		}
	}
	if (a.rc_tl == 0) {
		same_timeline(&a.tl, &b.tl);
		same_timeline(&a.tlh, &b.tlh);
		/* The timeline adds up to top's total (no negative values,
		 * no frame filters in these selections). */
		if (a.rc_top == 0 && !sel.have_re[FF_FOCUS] &&
		    !sel.have_re[FF_IGNORE] && !sel.have_re[FF_HIDE])
			CHECK(a.tl.total == a.top.total);
	}
	if (a.rc_ex == 0)
		CHECK(a.nex == b.nex && memcmp(a.ex, b.ex, a.nex) == 0);
	total = a.rc_top == 0 ? a.top.total : 0;
	if (total > 0)
		nonempty++;
	answers_clear(&a);
	answers_clear(&b);
	selection_clear(&sel);
	return total;
}

#define Q(...) do {							\
	const char *const kv_[] = { __VA_ARGS__, NULL };		\
	compare(kv_);							\
} while (0)

static char *
at(const char *key, int64_t s)
{
	static char buf[16][64];
	static int n;
	char *b = buf[n++ % 16];

	snprintf(b, 64, "%s@%lld", key, (long long)s);
	return b;
}

static void
selections(void)
{
	char prof[64], prof2[64];
	int64_t lo, hi;
	int i;

	Q("scope=a");
	Q("scope=a", "metric=cpu_clock");
	Q("scope=b");
	Q("scope=b", "metric=alloc_space");
	Q("scope=b", "metric=delay");
	Q("scope=d");
	Q("scope=b", "scope=d", "metric=contentions");
	Q("scope=c");
	Q("scope=a", "scope=c");
	Q("scope=a", "scope=a");
	Q("scope=a", "scope=b", "metric=samples");
	/* Whole days, whole hours, partial windows at either end. */
	Q("scope=a", "metric=cpu_clock", at("since", T0 - DAY), at("until", T0));
	Q("scope=a", "metric=cpu_clock", at("since", T0 - 2 * DAY), at("until", T0 + DAY));
	Q("scope=a", "metric=cpu_clock", at("since", T0 - 3 * HOUR), at("until", T0 + 5 * HOUR));
	Q("scope=a", "metric=cpu_clock", at("since", T0 - DAY - 1234), at("until", T0 + 4321));
	Q("scope=a", "metric=cpu_clock", at("since", T0 + 17), at("until", T0 + HOUR - 17));
	Q("scope=a", "metric=cpu_clock", at("since", T0 - 2 * DAY + 1), at("until", T0 + DAY - 1));
	Q("scope=a", "metric=cpu_clock", at("since", T0 - 30 * HOUR + 600));
	Q("scope=a", "metric=cpu_clock", at("until", T0 - 10 * HOUR - 1));
	Q("scope=a", "scope=c", "metric=cpu_clock", at("since", T0 - 47 * HOUR),
	    at("until", T0 - 3 * HOUR));
	Q("scope=a", "metric=cpu_clock", at("since", T0 + 5 * DAY));
	Q("scope=a", "metric=cpu_clock", at("until", T0 - 5 * DAY));
	/* Random windows. */
	for (i = 0; i < 40; i++) {
		lo = T0 - 2 * DAY + (int64_t)(rnd() % (3 * DAY));
		hi = lo + 1 + (int64_t)(rnd() % (2 * DAY));
		if (i % 3 == 0)
			lo = lo / HOUR * HOUR;
		if (i % 5 == 0)
			hi = hi / HOUR * HOUR;
		if (hi <= lo)
			hi = lo + 1;
		Q("scope=a", "scope=c", "metric=cpu_clock", at("since", lo), at("until", hi));
	}
	/* What the rollups cannot answer. */
	Q("scope=a", "label=tid=201");
	Q("scope=a", "label=tid!=201", "label=cpu=1");
	Q("scope=a", "label=env=prod");
	Q("scope=a", "label=env!=prod", "metric=cpu_clock",
	    at("since", T0 - DAY));
	Q("scope=a", "metric=cpu_clock", "label=cpu_mode=kernel");
	Q("scope=b", "label=worker=1");
	snprintf(prof, sizeof prof, "profile=%lld", (long long)trace_ids[0]);
	snprintf(prof2, sizeof prof2, "profile=%lld",
	    (long long)trace_ids[1]);
	Q("scope=a", prof);
	Q("scope=a", "metric=cpu_clock", prof, prof2, prof,
	    at("since", T0 - DAY + 99));
	/* Scope e's runs: whole, whole days and hours, edges. */
	Q("scope=e");
	Q("scope=e", at("since", T0 - DAY), at("until", T0 - 1));
	Q("scope=e", at("since", T0 - DAY + 2 * HOUR), at("until", T0 - 10 * HOUR - 1));
	Q("scope=e", at("since", T0 - DAY + 1234), at("until", T0 - 9 * HOUR + 77));
	for (i = 0; i < 12; i++) {
		lo = T0 - DAY + (int64_t)(rnd() % (16 * HOUR));
		hi = lo + 1 + (int64_t)(rnd() % (10 * HOUR));
		if (i % 2 == 0)
			lo = lo / HOUR * HOUR;
		if (i % 3 == 0)
			hi = hi / HOUR * HOUR - 1;
		if (hi <= lo)
			hi = lo + 1;
		Q("scope=e", "scope=a", "metric=cpu_clock", at("since", lo), at("until", hi));
	}
	/* Frame filters apply after either way. */
	Q("scope=a", "focus=fn3");
	Q("scope=a", "metric=cpu_clock", "ignore=fn5", "hide=fn2",
	    at("since", T0));
}

/* ---- the sample table and the referenced keys ---- */

struct sqlres {
	int64_t v[4];
	size_t rows;
	struct hmap keys;
};

static int
sql_cols(void *arg, const char *const *names, size_t n, struct error *err)
{
	(void)arg;
	(void)names;
	(void)n;
	(void)err;
	return 0;
}

static int
sql_row(void *arg, const struct store_sql_value *v, size_t n,
    struct error *err)
{
	struct sqlres *r = arg;
	size_t i;

	for (i = 0; i < n && i < 4; i++)
		r->v[i] = v[i].i;
	if (n == 2) {
		int64_t k[2] = { v[0].i, v[1].i };

		hmap_put(&r->keys, k, sizeof k, 1);
	}
	r->rows++;
	return 0;
}

static void
sql(const char *q, struct sqlres *r)
{
	static const struct store_sql_cb cb = { sql_cols, sql_row };
	struct store_sql_params p = { q, strlen(q), 10000000, 60000, NULL,
	    NULL };
	struct error err = { 0 };
	int trunc;

	if (store_sql_run(dbpath, &p, &cb, r, &trunc, &err) != 0) {
		fprintf(stderr, "%s: %s\n", q, err.msg);
		exit(1);
	}
	CHECK(!trunc);
}

static void
ref_cb(void *arg, int64_t cs, int64_t ls)
{
	struct hmap *h = arg;
	int64_t k[2] = { cs, ls };

	hmap_put(h, k, sizeof k, 1);
}

/* store_referenced names exactly the keys of the rows (an open day's
 * from its hours, a marker's from the blocks). */
static void
referenced_check(void)
{
	struct hmap refs = { 0 };
	struct sqlres r;
	struct error err = { 0 };
	size_t i;

	memset(&r, 0, sizeof r);
	sql("SELECT DISTINCT callsite_id, labelset_id FROM sample", &r);
	CHECK(store_referenced(rd, ref_cb, &refs, &err) == 0);
	CHECK(refs.n == r.keys.n && refs.n == r.rows && refs.n > 0);
	for (i = 0; i < refs.cap; i++)
		if (refs.slots[i].hash != 0)
			CHECK(hmap_get(&r.keys, hmap_slot_key(&refs.slots[i]),
			    refs.slots[i].keylen) != 0);
	hmap_clear(&refs);
	hmap_clear(&r.keys);
}

static void
table_checks(void)
{
	struct sqlres r;

	/* Every key once, although profiles have many overlapping blocks. */
	memset(&r, 0, sizeof r);
	sql("SELECT count(*), (SELECT count(*) FROM (SELECT DISTINCT "
	    "profile_id, metric_id, callsite_id, labelset_id, bucket FROM "
	    "sample)), (SELECT count(*) FROM sample_block WHERE scope_id NOT "
	    "IN (SELECT id FROM scope WHERE name IN ('e', 'h'))), (SELECT "
	    "count(DISTINCT profile_id) FROM sample_block WHERE scope_id NOT "
	    "IN (SELECT id FROM scope WHERE name IN ('e', 'h'))) FROM sample",
	    &r);
	CHECK(r.v[0] > 1000 && r.v[0] == r.v[1]);
	CHECK(r.v[2] > 4 * r.v[3]);
	/* The samples view sums to top's totals. */
	memset(&r, 0, sizeof r);
	sql("SELECT sum(value) FROM samples WHERE scope = 'a' AND metric = "
	    "'cpu_clock'", &r);
	{
		const char *const kv[] = { "scope=a", "metric=cpu_clock",
		    NULL };

		CHECK(r.v[0] > 0 && r.v[0] == compare(kv));
	}
	referenced_check();
}

/* Top of kv counts more than min profiles and reads no block (whole
 * hours: the rollups answer it all). */
static void
top_no_block(const char *const *kv, int64_t min)
{
	struct selection sel;
	struct top_params tp = { &sel, 0, GRAN_FUNCTION };
	struct top_result r;
	struct error err = { 0 };
	int64_t before;

	make_sel(&sel, kv);
	before = store_blocks_read(rd);
	CHECK(top_query(testquery_src(rd, idx), &tp, &r, &err) == 0);
	CHECK(store_blocks_read(rd) == before);
	CHECK(r.nprofiles > min && r.total > 0);
	top_result_clear(&r);
	selection_clear(&sel);
}

/* Scope e's windows hold runs of level 0, of merged levels and merged
 * whole; a selection of whole windows reads no block, and counts its
 * profiles from the runs' lists. */
static void
runs_checks(int mixed)
{
	struct selection sel;
	struct top_params tp = { &sel, 0, GRAN_FUNCTION };
	struct top_result r;
	struct error err = { 0 };
	struct sqlres q;
	int64_t before;
	const char *kv[] = { "scope=e", NULL, NULL, NULL };
	char since[64], until[64];

	memset(&q, 0, sizeof q);
	sql("SELECT sum(r.level = 0), sum(r.level > 0 AND r.level < 30), "
	    "sum(r.level = 30), max(n) FROM rollup r JOIN scope s ON s.id = "
	    "r.scope_id JOIN (SELECT scope_id, span, start, count(*) AS n "
	    "FROM rollup GROUP BY 1, 2, 3) w ON w.scope_id = r.scope_id AND "
	    "w.span = r.span AND w.start = r.start WHERE s.name = 'e' AND "
	    "r.entries >= 0", &q);
	CHECK(!mixed || (q.v[0] > 0 && q.v[1] > 0 && q.v[2] > 0 &&
	    q.v[3] > 1));
	/* A delete leaves its windows merged whole. */
	CHECK(mixed || (q.v[2] > 0 && q.v[3] == 1));
	snprintf(since, sizeof since, "since@%lld", (long long)(T0 - DAY));
	snprintf(until, sizeof until, "until@%lld", (long long)(T0 - 1));
	kv[1] = since;
	kv[2] = until;
	top_no_block(kv, 10);
	/* A partial hour reads blocks. */
	snprintf(since, sizeof since, "since@%lld", (long long)(T0 - DAY + 600));
	before = store_blocks_read(rd);
	make_sel(&sel, kv);
	CHECK(top_query(testquery_src(rd, idx), &tp, &r, &err) == 0);
	CHECK(store_blocks_read(rd) > before);
	top_result_clear(&r);
	selection_clear(&sel);
	compare(kv);
}

#include "test_store_rollup_ids.h"

static void
delete_profile(int64_t id)
{
	struct error err = { 0 };

	CHECK(store_begin(wr, &err) == 0);
	CHECK(store_profile_delete(wr, id, &err) == 0);
	CHECK(store_commit(wr, &err) == 0);
}

/* A fresh store: the writer, a reader and its callsite index. */
static void
open_store(void)
{
	testimport_open(&ti);
	snprintf(dbpath, sizeof dbpath, "%s/profd.db", ti.dir);
	wr = ti.wr;
	rd = ti.rd;
	idx = ti.idx;
}

#include "test_store_rollup_days.h"

/* The whole story in a fresh store; rollup_max 0 is the default, a small
 * one leaves many windows (days, hours) to the blocks. */
static void
scenario(size_t rollup_max)
{
	int64_t cpu;
	int i;

	open_store();
	/* Many blocks per profile, untimed blocks before their bucket. */
	store_set_sample_buffer(wr, 128);
	store_set_rollup_max(wr, rollup_max);
	ntraces = 0;
	rollup_queries = nonempty = 0;
	ids_check(1);

	cpu = push_fixture("b", "cpu.pprof", "env=prod");
	push_fixture("b", "heap.pprof", NULL);
	push_fixture("d", "mutex.pprof", NULL);
	push_fixture("b", "block.pprof", NULL);
	push_fixture("a", "cpu.pprof", "env=prod");
	trace_ids[ntraces++] = push_trace("a", 3000, T0 - 2 * DAY, 3 * DAY, 1,
	    "env=prod", 0);
	trace_ids[ntraces++] = push_trace("a", 2000, T0 - 30 * HOUR, DAY, 2,
	    NULL, 0);
	trace_ids[ntraces++] = push_trace("a", 500, T0 - 7 * HOUR, 2 * HOUR, 3,
	    "env=test", 60 * 1000000000LL);
	trace_ids[ntraces++] = push_trace("c", 1500, T0 - DAY, 2 * DAY, 4, NULL,
	    7200 * 1000000000LL);
	trace_ids[ntraces++] = push_trace("c", 800, T0 - 2 * DAY, 3 * DAY, 5,
	    NULL, 0);
	for (i = 0; i < NE; i++)
		e_ids[i] = push_trace("e", 30, T0 - DAY + (int64_t)i * 20 * 60,
		    600, 100 + (uint64_t)i, i % 5 == 0 ? "env=prod" : NULL, 0);
	/* Three more in e's last hour (its day is open, without runs of
	 * its own: store-runs.c, "days"): six runs there, the first four
	 * merged into a level. */
	for (i = 0; i < 3; i++)
		x_ids[i] = push_trace("e", 30, T0 - DAY + 15 * HOUR + 300 +
		    (int64_t)i * 20 * 60, 600, 200 + (uint64_t)i, NULL, 0);
	/* Scope h: one small trace (the same samples) in three hours of a
	 * day, then one the next day: the day closes into a run, its keys
	 * a third of its hours' and under the small bound too. */
	for (i = 0; i < 4; i++)
		push_trace("h", 20, T0 - 3 * DAY + (i < 3 ? i * HOUR : DAY),
		    600, 9, NULL, 0);
	if (rollup_max != 0) {
		struct sqlres r;

		/* Both kinds of windows, of both spans. */
		memset(&r, 0, sizeof r);
		sql("SELECT sum(entries < 0 AND span = 3600), sum(entries < 0 "
		    "AND span = 86400), sum(entries > 0 AND span = 3600), "
		    "sum(entries > 0 AND span = 86400) FROM rollup", &r);
		CHECK(r.v[0] > 0 && r.v[1] > 0 && r.v[2] > 0 && r.v[3] > 0);
	}

	ids_check(0);
	selections();
	table_checks();
	if (rollup_max == 0)
		runs_checks(1);
	/* Not vacuous: most selections had data, many used rollups, and
	 * top read many runs from their function sums. */
	CHECK(rollup_queries >= 40 && nonempty >= 50);
	CHECK(store_fsum_hits(rd) >= 40);
	/* ...and tree's read took runs' pairs kept (store-gauge-sums.c). */
	CHECK(store_gauge_runs_read() > 0);

	/* Deleting takes profiles out of the rollups. */
	delete_profile(trace_ids[1]);
	delete_profile(trace_ids[3]);
	delete_profile(cpu);
	/* Scope e: the newest (a run of level 0), the oldest (its hour
	 * merged whole), one in a merged level. */
	delete_profile(x_ids[2]);
	delete_profile(e_ids[0]);
	delete_profile(e_ids[NE - 1]);
	ids_check(0);
	selections();
	table_checks();
	if (rollup_max == 0)
		runs_checks(0);
	/* New runs after the deletes, merged with what they left. */
	for (i = 0; i < 6; i++)
		push_trace("e", 30, T0 - DAY + 5 * HOUR + (int64_t)i * 600, 900,
		    300 + (uint64_t)i, NULL, 0);
	ids_check(0);
	selections();
	table_checks();
	/* Everything of scope c gone: its rollups are gone too (or, where
	 * there was none, the marker stays). */
	delete_profile(trace_ids[4]);
	{
		const char *const kv[] = { "scope=c", NULL };

		CHECK(compare(kv) == 0);
	}
	{
		struct sqlres r;

		memset(&r, 0, sizeof r);
		sql("SELECT count(*) FROM rollup r JOIN scope s ON s.id = "
		    "r.scope_id WHERE s.name = 'c' AND r.entries >= 0", &r);
		CHECK(r.v[0] == 0);
	}
	ids_check(0);
	if (rollup_max == 0)
		upgrade_checks();

	testimport_close(&ti);
}

int
main(void)
{
	scenario(0);
	scenario(40);
	days_scenario();
	printf("test_store_rollup: %u checks\n", checks);
	return 0;
}
