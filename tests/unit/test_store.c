/* test_store.c: the store on its own (store.c and the files it opens
 * with): a new store gets the latest schema, a reader sees it, a newer
 * one is refused; a version 2 store (tests/fixtures/store-v2.sql.gz) is
 * migrated with every sample value kept; interning returns one id per
 * distinct row (scopes, strings, metrics, mappings, functions, frames,
 * callsites on both of store_callsite's paths, label sets); profiles are
 * found by their hash and read back with their metrics, labels, comments
 * and counts; sample values written in small batches (many blocks, the
 * sort helper thread) read back per callsite and per bucket, from the
 * rollups and from the blocks alike, with label filters, after a delete,
 * and on a reader connection. */
#include <dirent.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "alloc.h"
#include "buf.h"
#include "schema.h"
#include "teststore.h"

#define LATEST	(schema_steps[schema_nsteps - 1].version)

static void
test_open(void)
{
	struct error err = { 0 };
	const char *path = ts_new_path("open.db");
	struct store *w, *r;
	sqlite3 *db;
	char sql[64];

	CHECK(store_open(path, 1, &err) == NULL);
	CHECK(err.kind == ERR_INTERNAL && HAS(err.msg, "open.db"));
	w = ts_open(path, 0);
	CHECK(store_version(w) == LATEST);
	r = ts_open(path, 1);
	CHECK(store_version(r) == LATEST);
	store_close(r);
	store_close(w);
	/* Opened again: nothing to migrate, nothing lost. */
	w = ts_open(path, 0);
	CHECK(store_version(w) == LATEST);
	store_close(w);

	/* A store of a later profd is not touched. */
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	snprintf(sql, sizeof sql, "PRAGMA user_version = %d", LATEST + 1);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	memset(&err, 0, sizeof err);
	CHECK(store_open(path, 0, &err) == NULL);
	CHECK(HAS(err.msg, "newer"));
	memset(&err, 0, sizeof err);
	CHECK(store_open(path, 1, &err) == NULL);
	CHECK(HAS(err.msg, "schema version"));
}

static int
nthreads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	CHECK(d != NULL);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Opening starts no thread (profd forks after it, issue 24); the writer's
 * checkpoint thread starts once with store_start_threads, a reader has
 * none, and closing joins it. */
static void
test_threads(void)
{
	struct error err = { 0 };
	const char *path = ts_new_path("threads.db");
	struct store *w = ts_open(path, 0), *r = ts_open(path, 1);

	CHECK(nthreads() == 1);
	CHECK(store_start_threads(r, &err) == 0);
	CHECK(nthreads() == 1);
	CHECK(store_start_threads(w, &err) == 0);
	CHECK(nthreads() == 2);
	CHECK(store_start_threads(w, &err) == 0);
	CHECK(nthreads() == 2);
	store_close(r);
	store_close(w);
	CHECK(nthreads() == 1);
}

static void
test_intern(void)
{
	struct error err = { 0 };
	struct store *s = ts_open(ts_new_path("intern.db"), 0);
	int64_t a, b, id, fn, fn2, fr, fr2, map, c1, c2, c3, ls;
	int64_t cs[4], cs2[4];
	int created;

	ts_ok(store_begin(s, &err), "begin", &err);
	/* Scopes: looked up without creating, then made once. */
	CHECK(store_scope(s, "svc", 0, &err) == 0);
	a = ts_ok_id(store_scope(s, "svc", 1, &err), "scope", &err);
	CHECK(store_scope(s, "svc", 1, &err) == a);
	CHECK(store_scope(s, "svc", 0, &err) == a);
	CHECK(store_scope(s, "other", 1, &err) > a);

	/* Strings are bytes: NULs inside count, the empty one is one. */
	a = ts_ok_id(store_string(s, "a\0b", 3, &err), "string", &err);
	b = ts_ok_id(store_string(s, "a\0c", 3, &err), "string", &err);
	CHECK(a != b);
	CHECK(store_string(s, "a\0b", 3, &err) == a);
	CHECK(store_string(s, "a", 1, &err) != a);
	id = ts_ok_id(store_string(s, NULL, 0, &err), "empty", &err);
	CHECK(store_string(s, "", 0, &err) == id);

	a = ts_ok_id(store_metric(s, "cpu", 3, "nanoseconds", 11, &err),
	    "metric", &err);
	b = ts_ok_id(store_metric(s, "cpu", 3, "count", 5, &err), "metric",
	    &err);
	CHECK(a != b);
	CHECK(store_metric(s, "cpuX", 3, "nanosecondsX", 11, &err) == a);

	map = ts_ok_id(store_mapping(s, 0x400000, 0x500000, 0, ts_str(s,
	    "/bin/x"), ts_str(s, "bid"), 1, &err), "mapping", &err);
	CHECK(store_mapping(s, 0x400000, 0x500000, 0, ts_str(s, "/bin/x"),
	    ts_str(s, "bid"), 1, &err) == map);
	CHECK(store_mapping(s, 0x400000, 0x500000, 0, ts_str(s, "/bin/x"),
	    ts_str(s, "bid"), 0, &err) != map);

	fn = ts_ok_id(store_function(s, ts_str(s, "main"), ts_str(s, "main"),
	    ts_str(s, "m.c"), 10, &err), "function", &err);
	CHECK(store_function(s, ts_str(s, "main"), ts_str(s, "main"),
	    ts_str(s, "m.c"), 10, &err) == fn);
	fn2 = store_function(s, ts_str(s, "main"), ts_str(s, "main"),
	    ts_str(s, "m.c"), 11, &err);
	CHECK(fn2 > 0 && fn2 != fn);

	/* Frames: function and mapping 0 are none (NULL in the table). */
	fr = ts_ok_id(store_frame(s, fn, map, 0x401000, 12, 3, 0, &err),
	    "frame", &err);
	CHECK(store_frame(s, fn, map, 0x401000, 12, 3, 0, &err) == fr);
	CHECK(store_frame(s, fn, map, 0x401000, 13, 3, 0, &err) != fr);
	CHECK(store_frame(s, fn, map, 0x401000, 12, 4, 0, &err) != fr);
	CHECK(store_frame(s, fn, map, 0x401000, 12, 3, 1, &err) != fr);
	fr2 = ts_ok_id(store_frame(s, 0, 0, 0x402000, 0, 0, 0, &err),
	    "frame", &err);
	CHECK(store_frame(s, 0, 0, 0x402000, 0, 0, 0, &err) == fr2);

	/* Callsites made in this transaction: insert first, then look up. */
	c1 = ts_ok_id(store_callsite(s, 0, fr, 1, &err), "callsite", &err);
	c2 = ts_ok_id(store_callsite(s, c1, fr2, 2, &err), "callsite", &err);
	CHECK(store_callsite(s, c1, fr2, 2, &err) == c2);
	CHECK(store_callsite(s, 0, fr, 1, &err) == c1);
	ts_stack(s, "x", cs, 4);
	ts_stack(s, "x", cs2, 4);
	CHECK(memcmp(cs, cs2, sizeof cs) == 0);

	ls = ts_ok_id(store_labelset(s, "k=v", 3, &created, &err), "labelset",
	    &err);
	CHECK(created == 1);
	CHECK(store_labelset(s, "k=v", 3, &created, &err) == ls);
	CHECK(created == 0);
	CHECK(store_labelset(s, "k=w", 3, &created, &err) != ls && created);
	ts_ok(store_commit(s, &err), "commit", &err);

	/* A later transaction: the callsites are old, found by lookup. */
	ts_ok(store_begin(s, &err), "begin", &err);
	CHECK(store_callsite(s, c1, fr2, 2, &err) == c2);
	CHECK(store_callsite(s, 0, fr, 1, &err) == c1);
	c3 = ts_ok_id(store_callsite(s, c2, fr, 3, &err), "callsite", &err);
	CHECK(c3 > c2 && store_callsite(s, c2, fr, 3, &err) == c3);
	ts_stack(s, "x", cs2, 4);
	CHECK(memcmp(cs, cs2, sizeof cs) == 0);
	/* Under a new parent, the same frame is another callsite. */
	CHECK(store_callsite(s, c3, fr2, 4, &err) != c2);
	ts_ok(store_commit(s, &err), "commit", &err);

	store_close(s);
}

/* ---- profiles ---- */

static void
test_profiles(void)
{
	struct error err = { 0 };
	struct store *s = ts_open(ts_new_path("profiles.db"), 0);
	struct store_profile_info p, *v;
	struct store_scope_info *sc;
	struct store_profile_row r;
	struct store_profile_meta m;
	uint8_t h1[32], h2[32];
	int64_t a, b, id, id2, cpu, cpu2, wall;
	size_t n;

	memset(h1, 1, sizeof h1);
	memset(h2, 2, sizeof h2);
	ts_ok(store_begin(s, &err), "begin", &err);
	a = store_scope(s, "a", 1, &err);
	b = store_scope(s, "b", 1, &err);
	memset(&r, 0, sizeof r);
	r.scope_id = a;
	r.format = "pprof";
	r.name = "cpu.pprof";
	r.hash = h1;
	r.bytes = 1234;
	r.imported_ns = 77;
	id = ts_ok_id(store_profile_insert(s, &r, &err), "profile", &err);
	CHECK(store_profile_find(s, a, h1, &err) == id);
	CHECK(store_profile_find(s, b, h1, &err) == 0);
	CHECK(store_profile_find(s, a, h2, &err) == 0);
	/* A streamed profile gets its hash once it has been read. */
	ts_ok(store_profile_set_hash(s, id, h2, 4321, &err), "hash", &err);
	CHECK(store_profile_find(s, a, h2, &err) == id);
	CHECK(store_profile_find(s, a, h1, &err) == 0);

	cpu = store_metric(s, "cpu", 3, "nanoseconds", 11, &err);
	cpu2 = store_metric(s, "cpu", 3, "count", 5, &err);
	wall = store_metric(s, "wall", 4, "nanoseconds", 11, &err);
	memset(&m, 0, sizeof m);
	m.time_ns = 5000000000;
	m.duration_ns = 10;
	m.period = 100;
	m.period_metric_id = cpu;
	m.default_metric_id = wall;
	m.doc_url = "https://example.com/doc";
	m.samples = 42;
	m.dropped_samples = 2;
	ts_ok(store_profile_finish(s, id, &m, &err), "finish", &err);
	ts_ok(store_profile_metric_add(s, id, 0, cpu, 900, KIND_DELTA, COUNTED_WHOLE, &err),
	    "metric", &err);
	ts_ok(store_profile_metric_add(s, id, 1, wall, 800, KIND_GAUGE, COUNTED_WHOLE, &err),
	    "metric", &err);
	ts_ok(store_profile_label_add(s, id, "zone", "eu", &err), "label",
	    &err);
	ts_ok(store_profile_label_add(s, id, "host", "h1", &err), "label",
	    &err);
	ts_ok(store_profile_comment_add(s, id, 0, "first", 5, &err),
	    "comment", &err);
	ts_ok(store_profile_comment_add(s, id, 1, "second", 6, &err),
	    "comment", &err);
	ts_ok(store_profile_count_add(s, id, "unsymbolized", 3, &err),
	    "count", &err);
	/* An older profile in the same scope, with the other cpu unit. */
	id2 = ts_profile(s, a, 99, 1000000000);
	ts_ok(store_profile_metric_add(s, id2, 0, cpu2, 1, KIND_CUMULATIVE,
	    COUNTED_WHOLE, &err), "metric", &err);
	ts_ok(store_commit(s, &err), "commit", &err);

	ts_ok(store_profile_get(s, id, &p, &err), "get", &err);
	CHECK(STREQ(p.name, "cpu.pprof") && STREQ(p.format, "pprof"));
	CHECK(STREQ(p.doc_url, "https://example.com/doc"));
	CHECK(p.time_ns == 5000000000 && p.duration_ns == 10);
	CHECK(p.imported_ns == 77 && p.bytes == 4321 && p.period == 100);
	CHECK(p.samples == 42 && p.dropped_samples == 2);
	CHECK(p.nmetrics == 2 && p.metrics[0].id == cpu &&
	    STREQ(p.metrics[1].type, "wall"));
	/* Each metric of a profile with its own kind. */
	CHECK(p.metrics[0].kind == KIND_DELTA &&
	    p.metrics[1].kind == KIND_GAUGE);
	CHECK(p.default_metric.id == wall && p.period_type.id == cpu);
	CHECK(STREQ(p.period_type.unit, "nanoseconds"));
	/* Labels by key, comments in their order. */
	CHECK(p.nlabels == 2 && STREQ(p.label_keys[0], "host") &&
	    STREQ(p.label_values[1], "eu"));
	CHECK(p.ncomments == 2 && STREQ(p.comments[1], "second"));
	CHECK(p.ncounts == 1 && STREQ(p.counts[0].name, "unsymbolized") &&
	    p.counts[0].n == 3);
	store_profile_info_clear(&p);

	memset(&err, 0, sizeof err);
	CHECK(store_profile_get(s, id + 100, &p, &err) == -1);
	CHECK(err.kind == ERR_NOT_FOUND);
	memset(&err, 0, sizeof err);

	/* Oldest first, with their metrics' kinds. */
	ts_ok(store_profiles(s, "a", &v, &n, &err), "profiles", &err);
	CHECK(n == 2 && v[0].id == id2 && v[1].id == id);
	CHECK(v[0].nmetrics == 1 && v[0].metrics[0].kind == KIND_CUMULATIVE);
	CHECK(v[1].nmetrics == 2 && v[1].metrics[1].kind == KIND_GAUGE);
	store_profile_info_free(v, n);
	CHECK(store_profiles(s, "nope", &v, &n, &err) == -1);
	CHECK(err.kind == ERR_NOT_FOUND);
	memset(&err, 0, sizeof err);

	ts_ok(store_scopes(s, &sc, &n, &err), "scopes", &err);
	CHECK(n == 2 && STREQ(sc[0].name, "a") && sc[0].profiles == 2);
	CHECK(sc[0].first_ns == 1000000000 && sc[0].last_ns == 5000000000);
	CHECK(sc[0].nmetrics == 3 && sc[1].profiles == 0);
	store_scope_info_free(sc, n);

	/* The newest profile's default metric; a type with two units in a
	 * scope must be named with its unit. */
	CHECK(store_scope_default_metric(s, a, &err) == wall);
	CHECK(store_scope_default_metric(s, b, &err) == 0);
	CHECK(store_scope_metric(s, a, "wall", NULL, &err) == wall);
	CHECK(store_scope_metric(s, a, "cpu", "count", &err) == cpu2);
	CHECK(store_scope_metric(s, a, "cpu", NULL, &err) == -1);
	CHECK(err.kind == ERR_INPUT);
	memset(&err, 0, sizeof err);
	CHECK(store_scope_metric(s, b, "cpu", NULL, &err) == 0);
	store_close(s);
}

/* ---- sample values ---- */

#define NCS	24
#define T0	((int64_t)1700000000 / 86400 * 86400 + 3 * 3600)
#define SPAN	(3 * 86400)

/* What a profile wrote: per (callsite, bucket - T0, metric). */
struct oracle {
	int64_t *v;			/* [NCS][SPAN / 60][2] */
	int64_t ls[NCS][SPAN / 60];	/* the label set of the last row */
};

static int64_t *
oracle_at(struct oracle *o, int cs, int64_t bucket, int m)
{
	return &o->v[((size_t)cs * (SPAN / 60) + (size_t)((bucket - T0) /
	    60)) * 2 + (size_t)m];
}

static uint64_t rng = 0x243f6a8885a308d3ULL;

/* Rows in buckets one minute apart (so the oracle can index them), a few
 * untimed (they take profile_bucket), one of three label sets per
 * callsite and bucket. */
static void
write_profile(struct store *s, int64_t scope, int64_t profile,
    const int64_t *cs, const int64_t *metrics, const int64_t *ls,
    int64_t profile_bucket, size_t nrows, struct oracle *o)
{
	struct error err = { 0 };
	struct store_samples *w = store_samples_begin(s, profile, scope);
	int64_t bucket, v[2];
	size_t i;
	int c, l;

	store_samples_metric(w, 0, metrics[0]);
	store_samples_metric(w, 1, metrics[1]);
	for (i = 0; i < nrows; i++) {
		c = (int)(xorshift64(&rng) % NCS);
		bucket = i % 17 == 0 ? profile_bucket : T0 +
		    (int64_t)(xorshift64(&rng) % (SPAN / 60)) * 60;
		v[0] = (int64_t)(xorshift64(&rng) % 5);
		v[1] = (int64_t)(xorshift64(&rng) % 1000) - 100;
		/* One label set per (callsite, bucket): the oracle keeps it. */
		l = (int)((c + bucket / 60) % 3);
		ts_ok(store_samples_add(w, cs[c], ls[l], i % 17 == 0 ?
		    STORE_UNTIMED : bucket, v, 2, &err), "add", &err);
		*oracle_at(o, c, bucket, 0) += v[0];
		*oracle_at(o, c, bucket, 1) += v[1];
		o->ls[c][(bucket - T0) / 60] = ls[l];
	}
	ts_ok(store_samples_finish(w, profile_bucket, &err), "finish", &err);
	store_samples_free(w);
}

/* Sums of the oracle in [lo, hi] for metric m, per callsite, with an
 * optional label set filter (0: any). */
static void
oracle_sums(struct oracle *const *os, size_t nos, int m, int64_t lo,
    int64_t hi, int64_t only_ls, int64_t *sums)
{
	int64_t b;
	size_t k;
	int c;

	memset(sums, 0, NCS * sizeof *sums);
	for (k = 0; k < nos; k++)
		for (c = 0; c < NCS; c++)
			for (b = T0; b < T0 + SPAN; b += 60)
				if (b >= lo && b <= hi && (only_ls == 0 ||
				    os[k]->ls[c][(b - T0) / 60] == only_ls))
					sums[c] += *oracle_at(os[k], c, b, m);
}

static void
check_values(struct store *s, int64_t scope, int64_t metric,
    const int64_t *cs, int64_t lo, int64_t hi,
    const struct label_filter *lf, const int64_t *want,
    int64_t want_profiles)
{
	struct error err = { 0 };
	struct store_filter f;
	struct store_cs_value *v;
	int64_t got[NCS], np;
	size_t n, i;
	int c;

	ts_filter(&f, &scope, metric);
	f.since_s = lo;
	f.until_s = hi;
	f.labels = lf;
	f.nlabels = lf != NULL;
	ts_ok(store_select_values(s, &f, &v, &n, &np, &err), "select",
	    &err);
	memset(got, 0, sizeof got);
	for (i = 0; i < n; i++) {
		for (c = 0; c < NCS && cs[c] != v[i].callsite; c++)
			;
		CHECK(c < NCS);
		CHECK(i == 0 || v[i].callsite > v[i - 1].callsite);
		got[c] = v[i].value;
	}
	free(v);
	for (c = 0; c < NCS; c++)
		if (got[c] != want[c]) {
			fprintf(stderr, "callsite %d: %lld, want %lld\n", c,
			    (long long)got[c], (long long)want[c]);
			CHECK(got[c] == want[c]);
		}
	if (want_profiles >= 0)
		CHECK(np == want_profiles);
}

static void
check_buckets(struct store *s, int64_t scope, int64_t metric,
    const int64_t *cs, struct oracle *o)
{
	struct error err = { 0 };
	struct store_filter f;
	struct store_bucket_value *v;
	size_t n, i, nonzero = 0;
	int64_t b;
	int c;

	ts_filter(&f, &scope, metric);
	ts_ok(store_select_buckets(s, &f, &v, &n, &err), "buckets", &err);
	for (i = 0; i < n; i++) {
		for (c = 0; c < NCS && cs[c] != v[i].callsite; c++)
			;
		CHECK(c < NCS);
		CHECK(i == 0 || v[i].bucket > v[i - 1].bucket ||
		    (v[i].bucket == v[i - 1].bucket &&
		    v[i].callsite > v[i - 1].callsite));
		CHECK(*oracle_at(o, c, v[i].bucket, 0) == v[i].value);
	}
	for (c = 0; c < NCS; c++)
		for (b = T0; b < T0 + SPAN; b += 60)
			nonzero += *oracle_at(o, c, b, 0) != 0;
	CHECK(n == nonzero);
	free(v);
}

/* Regex label filters against the plain ones' results (the oracle's
 * label sets none, thread=t1, thread=t2): matched whole, a sample
 * without the label read as "". */
static void
test_regex_labels(struct store *s, int64_t sc, int64_t metric,
    const int64_t *cs, const int64_t *ls, struct oracle *o)
{
	static char key[] = "thread";
	static const struct {
		const char *re;
		int negate;
		int sets;		/* bit i: label set ls[i] selected */
	} cases[] = {
		{ "t1", 0, 2 }, { "t", 0, 0 }, { "t.*", 0, 6 },
		{ ".*", 0, 7 }, { ".+", 0, 6 }, { "|t2", 0, 5 },
		{ "t1", 1, 5 }, { ".+", 1, 1 }, { "t[12]", 1, 1 },
		{ "", 0, 1 }, { "T1", 0, 0 },
	};
	struct oracle *one[1] = { o };
	char re[16];
	struct label_filter lf;
	struct store_filter f;
	struct store_cs_value *v;
	struct error err = { 0 };
	int64_t want[NCS], part[NCS], np;
	size_t i, n;
	int c, j;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(re, sizeof re, "%s", cases[i].re);
		lf.key = key;
		lf.value = re;
		lf.negate = cases[i].negate;
		lf.regex = 1;
		memset(want, 0, sizeof want);
		for (j = 0; j < 3; j++) {
			if (!(cases[i].sets & 1 << j))
				continue;
			if (j > 0)
				oracle_sums(one, 1, 0, INT64_MIN, INT64_MAX,
				    ls[j], part);
			else {
				/* Without the label: all but t1 and t2. */
				int64_t t1[NCS], t2[NCS];

				oracle_sums(one, 1, 0, INT64_MIN, INT64_MAX,
				    0, part);
				oracle_sums(one, 1, 0, INT64_MIN, INT64_MAX,
				    ls[1], t1);
				oracle_sums(one, 1, 0, INT64_MIN, INT64_MAX,
				    ls[2], t2);
				for (c = 0; c < NCS; c++)
					part[c] -= t1[c] + t2[c];
			}
			for (c = 0; c < NCS; c++)
				want[c] += part[c];
		}
		check_values(s, sc, metric, cs, INT64_MIN, INT64_MAX, &lf,
		    want, -1);
	}
	/* A pattern that is not one: an input error naming the label. */
	snprintf(re, sizeof re, "t(");
	lf.negate = 0;
	ts_filter(&f, &sc, metric);
	f.labels = &lf;
	f.nlabels = 1;
	CHECK(store_select_values(s, &f, &v, &n, &np, &err) == -1);
	CHECK(err.kind == ERR_INPUT && strstr(err.msg, "thread") != NULL);
	printf("ok: regex label filters, %zu patterns, absent labels as "
	    "\"\"\n", sizeof cases / sizeof cases[0]);
}

static void
test_samples(void)
{
	struct error err = { 0 };
	const char *path = ts_new_path("samples.db");
	struct store *s = ts_open(path, 0), *rd;
	struct oracle o1, o2, *both[2] = { &o1, &o2 };
	static char key[] = "thread", t1[] = "t1";
	static const char *const prefixes[] = { "a", "b", "c", "d" };
	struct label_filter lf = { key, t1, 0, 0 };
	int64_t cs[NCS], metrics[2], ls[3], sc, other, p1, p2, k, s1, s2;
	int64_t want[NCS], want2[NCS], lo, hi, pb = T0 + 3600 + 120;
	int created, c;

	o1.v = xcalloc((size_t)NCS * (SPAN / 60) * 2, sizeof *o1.v);
	o2.v = xcalloc((size_t)NCS * (SPAN / 60) * 2, sizeof *o2.v);
	memset(o1.ls, 0, sizeof o1.ls);
	memset(o2.ls, 0, sizeof o2.ls);
	/* Small buffers: many blocks per profile, the helper thread, untimed
	 * blocks written before their bucket is known (more than 20 keys). */
	store_set_sample_buffer(s, 40);
	ts_ok(store_begin_import(s, &err), "begin", &err);
	sc = store_scope(s, "svc", 1, &err);
	other = store_scope(s, "other", 1, &err);
	for (c = 0; c < NCS; c += 6)
		ts_stack(s, prefixes[c / 6], &cs[c], 6);
	metrics[0] = store_metric(s, "samples", 7, "count", 5, &err);
	metrics[1] = store_metric(s, "cpu", 3, "nanoseconds", 11, &err);
	/* Label sets: none, thread=t1, thread=t2. */
	ls[0] = 0;
	k = ts_str(s, "thread");
	ls[1] = store_labelset(s, "t1", 2, &created, &err);
	ts_ok(store_label_add(s, ls[1], k, ts_str(s, "t1"), 0, 0, 0, &err),
	    "label", &err);
	ls[2] = store_labelset(s, "t2", 2, &created, &err);
	ts_ok(store_label_add(s, ls[2], k, ts_str(s, "t2"), 0, 0, 0, &err),
	    "label", &err);
	p1 = ts_profile(s, sc, 1, pb * 1000000000);
	write_profile(s, sc, p1, cs, metrics, ls, pb, 20000, &o1);
	ts_ok(store_commit(s, &err), "commit", &err);

	/* All of it, from the rollups, and from the blocks only. */
	oracle_sums(both, 1, 0, INT64_MIN, INT64_MAX, 0, want);
	s1 = store_rollups_read(s);
	check_values(s, sc, metrics[0], cs, INT64_MIN, INT64_MAX, NULL, want,
	    1);
	CHECK(store_rollups_read(s) > s1);
	store_use_rollups(s, 0);
	s1 = store_rollups_read(s);
	check_values(s, sc, metrics[0], cs, INT64_MIN, INT64_MAX, NULL, want,
	    1);
	CHECK(store_rollups_read(s) == s1);
	store_use_rollups(s, 1);
	/* Ranges cutting hours and days: rollups inside, blocks at the
	 * edges; values may be negative (the second metric). */
	for (lo = T0 - 7 * 60; lo < T0 + SPAN; lo += 86400 / 3 + 4 * 60) {
		hi = lo + 86400 + 3600 + 5 * 60 - 1;
		oracle_sums(both, 1, 1, lo, hi, 0, want);
		check_values(s, sc, metrics[1], cs, lo, hi, NULL, want, -1);
		store_use_rollups(s, 0);
		check_values(s, sc, metrics[1], cs, lo, hi, NULL, want, -1);
		store_use_rollups(s, 1);
	}
	/* Sample labels: only the blocks answer. */
	oracle_sums(both, 1, 0, INT64_MIN, INT64_MAX, ls[1], want);
	check_values(s, sc, metrics[0], cs, INT64_MIN, INT64_MAX, &lf, want,
	    1);
	lf.negate = 1;
	oracle_sums(both, 1, 0, INT64_MIN, INT64_MAX, 0, want2);
	for (c = 0; c < NCS; c++)
		want2[c] -= want[c];
	check_values(s, sc, metrics[0], cs, INT64_MIN, INT64_MAX, &lf, want2,
	    1);
	test_regex_labels(s, sc, metrics[0], cs, ls, &o1);
	check_buckets(s, sc, metrics[0], cs, &o1);
	/* Nothing in the other scope. */
	memset(want, 0, sizeof want);
	check_values(s, other, metrics[0], cs, INT64_MIN, INT64_MAX, NULL,
	    want, 0);

	/* A second profile adds to the first; deleting the first takes its
	 * values out of the rollups as well as the blocks. */
	ts_ok(store_begin_import(s, &err), "begin", &err);
	p2 = ts_profile(s, sc, 2, pb * 1000000000);
	write_profile(s, sc, p2, cs, metrics, ls, pb, 5000, &o2);
	ts_ok(store_commit(s, &err), "commit", &err);
	oracle_sums(both, 2, 0, INT64_MIN, INT64_MAX, 0, want);
	check_values(s, sc, metrics[0], cs, INT64_MIN, INT64_MAX, NULL, want,
	    2);
	rd = ts_open(path, 1);
	check_values(rd, sc, metrics[0], cs, INT64_MIN, INT64_MAX, NULL, want,
	    2);
	ts_ok(store_begin(s, &err), "begin", &err);
	ts_ok(store_profile_delete(s, p1, &err), "delete", &err);
	ts_ok(store_commit(s, &err), "commit", &err);
	oracle_sums(both + 1, 1, 0, INT64_MIN, INT64_MAX, 0, want);
	s2 = store_rollups_read(rd);
	check_values(rd, sc, metrics[0], cs, INT64_MIN, INT64_MAX, NULL, want,
	    1);
	CHECK(store_rollups_read(rd) > s2);
	store_use_rollups(rd, 0);
	check_values(rd, sc, metrics[0], cs, INT64_MIN, INT64_MAX, NULL, want,
	    1);
	check_buckets(rd, sc, metrics[0], cs, &o2);
	store_close(rd);
	store_close(s);
	free(o1.v);
	free(o2.v);
}

/* ---- migration ---- */

/* The dump of a version 2 store into a new file. */
static void
load_v2(const char *path)
{
	gzFile gz;
	struct buf sql = { 0 };
	char chunk[65536];
	sqlite3 *db;
	char *msg = NULL;
	int n;

	CHECK((gz = gzopen(FIXTURES_DIR "/store-v2.sql.gz", "rb")) != NULL);
	while ((n = gzread(gz, chunk, sizeof chunk)) > 0)
		buf_add(&sql, chunk, (size_t)n);
	gzclose(gz);
	buf_add(&sql, "", 1);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	if (sqlite3_exec(db, (const char *)sql.p, NULL, NULL, &msg) !=
	    SQLITE_OK) {
		fprintf(stderr, "loading the v2 dump: %s\n", msg);
		exit(1);
	}
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 2", NULL, NULL, NULL) ==
	    SQLITE_OK);
	sqlite3_close(db);
	buf_free(&sql);
}

struct v2sum {
	int64_t scope, metric, callsite, value;
};

static void
test_migrate_v2(void)
{
	struct error err = { 0 };
	const char *path = ts_new_path("v2.db");
	struct v2sum *want = NULL;
	struct store_cs_value *v;
	struct store_filter f;
	struct store *s;
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t nwant = 0, i, j, n, groups = 0;
	int64_t np;
	int rollups;

	load_v2(path);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "SELECT p.scope_id, s.metric_id, "
	    "s.callsite_id, sum(s.value) FROM sample s JOIN profile p ON "
	    "p.id = s.profile_id GROUP BY 1, 2, 3 HAVING sum(s.value) != 0 "
	    "ORDER BY 1, 2, 3", -1, &st, NULL) == SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		want = xreallocarray(want, nwant + 1, sizeof *want);
		want[nwant].scope = sqlite3_column_int64(st, 0);
		want[nwant].metric = sqlite3_column_int64(st, 1);
		want[nwant].callsite = sqlite3_column_int64(st, 2);
		want[nwant++].value = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	CHECK(nwant > 100);

	s = ts_open(path, 0);
	CHECK(store_version(s) == LATEST);
	/* Per (scope, metric): the sums of the old rows, from the rollups
	 * made of them and from the blocks. */
	for (rollups = 1; rollups >= 0; rollups--) {
		store_use_rollups(s, rollups);
		for (i = 0; i < nwant; i = j) {
			for (j = i; j < nwant && want[j].scope ==
			    want[i].scope && want[j].metric == want[i].metric;
			    j++)
				;
			ts_filter(&f, &want[i].scope, want[i].metric);
			ts_ok(store_select_values(s, &f, &v, &n, &np, &err),
			    "select", &err);
			CHECK(n == j - i && np > 0);
			for (n = 0; n < j - i; n++)
				CHECK(v[n].callsite == want[i + n].callsite &&
				    v[n].value == want[i + n].value);
			free(v);
			groups++;
		}
	}
	CHECK(groups >= 8);
	CHECK(store_rollups_read(s) > 0);
	store_close(s);
	/* The old table is gone. */
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master "
	    "WHERE name = 'sample_v2'", -1,
	    &st, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0);
	sqlite3_finalize(st);
	/* Schema 9: the kinds of the profiles stored before, by the
	 * importer's rule: mutex and block profiles without a duration are
	 * counters; CPU, Perfetto and folded add up. */
	CHECK(sqlite3_prepare_v2(db, "SELECT group_concat(x, ', ') FROM "
	    "(SELECT p.name || ' ' || pm.metric || ' ' || pm.kind AS x FROM "
	    "profile_metrics pm JOIN profiles p USING (profile_id) "
	    "ORDER BY pm.profile_id, pm.metric)", -1, &st, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(st) == SQLITE_ROW);
	CHECK(STREQ((const char *)sqlite3_column_text(st, 0),
	    "cpu.pprof cpu delta, cpu.pprof samples delta, "
	    "mutex.pprof contentions cumulative, mutex.pprof delay cumulative, "
	    "block.pprof contentions cumulative, block.pprof delay cumulative, "
	    "pf.trace cpu_cycles delta, pf.trace samples delta, "
	    "pf.trace wall_time delta, "
	    "f.folded samples delta"));
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(want);
}

int
main(void)
{
	test_open();
	test_threads();
	test_intern();
	test_profiles();
	test_samples();
	test_migrate_v2();
	printf("test_store: %u checks passed\n", checks);
	return 0;
}
