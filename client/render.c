/* render.c: text output of profd's replies. The top table follows
 * `go tool pprof -top` byte for byte (report.go printText, reportLabels,
 * selectOutputUnit); the other listings are aligned tables. No HTTP here:
 * everything works on a reply already parsed. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "kind.h"
#include "profctl.h"

/* pprof's abs64: wraps for INT64_MIN as Go does. */
static int64_t
render_abs64(int64_t v)
{
	if (v < 0)
		return (int64_t)(0 - (uint64_t)v);
	return v;
}

/*
 * The unit every value of the report is printed in, as pprof's
 * selectOutputUnit picks it with -unit=minimum: from the smallest non-zero
 * row (flat, else cum) and the total; when they differ by more than 100x the
 * smallest value is allowed to print as low as 0.01 of a larger unit. With
 * no rows pprof keeps "minimum": each value is then scaled on its own.
 */
const char *
render_output_unit(const struct render_top *t)
{
	int64_t		 min = 0, m;
	size_t		 i;

	if (t->nrows == 0)
		return "minimum";
	for (i = 0; i < t->nrows; i++) {
		m = render_abs64(t->rows[i].flat);
		if (m == 0)
			m = render_abs64(t->rows[i].cum);
		if (m > 0 && (min == 0 || m < min))
			min = m;
	}
	return units_output_unit(t->unit, min, t->total);
}

static int
render_has(const char *s)
{
	return s != NULL && *s != '\0';
}

static const char *
render_trim(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

/* pprof's printText: the lines reportLabels puts above the table (from
 * "Showing nodes" on), the column header, one row per function. */
void
render_top(FILE *f, const struct render_top *t)
{
	const char	*out;
	char		 a[UNITS_LABEL_MAX], b[UNITS_LABEL_MAX];
	char		 pa[UNITS_PERCENT_MAX], pb[UNITS_PERCENT_MAX];
	char		 pc[UNITS_PERCENT_MAX];
	uint64_t	 sum = 0;
	size_t		 i;

	out = render_output_unit(t);
	for (i = 0; i < t->nrows; i++)
		sum += (uint64_t)t->rows[i].flat;

	render_showing(f, t->unit, out, (int64_t)sum, t->total);
	if (t->total != 0) {
		if (t->dropped > 0) {
			fprintf(f, "Dropped %zu node%s (cum <= %s)\n",
			    t->dropped, t->dropped > 1 ? "s" : "",
			    units_scaled_label(render_abs64(t->cutoff),
			    t->unit, out, a, sizeof a));
		}
		if (t->nrows > 0 && t->nrows < t->rows_total) {
			fprintf(f, "Showing top %zu nodes out of %zu\n",
			    t->nrows, t->rows_total);
		}
	}

	fprintf(f, "%10s %5s%% %5s%% %10s %5s%%\n",
	    "flat", "flat", "sum", "cum", "cum");
	sum = 0;
	for (i = 0; i < t->nrows; i++) {
		sum += (uint64_t)t->rows[i].flat;
		fprintf(f, "%10s %s %s %10s %s  %s%s%s%s\n",
		    units_scaled_label(t->rows[i].flat, t->unit, out, a,
		    sizeof a),
		    units_percentage(t->rows[i].flat, t->total, pa, sizeof pa),
		    units_percentage((int64_t)sum, t->total, pb, sizeof pb),
		    units_scaled_label(t->rows[i].cum, t->unit, out, b,
		    sizeof b),
		    units_percentage(t->rows[i].cum, t->total, pc, sizeof pc),
		    t->rows[i].name, render_has(t->rows[i].inl) ? " (" : "",
		    render_has(t->rows[i].inl) ? t->rows[i].inl : "",
		    render_has(t->rows[i].inl) ? ")" : "");
	}
}

/* "unexpected reply from profd: what" into *cause (if not NULL); -1. */
int
render_bad(char **cause, const char *what)
{
	if (cause != NULL)
		xasprintf(cause, "unexpected reply from profd: %s", what);
	return -1;
}

/* A JSON integer, or fail. */
int
render_int(json_t *obj, const char *key, int64_t *v)
{
	json_t	*j;

	if ((j = json_object_get(obj, key)) == NULL || !json_is_integer(j))
		return -1;
	*v = (int64_t)json_integer_value(j);
	return 0;
}

const char *
render_str(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* A JSON integer member, 0 when it is missing or not an integer. */
int64_t
render_get_int(json_t *obj, const char *key)
{
	json_t	*j = json_object_get(obj, key);

	return json_is_integer(j) ? (int64_t)json_integer_value(j) : 0;
}

/* |v|, INT64_MIN included. */
int64_t
render_abs(int64_t v)
{
	return v < 0 ? (int64_t)(0 - (uint64_t)v) : v;
}

/* The unit a reply's values are in: its own "unit", else its metric's. */
const char *
render_unit(json_t *reply)
{
	const char	*unit;

	if ((unit = render_str(reply, "unit")) == NULL)
		unit = render_str(json_object_get(reply, "metric"), "unit");
	return unit;
}

/* The unit of a report whose smallest non-zero value is min and whose
 * total is total: pprof's selectOutputUnit, as render_output_unit. */
const char *
render_output_unit_for(const char *unit, int64_t min, int64_t total)
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
	return render_output_unit(&t);
}

/* A row's "inline": "inline" and "partial-inline" are printed after the
 * name as pprof prints them; "no" or anything else is not. */
static const char *
render_inline(const char *s)
{
	if (s != NULL && (strcmp(s, "inline") == 0 ||
	    strcmp(s, "partial-inline") == 0))
		return s;
	return NULL;
}

/* The short header of a view: the scope with its number of profiles and
 * the metric's type (pprof's File/Type/Time lines are per file). */
void
render_head(FILE *f, json_t *reply)
{
	const char	*scope;
	int64_t		 profiles;

	if ((scope = render_str(reply, "scope")) != NULL) {
		if (render_int(reply, "profiles", &profiles) == 0) {
			fprintf(f, "Scope: %s (%" PRId64 " profile%s)\n",
			    scope, profiles, profiles == 1 ? "" : "s");
		} else
			fprintf(f, "Scope: %s\n", scope);
	}
	render_type(f, reply);
}

/* "Type: inuse_space (average of 13 profiles)": the metric, and how the
 * window combined its profiles unless it added what each counts. */
void
render_type(FILE *f, json_t *reply)
{
	json_t		*m = json_object_get(reply, "metric");
	const char	*type = render_str(m, "type"), *agg;
	enum metric_aggregate a = AGG_DEFAULT;
	int64_t		 profiles = 0;
	char		 line[512];

	if (type == NULL)
		return;
	if ((agg = render_str(m, "aggregate")) != NULL)
		aggregate_parse(agg, &a);
	if (render_int(reply, "profiles", &profiles) == -1)
		profiles = -1;
	aggregate_type_line(line, sizeof line, type, a, profiles);
	fputs(line, f);
}

/* pprof's "Showing nodes accounting for" line, values in unit out. */
void
render_showing(FILE *f, const char *unit, const char *out, int64_t sum,
    int64_t total)
{
	char	 a[UNITS_LABEL_MAX], b[UNITS_LABEL_MAX];
	char	 pa[UNITS_PERCENT_MAX];

	fprintf(f, "Showing nodes accounting for %s, %s of %s total\n",
	    units_scaled_label(sum, unit, out, a, sizeof a),
	    render_trim(units_percentage(sum, total, pa, sizeof pa)),
	    units_scaled_label(total, unit, out, b, sizeof b));
}

/* The reply to GET /v1/top as pprof's -top prints it, after a short
 * header saying what was summed. */
int
render_top_json(FILE *f, json_t *reply, char **cause)
{
	struct render_top	 t;
	struct render_top_row	*rows;
	json_t			*jrows, *row;
	int64_t			 rows_total;
	size_t			 i;

	memset(&t, 0, sizeof t);
	if ((t.unit = render_unit(reply)) == NULL)
		return render_bad(cause, "no unit");
	if (render_int(reply, "total", &t.total) != 0)
		return render_bad(cause, "no total");
	jrows = json_object_get(reply, "rows");
	if (!json_is_array(jrows))
		return render_bad(cause, "no rows");
	if (render_int(reply, "rows_total", &rows_total) != 0 ||
	    rows_total < 0)
		rows_total = (int64_t)json_array_size(jrows);

	rows = xcalloc(json_array_size(jrows) + 1, sizeof *rows);
	json_array_foreach(jrows, i, row) {
		rows[i].name = render_str(row, "function");
		rows[i].inl = render_inline(render_str(row, "inline"));
		if (rows[i].name == NULL ||
		    render_int(row, "flat", &rows[i].flat) != 0 ||
		    render_int(row, "cum", &rows[i].cum) != 0) {
			free(rows);
			return render_bad(cause, "bad row in rows");
		}
	}
	t.rows = rows;
	t.nrows = json_array_size(jrows);
	t.rows_total = (size_t)rows_total;

	render_head(f, reply);
	render_top(f, &t);
	free(rows);
	return 0;
}

/* A small table: text cells, columns as wide as their widest cell (in
 * columns of the terminal), two spaces apart, numbers right-aligned, no
 * trailing blanks. */
struct render_table {
	size_t		  ncols;
	const char	 *align;	/* 'l' or 'r' per column */
	char		**cells;	/* row-major, the header first */
	size_t		  nrows;
};

static void
render_table_add(struct render_table *t, ...)
{
	va_list		 ap;
	const char	*s;
	size_t		 i;

	/* A row an element: the table doubled, not copied at each row
	 * (xappendarray; a listing of thousands of profiles). */
	t->cells = xappendarray(t->cells, t->nrows,
	    t->ncols * sizeof *t->cells);
	va_start(ap, t);
	for (i = 0; i < t->ncols; i++) {
		s = va_arg(ap, const char *);
		t->cells[t->nrows * t->ncols + i] = termsafe(s != NULL ? s :
		    "-", 0);
	}
	va_end(ap);
	t->nrows++;
}

static void
render_table_print(FILE *f, struct render_table *t)
{
	size_t	*w, r, c, n;
	char	*cell;

	w = xcalloc(t->ncols, sizeof *w);
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			n = termsafe_width(t->cells[r * t->ncols + c]);
			if (n > w[c])
				w[c] = n;
		}
	}
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			cell = t->cells[r * t->ncols + c];
			if (c > 0)
				fputs("  ", f);
			termsafe_pad(f, cell, c == t->ncols - 1 &&
			    t->align[c] != 'r' ? 0 : w[c], t->align[c] == 'r');
		}
		fputc('\n', f);
	}
	free(w);
	for (r = 0; r < t->nrows * t->ncols; r++)
		free(t->cells[r]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = 0;
}

/* A time as second-precision RFC 3339 in UTC, from the _ns field beside
 * it, else the string as the daemon gave it, else "-". */
const char *
render_time(json_t *obj, const char *key, char *buf, size_t len)
{
	char		 nskey[64];
	int64_t		 ns;
	time_t		 secs;
	struct tm	 tm;
	const char	*s;

	snprintf(nskey, sizeof nskey, "%s_ns", key);
	if (render_int(obj, nskey, &ns) == 0 && ns != 0) {
		secs = (time_t)(ns / 1000000000);
		if (ns < 0 && ns % 1000000000 != 0)
			secs--;
		if (gmtime_r(&secs, &tm) != NULL &&
		    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) != 0)
			return buf;
	}
	if ((s = render_str(obj, key)) != NULL && *s != '\0')
		return s;
	return "-";
}

/* Metric types joined by commas: "samples,cpu". */
static char *
render_metrics(json_t *metrics)
{
	json_t		*m;
	const char	*type;
	char		*s = NULL, *tmp;
	size_t		 i;

	json_array_foreach(metrics, i, m) {
		if ((type = render_str(m, "type")) == NULL)
			continue;
		if (s == NULL)
			s = xstrdup(type);
		else {
			xasprintf(&tmp, "%s,%s", s, type);
			free(s);
			s = tmp;
		}
	}
	return s != NULL ? s : xstrdup("-");
}

/* A profile's metric types with their kinds, each run of one kind
 * followed by it: "samples,cpu (delta)", "alloc_objects,alloc_space
 * (cumulative) inuse_objects,inuse_space (gauge)"; without kinds (an
 * older profd), as render_metrics. */
static char *
render_profile_metrics(json_t *metrics)
{
	json_t		*m;
	const char	*type, *kind, *run = NULL;
	char		*s = NULL, *tmp;
	size_t		 i;

	json_array_foreach(metrics, i, m) {
		if ((type = render_str(m, "type")) == NULL)
			continue;
		kind = render_str(m, "kind");
		if (s == NULL)
			s = xstrdup(type);
		else if (run != NULL && kind != NULL &&
		    strcmp(run, kind) != 0) {
			xasprintf(&tmp, "%s (%s) %s", s, run, type);
			free(s);
			s = tmp;
		} else {
			xasprintf(&tmp, "%s,%s", s, type);
			free(s);
			s = tmp;
		}
		run = kind;
	}
	if (s != NULL && run != NULL) {
		xasprintf(&tmp, "%s (%s)", s, run);
		free(s);
		s = tmp;
	}
	return s != NULL ? s : xstrdup("-");
}

/* Labels as k=v joined by commas, in the order the daemon sent them. */
static char *
render_labels(json_t *labels)
{
	const char	*key;
	json_t		*v;
	char		*s = NULL, *tmp, *val;

	json_object_foreach(labels, key, v) {
		if (json_is_string(v))
			val = xstrdup(json_string_value(v));
		else if (json_is_integer(v))
			xasprintf(&val, "%" JSON_INTEGER_FORMAT,
			    json_integer_value(v));
		else if (json_is_real(v))
			xasprintf(&val, "%g", json_real_value(v));
		else
			val = xstrdup("?");
		if (s == NULL)
			xasprintf(&tmp, "%s=%s", key, val);
		else
			xasprintf(&tmp, "%s,%s=%s", s, key, val);
		free(val);
		free(s);
		s = tmp;
	}
	return s != NULL ? s : xstrdup("-");
}

/* GET /v1/scopes as NAME PROFILES METRICS FIRST LAST. */
int
render_scopes_json(FILE *f, json_t *reply, char **cause)
{
	struct render_table	 t = { 5, "lrlll", NULL, 0 };
	json_t			*scopes, *s;
	char			 count[32], first[64], last[64];
	char			*metrics;
	int64_t			 n;
	size_t			 i;

	scopes = json_object_get(reply, "scopes");
	if (!json_is_array(scopes))
		return render_bad(cause, "no scopes");
	render_table_add(&t, "NAME", "PROFILES", "METRICS", "FIRST", "LAST");
	json_array_foreach(scopes, i, s) {
		if (render_int(s, "profiles", &n) == 0)
			snprintf(count, sizeof count, "%" PRId64, n);
		else
			snprintf(count, sizeof count, "-");
		metrics = render_metrics(json_object_get(s, "metrics"));
		render_table_add(&t, render_str(s, "name"), count, metrics,
		    render_time(s, "first_time", first, sizeof first),
		    render_time(s, "last_time", last, sizeof last));
		free(metrics);
	}
	render_table_print(f, &t);
	return 0;
}

/* GET /v1/profiles as ID TIME DURATION FORMAT SAMPLES METRICS NAME
 * LABELS. */
int
render_profiles_json(FILE *f, json_t *reply, char **cause)
{
	struct render_table	 t = { 8, "rlrlrlll", NULL, 0 };
	json_t			*profiles, *p;
	char			 id[32], when[64], dur[UNITS_LABEL_MAX];
	char			 samples[32];
	char			*metrics, *labels;
	const char		*name;
	int64_t			 n;
	size_t			 i;

	profiles = json_object_get(reply, "profiles");
	if (!json_is_array(profiles))
		return render_bad(cause, "no profiles");
	render_table_add(&t, "ID", "TIME", "DURATION", "FORMAT", "SAMPLES",
	    "METRICS", "NAME", "LABELS");
	json_array_foreach(profiles, i, p) {
		if (render_int(p, "id", &n) == 0)
			snprintf(id, sizeof id, "%" PRId64, n);
		else
			snprintf(id, sizeof id, "-");
		if (render_int(p, "duration_ns", &n) == 0 && n != 0)
			units_scaled_label(n, "nanoseconds", "auto", dur,
			    sizeof dur);
		else
			snprintf(dur, sizeof dur, "-");
		if (render_int(p, "samples", &n) == 0)
			snprintf(samples, sizeof samples, "%" PRId64, n);
		else
			snprintf(samples, sizeof samples, "-");
		metrics = render_profile_metrics(json_object_get(p,
		    "metrics"));
		labels = render_labels(json_object_get(p, "labels"));
		name = render_str(p, "name");
		if (name != NULL && *name == '\0')
			name = NULL;
		render_table_add(&t, id,
		    render_time(p, "time", when, sizeof when), dur,
		    render_str(p, "format"), samples, metrics, name, labels);
		free(metrics);
		free(labels);
	}
	render_table_print(f, &t);
	return 0;
}
