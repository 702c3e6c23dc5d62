/* render-timeline.c: GET /v1/timeline as a terminal sparkline: one column
 * per point (adjacent points summed when there are more than
 * RENDER_TIMELINE_COLUMNS), the eight block characters scaled to the largest
 * value, and a line with the first and last times and the maximum. No HTTP
 * here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

static const char *render_timeline_blocks[8] = {
	"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
	"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88"
};

/*
 * Fold n values into at most max columns, summing adjacent ones: column i
 * holds values [i * n / cols, (i + 1) * n / cols). Returns the number of
 * columns written to out (which has room for max).
 */
size_t
render_timeline_bin(const double *v, size_t n, double *out, size_t max)
{
	size_t	 cols, i, j, lo, hi;

	if (max == 0)
		return 0;
	cols = n < max ? n : max;
	for (i = 0; i < cols; i++) {
		lo = i * n / cols;
		hi = (i + 1) * n / cols;
		out[i] = 0;
		for (j = lo; j < hi; j++)
			out[i] += v[j];
	}
	return cols;
}

/*
 * One block per value, scaled to the largest: the maximum is a full block,
 * zero (and anything negative) the lowest, every non-zero value at least
 * the second lowest so that it shows. All zeros: all lowest blocks.
 */
void
render_timeline_sparkline(FILE *f, const double *v, size_t n)
{
	double	 max = 0;
	size_t	 i;
	int	 b;

	for (i = 0; i < n; i++) {
		if (v[i] > max)
			max = v[i];
	}
	for (i = 0; i < n; i++) {
		if (max <= 0 || !(v[i] > 0))
			b = 0;
		else {
			b = (int)lround(v[i] / max * 7);
			if (b < 1)
				b = 1;
			if (b > 7)
				b = 7;
		}
		fputs(render_timeline_blocks[b], f);
	}
	fputc('\n', f);
}

/* The reply to GET /v1/timeline: the sparkline, then "FIRST .. LAST
 * max VALUE (step Ns)". An empty timeline prints "no samples". */
int
render_timeline_json(FILE *f, json_t *reply, char **cause)
{
	json_t		*points, *p, *v;
	const char	*unit, *first, *last;
	char		 label[UNITS_LABEL_MAX], step[64];
	double		*vals, *cols, max = 0;
	size_t		 n, i, ncols;

	if ((unit = render_unit(reply)) == NULL)
		return render_bad(cause, "no unit");
	points = json_object_get(reply, "points");
	if (!json_is_array(points))
		return render_bad(cause, "no points");
	n = json_array_size(points);
	if (n == 0) {
		fprintf(f, "no samples\n");
		return 0;
	}
	vals = xcalloc(n, sizeof *vals);
	json_array_foreach(points, i, p) {
		v = json_object_get(p, "value");
		if (!json_is_number(v) || json_string_value(json_object_get(p,
		    "time")) == NULL) {
			free(vals);
			return render_bad(cause, "bad point");
		}
		vals[i] = json_number_value(v);
	}
	cols = xcalloc(RENDER_TIMELINE_COLUMNS, sizeof *cols);
	ncols = render_timeline_bin(vals, n, cols, RENDER_TIMELINE_COLUMNS);
	for (i = 0; i < ncols; i++) {
		if (i == 0 || cols[i] > max)
			max = cols[i];
	}
	render_timeline_sparkline(f, cols, ncols);

	first = json_string_value(json_object_get(json_array_get(points, 0),
	    "time"));
	last = json_string_value(json_object_get(json_array_get(points,
	    n - 1), "time"));
	units_scaled_label((int64_t)llround(max), unit, "auto", label,
	    sizeof label);
	step[0] = '\0';
	if (json_is_number(json_object_get(reply, "step_s")))
		snprintf(step, sizeof step, ", step %gs",
		    json_number_value(json_object_get(reply, "step_s")));
	fprintf(f, "%s .. %s  max %s (%zu point%s%s", first, last, label, n,
	    n == 1 ? "" : "s", step);
	if (ncols < n)
		fprintf(f, ", summed into %zu columns", ncols);
	fprintf(f, ")\n");
	free(vals);
	free(cols);
	return 0;
}
