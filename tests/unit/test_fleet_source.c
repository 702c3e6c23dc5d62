/* test_fleet_source.c: the fleet layer linked alone (fleet/ over query,
 * no api): ClickHouse's stack source read on a thread that is not the
 * loop, as a query thread reads it, against a ClickHouse played by the
 * test on the same loop over loopback HTTP.  The views (top, tree,
 * timeline, scopes) of its answers are what the stacks say; a gauge's
 * are averaged per series in ClickHouse's SQL, as the store's source
 * averages them, and last, sum and a timeline's steps asked so; an
 * answer of 40,000 stacks (4 MB) comes through the megabyte the loop may
 * hold for the thread, and its frames are asked once (then the reader
 * keeps them, and the index they were put into for the next source);
 * ClickHouse's error, an answer cut short, and a source
 * asked after ch_select_stop fail with what happened. */
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/thread.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ch-select.h"
#include "ch.h"
#include "csindex.h"
#include "fleet-source.h"
#include "selection.h"
#include "source.h"
#include "testlib.h"
#include "timeline.h"
#include "top.h"
#include "tree.h"

#define BIG_STACKS	40000

static struct event_base *base;
static struct ch_select *chs;
static struct fleet_reader *reader;
static int big;				/* the stacks' answer: 40,000 */
static int fail_stacks;			/* 1: a 500, 2: cut short */
static int gauge;			/* the metric: inuse_space, a gauge */
static int kinds;			/* 1: profiles say their kinds */
static char asked[8192];		/* the last stacks' or buckets' SQL */
static int version8;			/* the database has schema 8 */
static int nq;				/* questions asked so far */
static int names_asked;			/* function sums' names asked */

/* ---- ClickHouse, played ---- */

static int frames_asked;		/* frames' questions so far */
static char frames_sql[8192];		/* the last of them */

/* The stacks' sums (frames 0: stack_hash, v) or their frames (stack_hash
 * and the arrays), all of them: the source takes those it lacks. */
static void
stacks_answer(struct evbuffer *out, int frames)
{
	int i;

	if (!big && !frames) {
		evbuffer_add_printf(out, "1\t7\n2\t3\n"
		    "18446744073709551615\t-2\n");
		return;
	}
	if (!big) {
		/* leaf <- work <- main, twice; work inlined into main. */
		evbuffer_add_printf(out, "1\t['leaf','work','main']\t"
		    "['a.go','a.go','m.go']\t[12,5,3]\t[0,1,0]\t[10,4,1]\t"
		    "['/bin/x','/bin/x','/bin/x']\n");
		evbuffer_add_printf(out, "2\t['work','main']\t['a.go','m.go']"
		    "\t[6,3]\t[1,0]\t[4,1]\t['/bin/x','/bin/x']\n");
		/* A copy of stack 1's row not merged away yet: read once. */
		evbuffer_add_printf(out, "1\t['leaf','work','main']\t"
		    "['a.go','a.go','m.go']\t[12,5,3]\t[0,1,0]\t[10,4,1]\t"
		    "['/bin/x','/bin/x','/bin/x']\n");
		/* Shipped before stack_frames: no inline flags. */
		evbuffer_add_printf(out, "18446744073709551615\t['main']\t"
		    "['m.go']\t[9]\t[]\t[]\t[]\n");
		return;
	}
	for (i = 0; i < BIG_STACKS; i++)
		if (!frames)
			evbuffer_add_printf(out, "%d\t1\n", 1000 + i);
		else
			evbuffer_add_printf(out, "%d\t['fn_%06d_with_a_long_"
			    "name','main.caller_of_every_one']\t['src/f.go',"
			    "'src/m.go']\t[%d,3]\t[0,0]\t[1,1]\t['/bin/x',"
			    "'/bin/x']\n", 1000 + i, i, i + 10);
}

static void
ch_handler(struct evhttp_request *req, void *arg)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	struct evbuffer *out = evbuffer_new();
	size_t n = evbuffer_get_length(in);
	char *sql = xmalloc(n + 1);

	(void)arg;
	evbuffer_remove(in, sql, n);
	sql[n] = '\0';
	if (HAS(sql, "SELECT stack_hash, v FROM (") ||
	    HAS(sql, "v, [], []"))
		snprintf(asked, sizeof asked, "%s", sql);
	nq++;
	if (HAS(sql, "FROM db.functions_daily")) {
		/* top's function sums (schema 8), and what is asked with
		 * them. */
		evbuffer_add_printf(out, "0\t11\t7\t7\n0\t12\t3\t10\n"
		    "0\t13\t2\t12\n1\t21\t10\t0\n1\t22\t7\t1\n"
		    "2\t0\t2\t12\n");
	} else if (HAS(sql, "FROM db.function_names")) {
		/* Their keys' names, asked once. */
		names_asked++;
		CHECK(HAS(sql, "WHERE fn IN (11,12,13,21,22)"));
		evbuffer_add_printf(out, "11\t\tleaf\n12\t\twork\n"
		    "13\t\tmain\n21\tmain\twork\n22\twork\tleaf\n");
	} else if (HAS(sql, "metrics[length(metrics)]"))
		evbuffer_add_printf(out, gauge ? "inuse_space/bytes\n" :
		    "cpu/nanoseconds\n");
	else if (HAS(sql, "uniqExactIf"))
		evbuffer_add_printf(out, gauge ? "inuse_space/bytes\t3\n" :
		    "cpu/nanoseconds\t2\n");
	else if (HAS(sql, "SELECT kinds[indexOf(metrics, "))
		/* No row: profiles shipped before their kinds. */
		evbuffer_add_printf(out, "%s", !kinds ? "" : gauge ? "2\n" :
		    "0\n");
	else if (HAS(sql, "SELECT max(version) FROM"))
		/* A database without samples_hourly and samples_profiles
		 * (schema 5 and 6): the rows are read; or (version8) with
		 * everything to 8, top's function sums. */
		evbuffer_add_printf(out, version8 ? "8\n" : "0\n");
	else if (HAS(sql, "SELECT min(t), max(t), count() FROM ("))
		evbuffer_add_printf(out, "100\t130\t3\n");
	else if (HAS(sql, "SELECT count() FROM (") ||
	    HAS(sql, "SELECT uniqExact(host, profile) FROM"))
		evbuffer_add_printf(out, "3\n");
	else if (HAS(sql, "v, [], []") && gauge)
		evbuffer_add_printf(out, "100\t4\t[]\t[]\t[]\t[]\t[]\t[]\n"
		    "120\t6\t[]\t[]\t[]\t[]\t[]\t[]\n");
	else if (HAS(sql, "v, [], []"))
		evbuffer_add_printf(out, "100\t4\t[]\t[]\t[]\t[]\t[]\t[]\n"
		    "103\t6\t[]\t[]\t[]\t[]\t[]\t[]\n");
	else if (HAS(sql, "SELECT scope, uniqExact"))
		evbuffer_add_printf(out, "svc\t2\t1000\t2000\t"
		    "['cpu/nanoseconds']\n");
	else if (HAS(sql, "SELECT DISTINCT host"))
		evbuffer_add_printf(out, "a\nb\n");
	else if (HAS(sql, "SELECT stack_hash, v FROM (") &&
	    fail_stacks == 1) {
		evbuffer_add_printf(out, "Code: 241. DB::Exception: Memory "
		    "limit exceeded");
		evhttp_send_reply(req, 500, "Internal Server Error", out);
		evbuffer_free(out);
		free(sql);
		return;
	} else if (HAS(sql, "SELECT stack_hash, functions, files, lines, "
	    "inlined")) {
		frames_asked++;
		snprintf(frames_sql, sizeof frames_sql, "%s", sql);
		/* A few hashes by name (the first time all three, then the
		 * one without inline flags, which is not kept); many by the
		 * selection. */
		CHECK(big ? HAS(sql, "WHERE stack_hash IN (SELECT") :
		    HAS(sql, "WHERE stack_hash IN (1,2,18446744073709551615)") ||
		    HAS(sql, "WHERE stack_hash IN (18446744073709551615)"));
		stacks_answer(out, 1);
	} else if (HAS(sql, "SELECT stack_hash, v FROM (")) {
		stacks_answer(out, 0);
		if (fail_stacks == 2)
			/* A line without its end: the answer cut short. */
			evbuffer_add_printf(out, "5\t['x'");
	} else
		evbuffer_add_printf(out, "unexpected: %.100s", sql);
	evhttp_send_reply(req, 200, "OK", out);
	evbuffer_free(out);
	free(sql);
}

/* ---- the views, on a thread of their own ---- */

static void
sel_of(struct selection *sel, const char *const *kv)
{
	struct error err = { 0 };

	memset(sel, 0, sizeof *sel);
	for (; kv[0] != NULL; kv += 2)
		CHECK(selection_param(sel, kv[0], kv[1], 0, &err) == 1);
	CHECK(selection_check(sel, &err) == 0);
	CHECK(selection_compile(sel, &err) == 0);
}

static const struct top_row *
row_of(const struct top_result *r, const char *fn)
{
	size_t i;

	for (i = 0; i < r->nrows; i++)
		if (STREQ(r->rows[i].function, fn))
			return &r->rows[i];
	return NULL;
}

static void
views_small(void)
{
	static const char *const kv[] = { "scope", "svc", NULL };
	static const char *const hide[] = { "scope", "svc", "hide", "work",
	    NULL };
	struct selection sel, sh;
	struct stack_source *src = fleet_source_open(reader, NULL, 0);
	struct top_params tp = { 0 };
	struct tree_params rp = { 0 };
	struct timeline_params lp = { 0 };
	struct top_result t;
	struct tree_result tr;
	struct timeline_result tl;
	struct store_scope_info *si;
	char **hosts;
	size_t nsi, nh, i;
	struct error err = { 0 };
	const struct top_row *r;

	sel_of(&sel, kv);
	tp.sel = &sel;
	CHECK(top_query(src, &tp, &t, &err) == 0);
	CHECK(STREQ(t.metric.type, "cpu") && STREQ(t.metric.unit,
	    "nanoseconds") && t.nprofiles == 2);
	/* No kinds shipped: summed, as the store did before kinds. */
	CHECK(t.metric.aggregate == AGG_DELTA && HAS(asked, "sum(value) AS v "
	    "FROM db.samples WHERE 1 AND scope IN ('svc') AND metric = "
	    "'cpu/nanoseconds' GROUP BY stack_hash"));
	CHECK(t.total == 12 && t.nrows == 3);
	CHECK((r = row_of(&t, "leaf")) != NULL && r->flat == 7 && r->cum == 7);
	CHECK((r = row_of(&t, "work")) != NULL && r->flat == 3 &&
	    r->cum == 10 && r->inl == TOP_INLINED);
	CHECK((r = row_of(&t, "main")) != NULL && r->flat == -2 &&
	    r->cum == 8);
	top_result_clear(&t);
	/* At line granularity: a row per line. */
	tp.granularity = GRAN_LINE;
	CHECK(top_query(src, &tp, &t, &err) == 0);
	CHECK(row_of(&t, "main m.go:3") != NULL &&
	    row_of(&t, "main m.go:9") != NULL && row_of(&t, "work a.go:5"));
	top_result_clear(&t);
	/* hide=work: the frame goes, its stacks stay. */
	sel_of(&sh, hide);
	tp.sel = &sh;
	tp.granularity = GRAN_FUNCTION;
	CHECK(top_query(src, &tp, &t, &err) == 0);
	CHECK(row_of(&t, "work") == NULL && row_of(&t, "main")->flat == 1);
	/* The frames of stacks 1 and 2 were kept; the one read without
	 * its stack_frames row is asked again (its row may come). */
	CHECK(HAS(frames_sql, "WHERE stack_hash IN (18446744073709551615)"));
	top_result_clear(&t);
	/* The tree: sources from stack_frames. */
	rp.sel = &sel;
	CHECK(tree_query(src, &rp, &tr, &err) == 0);
	CHECK(tr.nnodes == 4 && STREQ(tr.nodes[1].name, "main") &&
	    tr.nodes[1].total == 8 && tr.nodes[1].self == -2);
	for (i = 1; i < tr.nnodes; i++)
		CHECK(STREQ(tr.nodes[i].mapping, "/bin/x"));
	tree_result_clear(&tr);
	/* The timeline: the sums per bucket. */
	lp.sel = &sel;
	CHECK(timeline_query(src, &lp, &tl, &err) == 0);
	CHECK(tl.start_s == 100 && tl.npoints == 4 && tl.values[0] == 4 &&
	    tl.values[3] == 6 && tl.total == 10);
	timeline_result_clear(&tl);
	/* The scopes and hosts. */
	CHECK(src->ops->scopes(src, &si, &nsi, &hosts, &nh, &err) == 0);
	CHECK(nsi == 1 && STREQ(si[0].name, "svc") && si[0].profiles == 2 &&
	    si[0].nmetrics == 1 && STREQ(si[0].metrics[0].unit,
	    "nanoseconds") && nh == 2 && STREQ(hosts[1], "b"));
	store_scope_info_free(si, nsi);
	for (i = 0; i < nh; i++)
		free(hosts[i]);
	free(hosts);
	stack_source_free(src);
	selection_clear(&sh);
	selection_clear(&sel);
	printf("ok: top (function and line), hide, tree, timeline and "
	    "scopes of the fleet's stacks\n");
}

/* top's function sums (schema 8): a top without a metric named reads
 * them for its window (no ends: every day of it), not the stacks, and
 * labels its rows from their edges; once the scope's default metric is
 * known, a top asks its four questions at once (the default, the
 * metric's count, its kind, the sums), and the answer is the same. */
static void
views_fsums(void)
{
	static const char *const kv[] = { "scope", "svc", NULL };
	struct fleet_reader *r8 = fleet_reader_new(chs, "db", NULL);
	struct selection sel;
	struct stack_source *src;
	struct top_params tp = { 0 };
	struct top_result t;
	struct error err = { 0 };
	const struct top_row *r;
	int pass, before;

	version8 = 1;
	sel_of(&sel, kv);
	tp.sel = &sel;
	for (pass = 0; pass < 2; pass++) {
		src = fleet_source_open(r8, NULL, 0);
		before = nq;
		CHECK(top_query(src, &tp, &t, &err) == 0);
		CHECK(STREQ(t.metric.type, "cpu") && t.nprofiles == 2 &&
		    t.total == 12 && t.nrows == 3);
		CHECK((r = row_of(&t, "leaf")) != NULL && r->flat == 7 &&
		    r->cum == 7 && r->inl == TOP_NOT_INLINED);
		CHECK((r = row_of(&t, "work")) != NULL && r->flat == 3 &&
		    r->cum == 10 && r->inl == TOP_INLINED);
		CHECK((r = row_of(&t, "main")) != NULL && r->flat == 2 &&
		    r->cum == 12);
		/* First: the version, the default metric, then the
		 * metrics, the kind and the sums together, then their
		 * keys' names; then the default with them, the names
		 * kept. */
		CHECK(nq - before == (pass == 0 ? 6 : 4) && names_asked == 1);
		top_result_clear(&t);
		stack_source_free(src);
	}
	selection_clear(&sel);
	fleet_reader_free(r8);
	version8 = 0;
	printf("ok: top of the function sums, its questions at once once "
	    "the scope's default metric is known\n");
}

/* A gauge: averaged per series by default, as the store's source does;
 * last and max pick a profile per series; a timeline's steps made of
 * the window's profiles' range.  Each in ClickHouse's SQL. */
static void
views_gauge(void)
{
	static const char *const kv[] = { "scope", "svc", NULL };
	static const char *const last[] = { "scope", "svc", "aggregate",
	    "last", NULL };
	static const char *const sum[] = { "scope", "svc", "aggregate",
	    "sum", NULL };
	struct selection sel, sl, ss;
	struct stack_source *src = fleet_source_open(reader, NULL, 0);
	struct top_params tp = { 0 };
	struct timeline_params lp = { 0 };
	struct top_result t;
	struct timeline_result tl;
	struct error err = { 0 };

	gauge = kinds = 1;
	sel_of(&sel, kv);
	tp.sel = &sel;
	CHECK(top_query(src, &tp, &t, &err) == 0);
	CHECK(STREQ(t.metric.type, "inuse_space") &&
	    t.metric.aggregate == AGG_AVG && t.nprofiles == 3 &&
	    t.total == 12);
	CHECK(HAS(asked, "sumMap([stack_hash], [value])") &&
	    HAS(asked, "toInt64(uniqExact(profile)) AS n") &&
	    HAS(asked, "GROUP BY host, scope, sr") &&
	    HAS(asked, "FROM db.profile_metrics WHERE has(metrics, "
	    "'inuse_space/bytes')"));
	top_result_clear(&t);
	sel_of(&sl, last);
	tp.sel = &sl;
	CHECK(top_query(src, &tp, &t, &err) == 0);
	CHECK(t.metric.aggregate == AGG_LAST && t.nprofiles == 3 &&
	    HAS(asked, "tn DESC, profile DESC LIMIT 1 BY host, scope, sr, "
	    "st") && !HAS(asked, "sumMap"));
	top_result_clear(&t);
	/* The values as given: the raw rows where a profile has them. */
	sel_of(&ss, sum);
	tp.sel = &ss;
	CHECK(top_query(src, &tp, &t, &err) == 0);
	CHECK(t.metric.aggregate == AGG_SUM && t.nprofiles == 3 &&
	    HAS(asked, "metric = 'inuse_space/bytes\\0raw' OR (metric = "
	    "'inuse_space/bytes' AND (host, profile) NOT IN"));
	top_result_clear(&t);
	/* Steps of 10 s from 100 (the profiles' first second). */
	lp.sel = &sel;
	lp.step_s = 10;
	CHECK(timeline_query(src, &lp, &tl, &err) == 0);
	CHECK(tl.metric.aggregate == AGG_AVG && tl.start_s == 100 &&
	    tl.step_s == 10 && tl.npoints == 3 && tl.values[0] == 4 &&
	    tl.values[2] == 6);
	CHECK(HAS(asked, "100 + intDiv(toInt64(toUInt32(time)) - 100, 10) * "
	    "10 AS bucket") && HAS(asked, "toInt64(any(cnt)) AS n"));
	timeline_result_clear(&tl);
	stack_source_free(src);
	selection_clear(&ss);
	selection_clear(&sl);
	selection_clear(&sel);
	gauge = kinds = 0;
	printf("ok: a gauge averaged per series in ClickHouse; last, sum, "
	    "and a timeline's steps\n");
}

static void
views_big(void)
{
	static const char *const kv[] = { "scope", "svc", NULL };
	struct selection sel;
	struct stack_source *src = fleet_source_open(reader, NULL, 0);
	struct top_params tp = { 0 };
	struct top_result t;
	struct error err = { 0 };
	const struct top_row *r;
	const struct csindex *idx0 = NULL;
	size_t peak, bytes0 = 0;
	uint64_t pauses;
	int i, asked0 = frames_asked;

	big = 1;
	sel_of(&sel, kv);
	tp.sel = &sel;
	/* The second time, the frames are the reader's, and so is the
	 * index they were put into: the next source's, not one stack put
	 * again (fleet-index.h). */
	for (i = 0; i < 2; i++) {
		if (i == 1) {
			idx0 = src->index;
			bytes0 = csindex_bytes(idx0);
			top_result_clear(&t);
			stack_source_free(src);
			src = fleet_source_open(reader, NULL, 0);
		}
		CHECK(top_query(src, &tp, &t, &err) == 0);
		CHECK(t.total == BIG_STACKS && t.nrows == BIG_STACKS + 1);
	}
	CHECK(frames_asked == asked0 + 1);
	CHECK(src->index == idx0 && csindex_bytes(src->index) == bytes0);
	CHECK((r = row_of(&t, "main.caller_of_every_one")) != NULL &&
	    r->cum == BIG_STACKS && r->flat == 0);
	CHECK((r = row_of(&t, "fn_039999_with_a_long_name")) != NULL &&
	    r->flat == 1);
	top_result_clear(&t);
	ch_select_counts(chs, &peak, &pauses);
	/* A megabyte and a read or two, whatever the thread's speed. */
	CHECK(peak <= 1024 * 1024 + 256 * 1024);
	stack_source_free(src);
	selection_clear(&sel);
	big = 0;
	printf("ok: %d stacks through at most %zu bytes held (%llu "
	    "pauses)\n", BIG_STACKS, peak, (unsigned long long)pauses);
}

static void
views_errors(void)
{
	static const char *const kv[] = { "scope", "svc", NULL };
	struct selection sel;
	struct stack_source *src = fleet_source_open(reader, NULL, 0);
	struct top_params tp = { 0 };
	struct top_result t;
	struct error err = { 0 };

	sel_of(&sel, kv);
	tp.sel = &sel;
	fail_stacks = 1;
	CHECK(top_query(src, &tp, &t, &err) == -1);
	CHECK(err.kind == ERR_BUSY && HAS(err.msg, "answered 500") &&
	    HAS(err.msg, "Memory limit exceeded"));
	stack_source_free(src);
	src = fleet_source_open(reader, NULL, 0);
	fail_stacks = 2;
	memset(&err, 0, sizeof err);
	CHECK(top_query(src, &tp, &t, &err) == -1);
	CHECK(err.kind != ERR_NONE);
	fail_stacks = 0;
	stack_source_free(src);
	selection_clear(&sel);
	printf("ok: ClickHouse's 500 and an answer cut short: \"%s\"\n",
	    err.msg);
}

static void
stop_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	ch_select_stop(chs);
}

static void *
views_main(void *arg)
{
	static const char *const kv[] = { "scope", "svc", NULL };
	struct event *stop = arg;
	struct selection sel;
	struct stack_source *src;
	struct top_params tp = { 0 };
	struct top_result t;
	struct error err = { 0 };

	views_small();
	views_fsums();
	views_gauge();
	views_big();
	views_errors();
	/* After the loop's stop: at once, with why. */
	event_active(stop, EV_TIMEOUT, 0);
	while (1) {
		src = fleet_source_open(reader, NULL, 0);
		sel_of(&sel, kv);
		tp.sel = &sel;
		memset(&err, 0, sizeof err);
		CHECK(top_query(src, &tp, &t, &err) == -1 || (top_result_clear(
		    &t), 1));
		stack_source_free(src);
		selection_clear(&sel);
		if (HAS(err.msg, "shutting down"))
			break;
	}
	printf("ok: asked after the stop: \"%s\"\n", err.msg);
	event_base_loopexit(base, NULL);
	return NULL;
}

int
main(void)
{
	struct evhttp *http;
	struct evhttp_bound_socket *bs;
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	struct ch *ch;
	struct error err = { 0 };
	struct event *stop;
	pthread_t t;
	char url[64];

	/* As profd (server.c): a select given up closes its connection,
	 * and the played ClickHouse may still be answering on it. */
	signal(SIGPIPE, SIG_IGN);
	CHECK(evthread_use_pthreads() == 0);
	base = event_base_new();
	http = evhttp_new(base);
	CHECK((bs = evhttp_bind_socket_with_handle(http, "127.0.0.1", 0)) !=
	    NULL);
	CHECK(getsockname(evhttp_bound_socket_get_fd(bs),
	    (struct sockaddr *)&ss, &len) == 0);
	evhttp_set_gencb(http, ch_handler, NULL);
	snprintf(url, sizeof url, "http://127.0.0.1:%d",
	    ntohs(((struct sockaddr_in *)&ss)->sin_port));
	CHECK((ch = ch_new(base, NULL, url, NULL, 30, &err)) != NULL);
	CHECK(ch_new(base, NULL, "ftp://x", NULL, 30, &err) == NULL &&
	    err.kind == ERR_INPUT && HAS(err.msg, "fleet-url"));
	error_clear(&err);
	CHECK(ch_new(base, NULL, "https://x", "/nonexistent/ca.pem", 30,
	    &err) == NULL && err.kind == ERR_INPUT &&
	    HAS(err.msg, "fleet-ca-file /nonexistent/ca.pem"));
	chs = ch_select_new(ch, NULL);
	reader = fleet_reader_new(chs, "db", NULL);
	stop = event_new(base, -1, 0, stop_cb, NULL);
	CHECK(pthread_create(&t, NULL, views_main, stop) == 0);
	event_base_dispatch(base);
	pthread_join(t, NULL);
	event_free(stop);
	fleet_reader_free(reader);
	ch_select_free(chs);
	ch_free(ch);
	evhttp_free(http);
	event_base_free(base);
	printf("ok: %u checks\n", checks);
	return 0;
}
