/* render-diff.c: the reply to GET /v1/diff as a table of the top deltas
 * per function, signed, beside both sides' totals. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

/* A delta with its sign: "+1.50s", "-300ms", "0". */
static const char *
render_diff_delta(int64_t v, const char *unit, const char *out, char *buf,
    size_t len)
{
	char	 tmp[UNITS_LABEL_MAX];

	units_scaled_label(v, unit, out, tmp, sizeof tmp);
	snprintf(buf, len, "%s%s", v > 0 && strcmp(tmp, "0") != 0 ? "+" : "",
	    tmp);
	return buf;
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
		return buf;
	}
	if (base == 0) {
		snprintf(buf, len, "%sinf%%", delta > 0 ? "+" : "-");
		return buf;
	}
	units_percentage(delta, base, tmp, sizeof tmp);
	for (p = tmp; *p == ' '; p++)
		/* nothing */;
	snprintf(buf, len, "%s%s", delta > 0 ? "+" : "-", p);
	return buf;
}

/*
 * The reply to GET /v1/diff: the totals of both sides, then one row per
 * function as the daemon sorted them (by |delta_flat|): BASE, CURRENT,
 * DELTA (flat values) and DELTA% of the base total.
 */
int
render_diff_json(FILE *f, json_t *reply, char **cause)
{
	json_t		*rows, *row, *jb, *jc;
	const char	*unit, *name, *out;
	char		 a[UNITS_LABEL_MAX], b[UNITS_LABEL_MAX];
	char		 d[UNITS_LABEL_MAX + 2], p[UNITS_PERCENT_MAX + 2];
	int64_t		 base_total, cur_total, min = 0, v, max;
	size_t		 i;

	if ((unit = render_unit(reply)) == NULL)
		return render_bad(cause, "no unit");
	jb = json_object_get(reply, "base");
	jc = json_object_get(reply, "current");
	if (!json_is_integer(json_object_get(jb, "total")) ||
	    !json_is_integer(json_object_get(jc, "total")))
		return render_bad(cause, "no totals");
	rows = json_object_get(reply, "rows");
	if (!json_is_array(rows))
		return render_bad(cause, "no rows");
	base_total = render_get_int(jb, "total");
	cur_total = render_get_int(jc, "total");

	json_array_foreach(rows, i, row) {
		if (json_string_value(json_object_get(row, "function")) ==
		    NULL ||
		    !json_is_integer(json_object_get(row, "base_flat")) ||
		    !json_is_integer(json_object_get(row, "current_flat")) ||
		    !json_is_integer(json_object_get(row, "delta_flat")))
			return render_bad(cause, "bad row in rows");
		v = render_abs(render_get_int(row, "delta_flat"));
		if (v != 0 && (min == 0 || v < min))
			min = v;
	}
	max = render_abs(base_total) > render_abs(cur_total) ?
	    render_abs(base_total) : render_abs(cur_total);
	if (min == 0)
		min = max;
	out = render_output_unit_for(unit, min, max);

	render_type(f, reply);
	fprintf(f, "Base: %s total (%" PRId64 " profile%s)\n",
	    units_scaled_label(base_total, unit, out, a, sizeof a),
	    render_get_int(jb, "profiles"),
	    render_get_int(jb, "profiles") == 1 ? "" : "s");
	fprintf(f, "Current: %s total (%" PRId64 " profile%s)\n",
	    units_scaled_label(cur_total, unit, out, a, sizeof a),
	    render_get_int(jc, "profiles"),
	    render_get_int(jc, "profiles") == 1 ? "" : "s");
	if (json_is_true(json_object_get(reply, "normalized")))
		fprintf(f, "Normalized: base values scaled by %.4g\n",
		    json_number_value(json_object_get(reply, "scale")));
	if (json_is_integer(json_object_get(reply, "rows_total")) &&
	    render_get_int(reply, "rows_total") >
	    (int64_t)json_array_size(rows))
		fprintf(f, "Showing top %zu functions out of %" PRId64 "\n",
		    json_array_size(rows), render_get_int(reply, "rows_total"));
	fprintf(f, "%10s %10s %10s %8s  %s\n", "BASE", "CURRENT", "DELTA",
	    "DELTA%", "NAME");
	json_array_foreach(rows, i, row) {
		name = json_string_value(json_object_get(row, "function"));
		v = render_get_int(row, "delta_flat");
		fprintf(f, "%10s %10s %10s %8s  %s\n",
		    units_scaled_label(render_get_int(row, "base_flat"), unit,
		    out, a, sizeof a),
		    units_scaled_label(render_get_int(row, "current_flat"),
		    unit, out, b, sizeof b),
		    render_diff_delta(v, unit, out, d, sizeof d),
		    render_diff_percent(v, base_total, p, sizeof p), name);
	}
	return 0;
}
