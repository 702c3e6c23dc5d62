/* test_client_render_query.c: render-query.c: POST /v1/query's rows as a
 * table and as CSV (quoting), on canned replies fed as they would stream
 * in: whole, and a few bytes at a time. test_client_stream.c holds them
 * against the renderers as they were before streaming. */
#include "clienttest.h"

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

/* The reply fed step bytes at a time (0: whole), then its end: what was
 * printed; *rc and *cause (if not NULL) what the end said. */
static char *
feed(int csv, const char *reply, size_t step, int *rc, char **cause)
{
	struct render_query	*q;
	FILE			*f;
	char			*out = NULL, *why = NULL;
	size_t			 len = 0, n = strlen(reply), off, k;
	int			 r = 0;

	f = open_memstream(&out, &len);
	q = render_query_new(f, csv);
	for (off = 0; off < n && r == 0; off += k) {
		k = step == 0 || n - off < step ? n - off : step;
		r = render_query_feed(q, reply + off, k, &why);
	}
	if (r == 0)
		r = render_query_feed(q, NULL, 0, &why);
	render_query_free(q);
	fclose(f);
	*rc = r;
	if (r != 0)
		assert(why != NULL);
	if (cause != NULL)
		*cause = why;
	else
		free(why);
	return out;
}

/* Every way of cutting the reply prints want and ends with want_rc. */
static void
expect_query(const char *what, int csv, const char *reply, const char *want,
    int want_rc)
{
	size_t	 step;
	char	*s;
	int	 rc;

	for (step = 0; step <= 7; step++) {
		s = feed(csv, reply, step, &rc, NULL);
		expect_str(what, s, want);
		assert(rc == want_rc);
		free(s);
	}
}

static void
test_query(void)
{
	struct render_query	*q;
	const char		*reply, *e, *d;
	char			*s, *cause;
	int			 rc;

	csv_field("plain", "plain");
	csv_field("", "");
	csv_field("a,b", "\"a,b\"");
	csv_field("say \"hi\"", "\"say \"\"hi\"\"\"");
	csv_field("two\nlines", "\"two\nlines\"");
	/* A CR would move the terminal's cursor: shown (termsafe.c), a
	 * newline and a tab kept in their quotes. */
	csv_field("cr\r", "cr\\r");
	csv_field("esc\033[2J", "esc\\u001b[2J");
	csv_field("tab\there", "tab\there");
	csv_field("c1 \xc2\x9b" "2J", "c1 \\u009b2J");
	csv_field("bad \xff", "bad \\xff");

	reply = "{\"columns\": [\"id\", \"name\", \"value\", \"note\"], "
	    "\"rows\": [[1, \"main.a\", 1.5, null], "
	    "[1234, \"x,y\", null, \"q\\\"uote\"], "
	    "[7, null, 100, \"last\"]], \"truncated\": false, "
	    "\"elapsed_ms\": 1.2}";
	expect_query("query table", 0, reply,
	    "  id  name    value  note\n"
	    "   1  main.a    1.5  NULL\n"
	    "1234  x,y      NULL  q\"uote\n"
	    "   7  NULL      100  last\n", 0);
	expect_query("query csv", 1, reply,
	    "id,name,value,note\r\n"
	    "1,main.a,1.5,\r\n"
	    "1234,\"x,y\",,\"q\"\"uote\"\r\n"
	    "7,,100,last\r\n", 0);
	expect_query("no rows", 0, "{\"columns\": [\"n\"], \"rows\": []}",
	    "n\n", 0);
	expect_query("no columns", 0, "{\"columns\": [], \"rows\": [[1]]}",
	    "", 0);
	expect_query("rows missing", 0, "{\"columns\": [\"n\"]}", "", -1);
	expect_query("rows missing csv", 1, "{\"columns\": [\"n\"]}", "", -1);
	/* A bad row stops the CSV where it is: whole lines only. */
	expect_query("bad row", 1, "{\"columns\": [\"n\"], \"rows\": [[1], 1, "
	    "[2]]}", "n\r\n1\r\n", -1);
	s = feed(0, "{\"columns\": [\"n\"], \"rows\": [[1], 1]}", 3, &rc,
	    &cause);
	expect_str("bad row table", s, "");
	expect_str("bad row cause", cause,
	    "unexpected reply from profd: bad row in rows");
	free(s);
	free(cause);
	s = feed(1, "[1, 2]", 0, &rc, &cause);
	expect_str("an array", cause, "unexpected reply from profd: no columns");
	free(s);
	free(cause);
	s = feed(1, "{\"rows\": [], \"columns\": [\"n\"]}", 0, &rc, &cause);
	expect_str("columns late", cause,
	    "unexpected reply from profd: no columns before rows");
	free(s);
	free(cause);
	s = feed(1, "{\"columns\": [\"n\"], \"rows\": [[1], [2", 0, &rc,
	    &cause);
	expect_str("cut", s, "n\r\n1\r\n");
	expect_str("cut cause", cause, "unexpected reply from profd (not "
	    "JSON: the text ends early at byte 35)");
	free(s);
	free(cause);
	s = feed(1, "{\"columns\": [\"n\"], \"rows\": [[1], [2]}", 0, &rc,
	    &cause);
	expect_str("not JSON", s, "n\r\n1\r\n2\r\n");
	expect_str("not JSON cause", cause, "unexpected reply from profd (not "
	    "JSON: ',' or ']' expected at byte 36)");
	free(s);
	free(cause);

	/* Cut short by profd: the error members, nothing more printed. */
	reply = "{\"columns\":[\"n\"],\"rows\":[[1],[2]],\"truncated\":true,"
	    "\"elapsed_ms\":3.5,\"status\":413,\"error\":\"too large\","
	    "\"detail\":\"past max_bytes\"}\n";
	expect_query("cut short table", 0, reply, "", 0);
	expect_query("cut short csv", 1, reply, "n\r\n1\r\n2\r\n", 0);
	q = render_query_new(stdout, 0);
	assert(render_query_feed(q, reply, strlen(reply), &cause) == 0);
	assert(render_query_feed(q, NULL, 0, &cause) == 0);
	assert(render_query_failed(q, &e, &d) == 1);
	expect_str("error", e, "too large");
	expect_str("detail", d, "past max_bytes");
	assert(render_query_rows(q) == 2 && render_query_truncated(q));
	render_query_free(q);
}

int
main(void)
{
	test_query();
	return finish();
}
