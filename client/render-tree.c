/* render-tree.c: GET /v1/tree as an indented text tree (one line per node,
 * "TOTAL TOTAL% SELF name", two spaces of indent per depth, children in the
 * daemon's order) and GET /v1/diff as a table of the top deltas. Values are
 * in pprof's units, one unit for the whole report as pprof picks it. No
 * HTTP here: everything works on a parsed reply. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

static int
render_tree_bad(char **cause, const char *what)
{
	if (cause != NULL)
		xasprintf(cause, "unexpected reply from profd: %s", what);
	return (-1);
}

static int64_t
render_tree_int(json_t *obj, const char *key)
{
	json_t	*j = json_object_get(obj, key);

	return (json_is_integer(j) ? (int64_t)json_integer_value(j) : 0);
}

static int64_t
render_tree_abs(int64_t v)
{
	return (v < 0 ? (int64_t)(0 - (uint64_t)v) : v);
}

/* The unit of a report whose smallest non-zero value is min and whose
 * total is total: pprof's selectOutputUnit, as render_output_unit. */
static const char *
render_tree_unit(const char *unit, int64_t min, int64_t total)
{
	struct render_top_row	 row;
	struct render_top	 t;

	memset(&row, 0, sizeof row);
	memset(&t, 0, sizeof t);
	row.flat = min;
	t.unit = unit;
	t.total = total;
	t.rows = &row;
	t.nrows = 1;
	return (render_output_unit(&t));
}

/* The smallest non-zero |total| and |self| under a node. */
static void
render_tree_min(json_t *node, int64_t *min)
{
	json_t	*child;
	int64_t	 v;
	size_t	 i;

	v = render_tree_abs(render_tree_int(node, "total"));
	if (v != 0 && (*min == 0 || v < *min))
		*min = v;
	v = render_tree_abs(render_tree_int(node, "self"));
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
	char		 p[UNITS_PERCENT_MAX], *clean;
	size_t		 i;

	total = json_object_get(node, "total");
	if ((name = json_string_value(json_object_get(node, "name"))) == NULL ||
	    !json_is_integer(total))
		return (render_tree_bad(cause, "bad node in root"));
	if (depth > 10000)
		return (render_tree_bad(cause, "tree too deep"));
	clean = xstrdup(name);
	render_clean(clean);
	fprintf(f, "%10s %s %10s  %*s%s\n",
	    units_scaled_label(json_integer_value(total), unit, out, a,
	    sizeof a),
	    units_percentage(json_integer_value(total), root, p, sizeof p),
	    units_scaled_label(render_tree_int(node, "self"), unit, out, b,
	    sizeof b), depth * 2, "", clean);
	free(clean);
	json_array_foreach(json_object_get(node, "children"), i, child) {
		if (render_tree_node(f, child, unit, out, root, depth + 1,
		    cause) != 0)
			return (-1);
	}
	return (0);
}

/* The reply to GET /v1/tree: a header, then the root and every node below
 * it, indented by depth. Percentages are of the root's total. */
int
render_tree_json(FILE *f, json_t *reply, char **cause)
{
	json_t		*root, *metric;
	const char	*unit, *type, *scope, *out;
	int64_t		 total, min = 0;

	metric = json_object_get(reply, "metric");
	if ((unit = json_string_value(json_object_get(reply, "unit"))) ==
	    NULL && (unit = json_string_value(json_object_get(metric,
	    "unit"))) == NULL)
		return (render_tree_bad(cause, "no unit"));
	root = json_object_get(reply, "root");
	if (!json_is_object(root) ||
	    !json_is_integer(json_object_get(root, "total")))
		return (render_tree_bad(cause, "no root"));
	total = render_tree_int(root, "total");
	render_tree_min(root, &min);
	if (min == 0)
		min = render_tree_abs(total);
	out = render_tree_unit(unit, min, render_tree_abs(total));

	if ((scope = json_string_value(json_object_get(reply, "scope"))) !=
	    NULL) {
		if (json_is_integer(json_object_get(reply, "profiles")))
			fprintf(f, "Scope: %s (%" PRId64 " profile%s)\n", scope,
			    render_tree_int(reply, "profiles"),
			    render_tree_int(reply, "profiles") == 1 ? "" : "s");
		else
			fprintf(f, "Scope: %s\n", scope);
	}
	if ((type = json_string_value(json_object_get(metric, "type"))) != NULL)
		fprintf(f, "Type: %s\n", type);
	fprintf(f, "%10s %6s %10s  %s\n", "TOTAL", "TOTAL%", "SELF", "NAME");
	return (render_tree_node(f, root, unit, out, total, 0, cause));
}

/* A delta with its sign: "+1.50s", "-300ms", "0". */
static const char *
render_diff_delta(int64_t v, const char *unit, const char *out, char *buf,
    size_t len)
{
	char	 tmp[UNITS_LABEL_MAX];

	units_scaled_label(v, unit, out, tmp, sizeof tmp);
	snprintf(buf, len, "%s%s", v > 0 && strcmp(tmp, "0") != 0 ? "+" : "",
	    tmp);
	return (buf);
}

/* A delta as a signed percentage of the base total: "+12.50%", "-0.25%",
 * "+inf%" for growth from an empty base. */
static const char *
render_diff_percent(int64_t delta, int64_t base, char *buf, size_t len)
{
	char		 tmp[UNITS_PERCENT_MAX];
	const char	*p;

	if (delta == 0) {
		snprintf(buf, len, "0%%");
		return (buf);
	}
	if (base == 0) {
		snprintf(buf, len, "%sinf%%", delta > 0 ? "+" : "-");
		return (buf);
	}
	units_percentage(delta, base, tmp, sizeof tmp);
	for (p = tmp; *p == ' '; p++)
		/* nothing */;
	snprintf(buf, len, "%s%s", delta > 0 ? "+" : "-", p);
	return (buf);
}

/*
 * The reply to GET /v1/diff: the totals of both sides, then one row per
 * function as the daemon sorted them (by |delta_flat|): BASE, CURRENT,
 * DELTA (flat values) and DELTA% of the base total.
 */
int
render_diff_json(FILE *f, json_t *reply, char **cause)
{
	json_t		*rows, *row, *metric, *jb, *jc;
	const char	*unit, *type, *name, *out;
	char		 a[UNITS_LABEL_MAX], b[UNITS_LABEL_MAX];
	char		 d[UNITS_LABEL_MAX + 2], p[UNITS_PERCENT_MAX + 2];
	char		*clean;
	int64_t		 base_total, cur_total, min = 0, v, max;
	size_t		 i;

	metric = json_object_get(reply, "metric");
	if ((unit = json_string_value(json_object_get(reply, "unit"))) ==
	    NULL && (unit = json_string_value(json_object_get(metric,
	    "unit"))) == NULL)
		return (render_tree_bad(cause, "no unit"));
	jb = json_object_get(reply, "base");
	jc = json_object_get(reply, "current");
	if (!json_is_integer(json_object_get(jb, "total")) ||
	    !json_is_integer(json_object_get(jc, "total")))
		return (render_tree_bad(cause, "no totals"));
	rows = json_object_get(reply, "rows");
	if (!json_is_array(rows))
		return (render_tree_bad(cause, "no rows"));
	base_total = render_tree_int(jb, "total");
	cur_total = render_tree_int(jc, "total");

	json_array_foreach(rows, i, row) {
		if (json_string_value(json_object_get(row, "function")) ==
		    NULL ||
		    !json_is_integer(json_object_get(row, "base_flat")) ||
		    !json_is_integer(json_object_get(row, "current_flat")) ||
		    !json_is_integer(json_object_get(row, "delta_flat")))
			return (render_tree_bad(cause, "bad row in rows"));
		v = render_tree_abs(render_tree_int(row, "delta_flat"));
		if (v != 0 && (min == 0 || v < min))
			min = v;
	}
	max = render_tree_abs(base_total) > render_tree_abs(cur_total) ?
	    render_tree_abs(base_total) : render_tree_abs(cur_total);
	if (min == 0)
		min = max;
	out = render_tree_unit(unit, min, max);

	if ((type = json_string_value(json_object_get(metric, "type"))) != NULL)
		fprintf(f, "Type: %s\n", type);
	fprintf(f, "Base: %s total (%" PRId64 " profile%s)\n",
	    units_scaled_label(base_total, unit, out, a, sizeof a),
	    render_tree_int(jb, "profiles"),
	    render_tree_int(jb, "profiles") == 1 ? "" : "s");
	fprintf(f, "Current: %s total (%" PRId64 " profile%s)\n",
	    units_scaled_label(cur_total, unit, out, a, sizeof a),
	    render_tree_int(jc, "profiles"),
	    render_tree_int(jc, "profiles") == 1 ? "" : "s");
	if (json_is_true(json_object_get(reply, "normalized")))
		fprintf(f, "Normalized: base values scaled by %.4g\n",
		    json_number_value(json_object_get(reply, "scale")));
	if (json_is_integer(json_object_get(reply, "rows_total")) &&
	    render_tree_int(reply, "rows_total") > (int64_t)json_array_size(rows))
		fprintf(f, "Showing top %zu functions out of %" PRId64 "\n",
		    json_array_size(rows), render_tree_int(reply, "rows_total"));
	fprintf(f, "%10s %10s %10s %8s  %s\n", "BASE", "CURRENT", "DELTA",
	    "DELTA%", "NAME");
	json_array_foreach(rows, i, row) {
		name = json_string_value(json_object_get(row, "function"));
		clean = xstrdup(name);
		render_clean(clean);
		v = render_tree_int(row, "delta_flat");
		fprintf(f, "%10s %10s %10s %8s  %s\n",
		    units_scaled_label(render_tree_int(row, "base_flat"), unit,
		    out, a, sizeof a),
		    units_scaled_label(render_tree_int(row, "current_flat"),
		    unit, out, b, sizeof b),
		    render_diff_delta(v, unit, out, d, sizeof d),
		    render_diff_percent(v, base_total, p, sizeof p), clean);
		free(clean);
	}
	return (0);
}
