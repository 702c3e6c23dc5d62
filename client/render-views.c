/* render-views.c: the reply of /v1/tags as go tool pprof -tags prints it
 * (report.go printTags), after profctl's short header.  (The text of
 * -peek and -traces profd writes itself: /v1/peek and /v1/traces with
 * format=text.) */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

struct render_tag {
	char	*name;
	int64_t	 flat;
};

/* graph.SortTags(tags, true): |flat| descending, then name. */
static int
render_tag_cmp(const void *a, const void *b)
{
	const struct render_tag	*x = a, *y = b;
	int64_t			 xa = render_abs(x->flat);
	int64_t			 ya = render_abs(y->flat);

	if (x->flat != y->flat && xa != ya)
		return xa > ya ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Characters, as text/tabwriter counts a cell's width (UTF-8 runes). */
static size_t
render_runes(const char *s)
{
	size_t	n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* One key's block as printTags writes it through a tabwriter (padding 1,
 * right-aligned): the key line, a line per value, an empty line. */
static void
render_tags_key(FILE *f, const char *key, const char *unit,
    struct render_tag *tags, size_t n)
{
	const char	*u;
	char		**cells, pa[UNITS_PERCENT_MAX];
	size_t		 w0, w1 = 0, i;
	int64_t		 total = 0;
	double		 v;

	for (i = 0; i < n; i++)
		total = profctl_add(total, tags[i].flat);
	if (n > 1)
		qsort(tags, n, sizeof *tags, render_tag_cmp);
	cells = xcalloc(n + 1, sizeof *cells);
	for (i = 0; i < n; i++) {
		v = units_scale(tags[i].flat, unit, "minimum", &u);
		if (total > 0)
			xasprintf(&cells[i], "%.1f%s (%s):", v, u,
			    units_percentage(tags[i].flat, total, pa,
			    sizeof pa));
		else
			xasprintf(&cells[i], "%.1f%s:", v, u);
		if (render_runes(cells[i]) > w1)
			w1 = render_runes(cells[i]);
	}
	/* Column 0 holds "key:" and the values' " ", plus the padding. */
	w0 = render_runes(key) + 1 + 1;
	v = units_scale(total, unit, "minimum", &u);
	fprintf(f, "%*s%s: Total %.1f%s\n", (int)(w0 - render_runes(key) - 1),
	    "", key, v, u);
	for (i = 0; i < n; i++) {
		fprintf(f, "%*s %*s%s %s\n", (int)(w0 - 1), "",
		    (int)(w1 + 1 - render_runes(cells[i])), "", cells[i],
		    tags[i].name);
		free(cells[i]);
	}
	fprintf(f, "\n");
	free(cells);
}

int
render_tags_json(FILE *f, json_t *reply, char **cause)
{
	char		 a[UNITS_LABEL_MAX];
	const char	*unit, *key, *kunit, *s;
	json_t		*keys, *k, *vals, *v;
	struct render_tag *tags;
	int64_t		 num, value;
	size_t		 i, j, n, m;

	if ((unit = render_unit(reply)) == NULL ||
	    !json_is_array(keys = json_object_get(reply, "tags")))
		return render_bad(cause, "no unit or tags");
	render_head(f, reply);
	json_array_foreach(keys, i, k) {
		if ((key = render_str(k, "key")) == NULL ||
		    !json_is_array(vals = json_object_get(k, "values")))
			return render_bad(cause, "bad tag");
		if ((kunit = render_str(k, "unit")) == NULL)
			kunit = key;
		tags = xcalloc(json_array_size(vals) + 1, sizeof *tags);
		n = 0;
		json_array_foreach(vals, j, v) {
			if (render_int(v, "value", &value) != 0)
				value = 0;
			if ((s = render_str(v, "str")) == NULL) {
				/* Numbers are told apart as pprof prints
				 * them: values printing alike add up. */
				num = render_get_int(v, "num");
				s = units_scaled_label(num, kunit, "minimum",
				    a, sizeof a);
			}
			for (m = 0; m < n; m++)
				if (strcmp(tags[m].name, s) == 0)
					break;
			if (m == n)
				tags[n++].name = xstrdup(s);
			tags[m].flat = profctl_add(tags[m].flat, value);
		}
		render_tags_key(f, key, unit, tags, n);
		for (m = 0; m < n; m++)
			free(tags[m].name);
		free(tags);
	}
	return 0;
}
