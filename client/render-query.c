/* render-query.c: the reply of POST /v1/query, {"columns": [...], "rows":
 * [[...], ...], "truncated": bool, "elapsed_ms": F}, as an aligned table
 * (NULL for nulls, numbers right-aligned) or as RFC 4180 CSV. No HTTP
 * here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

/* A cell as text; *num set when it is a number. NULL for null. */
static char *
render_query_cell(json_t *v, int *num)
{
	char	*s;

	*num = 0;
	if (v == NULL || json_is_null(v))
		return (NULL);
	if (json_is_string(v))
		return (xstrdup(json_string_value(v)));
	*num = 1;
	if (json_is_integer(v))
		xasprintf(&s, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		xasprintf(&s, "%.17g", json_real_value(v));
	else {
		*num = 0;
		if (json_is_true(v))
			s = xstrdup("true");
		else if (json_is_false(v))
			s = xstrdup("false");
		else
			s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	}
	return (s);
}

static int
render_query_check(json_t *reply, json_t **cols, json_t **rows,
    char **cause)
{
	json_t	*row;
	size_t	 i;

	*cols = json_object_get(reply, "columns");
	*rows = json_object_get(reply, "rows");
	if (!json_is_array(*cols))
		return (render_bad(cause, "no columns"));
	if (!json_is_array(*rows))
		return (render_bad(cause, "no rows"));
	json_array_foreach(*rows, i, row) {
		if (!json_is_array(row))
			return (render_bad(cause, "bad row in rows"));
	}
	return (0);
}

/* The column's name: a string, else its JSON. */
static char *
render_query_name(json_t *col)
{
	if (json_is_string(col))
		return (xstrdup(json_string_value(col)));
	if (json_is_string(json_object_get(col, "name")))
		return (xstrdup(json_string_value(json_object_get(col,
		    "name"))));
	return (json_dumps(col, JSON_COMPACT | JSON_ENCODE_ANY));
}

/*
 * The rows as a table: a header of the column names, columns two spaces
 * apart and as wide as their widest cell, numbers right-aligned, the rest
 * left-aligned, no trailing blanks. A column is right-aligned (header too)
 * when every non-null cell of it is a number.
 */
int
render_query_table(FILE *f, json_t *reply, char **cause)
{
	json_t	 *cols, *rows, *row;
	char	**cells;
	size_t	 *w, nc, nr, r, c, n, i;
	int	 *right, *seen, num;

	if (render_query_check(reply, &cols, &rows, cause) != 0)
		return (-1);
	nc = json_array_size(cols);
	nr = json_array_size(rows) + 1;
	if (nc == 0)
		return (0);
	cells = xcalloc(nr * nc, sizeof *cells);
	w = xcalloc(nc, sizeof *w);
	right = xcalloc(nc, sizeof *right);
	seen = xcalloc(nc, sizeof *seen);
	for (c = 0; c < nc; c++) {
		cells[c] = render_query_name(json_array_get(cols, c));
		right[c] = 1;
	}
	json_array_foreach(rows, i, row) {
		r = i + 1;
		for (c = 0; c < nc; c++) {
			cells[r * nc + c] = render_query_cell(json_array_get(row,
			    c), &num);
			if (cells[r * nc + c] == NULL) {
				cells[r * nc + c] = xstrdup("NULL");
				continue;
			}
			seen[c] = 1;
			if (!num)
				right[c] = 0;
		}
	}
	for (c = 0; c < nc; c++) {
		if (!seen[c])
			right[c] = 0;
	}
	for (r = 0; r < nr * nc; r++)
		render_clean(cells[r]);
	for (r = 0; r < nr; r++) {
		for (c = 0; c < nc; c++) {
			n = strlen(cells[r * nc + c]);
			if (n > w[c])
				w[c] = n;
		}
	}
	for (r = 0; r < nr; r++) {
		for (c = 0; c < nc; c++) {
			if (c > 0)
				fputs("  ", f);
			if (right[c])
				fprintf(f, "%*s", (int)w[c], cells[r * nc + c]);
			else if (c == nc - 1)
				fputs(cells[r * nc + c], f);
			else
				fprintf(f, "%-*s", (int)w[c], cells[r * nc + c]);
		}
		fputc('\n', f);
	}
	for (r = 0; r < nr * nc; r++)
		free(cells[r]);
	free(cells);
	free(w);
	free(right);
	free(seen);
	return (0);
}

/* One CSV field, RFC 4180: quoted when it holds a comma, a quote, CR or
 * LF (or starts or ends with a blank), quotes doubled. */
void
render_query_csv_field(FILE *f, const char *s)
{
	const char	*p;
	size_t		 n = strlen(s);

	if (strpbrk(s, ",\"\r\n") == NULL &&
	    (n == 0 || (s[0] != ' ' && s[n - 1] != ' '))) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (p = s; *p != '\0'; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

/* The rows as CSV: a header line, then a line per row, CRLF-terminated as
 * RFC 4180 says; nulls are empty fields. */
int
render_query_csv(FILE *f, json_t *reply, char **cause)
{
	json_t	*cols, *rows, *row;
	char	*s;
	size_t	 i, c, nc;
	int	 num;

	if (render_query_check(reply, &cols, &rows, cause) != 0)
		return (-1);
	nc = json_array_size(cols);
	for (c = 0; c < nc; c++) {
		if (c > 0)
			fputc(',', f);
		s = render_query_name(json_array_get(cols, c));
		render_query_csv_field(f, s);
		free(s);
	}
	fputs("\r\n", f);
	json_array_foreach(rows, i, row) {
		for (c = 0; c < nc; c++) {
			if (c > 0)
				fputc(',', f);
			s = render_query_cell(json_array_get(row, c), &num);
			if (s != NULL) {
				render_query_csv_field(f, s);
				free(s);
			}
		}
		fputs("\r\n", f);
	}
	return (0);
}
