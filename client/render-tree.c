/* render-tree.c: GET /v1/tree as an indented text tree (one line per node,
 * "TOTAL TOTAL% SELF name", two spaces of indent per depth, children in the
 * daemon's order). Values are in pprof's units, one unit for the whole
 * report as pprof picks it (render-diff.c does the same for a diff). No
 * HTTP here: everything works on a parsed reply. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

/* The smallest non-zero |total| and |self| under a node. */
static void
render_tree_min(json_t *node, int64_t *min)
{
	json_t	*child;
	int64_t	 v;
	size_t	 i;

	v = render_abs(render_get_int(node, "total"));
	if (v != 0 && (*min == 0 || v < *min))
		*min = v;
	v = render_abs(render_get_int(node, "self"));
	if (v != 0 && (*min == 0 || v < *min))
		*min = v;
	json_array_foreach(json_object_get(node, "children"), i, child)
		render_tree_min(child, min);
}

static int
render_tree_node(FILE *f, json_t *node, const char *unit, const char *out,
    int64_t root, int depth, char **cause)
{
	json_t		*total, *child;
	const char	*name;
	char		 a[UNITS_LABEL_MAX], b[UNITS_LABEL_MAX];
	char		 p[UNITS_PERCENT_MAX];
	size_t		 i;

	total = json_object_get(node, "total");
	if ((name = json_string_value(json_object_get(node, "name"))) == NULL ||
	    !json_is_integer(total))
		return render_bad(cause, "bad node in root");
	if (depth > 10000)
		return render_bad(cause, "tree too deep");
	fprintf(f, "%10s %s %10s  %*s%s\n",
	    units_scaled_label(json_integer_value(total), unit, out, a,
	    sizeof a),
	    units_percentage(json_integer_value(total), root, p, sizeof p),
	    units_scaled_label(render_get_int(node, "self"), unit, out, b,
	    sizeof b), depth * 2, "", name);
	json_array_foreach(json_object_get(node, "children"), i, child) {
		if (render_tree_node(f, child, unit, out, root, depth + 1,
		    cause) != 0)
			return -1;
	}
	return 0;
}

/* The reply to GET /v1/tree: a header, then the root and every node below
 * it, indented by depth. Percentages are of the root's total. */
int
render_tree_json(FILE *f, json_t *reply, char **cause)
{
	json_t		*root;
	const char	*unit, *out;
	int64_t		 total, min = 0;

	if ((unit = render_unit(reply)) == NULL)
		return render_bad(cause, "no unit");
	root = json_object_get(reply, "root");
	if (!json_is_object(root) ||
	    !json_is_integer(json_object_get(root, "total")))
		return render_bad(cause, "no root");
	total = render_get_int(root, "total");
	render_tree_min(root, &min);
	if (min == 0)
		min = render_abs(total);
	out = render_output_unit_for(unit, min, render_abs(total));

	render_head(f, reply);
	fprintf(f, "%10s %6s %10s  %s\n", "TOTAL", "TOTAL%", "SELF", "NAME");
	return render_tree_node(f, root, unit, out, total, 0, cause);
}

