/* test_client_render_diff.c: render-diff.c: GET /v1/diff as a table of signed
 * deltas, on canned replies. */
#include "clienttest.h"

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

int
main(void)
{
	test_diff();
	return finish();
}
