/* test_stackwalk.c: the stacks of the Go CPU fixture imported into a
 * store, walked one by one through the callsite index: root first down to
 * the selected callsite, their leaves summing to pprof's flat and the
 * functions on them to its cum; focus and ignore keep or drop whole
 * stacks, hide and show remove frames; at line granularity the frames
 * are named "function file:line"; a callsite not in the index is an
 * error.  A walk whose call is cancelled (base/cancel.h: its client gone,
 * its query-timeout passed) fails within CANCEL_POLL_EVERY stacks with
 * the reason, and the store's reads under a fired cancel fail, the next
 * read after the watch ends seeing the store as before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cancel.h"
#include "clock.h"
#include "query.h"
#include "stackwalk.h"
#include "testquery.h"

static struct testimport ts;
static struct store_cs_value *vals;
static size_t nvals;
static struct expected exp_cpu;

static const char *
frame(const struct stackwalk *w, size_t i)
{
	return csindex_name_str(ts.idx, w->name[i]);
}

static int
on_stack(const struct stackwalk *w, const char *f)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (strcmp(frame(w, i), f) == 0)
			return 1;
	return 0;
}

/* Walks every selected value under the filters of kv: the sum of the
 * values of the stacks kept. */
static int64_t
walk_all(const char *const *kv, int gran,
    void (*each)(const struct stackwalk *, int64_t leaf, void *), void *arg)
{
	struct selection sel;
	struct stackwalk w;
	struct error err = { 0 };
	int64_t kept = 0;
	size_t i;
	int rc;

	testquery_sel(&sel, kv);
	stackwalk_init(&w, ts.idx, &sel, gran);
	for (i = 0; i < nvals; i++) {
		CHECK((rc = stackwalk_run(&w, vals[i].callsite, &err)) >= 0);
		if (rc == 0)
			continue;
		CHECK(w.n > 0);
		kept += vals[i].value;
		if (each != NULL)
			each(&w, vals[i].callsite, arg);
	}
	stackwalk_clear(&w);
	selection_clear(&sel);
	return kept;
}

/* Unfiltered: the callsites are the path from the root to the leaf. */
static void
each_path(const struct stackwalk *w, int64_t leaf, void *arg)
{
	size_t i;

	(void)arg;
	CHECK(w->cs[w->n - 1] == leaf);
	CHECK(csindex_parent(ts.idx, w->cs[0]) == 0);
	for (i = 1; i < w->n; i++)
		CHECK(csindex_parent(ts.idx, w->cs[i]) == w->cs[i - 1]);
}

static void
test_flat_cum(void)
{
	const char *kv[] = { "scope", "cpu", NULL };
	struct selection sel;
	struct stackwalk w;
	struct error err = { 0 };
	int64_t *flat, *cum;
	size_t i, j;

	CHECK(walk_all(kv, GRAN_FUNCTION, each_path, NULL) == exp_cpu.total);
	flat = xcalloc(exp_cpu.nrows, sizeof *flat);
	cum = xcalloc(exp_cpu.nrows, sizeof *cum);
	testquery_sel(&sel, kv);
	stackwalk_init(&w, ts.idx, &sel, GRAN_FUNCTION);
	for (i = 0; i < nvals; i++) {
		CHECK(stackwalk_run(&w, vals[i].callsite, &err) == 1);
		for (j = 0; j < exp_cpu.nrows; j++) {
			if (strcmp(frame(&w, w.n - 1),
			    exp_cpu.rows[j].function) == 0)
				flat[j] += vals[i].value;
			if (on_stack(&w, exp_cpu.rows[j].function))
				cum[j] += vals[i].value;
		}
	}
	for (j = 0; j < exp_cpu.nrows; j++)
		if (flat[j] != exp_cpu.rows[j].flat ||
		    cum[j] != exp_cpu.rows[j].cum) {
			fprintf(stderr, "%s: walked flat %lld cum %lld, pprof "
			    "%lld %lld\n", exp_cpu.rows[j].function,
			    (long long)flat[j], (long long)cum[j],
			    (long long)exp_cpu.rows[j].flat,
			    (long long)exp_cpu.rows[j].cum);
			exit(1);
		}
	/* A callsite the index does not know. */
	CHECK(stackwalk_run(&w, INT64_C(1) << 40, &err) == -1);
	CHECK(err.kind == ERR_INTERNAL);
	stackwalk_clear(&w);
	selection_clear(&sel);
	free(flat);
	free(cum);
	printf("ok: %zu stacks walked root first; leaves and frames give "
	    "pprof's flat and cum of %zu functions\n", nvals, exp_cpu.nrows);
}

static void
each_no_runtime(const struct stackwalk *w, int64_t leaf, void *arg)
{
	size_t i;

	(void)leaf;
	for (i = 0; i < w->n; i++)
		CHECK(strncmp(frame(w, i), "runtime.", 8) != 0);
	(*(size_t *)arg)++;
}

static void
each_only_main(const struct stackwalk *w, int64_t leaf, void *arg)
{
	size_t i;

	(void)leaf;
	(void)arg;
	for (i = 0; i < w->n; i++)
		CHECK(strncmp(frame(w, i), "main.", 5) == 0);
}

static void
each_fib(const struct stackwalk *w, int64_t leaf, void *arg)
{
	(void)leaf;
	(void)arg;
	CHECK(on_stack(w, "main.fib"));
}

/* "function file:line", the function the callsite's at function
 * granularity. */
static void
each_lines(const struct stackwalk *w, int64_t leaf, void *arg)
{
	const char *f, *l;
	size_t i, n;

	(void)leaf;
	(void)arg;
	for (i = 0; i < w->n; i++) {
		f = csindex_name_str(ts.idx, csindex_name_at(ts.idx, w->cs[i],
		    GRAN_FUNCTION));
		l = frame(w, i);
		n = strlen(f);
		CHECK(strncmp(l, f, n) == 0 && l[n] == ' ');
		CHECK((l = strrchr(l + n, ':')) != NULL && l[1] >= '0' &&
		    l[1] <= '9');
	}
}

static void
test_filters(void)
{
	const char *focus[] = { "scope", "cpu", "focus", "^main\\.fib$",
	    NULL };
	const char *ignore[] = { "scope", "cpu", "ignore", "^main\\.fib$",
	    NULL };
	const char *hide[] = { "scope", "cpu", "hide", "^runtime\\.", NULL };
	const char *show[] = { "scope", "cpu", "show", "^main\\.", NULL };
	const char *all[] = { "scope", "cpu", NULL };
	const struct expected_row *fib;
	size_t walked = 0;

	CHECK((fib = testimport_expected_row(&exp_cpu, "main.fib")) != NULL);
	CHECK(walk_all(focus, GRAN_FUNCTION, each_fib, NULL) == fib->cum);
	CHECK(walk_all(ignore, GRAN_FUNCTION, NULL, NULL) ==
	    exp_cpu.total - fib->cum);
	/* hide removes frames; a stack of runtime frames only is dropped. */
	CHECK(walk_all(hide, GRAN_FUNCTION, each_no_runtime, &walked) <
	    exp_cpu.total);
	CHECK(walked > 0 && walked < nvals);
	CHECK(walk_all(show, GRAN_FUNCTION, each_only_main, NULL) > 0);
	CHECK(walk_all(all, GRAN_LINE, each_lines, NULL) == exp_cpu.total);
	printf("ok: focus, ignore, hide, show; line granularity\n");
}

/* Walks until one fails: how many passed, and its return. */
static size_t
walk_until_stopped(struct stackwalk *w, struct error *err, int *rc)
{
	size_t n;

	for (n = 0; n < 4 * CANCEL_POLL_EVERY; n++)
		if ((*rc = stackwalk_run(w, vals[n % nvals].callsite, err)) !=
		    1)
			break;
	return n;
}

static void
test_cancel(void)
{
	const char *kv[] = { "scope", "cpu", NULL };
	const char *kvm[] = { "scope", "cpu", "metric", "samples", NULL };
	struct store_cs_value *v = NULL;
	struct store_metric m;
	struct selection sel;
	struct stackwalk w;
	struct cancel c;
	struct error err = { 0 };
	int64_t np;
	size_t n, nv;
	int rc;

	testquery_sel(&sel, kv);
	stackwalk_init(&w, ts.idx, &sel, GRAN_FUNCTION);
	/* Not cancelled: every walk goes. */
	cancel_init(&c, mono_ns(), 3600, NULL);
	cancel_enter(&c);
	CHECK(walk_until_stopped(&w, &err, &rc) == 4 * CANCEL_POLL_EVERY);
	/* The client left: the walk stops at its next look. */
	atomic_store(&c.gone, 1);
	n = walk_until_stopped(&w, &err, &rc);
	CHECK(rc == -1 && n < CANCEL_POLL_EVERY && err.kind == ERR_INPUT);
	CHECK(cancel_fired(&c) == CANCEL_GONE);
	/* Past query-timeout: 504's error, naming it. */
	error_clear(&err);
	cancel_init(&c, mono_ns() - 2 * INT64_C(1000000000), 1, NULL);
	cancel_enter(&c);
	n = walk_until_stopped(&w, &err, &rc);
	CHECK(rc == -1 && n < CANCEL_POLL_EVERY && err.kind == ERR_DEADLINE);
	CHECK(error_http_status(&err) == 504);
	CHECK(strstr(err.msg, "query-timeout (1 s)") != NULL);
	stackwalk_clear(&w);
	selection_clear(&sel);

	/* The store's reads stop too (between SQLite's steps, which its
	 * progress handler watches): within CANCEL_POLL_EVERY rows, so
	 * within that many reads of this small profile.  Once the watch
	 * ends, a read runs whole again, in a read transaction of its own.
	 * The index is not held here: query_select takes it. */
	csindex_release(ts.idx);
	testquery_sel(&sel, kvm);
	cancel_enter(&c);
	store_watch_cancel(ts.rd, &c);
	for (n = 0; n <= CANCEL_POLL_EVERY; n++) {
		error_clear(&err);
		if (query_select(ts.rd, ts.idx, &sel, &m, &v, &nv, &np,
		    &err) == -1)
			break;
		store_metric_clear(&m);
		free(v);
	}
	CHECK(n <= CANCEL_POLL_EVERY && err.kind == ERR_DEADLINE);
	store_watch_cancel(ts.rd, NULL);
	cancel_leave();
	error_clear(&err);
	CHECK(query_select(ts.rd, ts.idx, &sel, &m, &v, &nv, &np, &err) == 0);
	CHECK(nv == nvals && np == 1);
	store_metric_clear(&m);
	free(v);
	selection_clear(&sel);
	CHECK(csindex_acquire(ts.idx, ts.rd, &err) == 0);
	printf("ok: a cancelled walk stops within %d stacks (client gone, "
	    "query-timeout), and so does the store's read\n",
	    CANCEL_POLL_EVERY);
}

int
main(void)
{
	const char *kv[] = { "scope", "cpu", "metric", "samples", NULL };
	struct selection sel;
	struct store_metric m;
	struct error err = { 0 };
	int64_t nprofiles;

	testimport_open(&ts);
	testimport_push(&ts, "cpu", "cpu.pprof");
	testimport_expected("cpu", "samples", &exp_cpu);
	testquery_sel(&sel, kv);
	CHECK(query_select(ts.rd, ts.idx, &sel, &m, &vals, &nvals, &nprofiles,
	    &err) == 0);
	CHECK(nvals > 0 && nprofiles == 1);
	selection_clear(&sel);
	store_metric_clear(&m);
	CHECK(csindex_acquire(ts.idx, ts.rd, &err) == 0);
	test_flat_cum();
	test_filters();
	test_cancel();
	csindex_release(ts.idx);
	free(vals);
	testimport_expected_clear(&exp_cpu);
	testimport_close(&ts);
	printf("test_stackwalk: %u checks passed\n", checks);
	return 0;
}
