/* test_top.c: top over the Go fixture profiles imported into a store is
 * what go tool pprof -top printed for them: every row's function, flat
 * and cum in pprof's order, the total, the (inline) and (partial-inline)
 * labels, the -cum order; and what a selection changes: a label filter
 * and its negation split the total, focus keeps the stacks through a
 * function (its cum), an unknown scope or metric is an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "csindex.h"
#include "testquery.h"
#include "top.h"

static struct testimport ts;

static int
top(const char *const *kv, int sort_cum, int gran, struct top_result *r,
    struct error *err)
{
	struct selection sel;
	struct top_params p = { &sel, sort_cum, gran };
	int rc;

	testquery_sel(&sel, kv);
	rc = top_query(testquery_src(ts.rd, ts.idx), &p, r, err);
	selection_clear(&sel);
	return rc;
}

static int64_t
top_total(const char *const *kv)
{
	struct top_result r;
	struct error err = { 0 };
	int64_t total;

	CHECK(top(kv, 0, GRAN_FUNCTION, &r, &err) == 0);
	total = r.total;
	top_result_clear(&r);
	return total;
}

/* The values of the stacks a selection keeps: the sum of flat. */
static int64_t
top_kept(const char *const *kv, size_t *nrows)
{
	struct top_result r;
	struct error err = { 0 };
	int64_t sum = 0;
	size_t i;

	CHECK(top(kv, 0, GRAN_FUNCTION, &r, &err) == 0);
	for (i = 0; i < r.nrows; i++)
		sum += r.rows[i].flat;
	*nrows = r.nrows;
	top_result_clear(&r);
	return sum;
}

/* The function names of pprof's text table, in its order, with the
 * inline label each has ("" for none). */
static size_t
table(const char *file, char ***names, char ***labels)
{
	char *text, *line, *next, *p;
	size_t len, n = 0;
	int in_table = 0, field;

	text = (char *)testimport_fixture(file, &len);
	*names = *labels = NULL;
	for (line = text; *line != '\0'; line = next) {
		next = line + strcspn(line, "\n");
		if (*next == '\n')
			*next++ = '\0';
		if (!in_table) {
			in_table = strncmp(line, "      flat  flat%", 17) == 0;
			continue;
		}
		/* flat flat% sum% cum cum% name [(inline)] */
		for (p = line, field = 0; field < 5; field++) {
			p += strspn(p, " ");
			p += strcspn(p, " ");
		}
		p += strspn(p, " ");
		*names = xreallocarray(*names, n + 1, sizeof **names);
		*labels = xreallocarray(*labels, n + 1, sizeof **labels);
		(*labels)[n] = xstrdup("");
		if (strlen(p) > 0 && p[strlen(p) - 1] == ')' &&
		    strstr(p, " (") != NULL) {
			char *lab = strrchr(p, '(');

			free((*labels)[n]);
			(*labels)[n] = xstrdup(lab);
			lab[-1] = '\0';
		}
		(*names)[n++] = xstrdup(p);
	}
	free(text);
	return n;
}

static void
strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static const char *
inline_label(enum top_inline inl)
{
	return inl == TOP_INLINED ? "(inline)" :
	    inl == TOP_PARTIAL_INLINE ? "(partial-inline)" : "";
}

/* Every row of top, flat and cum, against pprof. */
static void
test_fixture(const char *profile, const char *metric)
{
	const char *kv[] = { "scope", profile, "metric", metric, NULL };
	struct expected e;
	struct top_result r;
	struct error err = { 0 };
	char file[128], **names, **labels;
	size_t i, n;

	testimport_expected(profile, metric, &e);
	CHECK(top(kv, 0, GRAN_FUNCTION, &r, &err) == 0);
	CHECK(r.total == e.total);
	CHECK(r.nprofiles == 1);
	CHECK(strcmp(r.metric.type, metric) == 0);
	CHECK(r.nrows == e.nrows);
	snprintf(file, sizeof file, "expected/%s.%s.top", profile, metric);
	n = table(file, &names, &labels);
	CHECK(n == r.nrows);
	for (i = 0; i < r.nrows; i++) {
		if (strcmp(r.rows[i].function, e.rows[i].function) != 0 ||
		    r.rows[i].flat != e.rows[i].flat ||
		    r.rows[i].cum != e.rows[i].cum) {
			fprintf(stderr, "%s.%s row %zu: %s %lld %lld, pprof: "
			    "%s %lld %lld\n", profile, metric, i,
			    r.rows[i].function, (long long)r.rows[i].flat,
			    (long long)r.rows[i].cum, e.rows[i].function,
			    (long long)e.rows[i].flat,
			    (long long)e.rows[i].cum);
			exit(1);
		}
		CHECK(strcmp(names[i], r.rows[i].function) == 0);
		CHECK(strcmp(labels[i], inline_label(r.rows[i].inl)) == 0);
	}
	top_result_clear(&r);
	strings_free(names, n);
	strings_free(labels, n);

	/* -cum: pprof's order by cum. */
	CHECK(top(kv, 1, GRAN_FUNCTION, &r, &err) == 0);
	snprintf(file, sizeof file, "expected/%s.%s.cum.top", profile, metric);
	n = table(file, &names, &labels);
	CHECK(n == r.nrows);
	for (i = 0; i < r.nrows; i++)
		CHECK(strcmp(names[i], r.rows[i].function) == 0);
	top_result_clear(&r);
	strings_free(names, n);
	strings_free(labels, n);

	/* Per file: the same total over fewer rows. */
	CHECK(top(kv, 0, GRAN_FILE, &r, &err) == 0);
	CHECK(r.total == e.total && r.nrows < e.nrows);
	top_result_clear(&r);
	testimport_expected_clear(&e);
	printf("ok: top of %s %s is pprof's (%zu rows)\n", profile, metric, n);
}

static void
test_selections(void)
{
	const char *all[] = { "scope", "cpu", "metric", "samples", NULL };
	const char *w0[] = { "scope", "cpu", "metric", "samples",
	    "label", "worker=0", NULL };
	const char *not0[] = { "scope", "cpu", "metric", "samples",
	    "label", "worker!=0", NULL };
	const char *w1[] = { "scope", "cpu", "metric", "samples",
	    "label", "worker=1", NULL };
	const char *fib[] = { "scope", "cpu", "metric", "samples",
	    "focus", "^main\\.fib$", NULL };
	const char *none[] = { "scope", "cpu", "metric", "samples",
	    "focus", "^no such function$", NULL };
	const char *scope[] = { "scope", "nosuch", NULL };
	const char *metric[] = { "scope", "cpu", "metric", "nosuch", NULL };
	const struct expected_row *row;
	struct expected e;
	struct top_result r;
	struct error err = { 0 };
	int64_t t0, t1, tn;
	size_t n;

	testimport_expected("cpu", "samples", &e);
	CHECK(top_total(all) == e.total);
	/* A label and its negation split the samples between them. */
	t0 = top_total(w0);
	t1 = top_total(w1);
	tn = top_total(not0);
	CHECK(t0 > 0 && t1 > 0 && t0 + t1 < e.total);
	CHECK(t0 + tn == e.total);
	printf("ok: worker=0 %lld + worker!=0 %lld = %lld\n", (long long)t0,
	    (long long)tn, (long long)e.total);
	/* Focus on a function keeps the stacks through it: their values are
	 * its cum; the total stays the selection's, as pprof's. */
	CHECK((row = testimport_expected_row(&e, "main.fib")) != NULL);
	CHECK(top_kept(fib, &n) == row->cum && n > 1);
	CHECK(top_total(fib) == e.total);
	CHECK(top_kept(none, &n) == 0 && n == 0);
	testimport_expected_clear(&e);

	CHECK(top(scope, 0, GRAN_FUNCTION, &r, &err) == -1);
	CHECK(err.kind == ERR_NOT_FOUND && HAS(err.msg, "nosuch"));
	error_clear(&err);
	CHECK(top(metric, 0, GRAN_FUNCTION, &r, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "nosuch"));
	printf("ok: label filters, focus, unknown scope and metric\n");
}

int
main(void)
{
	testimport_open(&ts);
	testimport_push(&ts, "cpu", "cpu.pprof");
	testimport_push(&ts, "heap", "heap.pprof");
	test_fixture("cpu", "samples");
	test_fixture("cpu", "cpu");
	test_fixture("heap", "alloc_objects");
	test_fixture("heap", "alloc_space");
	test_fixture("heap", "inuse_objects");
	test_fixture("heap", "inuse_space");
	test_selections();
	testimport_close(&ts);
	printf("test_top: %u checks passed\n", checks);
	return 0;
}
