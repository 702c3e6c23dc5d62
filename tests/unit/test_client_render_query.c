/* test_client_render_query.c: render-query.c: POST /v1/query's rows as a table and
 * as CSV (quoting), on canned replies. */
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

int
main(void)
{
	test_query();
	return (finish());
}
