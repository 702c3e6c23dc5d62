/* test_client_render2.c: profctl's output of the query commands (tree,
 * diff, query, timeline) and the selection flags' query string, on canned
 * replies. */

/* The checks are asserts: keep them in release builds. */
#undef NDEBUG

#include <assert.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

static int failures;

static void
expect_str(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return;
	failures++;
	fprintf(stderr, "FAIL %s:\n--- want ---\n%s\n--- got ---\n%s\n",
	    what, want, got);
}

/* Run a renderer of a JSON text into a string. */
static char *
render(int (*fn)(FILE *, json_t *, char **), const char *text, int want_rc)
{
	json_error_t	 jerr;
	json_t		*j;
	FILE		*f;
	char		*out = NULL, *cause = NULL;
	size_t		 len = 0;
	int		 rc;

	j = json_loads(text, 0, &jerr);
	if (j == NULL) {
		fprintf(stderr, "bad test JSON: %s\n", jerr.text);
		abort();
	}
	f = open_memstream(&out, &len);
	rc = fn(f, j, &cause);
	fclose(f);
	json_decref(j);
	assert(rc == want_rc);
	if (rc != 0)
		assert(cause != NULL);
	free(cause);
	return (out);
}

static char *
spark(const double *v, size_t n)
{
	FILE	*f;
	char	*out = NULL;
	size_t	 len = 0;

	f = open_memstream(&out, &len);
	render_timeline_sparkline(f, v, n);
	fclose(f);
	return (out);
}

static void
test_sparkline(void)
{
	double	 zeros[4] = { 0, 0, 0, 0 }, one[1] = { 5 };
	double	 ramp[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	double	 tiny[3] = { 1000, 1, 0 }, cols[RENDER_TIMELINE_COLUMNS];
	double	 many[250];
	char	*s;
	size_t	 i, n;

	s = spark(zeros, 4);
	expect_str("all zeros", s, "▁▁▁▁\n");
	free(s);
	s = spark(one, 1);
	expect_str("one point", s, "█\n");
	free(s);
	s = spark(ramp, 8);
	expect_str("ramp", s, "▁▂▃▄▅▆▇█\n");
	free(s);
	/* A non-zero value too small to scale still shows. */
	s = spark(tiny, 3);
	expect_str("tiny", s, "█▂▁\n");
	free(s);
	s = spark(NULL, 0);
	expect_str("empty", s, "\n");
	free(s);

	/* Binning: fewer points than columns are kept, more are summed. */
	n = render_timeline_bin(ramp, 8, cols, RENDER_TIMELINE_COLUMNS);
	assert(n == 8 && cols[7] == 7);
	for (i = 0; i < 250; i++)
		many[i] = 1;
	n = render_timeline_bin(many, 250, cols, RENDER_TIMELINE_COLUMNS);
	assert(n == RENDER_TIMELINE_COLUMNS);
	{
		double	 sum = 0;

		for (i = 0; i < n; i++) {
			assert(cols[i] == 2 || cols[i] == 3);
			sum += cols[i];
		}
		assert(sum == 250);
	}
	n = render_timeline_bin(many, 240, cols, RENDER_TIMELINE_COLUMNS);
	assert(n == 120 && cols[0] == 2 && cols[119] == 2);
}

static void
test_timeline(void)
{
	char	*s;

	s = render(render_timeline_json, "{\"metric\": {\"type\": \"cpu\", "
	    "\"unit\": \"nanoseconds\"}, \"unit\": \"nanoseconds\", "
	    "\"step_s\": 10, \"total\": 4000000000, \"points\": ["
	    "{\"time\": \"2026-01-01T00:00:00Z\", \"time_ns\": 1, \"value\": 0},"
	    "{\"time\": \"2026-01-01T00:00:10Z\", \"time_ns\": 2, "
	    "\"value\": 1000000000},"
	    "{\"time\": \"2026-01-01T00:00:20Z\", \"time_ns\": 3, "
	    "\"value\": 3000000000}]}", 0);
	expect_str("timeline", s, "▁▃█\n"
	    "2026-01-01T00:00:00Z .. 2026-01-01T00:00:20Z  max 3s "
	    "(3 points, step 10s)\n");
	free(s);
	s = render(render_timeline_json, "{\"unit\": \"count\", \"points\": "
	    "[]}", 0);
	expect_str("empty timeline", s, "no samples\n");
	free(s);
	s = render(render_timeline_json, "{\"points\": []}", -1);
	free(s);
}

static void
csv_field(const char *in, const char *want)
{
	FILE	*f;
	char	*out = NULL;
	size_t	 len = 0;

	f = open_memstream(&out, &len);
	render_query_csv_field(f, in);
	fclose(f);
	expect_str(in, out, want);
	free(out);
}

static void
test_query(void)
{
	const char	*reply;
	char		*s;

	csv_field("plain", "plain");
	csv_field("", "");
	csv_field("a,b", "\"a,b\"");
	csv_field("say \"hi\"", "\"say \"\"hi\"\"\"");
	csv_field("two\nlines", "\"two\nlines\"");
	csv_field("cr\r", "\"cr\r\"");

	reply = "{\"columns\": [\"id\", \"name\", \"value\", \"note\"], "
	    "\"rows\": [[1, \"main.a\", 1.5, null], "
	    "[1234, \"x,y\", null, \"q\\\"uote\"], "
	    "[7, null, 100, \"last\"]], \"truncated\": false, "
	    "\"elapsed_ms\": 1.2}";
	s = render(render_query_table, reply, 0);
	expect_str("query table", s,
	    "  id  name    value  note\n"
	    "   1  main.a    1.5  NULL\n"
	    "1234  x,y      NULL  q\"uote\n"
	    "   7  NULL      100  last\n");
	free(s);
	s = render(render_query_csv, reply, 0);
	expect_str("query csv", s,
	    "id,name,value,note\r\n"
	    "1,main.a,1.5,\r\n"
	    "1234,\"x,y\",,\"q\"\"uote\"\r\n"
	    "7,,100,last\r\n");
	free(s);
	s = render(render_query_table, "{\"columns\": [\"n\"], \"rows\": []}",
	    0);
	expect_str("no rows", s, "n\n");
	free(s);
	s = render(render_query_table, "{\"columns\": [\"n\"]}", -1);
	free(s);
	s = render(render_query_csv, "{\"columns\": [\"n\"], \"rows\": [1]}",
	    -1);
	free(s);
}

static void
test_tree(void)
{
	char	*s;

	s = render(render_tree_json, "{\"scope\": \"svc\", \"metric\": "
	    "{\"type\": \"alloc_space\", \"unit\": \"bytes\"}, \"unit\": "
	    "\"bytes\", \"total\": 4096, \"profiles\": 2, \"root\": "
	    "{\"name\": \"root\", \"self\": 0, \"total\": 4096, \"children\": ["
	    "{\"name\": \"main.b\", \"self\": 1024, \"total\": 3072, "
	    "\"children\": [{\"name\": \"main.c\", \"self\": 2048, "
	    "\"total\": 2048, \"children\": []}]},"
	    "{\"name\": \"main.a\", \"self\": 1024, \"total\": 1024, "
	    "\"children\": []}]}}", 0);
	expect_str("tree", s,
	    "Scope: svc (2 profiles)\n"
	    "Type: alloc_space\n"
	    "     TOTAL TOTAL%       SELF  NAME\n"
	    "       4kB   100%          0  root\n"
	    "       3kB 75.00%        1kB    main.b\n"
	    "       2kB 50.00%        2kB      main.c\n"
	    "       1kB 25.00%        1kB    main.a\n");
	free(s);
	s = render(render_tree_json, "{\"unit\": \"count\", \"root\": "
	    "{\"name\": \"root\", \"total\": 3, \"self\": 0, \"children\": "
	    "[{\"name\": \"x\"}]}}", -1);
	free(s);
	s = render(render_tree_json, "{\"unit\": \"count\"}", -1);
	free(s);
}

static void
test_diff(void)
{
	char	*s;

	s = render(render_diff_json, "{\"metric\": {\"type\": \"cpu\", "
	    "\"unit\": \"nanoseconds\"}, \"unit\": \"nanoseconds\", "
	    "\"normalized\": false, \"scale\": 1, "
	    "\"base\": {\"total\": 2000000000, \"profiles\": 1}, "
	    "\"current\": {\"total\": 3000000000, \"profiles\": 2}, "
	    "\"root\": {}, \"rows_total\": 3, \"rows\": ["
	    "{\"function\": \"main.grow\", \"base_flat\": 500000000, "
	    "\"current_flat\": 1500000000, \"delta_flat\": 1000000000},"
	    "{\"function\": \"main.shrink\", \"base_flat\": 1500000000, "
	    "\"current_flat\": 1000000000, \"delta_flat\": -500000000}]}", 0);
	expect_str("diff", s,
	    "Type: cpu\n"
	    "Base: 2000ms total (1 profile)\n"
	    "Current: 3000ms total (2 profiles)\n"
	    "Showing top 2 functions out of 3\n"
	    "      BASE    CURRENT      DELTA   DELTA%  NAME\n"
	    "     500ms     1500ms    +1000ms  +50.00%  main.grow\n"
	    "    1500ms     1000ms     -500ms  -25.00%  main.shrink\n");
	free(s);
	s = render(render_diff_json, "{\"unit\": \"count\", \"base\": "
	    "{\"total\": 0, \"profiles\": 0}, \"current\": {\"total\": 5, "
	    "\"profiles\": 1}, \"normalized\": true, \"scale\": 2.5, "
	    "\"rows\": [{\"function\": \"f\", \"base_flat\": 0, "
	    "\"current_flat\": 5, \"delta_flat\": 5}, {\"function\": \"g\", "
	    "\"base_flat\": 0, \"current_flat\": 0, \"delta_flat\": 0}]}", 0);
	expect_str("diff from empty", s,
	    "Base: 0 total (0 profiles)\n"
	    "Current: 5 total (1 profile)\n"
	    "Normalized: base values scaled by 2.5\n"
	    "      BASE    CURRENT      DELTA   DELTA%  NAME\n"
	    "         0          5         +5    +inf%  f\n"
	    "         0          0          0       0%  g\n");
	free(s);
	s = render(render_diff_json, "{\"unit\": \"count\", \"base\": "
	    "{\"total\": 1}, \"current\": {\"total\": 1}, \"rows\": "
	    "[{\"function\": \"f\"}]}", -1);
	free(s);
}

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
	url = xstrdup("/v1/diff");
	selection_query(&sel, &url);
	expect_str("selection query", url, "/v1/diff?scope=a&scope=b&"
	    "metric=cpu%2Fnanoseconds&label=k%21%3Dv%20w&focus=%5Emain%5C.&"
	    "base.scope=c&base.since=-1h");
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
	test_sparkline();
	test_timeline();
	test_query();
	test_tree();
	test_diff();
	test_selection();
	if (failures != 0) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return (1);
	}
	printf("ok\n");
	return (0);
}
