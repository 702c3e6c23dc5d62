/* test_selection.c: parsing the selection parameters: times at and past
 * the ends of int64 nanoseconds, relative times and windows, scope names,
 * profile ids, label filters (KEY=VALUE, KEY!=VALUE, =~, !~), parameters that
 * are not the selection's, the checks after parsing, and the frame
 * filters (kept as text on parse, compiled by selection_compile, their
 * compile errors naming the parameter). */
#include <stdint.h>

#include "nitems.h"
#include "rx.h"
#include "scopename.h"
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
test_window(void)
{
	const int64_t now = INT64_C(1795273445000000000);
	struct selection sel;
	struct error err = { 0 };

	memset(&sel, 0, sizeof sel);
	CHECK(selection_param(&sel, "since", "-1h", now, &err) == 1);
	CHECK(sel.since_ns == now - INT64_C(3600000000000));
	CHECK(selection_param(&sel, "until", "-30m", now, &err) == 1);
	CHECK(sel.until_ns == now - INT64_C(1800000000000));
	CHECK(selection_param(&sel, "since", "-2d", now, &err) == 1);
	CHECK(sel.since_ns == now - INT64_C(172800000000000));
	CHECK(selection_param(&sel, "until", "-10s", now, &err) == 1);
	CHECK(sel.until_ns == now - INT64_C(10000000000));
	CHECK(selection_param(&sel, "since", "yesterday", now, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "since: \"yesterday\" "
	    "is neither an RFC 3339 time"));
	error_clear(&err);
	/* No scope; then since not before until. */
	CHECK(selection_check(&sel, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "scope: missing"));
	error_clear(&err);
	CHECK(selection_param(&sel, "scope", "a", now, &err) == 1);
	CHECK(selection_check(&sel, &err) == 0);
	CHECK(selection_param(&sel, "since", "-10s", now, &err) == 1);
	CHECK(selection_check(&sel, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "since: not before "
	    "until"));
	error_clear(&err);
	/* Not a selection parameter: left to the caller. */
	CHECK(selection_param(&sel, "granularity", "lines", now, &err) == 0);
	CHECK(err.kind == ERR_NONE);
	selection_clear(&sel);
}

/* The window in the store's seconds: an end past the range of int64 ns
 * keeps its side (issue 24: a since in 2300 selected everything), the
 * epoch itself is a bound like any other (it was "open"), and seconds
 * are floored. */
static void
test_far_bounds(void)
{
	static const struct {
		const char *key, *value;
		int64_t since_s, until_s;
	} c[] = {
		{ "since", "2300-01-01T00:00:00Z", INT64_C(9223372036),
		    INT64_MAX },
		{ "until", "2300-01-01T00:00:00Z", INT64_MIN,
		    INT64_C(9223372036) },
		{ "since", "1600-01-01T00:00:00Z", INT64_C(-9223372037),
		    INT64_MAX },
		{ "until", "1600-01-01T00:00:00Z", INT64_MIN,
		    INT64_C(-9223372037) },
		{ "until", "1970-01-01T00:00:00Z", INT64_MIN, 0 },
		{ "since", "1970-01-01T00:00:00Z", 0, INT64_MAX },
		{ "until", "1969-12-31T23:59:59.5Z", INT64_MIN, -1 },
		{ "since", "2026-11-21T15:04:05.9Z", INT64_C(1795273445),
		    INT64_MAX },
	};
	struct selection sel;
	struct error err = { 0 };
	int64_t lo, hi;
	size_t i;

	memset(&sel, 0, sizeof sel);
	selection_window(&sel, &lo, &hi);
	CHECK(lo == INT64_MIN && hi == INT64_MAX);
	for (i = 0; i < NITEMS(c); i++) {
		memset(&sel, 0, sizeof sel);
		CHECK(selection_param(&sel, c[i].key, c[i].value, 0,
		    &err) == 1);
		selection_window(&sel, &lo, &hi);
		if (lo != c[i].since_s || hi != c[i].until_s)
			fprintf(stderr, "%s=%s: [%lld, %lld]\n", c[i].key,
			    c[i].value, (long long)lo, (long long)hi);
		CHECK(lo == c[i].since_s && hi == c[i].until_s);
		selection_clear(&sel);
	}
	/* Both past the same end: nothing selected, no error; past
	 * opposite ends, or since after until: the usual 400. */
	memset(&sel, 0, sizeof sel);
	CHECK(selection_param(&sel, "scope", "a", 0, &err) == 1);
	CHECK(selection_param(&sel, "since", "2300-01-01T00:00:00Z", 0,
	    &err) == 1);
	CHECK(selection_param(&sel, "until", "2400-01-01T00:00:00Z", 0,
	    &err) == 1);
	CHECK(selection_check(&sel, &err) == 0);
	CHECK(selection_param(&sel, "until", "1600-01-01T00:00:00Z", 0,
	    &err) == 1);
	CHECK(selection_check(&sel, &err) == -1);
	CHECK(HAS(err.msg, "since: not before until"));
	selection_clear(&sel);
}

static void
test_profiles_labels(void)
{
	static const char *const bad_ids[] = { "", "0", "-1", "12x", "1.5",
	    "99999999999999999999" };
	static const char *const bad_labels[] = { "env", "=prod", "!=prod",
	    "", "!~prod", "=~prod", "env!" };
	struct selection sel;
	struct error err = { 0 };
	size_t i;

	memset(&sel, 0, sizeof sel);
	CHECK(selection_param(&sel, "profile", "42", 0, &err) == 1);
	CHECK(selection_param(&sel, "profile", "7", 0, &err) == 1);
	CHECK(sel.nprofiles == 2 && sel.profiles[0] == 42 &&
	    sel.profiles[1] == 7);
	for (i = 0; i < NITEMS(bad_ids); i++) {
		CHECK(selection_param(&sel, "profile", bad_ids[i], 0,
		    &err) == -1);
		CHECK(err.kind == ERR_INPUT && HAS(err.msg, "is not a "
		    "profile id"));
		error_clear(&err);
	}
	CHECK(sel.nprofiles == 2);

	CHECK(selection_param(&sel, "label", "env=prod", 0, &err) == 1);
	CHECK(selection_param(&sel, "label", "zone!=eu=1", 0, &err) == 1);
	CHECK(selection_param(&sel, "label", "x=", 0, &err) == 1);
	CHECK(sel.nlabels == 3);
	CHECK(STREQ(sel.labels[0].key, "env") &&
	    STREQ(sel.labels[0].value, "prod") && !sel.labels[0].negate);
	CHECK(STREQ(sel.labels[1].key, "zone") &&
	    STREQ(sel.labels[1].value, "eu=1") && sel.labels[1].negate);
	CHECK(STREQ(sel.labels[2].key, "x") &&
	    STREQ(sel.labels[2].value, "") && !sel.labels[2].negate);
	for (i = 0; i < NITEMS(bad_labels); i++) {
		CHECK(selection_param(&sel, "label", bad_labels[i], 0,
		    &err) == -1);
		CHECK(err.kind == ERR_INPUT && HAS(err.msg, "is neither "
		    "KEY=VALUE, KEY!=VALUE, KEY=~REGEX nor KEY!~REGEX"));
		error_clear(&err);
	}
	CHECK(sel.nlabels == 3);
	/* Patterns: =~ and !~, checked when compiled. */
	CHECK(selection_param(&sel, "label", "env=~prod|stg", 0, &err) == 1);
	CHECK(selection_param(&sel, "label", "env!~a=b", 0, &err) == 1);
	CHECK(STREQ(sel.labels[3].key, "env") &&
	    STREQ(sel.labels[3].value, "prod|stg") && sel.labels[3].regex &&
	    !sel.labels[3].negate);
	CHECK(STREQ(sel.labels[4].key, "env") &&
	    STREQ(sel.labels[4].value, "a=b") && sel.labels[4].regex &&
	    sel.labels[4].negate);
	CHECK(!sel.labels[0].regex && !sel.labels[1].regex);
	CHECK(selection_compile(&sel, &err) == 0);
	CHECK(selection_param(&sel, "label", "zone=~eu(", 0, &err) == 1);
	CHECK(selection_compile(&sel, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "label zone") &&
	    HAS(err.msg, "not a regular expression"));
	error_clear(&err);
	selection_clear(&sel);
	CHECK(sel.nlabels == 0 && sel.labels == NULL && sel.profiles == NULL);
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
	test_window();
	test_far_bounds();
	test_scopes();
	test_profiles_labels();
	test_filters();
	printf("test_selection: %u checks passed\n", checks);
	return 0;
}
