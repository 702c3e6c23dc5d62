/* test_labelsel.c: Prometheus' label selectors (query/labelsel.c) as
 * Grafana writes them: quoting (double, single, backquoted; empty
 * values, the fuzzer's find), operators, Prometheus' rule for an absent
 * label, the selection made of one; bad selectors refused saying where. */
#include <stdio.h>
#include <string.h>

#include "labelsel.h"
#include "selection.h"
#include "testlib.h"

static void
parse_ok(const char *s, struct labelsel *ls)
{
	struct error err = { 0 };

	if (labelsel_parse(s, strlen(s), ls, &err) == -1) {
		fprintf(stderr, "%s: %s\n", s, err.msg);
		CHECK(0);
	}
}

static void
test_quotes(void)
{
	struct labelsel ls;

	/* Empty values in each quoting: a backquoted "" once passed NULL
	 * to memchr (fuzz_querier, crashes/querier). */
	parse_ok("{a=``, b=\"\", c=''}", &ls);
	CHECK(ls.n == 3);
	CHECK(STREQ(ls.v[0].value, "") && STREQ(ls.v[1].value, "") &&
	    STREQ(ls.v[2].value, ""));
	CHECK(labelsel_match(&ls.v[0], NULL));
	CHECK(!labelsel_match(&ls.v[0], "x"));
	labelsel_clear(&ls);
	parse_ok("{service_name=\"svc-a\", env=~\"prod|stg\", x!=`a\\b`}",
	    &ls);
	CHECK(ls.n == 3 && ls.v[1].op == LS_RE && ls.v[2].op == LS_NE);
	CHECK(STREQ(ls.v[2].value, "a\\b"));
	CHECK(labelsel_match(&ls.v[1], "stg") &&
	    !labelsel_match(&ls.v[1], "prod2"));
	CHECK(STREQ(labelsel_get(&ls, "service_name"), "svc-a"));
	CHECK(labelsel_scope(&ls, "svc-a") && !labelsel_scope(&ls, "svc-b"));
	labelsel_clear(&ls);
	parse_ok("", &ls);
	CHECK(ls.n == 0 && labelsel_scope(&ls, "any"));
	labelsel_clear(&ls);
}

static void
test_select(void)
{
	static char a[] = "svc-a", b[] = "svc-b", c[] = "web";
	char *scopes[] = { a, b, c };
	struct selection sel;
	struct labelsel ls;

	memset(&sel, 0, sizeof sel);
	parse_ok("{service_name=~\"svc-.*\", __profile_type__=\"x:y:z:u:v\", "
	    "env=\"prod\", zone=\"\"}", &ls);
	labelsel_select(&ls, scopes, 3, &sel);
	CHECK(sel.nscopes == 2 && STREQ(sel.scopes[0], "svc-a") &&
	    STREQ(sel.scopes[1], "svc-b"));
	CHECK(sel.nlabels == 2);
	CHECK(STREQ(sel.labels[0].key, "env") &&
	    STREQ(sel.labels[0].value, "prod") && !sel.labels[0].regex);
	/* zone="": the samples without zone. */
	CHECK(STREQ(sel.labels[1].key, "zone") && sel.labels[1].regex &&
	    sel.labels[1].negate && STREQ(sel.labels[1].value, ".+"));
	selection_clear(&sel);
	labelsel_clear(&ls);
}

static void
test_refused(void)
{
	static const char *const bad[] = { "{a=\"b\"", "{a=b}", "{=\"b\"}",
	    "{a~\"b\"}", "{a=\"b\\q\"}", "{a=~\"(\"}", "{a=\"b}" };
	struct labelsel ls;
	struct error err;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&err, 0, sizeof err);
		CHECK(labelsel_parse(bad[i], strlen(bad[i]), &ls, &err) == -1);
		CHECK(err.kind == ERR_INPUT && err.msg[0] != '\0');
	}
}

int
main(void)
{
	test_quotes();
	test_select();
	test_refused();
	printf("test_labelsel: %u checks\n", checks);
	return 0;
}
