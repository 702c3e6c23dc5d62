/* testquery.h: what the query tests add to testimport.h: selections made
 * from NULL-ended lists of "key", "value" pairs.  For tests that link the
 * intake and query layers. */
#ifndef PROFD_TESTQUERY_H
#define PROFD_TESTQUERY_H

#include "selection.h"
#include "source.h"
#include "testimport.h"
#include "top.h"

/* The store's stack source over (store, index), as a query thread makes
 * it: one kept per pair, freed at exit. */
static struct stack_source *testquery_srcs[8];
static struct store *testquery_stores[8];
static struct csindex *testquery_idxs[8];

static inline void
testquery_free_srcs(void)
{
	size_t i;

	for (i = 0; i < 8; i++)
		stack_source_free(testquery_srcs[i]);
}

static inline struct stack_source *
testquery_src(struct store *s, struct csindex *idx)
{
	size_t i;

	for (i = 0; i < 8 && testquery_srcs[i] != NULL; i++)
		if (testquery_stores[i] == s && testquery_idxs[i] == idx)
			return testquery_srcs[i];
	CHECK(i < 8);
	if (i == 0)
		atexit(testquery_free_srcs);
	testquery_stores[i] = s;
	testquery_idxs[i] = idx;
	return testquery_srcs[i] = source_store_new(s, idx);
}

/* A checked and compiled selection of NULL-ended "key", "value" pairs. */
static inline void
testquery_sel(struct selection *sel, const char *const *kv)
{
	struct error err = { 0 };

	memset(sel, 0, sizeof *sel);
	for (; kv[0] != NULL; kv += 2)
		if (selection_param(sel, kv[0], kv[1], 0, &err) != 1) {
			fprintf(stderr, "%s=%s: %s\n", kv[0], kv[1], err.msg);
			exit(1);
		}
	CHECK(selection_check(sel, &err) == 0);
	CHECK(selection_compile(sel, &err) == 0);
}

/* "function flat cum\n" for every row of top over a scope, read through
 * (store, index): stores compared by their answers. */
static inline char *
testquery_top_text(struct store *s, struct csindex *idx, const char *scope)
{
	struct selection sel;
	struct top_params tp = { &sel, 0, GRAN_FUNCTION };
	struct top_result r;
	struct error err = { 0 };
	char *out = xstrdup(""), *next;
	size_t i;

	memset(&sel, 0, sizeof sel);
	CHECK(selection_param(&sel, "scope", scope, 0, &err) == 1);
	CHECK(selection_check(&sel, &err) == 0);
	if (top_query(testquery_src(s, idx), &tp, &r, &err) == -1) {
		fprintf(stderr, "top %s: %s\n", scope, err.msg);
		exit(1);
	}
	for (i = 0; i < r.nrows; i++) {
		xasprintf(&next, "%s%s %lld %lld\n", out, r.rows[i].function,
		    (long long)r.rows[i].flat, (long long)r.rows[i].cum);
		free(out);
		out = next;
	}
	top_result_clear(&r);
	selection_clear(&sel);
	return out;
}

#endif
