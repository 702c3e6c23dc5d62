/* test_client_render_tree.c: render-tree.c: GET /v1/tree as an indented text
 * tree, on canned replies. */
#include "clienttest.h"

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

int
main(void)
{
	test_tree();
	return finish();
}
