/* test_client_selection.c: selection.c: the selection flags, each turned into its
 * query parameter (base-… ones into base.…), and their checks. */
#include <getopt.h>

#include "alloc.h"
#include "clienttest.h"

static void
test_selection(void)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		SELECTION_BASE_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	struct selection	 sel;
	char			*url, *cause = NULL;
	size_t			 i;

	memset(&sel, 0, sizeof sel);
	assert(selection_option(&sel, 's', "a", &cause) == 0);
	assert(selection_option(&sel, 's', "b", &cause) == 0);
	assert(selection_option(&sel, 'm', "cpu/nanoseconds", &cause) == 0);
	assert(selection_option(&sel, SELECTION_OPT + 5, "k!=v w", &cause) ==
	    0);
	assert(selection_option(&sel, SELECTION_OPT + 6, "^main\\.", &cause) ==
	    0);
	assert(sel.has_scope && !sel.has_base);
	assert(selection_option(&sel, SELECTION_BASE_OPT + 0, "c", &cause) ==
	    0);
	assert(selection_option(&sel, SELECTION_BASE_OPT + 2, "-1h", &cause) ==
	    0);
	assert(sel.has_base && sel.has_base_scope);
	assert(selection_option(&sel, 'x', "?", &cause) == 1);
	assert(selection_option(&sel, SELECTION_OPT + 5, "novalue",
	    &cause) == -1);
	assert(strstr(cause, "--label") != NULL);
	free(cause);
	cause = NULL;
	assert(selection_option(&sel, SELECTION_BASE_OPT + 5, "=v",
	    &cause) == -1);
	assert(strstr(cause, "--base-label") != NULL);
	free(cause);
	cause = NULL;
	/* Patterns: K=~RE and K!~RE (a key is needed; "!~" alone is no
	 * operator of an empty key). */
	assert(selection_option(&sel, SELECTION_BASE_OPT + 5, "env=~prod|stg",
	    &cause) == 0);
	assert(selection_option(&sel, SELECTION_BASE_OPT + 5, "env!~pro.*",
	    &cause) == 0);
	assert(selection_option(&sel, SELECTION_BASE_OPT + 5, "!~v",
	    &cause) == -1);
	assert(strstr(cause, "K!~RE") != NULL);
	free(cause);
	url = xstrdup("/v1/diff");
	selection_query(&sel, &url);
	expect_str("selection query", url, "/v1/diff?scope=a&scope=b&"
	    "metric=cpu%2Fnanoseconds&label=k%21%3Dv%20w&focus=%5Emain%5C.&"
	    "base.scope=c&base.since=-1h&base.label=env%3D~prod%7Cstg&"
	    "base.label=env%21~pro.%2A");
	free(url);
	assert(strcmp(selection_get(&sel, "base.scope"), "c") == 0);
	assert(selection_get(&sel, "ignore") == NULL);
	selection_clear(&sel);
	assert(sel.n == 0 && sel.params == NULL);

	/* Every option of the fragments maps to the parameter it names. */
	for (i = 0; opts[i].name != NULL; i++) {
		memset(&sel, 0, sizeof sel);
		assert(selection_option(&sel, opts[i].val, "k=v",
		    &cause) == 0);
		url = xstrdup("");
		selection_query(&sel, &url);
		{
			char	 want[64];
			const char *n = opts[i].name;

			if (strncmp(n, "base-", 5) == 0)
				snprintf(want, sizeof want, "?base.%s=k%%3Dv",
				    n + 5);
			else
				snprintf(want, sizeof want, "?%s=k%%3Dv", n);
			expect_str(n, url, want);
		}
		free(url);
		selection_clear(&sel);
	}
}

int
main(void)
{
	test_selection();
	return finish();
}
