/* test_labelsel.c: Prometheus label selectors (query/labelsel.c) as
 * Grafana writes them, into a selection; and Pyroscope's profile type IDs
 * (query/pyrotype.c) of profd's metrics. */
#include <string.h>

#include "labelsel.h"
#include "nitems.h"
#include "pyrotype.h"
#include "selection.h"
#include "testlib.h"

static void
test_parse(void)
{
	struct labelsel ls;
	struct error err = { 0 };

	CHECK(labelsel_parse("", 0, &ls, &err) == 0 && ls.n == 0);
	CHECK(labelsel_parse(" {} ", 4, &ls, &err) == 0 && ls.n == 0);
	static const char s[] = "{service_name=\"svc-a\", env=~\"prod|stg\","
	    " pod != 'p\\x41\\u00e9', k!~`a\\d+`,}";
	CHECK(labelsel_parse(s, strlen(s), &ls, &err) == 0);
	CHECK(ls.n == 4);
	CHECK(STREQ(ls.v[0].name, "service_name") && ls.v[0].op == LS_EQ &&
	    STREQ(ls.v[0].value, "svc-a"));
	CHECK(STREQ(ls.v[1].name, "env") && ls.v[1].op == LS_RE);
	CHECK(ls.v[2].op == LS_NE && STREQ(ls.v[2].value, "pA\xc3\xa9"));
	CHECK(ls.v[3].op == LS_NRE && STREQ(ls.v[3].value, "a\\d+"));
	/* Anchored as Prometheus anchors: prod matches, production not. */
	CHECK(labelsel_match(&ls.v[1], "prod"));
	CHECK(!labelsel_match(&ls.v[1], "production"));
	CHECK(!labelsel_match(&ls.v[1], NULL));
	CHECK(labelsel_match(&ls.v[3], NULL));
	CHECK(!labelsel_match(&ls.v[3], "a12"));
	CHECK(labelsel_scope(&ls, "svc-a") && !labelsel_scope(&ls, "svc-b"));
	CHECK(STREQ(labelsel_get(&ls, "service_name"), "svc-a"));
	CHECK(labelsel_get(&ls, "env") == NULL);
	labelsel_clear(&ls);
}

/* Empty values in each quoting: an empty value has no buffer (the
 * fuzzers' find: memchr of NULL, crashes/labelsel and crashes/querier). */
static void
test_empty(void)
{
	static const char s[] = "{a=``, b=\"\", c=''}";
	struct labelsel ls;
	struct error err = { 0 };

	CHECK(labelsel_parse(s, strlen(s), &ls, &err) == 0 && ls.n == 3);
	CHECK(STREQ(ls.v[0].value, "") && STREQ(ls.v[1].value, "") &&
	    STREQ(ls.v[2].value, ""));
	CHECK(labelsel_match(&ls.v[0], NULL) && !labelsel_match(&ls.v[0], "x"));
	labelsel_clear(&ls);
}

static void
test_errors(void)
{
	static const struct {
		const char *s, *want;
	} c[] = {
		{ "service_name=\"a\"", "expected { at offset 0" },
		{ "{a=\"b\"", "expected } at offset 6" },
		{ "{a=b}", "expected a quoted value at offset 3" },
		{ "{a==\"b\"}", "expected a quoted value at offset 3" },
		{ "{=\"b\"}", "expected a label name at offset 1" },
		{ "{1a=\"b\"}", "expected a label name at offset 1" },
		{ "{a:\"b\"}", "expected =, !=, =~ or !~ at offset 2" },
		{ "{a=\"b}", "not closed" },
		{ "{a=\"b\" c=\"d\"}", "expected , or } at offset 7" },
		{ "{a=\"b\"} x", "text after } at offset 8" },
		{ "{a=~\"(\"}", "the pattern of a:" },
		{ "{a=\"\\q\"}", "an unknown escape" },
		{ "{a=\"\\x4\"}", "too short" },
		{ "{a=\"\\x00\"}", "NUL" },
		{ "{a=\"\\ud800\"}", "no Unicode code point" },
		{ "{a='\\\"'}", "the other kind" },
	};
	struct labelsel ls;
	struct error err;
	size_t i;

	for (i = 0; i < NITEMS(c); i++) {
		memset(&err, 0, sizeof err);
		CHECK(labelsel_parse(c[i].s, strlen(c[i].s), &ls, &err) == -1);
		if (!HAS(err.msg, c[i].want))
			fprintf(stderr, "%s: %s\n", c[i].s, err.msg);
		CHECK(err.kind == ERR_INPUT && HAS(err.msg, c[i].want));
		CHECK(ls.n == 0 && ls.v == NULL);
	}
}

static void
test_select(void)
{
	static const char *const scopes[] = { "svc-a", "svc-b", "web" };
	static const char s[] = "{service_name=~\"svc-.*\", env=\"prod\","
	    " zone=\"\", pod!~\"x.*\", __profile_type__=\"p:a:b:c:d\"}";
	struct labelsel ls;
	struct selection sel;
	struct error err = { 0 };

	memset(&sel, 0, sizeof sel);
	CHECK(labelsel_parse(s, strlen(s), &ls, &err) == 0);
	labelsel_select(&ls, scopes, NITEMS(scopes), &sel);
	CHECK(sel.nscopes == 2 && STREQ(sel.scopes[0], "svc-a") &&
	    STREQ(sel.scopes[1], "svc-b"));
	CHECK(sel.nlabels == 3);
	CHECK(STREQ(sel.labels[0].key, "env") && !sel.labels[0].regex &&
	    !sel.labels[0].negate && STREQ(sel.labels[0].value, "prod"));
	/* zone="": only where zone is absent (or empty). */
	CHECK(STREQ(sel.labels[1].key, "zone") && sel.labels[1].regex &&
	    sel.labels[1].negate && STREQ(sel.labels[1].value, ".+"));
	CHECK(sel.labels[2].regex && sel.labels[2].negate);
	CHECK(STREQ(labelsel_get(&ls, "__profile_type__"), "p:a:b:c:d"));
	selection_clear(&sel);
	labelsel_clear(&ls);
}

static void
test_types(void)
{
	struct pyrotype t, want;
	struct error err = { 0 };
	char id[5 * PYROTYPE_PART];

	CHECK(pyrotype_of("cpu", "nanoseconds", &t) == 0);
	pyrotype_id(&t, id, sizeof id);
	CHECK(STREQ(id, "process_cpu:cpu:nanoseconds:cpu:nanoseconds"));
	CHECK(pyrotype_of("inuse_space", "bytes", &t) == 0);
	pyrotype_id(&t, id, sizeof id);
	CHECK(STREQ(id, "memory:inuse_space:bytes:space:bytes"));
	CHECK(pyrotype_of("delay", "nanoseconds", &t) == 0);
	pyrotype_id(&t, id, sizeof id);
	CHECK(STREQ(id, "mutex:delay:nanoseconds:contentions:count"));
	/* A type Pyroscope's SDKs do not write: its own name and period. */
	CHECK(pyrotype_of("gc_pause", "nanoseconds", &t) == 0);
	pyrotype_id(&t, id, sizeof id);
	CHECK(STREQ(id, "gc_pause:gc_pause:nanoseconds:gc_pause:nanoseconds"));
	CHECK(pyrotype_of("a:b", "count", &t) == -1);

	CHECK(pyrotype_parse("process_cpu:cpu:nanoseconds:cpu:nanoseconds",
	    &want, &err) == 0);
	CHECK(pyrotype_selects(&want, "cpu", "nanoseconds"));
	CHECK(!pyrotype_selects(&want, "samples", "count"));
	CHECK(pyrotype_parse("block:delay:nanoseconds:contentions:count",
	    &want, &err) == 0);
	CHECK(pyrotype_selects(&want, "delay", "nanoseconds"));
	CHECK(pyrotype_parse("memory:delay:nanoseconds:contentions:count",
	    &want, &err) == 0);
	CHECK(!pyrotype_selects(&want, "delay", "nanoseconds"));
	/* Pyroscope's IDs may leave the period out: "goroutine:goroutine:
	 * count::". */
	CHECK(pyrotype_parse("goroutine:goroutine:count::", &want, &err) == 0);
	CHECK(pyrotype_selects(&want, "goroutine", "count"));
	CHECK(pyrotype_parse("process_cpu:cpu:nanoseconds", &want, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "NAME:SAMPLE_TYPE"));
	CHECK(pyrotype_parse("a:b:c:d:e:f", &want, &err) == -1);
	CHECK(pyrotype_parse(":b:c:d:e", &want, &err) == -1);
}

int
main(void)
{
	test_parse();
	test_empty();
	test_errors();
	test_select();
	test_types();
	printf("test_labelsel: %u checks passed\n", checks);
	return 0;
}
