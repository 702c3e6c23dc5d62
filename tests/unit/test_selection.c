/* test_selection.c: parsing the selection parameters: times at and past
 * the ends of int64 nanoseconds, scope names, and the frame filters
 * (kept as text on parse, compiled by selection_compile). */
#include <stdint.h>

#include "rx.h"
#include "selection.h"
#include "testlib.h"

static int64_t
t(const char *s)
{
	struct error err = { 0 };
	int64_t ns = 12345;

	if (selection_time(s, 0, &ns, &err) != 0)
		fprintf(stderr, "%s: %s\n", s, err.msg);
	CHECK(err.kind == ERR_NONE);
	return ns;
}

static void
test_times(void)
{
	struct error err = { 0 };
	int64_t ns;

	CHECK(t("2026-11-21T15:04:05Z") == INT64_C(1795273445000000000));
	CHECK(t("2026-11-21T16:04:05.5+01:00") ==
	    INT64_C(1795273445500000000));
	/* The last and first instants int64 ns hold, exactly. */
	CHECK(t("2262-04-11T23:47:16.854775807Z") == INT64_MAX);
	CHECK(t("1677-09-21T00:12:43.145224192Z") == INT64_MIN);
	CHECK(t("1677-09-21T00:12:44Z") == INT64_C(-9223372036000000000));
	/* Past them: clamped, an open end (was: wrapped, UBSan). */
	CHECK(t("2262-04-11T23:47:16.854775808Z") == INT64_MAX);
	CHECK(t("2262-04-11T23:47:17Z") == INT64_MAX);
	CHECK(t("9999-12-31T23:59:59Z") == INT64_MAX);
	CHECK(t("9999-12-31T23:59:59.999999999-23:59") == INT64_MAX);
	CHECK(t("1677-09-21T00:12:43.145224191Z") == INT64_MIN);
	CHECK(t("0000-01-01T00:00:00Z") == INT64_MIN);
	CHECK(t("0001-01-01T00:00:00+23:59") == INT64_MIN);
	/* Relative times cannot reach past either end. */
	CHECK(selection_time("-9223372036s", INT64_MAX, &ns, &err) == 0);
	CHECK(selection_time("-106751991167d", 0, &ns, &err) == -1);
	CHECK(err.kind == ERR_INPUT);
}

static void
test_scopes(void)
{
	static const char *const bad[] = { ".", "..", "", "a/b", "a b" };
	struct selection sel;
	struct error err;
	size_t i;

	for (i = 0; i < NITEMS(bad); i++) {
		memset(&sel, 0, sizeof sel);
		memset(&err, 0, sizeof err);
		CHECK(selection_param(&sel, "scope", bad[i], 0, &err) == -1);
		CHECK(err.kind == ERR_INPUT && HAS(err.msg, "scope"));
		CHECK(sel.nscopes == 0);
		selection_clear(&sel);
	}
	CHECK(!scope_name_valid("."));
	CHECK(!scope_name_valid(".."));
	CHECK(scope_name_valid("..."));
	CHECK(scope_name_valid(".a"));
	CHECK(scope_name_valid("a..b"));
}

static void
test_filters(void)
{
	static char big[RX_MAX_PATTERN + 2];
	struct selection sel;
	struct error err = { 0 };

	memset(&sel, 0, sizeof sel);
	/* A bad expression is accepted by parsing (cheap, on the loop)... */
	CHECK(selection_param(&sel, "focus", "main\\.", 0, &err) == 1);
	CHECK(selection_param(&sel, "hide",
	    "((a{1,100}){1,100}){1,20}", 0, &err) == 1);
	CHECK(sel.have_re[FF_FOCUS] && sel.re[FF_FOCUS] == NULL);
	CHECK(selection_frame_filters(&sel));
	/* ...and refused by compiling (on a worker), naming it. */
	CHECK(selection_compile(&sel, &err) == -1);
	CHECK(err.kind == ERR_INPUT);
	CHECK(HAS(err.msg, "hide: \"((a{1,100}){1,100}){1,20}\" is not a "
	    "regular expression (Go syntax"));
	CHECK(HAS(err.msg, "invalid repetition size"));
	CHECK(sel.re[FF_FOCUS] != NULL);
	CHECK(rx_match(sel.re[FF_FOCUS], "main.fib", 8));
	selection_clear(&sel);

	/* Empty: no filter, as pprof's -focus="" (not "match all"). */
	memset(&sel, 0, sizeof sel);
	CHECK(selection_param(&sel, "focus", "", 0, &err) == 1);
	CHECK(selection_param(&sel, "focus", "x", 0, &err) == 1);
	CHECK(selection_param(&sel, "hide", "", 0, &err) == 1);
	CHECK(!sel.have_re[FF_HIDE] && sel.have_re[FF_FOCUS]);
	selection_clear(&sel);

	/* Given twice. */
	memset(&sel, 0, sizeof sel);
	error_clear(&err);
	CHECK(selection_param(&sel, "show", "a", 0, &err) == 1);
	CHECK(selection_param(&sel, "show", "b", 0, &err) == -1);
	CHECK(HAS(err.msg, "show: given twice"));
	selection_clear(&sel);

	/* Too long: refused when parsed, saying the limit. */
	memset(&sel, 0, sizeof sel);
	error_clear(&err);
	memset(big, 'x', sizeof big - 1);
	CHECK(selection_param(&sel, "ignore", big, 0, &err) == -1);
	CHECK(HAS(err.msg, "ignore: a regular expression of 4097 bytes, "
	    "longer than the limit of 4096"));
	CHECK(!sel.have_re[FF_IGNORE]);
	error_clear(&err);
	CHECK(selection_param(&sel, "ignore", big + 1, 0, &err) == 1);
	CHECK(selection_compile(&sel, &err) == 0);
	/* Compiling again is a no-op. */
	CHECK(selection_compile(&sel, &err) == 0);
	selection_clear(&sel);
}

int
main(void)
{
	test_times();
	test_scopes();
	test_filters();
	printf("test_selection: %u checks passed\n", checks);
	return 0;
}
