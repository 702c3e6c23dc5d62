/* test_pyroquery.c: the parameters of /pyroscope/render as Pyroscope
 * reads them: both query forms (PROFILE_TYPE_ID{selector}, the old
 * APP.SUFFIX{selector}, and {__name__="ID"}), attime's times (now and
 * offsets, Unix times by their digits, YYYYMMDD), maxNodes and the
 * timeline's step by Pyroscope's rounding; and the inputs the fuzzer
 * found (tests/fuzz/crashes/pyroquery): an empty backquoted value, a date
 * and an offset past what int64 nanoseconds hold. */
#include <stdio.h>
#include <string.h>

#include "pyroquery.h"
#include "testlib.h"

#define NOW	1795273445000000000ll	/* 2026-11-21T15:04:05Z */

static void
query_ok(const char *q, const char *type, const char *unit,
    const char *scope, size_t nmatchers)
{
	struct pyroquery rq;
	struct error err = { 0 };

	if (pyroquery_parse("query", q, &rq, &err) == -1)
		fprintf(stderr, "%s: %s\n", q, err.msg);
	CHECK(err.kind == ERR_NONE);
	CHECK(STREQ(rq.type.type, type) && STREQ(rq.type.unit, unit));
	CHECK(scope == NULL ? rq.scope == NULL : STREQ(rq.scope, scope));
	CHECK(rq.ls.n == nmatchers);
	pyroquery_clear(&rq);
}

static void
query_bad(const char *q, const char *want)
{
	struct pyroquery rq;
	struct error err = { 0 };

	CHECK(pyroquery_parse("query", q, &rq, &err) == -1);
	if (strstr(err.msg, want) == NULL)
		fprintf(stderr, "%s: \"%s\" says nothing of %s\n", q, err.msg,
		    want);
	CHECK(err.kind == ERR_INPUT && strstr(err.msg, want) != NULL);
}

static void
time_is(const char *s, int64_t want)
{
	struct error err = { 0 };
	int64_t ns;

	CHECK(pyroquery_time("from", s, NOW, &ns, &err) == 0);
	if (ns != want)
		fprintf(stderr, "%s: %lld, want %lld\n", s, (long long)ns,
		    (long long)want);
	CHECK(ns == want);
}

static void
time_bad(const char *s)
{
	struct error err = { 0 };
	int64_t ns;

	CHECK(pyroquery_time("from", s, NOW, &ns, &err) == -1);
	CHECK(err.kind == ERR_INPUT && strstr(err.msg, "from:") != NULL);
}

int
main(void)
{
	struct error err = { 0 };
	int64_t v;

	query_ok("process_cpu:cpu:nanoseconds:cpu:nanoseconds"
	    "{service_name=\"svc-a\", env=~\"prod|stg\"}", "cpu",
	    "nanoseconds", NULL, 2);
	query_ok(" memory:inuse_space:bytes:space:bytes ", "inuse_space",
	    "bytes", NULL, 0);
	query_ok("myapp.cpu{env=\"prod\"}", "cpu", "nanoseconds", "myapp", 1);
	query_ok("my.app.alloc_objects", "alloc_objects", "count", "my.app",
	    0);
	query_ok("svc.goroutines{}", "goroutine", "count", "svc", 0);
	query_ok("{__name__=\"memory:alloc_space:bytes:space:bytes\", "
	    "k!~`a.*`}", "alloc_space", "bytes", NULL, 2);
	/* The fuzzer's: an empty backquoted value. */
	query_ok("a:b:c:d:e{k=``}", "b", "c", NULL, 1);
	query_bad("", "query is required");
	query_bad("svc", "names no profile type");
	query_bad("svc.nosuch{}", "names no profile type");
	query_bad("{env=\"prod\"}", "names no profile type");
	query_bad("a:b:c", "query:");
	query_bad("bad/name.cpu", "not a valid scope name");
	query_bad("svc.cpu{env=\"prod\"", "(the selector begins at offset 7)");
	query_bad("svc.cpu{env=~\"(\"}", "offset");
	printf("ok: queries of both forms, and their errors\n");

	time_is("", NOW);
	time_is("now", NOW);
	time_is("now-1h", NOW - 3600 * 1000000000ll);
	time_is("now-1h30m", NOW - 5400 * 1000000000ll);
	time_is("now-2min", NOW - 120 * 1000000000ll);
	time_is("now+1d", NOW + 86400 * 1000000000ll);
	time_is("now-1M", NOW - 30 * 86400 * 1000000000ll);
	time_is("-7d", NOW - 7 * 86400 * 1000000000ll);
	time_is("1700000000", 1700000000 * 1000000000ll);
	time_is("1700000000123", 1700000000123 * 1000000ll);
	time_is("1700000000123456", 1700000000123456 * 1000ll);
	time_is("1700000000123456789", 1700000000123456789ll);
	time_is("1_700_000_000", 1700000000 * 1000000000ll);
	time_is("20261121", 1795219200 * 1000000000ll);
	time_bad("yesterday");
	time_is("now-", NOW);		/* attime: no offset */
	time_bad("now-1x");
	time_bad("now-h");
	time_bad("12345678901234567890");
	/* The fuzzer's: a date past 2262, an offset of 300 centuries. */
	time_bad("70261122");
	time_bad("now-1h301048576m");
	time_is("now-200y", NOW - 200LL * 365 * 86400 * 1000000000);
	printf("ok: times as attime reads them\n");

	CHECK(pyroquery_max_nodes("maxNodes", NULL, &v, &err) == 0 &&
	    v == PYROQUERY_MAX_NODES_DEFAULT);
	CHECK(pyroquery_max_nodes("maxNodes", "0", &v, &err) == 0 &&
	    v == PYROQUERY_MAX_NODES_DEFAULT);
	CHECK(pyroquery_max_nodes("maxNodes", "16", &v, &err) == 0 && v == 16);
	CHECK(pyroquery_max_nodes("maxNodes", "-1", &v, &err) == -1);
	error_clear(&err);
	CHECK(pyroquery_max_nodes("maxNodes", "1048577", &v, &err) == -1 &&
	    strstr(err.msg, "limit") != NULL);
	error_clear(&err);

	/* Pyroscope's steps: 15 s at least, then round intervals. */
	CHECK(pyroquery_step(0, 3600 * 1000) == 15);
	CHECK(pyroquery_step(0, 24 * 3600 * 1000) == 60);
	CHECK(pyroquery_step(0, 7 * 86400 * 1000LL) == 300);
	CHECK(pyroquery_step(0, 30 * 86400 * 1000LL) == 1800);
	CHECK(pyroquery_step(0, 60 * 86400 * 1000LL) == 3600);
	CHECK(pyroquery_step(0, 2000 * 86400 * 1000LL) == 86400);
	CHECK(pyroquery_step(1000, 0) == 15);
	printf("ok: maxNodes, the timeline's steps\n");
	printf("test_pyroquery: %u checks passed\n", checks);
	return 0;
}
