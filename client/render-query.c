/* render-query.c: the reply of POST /v1/query, {"columns": [...], "rows":
 * [[...], ...], "truncated": bool, "elapsed_ms": F}, as an aligned table
 * (NULL for nulls, numbers right-aligned) or as RFC 4180 CSV, made as the
 * reply streams in (jstream.c), since a reply can be hundreds of MB. A
 * CSV line is printed once its row has come. The table's widths and
 * alignment depend on every row, so its cells go to an unlinked temporary
 * file and the table is printed from there at the end. Either way what is
 * held in memory is one row. No HTTP here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "profctl.h"

struct render_query {
	FILE		*f;
	int		 csv;
	struct jstream	*js;
	json_t		*columns;	/* the member, whatever it is */
	int		 rows;		/* "rows": 0 none, 1 an array, 2 not */
	size_t		 nc;		/* columns, once the rows began */
	size_t		 nrows;		/* rows printed or kept */
	int		 truncated;
	char		*error;		/* a reply cut short: "error" */
	char		*detail;
	const char	*bad;		/* why the rows are not printed */
	/* The table: */
	char		**names;	/* the header, cleaned */
	size_t		*w;
	int		*right, *seen;
	FILE		*spool;		/* the cells, each NUL-terminated */
};

/* A cell as text; *num set when it is a number. NULL for null. */
static char *
render_query_cell(json_t *v, int *num)
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

/* The column's name: a string, else its JSON. */
static char *
render_query_name(json_t *col)
{
	if (json_is_string(col))
		return xstrdup(json_string_value(col));
	if (json_is_string(json_object_get(col, "name")))
		return xstrdup(json_string_value(json_object_get(col,
		    "name")));
	return json_dumps(col, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* One CSV field, RFC 4180: quoted when it holds a comma, a quote, CR or
 * LF (or starts or ends with a blank), quotes doubled. What a terminal
 * would obey in it is shown as an escape (termsafe.c) but a newline and
 * a tab: the quotes keep them in their field. */
void
render_query_csv_field(FILE *f, const char *raw)
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

/* An unlinked file in $TMPDIR (else /tmp) for the table's cells. */
static FILE *
render_query_spool(char **cause)
{
	const char	*dir = getenv("TMPDIR");
	char		*path;
	FILE		*f = NULL;
	int		 fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	xasprintf(&path, "%s/profctl-query.XXXXXX", dir);
	if ((fd = mkstemp(path)) != -1) {
		unlink(path);
		if ((f = fdopen(fd, "w+")) == NULL)
			close(fd);
	}
	if (f == NULL)
		xasprintf(cause, "query: a temporary file for the table in "
		    "%s: %s (--csv needs none)", dir, strerror(errno));
	free(path);
	return f;
}

/* The rows begin: the CSV header printed, the table's made ready. */
static int
render_query_begin(struct render_query *q, char **cause)
{
	size_t	 c;
	char	*s;

	if (!json_is_array(q->columns)) {
		q->bad = "no columns before rows";
		return 0;
	}
	q->nc = json_array_size(q->columns);
	if (q->csv) {
		for (c = 0; c < q->nc; c++) {
			if (c > 0)
				fputc(',', q->f);
			s = render_query_name(json_array_get(q->columns, c));
			render_query_csv_field(q->f, s);
			free(s);
		}
		fputs("\r\n", q->f);
		return 0;
	}
	if (q->nc == 0)
		return 0;
	q->names = xcalloc(q->nc, sizeof *q->names);
	q->w = xcalloc(q->nc, sizeof *q->w);
	q->right = xcalloc(q->nc, sizeof *q->right);
	q->seen = xcalloc(q->nc, sizeof *q->seen);
	for (c = 0; c < q->nc; c++) {
		s = render_query_name(json_array_get(q->columns, c));
		q->names[c] = termsafe(s, 0);
		free(s);
		q->w[c] = termsafe_width(q->names[c]);
		q->right[c] = 1;
	}
	if ((q->spool = render_query_spool(cause)) == NULL)
		return -1;
	return 0;
}

/* A row: printed as CSV, or its cells measured and kept for the table. A
 * column is right-aligned (header too) when every non-null cell of it is
 * a number. */
static void
render_query_row(struct render_query *q, json_t *row)
{
	size_t	 c, n;
	char	*s, *safe;
	int	 num;

	for (c = 0; c < q->nc; c++) {
		s = render_query_cell(json_array_get(row, c), &num);
		if (q->csv) {
			if (c > 0)
				fputc(',', q->f);
			if (s != NULL)
				render_query_csv_field(q->f, s);
			free(s);
			continue;
		}
		if (s == NULL)
			s = xstrdup("NULL");
		else {
			q->seen[c] = 1;
			if (!num)
				q->right[c] = 0;
		}
		safe = termsafe(s, 0);
		free(s);
		n = termsafe_width(safe);
		if (n > q->w[c])
			q->w[c] = n;
		fwrite(safe, 1, strlen(safe) + 1, q->spool);
		free(safe);
	}
	if (q->csv)
		fputs("\r\n", q->f);
}

/* A cell of the table: columns two spaces apart and as wide as their
 * widest cell (in columns of the terminal), no trailing blanks. */
static void
render_query_put(struct render_query *q, size_t c, const char *s)
{
	if (c > 0)
		fputs("  ", q->f);
	termsafe_pad(q->f, s, !q->right[c] && c == q->nc - 1 ? 0 : q->w[c],
	    q->right[c]);
}

/* The table, once every row has been measured. */
static int
render_query_table(struct render_query *q, char **cause)
{
	char	*cell = NULL;
	size_t	 r, c, cap = 0;

	if (q->nc == 0)
		return 0;
	for (c = 0; c < q->nc; c++) {
		if (!q->seen[c])
			q->right[c] = 0;
		render_query_put(q, c, q->names[c]);
	}
	fputc('\n', q->f);
	errno = 0;
	if (fflush(q->spool) != 0 || ferror(q->spool) ||
	    fseeko(q->spool, 0, SEEK_SET) != 0) {
		xasprintf(cause, "query: the table's temporary file: %s",
		    errno != 0 ? strerror(errno) : "a write failed");
		return -1;
	}
	for (r = 0; r < q->nrows; r++) {
		for (c = 0; c < q->nc; c++) {
			if (getdelim(&cell, &cap, '\0', q->spool) == -1) {
				free(cell);
				xasprintf(cause, "query: the table's temporary "
				    "file: %s", ferror(q->spool) ?
				    strerror(errno) : "cut short");
				return -1;
			}
			render_query_put(q, c, cell);
		}
		fputc('\n', q->f);
	}
	free(cell);
	return 0;
}

static void
render_query_keep(char **to, json_t *v)
{
	if (!json_is_string(v))
		return;
	free(*to);
	*to = xstrdup(json_string_value(v));
}

/* A member of the top object other than the rows (read whole). */
static void
render_query_member(struct render_query *q, const char *key, json_t *v)
{
	if (strcmp(key, "columns") == 0) {
		/* jansson kept the last of two; a table cannot change its
		 * columns. */
		if (q->columns != NULL && q->bad == NULL)
			q->bad = "columns given twice";
		if (q->columns == NULL)
			q->columns = json_incref(v);
	} else if (strcmp(key, "rows") == 0) {
		if (q->rows != 0 && q->bad == NULL)
			q->bad = "rows given twice";
		if (q->rows == 0)
			q->rows = json_is_array(v) ? 1 : 2;
	} else if (strcmp(key, "truncated") == 0)
		q->truncated = json_is_true(v);
	else if (strcmp(key, "error") == 0)
		render_query_keep(&q->error, v);
	else if (strcmp(key, "detail") == 0)
		render_query_keep(&q->detail, v);
}

/* Stream the rows array of the top object; take everything else whole. */
static int
render_query_whole_cb(void *arg, size_t depth, json_t *key, int c)
{
	(void)arg;
	if (depth == 0)
		return 0;
	return !(depth == 1 && c == '[' && key != NULL &&
	    strcmp(json_string_value(key), "rows") == 0);
}

static int
render_query_event_cb(void *arg, const struct jstream_event *e, char **cause)
{
	struct render_query	*q = arg;

	switch (e->ev) {
	case JSTREAM_ARRAY:
		if (e->depth == 0) {
			/* Not an object: it has no columns. */
			q->bad = "no columns";
			return 0;
		}
		/* The rows, as an array at depth 1 is nothing else. */
		if (q->rows != 0) {
			if (q->bad == NULL)
				q->bad = "rows given twice";
			return 0;
		}
		q->rows = 1;
		if (q->bad != NULL)
			return 0;
		return render_query_begin(q, cause);
	case JSTREAM_VALUE:
		if (e->depth == 1 && e->key != NULL)
			render_query_member(q, json_string_value(e->key),
			    e->value);
		else if (e->depth == 2 && q->bad == NULL) {
			if (!json_is_array(e->value)) {
				q->bad = "bad row in rows";
				return 0;
			}
			render_query_row(q, e->value);
			q->nrows++;
		}
		return 0;
	default:
		return 0;
	}
}

/* csv: print CSV, else the table. */
struct render_query *
render_query_new(FILE *f, int csv)
{
	struct render_query	*q;

	q = xcalloc(1, sizeof *q);
	q->f = f;
	q->csv = csv;
	q->js = jstream_new(render_query_whole_cb, render_query_event_cb, q);
	return q;
}

void
render_query_free(struct render_query *q)
{
	size_t	 c;

	if (q == NULL)
		return;
	jstream_free(q->js);
	if (q->columns != NULL)
		json_decref(q->columns);
	free(q->error);
	free(q->detail);
	if (q->names != NULL) {
		for (c = 0; c < q->nc; c++)
			free(q->names[c]);
	}
	free(q->names);
	free(q->w);
	free(q->right);
	free(q->seen);
	if (q->spool != NULL)
		fclose(q->spool);
	free(q);
}

/*
 * A client_feed_fn: the next n bytes of the reply, or its end (n 0), when
 * the table is printed. A reply cut short by an error (see
 * render_query_failed) is not one: it prints nothing more and returns 0.
 */
int
render_query_feed(void *arg, const char *p, size_t n, char **cause)
{
	struct render_query	*q = arg;

	if (n != 0)
		return jstream_feed(q->js, p, n, cause);
	if (jstream_end(q->js, cause) != 0)
		return -1;
	if (q->error != NULL)
		return 0;
	if (!json_is_array(q->columns))
		return render_bad(cause, "no columns");
	if (q->rows != 1)
		return render_bad(cause, "no rows");
	if (q->bad != NULL)
		return render_bad(cause, q->bad);
	if (!q->csv)
		return render_query_table(q, cause);
	return 0;
}

/* The rows printed (CSV) or in the table. */
size_t
render_query_rows(const struct render_query *q)
{
	return q->nrows;
}

int
render_query_truncated(const struct render_query *q)
{
	return q->truncated;
}

/* A reply whose status was sent before the query failed ends with the
 * members of an error reply: 1 and them, else 0. */
int
render_query_failed(const struct render_query *q, const char **error,
    const char **detail)
{
	if (q->error == NULL)
		return 0;
	*error = q->error;
	*detail = q->detail != NULL ? q->detail : "";
	return 1;
}
