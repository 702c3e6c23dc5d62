/* clientref.h: what profctl printed for a /v1/query reply, a view's text
 * and a --json reply when it read the whole reply first (client/ as of
 * fcfbdfc), kept as the reference the streamed output must equal: the
 * renderers are that commit's, renamed ref_*. Header-only, as
 * clienttest.h. */
#ifndef PROFCTL_CLIENTREF_H
#define PROFCTL_CLIENTREF_H

#include "alloc.h"
#include "clienttest.h"

/* A cell as text; *num set when it is a number. NULL for null. */
static inline char *
ref_query_cell(json_t *v, int *num)
{
	char	*s;

	*num = 0;
	if (v == NULL || json_is_null(v))
		return NULL;
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
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
	return s;
}

static inline int
ref_query_check(json_t *reply, json_t **cols, json_t **rows,
    char **cause)
{
	json_t	*row;
	size_t	 i;

	*cols = json_object_get(reply, "columns");
	*rows = json_object_get(reply, "rows");
	if (!json_is_array(*cols))
		return render_bad(cause, "no columns");
	if (!json_is_array(*rows))
		return render_bad(cause, "no rows");
	json_array_foreach(*rows, i, row) {
		if (!json_is_array(row))
			return render_bad(cause, "bad row in rows");
	}
	return 0;
}

/* The column's name: a string, else its JSON. */
static inline char *
ref_query_name(json_t *col)
{
	if (json_is_string(col))
		return xstrdup(json_string_value(col));
	if (json_is_string(json_object_get(col, "name")))
		return xstrdup(json_string_value(json_object_get(col,
		    "name")));
	return json_dumps(col, JSON_COMPACT | JSON_ENCODE_ANY);
}

/*
 * The rows as a table: a header of the column names, columns two spaces
 * apart and as wide as their widest cell, numbers right-aligned, the rest
 * left-aligned, no trailing blanks. A column is right-aligned (header too)
 * when every non-null cell of it is a number.
 */
static inline int
ref_query_table(FILE *f, json_t *reply, char **cause)
{
	json_t	 *cols, *rows, *row;
	char	**cells, *safe;
	size_t	 *w, nc, nr, r, c, n, i;
	int	 *right, *seen, num;

	if (ref_query_check(reply, &cols, &rows, cause) != 0)
		return -1;
	nc = json_array_size(cols);
	nr = json_array_size(rows) + 1;
	if (nc == 0)
		return 0;
	cells = xcalloc(nr * nc, sizeof *cells);
	w = xcalloc(nc, sizeof *w);
	right = xcalloc(nc, sizeof *right);
	seen = xcalloc(nc, sizeof *seen);
	for (c = 0; c < nc; c++) {
		cells[c] = ref_query_name(json_array_get(cols, c));
		right[c] = 1;
	}
	json_array_foreach(rows, i, row) {
		r = i + 1;
		for (c = 0; c < nc; c++) {
			cells[r * nc + c] = ref_query_cell(json_array_get(row,
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
	/* (Since issue 40 the cells are made safe by termsafe.c and
	 * padded by the columns they take.) */
	for (r = 0; r < nr * nc; r++) {
		safe = termsafe(cells[r], 0);
		free(cells[r]);
		cells[r] = safe;
	}
	for (r = 0; r < nr; r++) {
		for (c = 0; c < nc; c++) {
			n = termsafe_width(cells[r * nc + c]);
			if (n > w[c])
				w[c] = n;
		}
	}
	for (r = 0; r < nr; r++) {
		for (c = 0; c < nc; c++) {
			if (c > 0)
				fputs("  ", f);
			termsafe_pad(f, cells[r * nc + c], !right[c] &&
			    c == nc - 1 ? 0 : w[c], right[c]);
		}
		fputc('\n', f);
	}
	for (r = 0; r < nr * nc; r++)
		free(cells[r]);
	free(cells);
	free(w);
	free(right);
	free(seen);
	return 0;
}

/* One CSV field, RFC 4180: quoted when it holds a comma, a quote, CR or
 * LF (or starts or ends with a blank), quotes doubled. (Since issue 40
 * the field made safe first, newlines and tabs kept.) */
static inline void
ref_csv_field(FILE *f, const char *raw)
{
	const char	*p;
	char		*s = termsafe(raw, TERMSAFE_TEXT);
	size_t		 n = strlen(s);

	if (strpbrk(s, ",\"\r\n") == NULL &&
	    (n == 0 || (s[0] != ' ' && s[n - 1] != ' '))) {
		fputs(s, f);
		free(s);
		return;
	}
	fputc('"', f);
	for (p = s; *p != '\0'; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
	free(s);
}

/* The rows as CSV: a header line, then a line per row, CRLF-terminated as
 * RFC 4180 says; nulls are empty fields. */
static inline int
ref_query_csv(FILE *f, json_t *reply, char **cause)
{
	json_t	*cols, *rows, *row;
	char	*s;
	size_t	 i, c, nc;
	int	 num;

	if (ref_query_check(reply, &cols, &rows, cause) != 0)
		return -1;
	nc = json_array_size(cols);
	for (c = 0; c < nc; c++) {
		if (c > 0)
			fputc(',', f);
		s = ref_query_name(json_array_get(cols, c));
		ref_csv_field(f, s);
		free(s);
	}
	fputs("\r\n", f);
	json_array_foreach(rows, i, row) {
		for (c = 0; c < nc; c++) {
			if (c > 0)
				fputc(',', f);
			s = ref_query_cell(json_array_get(row, c), &num);
			if (s != NULL) {
				ref_csv_field(f, s);
				free(s);
			}
		}
		fputs("\r\n", f);
	}
	return 0;
}

/* cmd_get_text's split of a view's text: stdout, and profd's error line
 * to stderr; the exit code. (Since issue 40 both made safe whole, as
 * termsafe.c says, newlines and tabs kept.) */
static inline int
ref_text(FILE *out, FILE *err, const char *body, size_t len)
{
	size_t	 n;

	for (n = len; n > 0 && body[n - 1] == '\n'; n--)
		;
	while (n > 0 && body[n - 1] != '\n')
		n--;
	if (strncmp(body + n, "profd: ", 7) == 0) {
		termsafe_write(out, body, n, TERMSAFE_TEXT);
		fputs("profctl: ", err);
		termsafe_write(err, body + n + 7, len - n - 7, TERMSAFE_TEXT);
		return PROFCTL_EXIT_REFUSED;
	}
	termsafe_write(out, body, len, TERMSAFE_TEXT);
	return PROFCTL_EXIT_OK;
}

/* render_json, as it was, its text made safe whole (since issue 40:
 * DEL and the C1 controls as \u escapes). */
static inline void
ref_json(FILE *f, json_t *reply)
{
	char	*s = json_dumps(reply, JSON_INDENT(2));

	if (s != NULL) {
		termsafe_write(f, s, strlen(s), TERMSAFE_TEXT);
		free(s);
	}
	fputc('\n', f);
}

#endif
