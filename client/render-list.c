/* render-list.c: the reply of /v1/list as go tool pprof -list prints it
 * (report/source.go printSource): per function and source file a ROUTINE
 * block of the lines around those with values, with their source text.
 * The source is read here, where the user is, found as pprof finds it
 * (trimPath, openSourceFile: --trim-path prefixes, then the search path
 * and each of its directories' parents).  A file that cannot be found is
 * no error: its lines with values are listed by number. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "profctl.h"

/* pprof's margin: lines shown before the first and after the last. */
#define LIST_MARGIN	5

/* Go's filepath.SplitList: ':'-separated, none for "". */
static char **
list_split(const char *s, size_t *n)
{
	char	**v = NULL;
	const char *p;

	*n = 0;
	if (s == NULL || *s == '\0')
		return NULL;
	for (;;) {
		p = strchr(s, ':');
		v = xreallocarray(v, *n + 1, sizeof *v);
		v[(*n)++] = p != NULL ? strndup(s, (size_t)(p - s)) :
		    xstrdup(s);
		if (v[*n - 1] == NULL) {
			fprintf(stderr, "profctl: out of memory\n");
			exit(PROFCTL_EXIT_USAGE);
		}
		if (p == NULL)
			return v;
		s = p + 1;
	}
}

static void
list_split_free(char **v, size_t n)
{
	while (n-- > 0)
		free(v[n]);
	free(v);
}

/* Go's filepath.Base and Dir, on a copy. */
static char *
list_base(const char *path)
{
	size_t	 n = strlen(path);
	const char *e;

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n == 0)
		return xstrdup(".");
	if (n == 1 && path[0] == '/')
		return xstrdup("/");
	for (e = path + n; e > path && e[-1] != '/'; e--)
		;
	return strndup(e, (size_t)(path + n - e));
}

static char *
list_dir(const char *path)
{
	size_t	 n = strlen(path);

	while (n > 0 && path[n - 1] != '/')
		n--;
	if (n == 0)
		return xstrdup(".");
	while (n > 1 && path[n - 1] == '/')
		n--;
	return strndup(path, n);
}

/* pprof's trimPath: without trim prefixes, the part of path after the
 * base name of a search path directory; then the first trim prefix
 * (and /proc/self/cwd/) path starts with is taken off. */
static const char *
list_trim(const char *path, const char *trim, const char *search)
{
	static const char *const cwd[] = { "/proc/self/cwd/./",
	    "/proc/self/cwd/" };
	char		**v, *base, *want;
	const char	*found, *out = NULL;
	size_t		 n, i, len;

	if (trim == NULL || *trim == '\0') {
		v = list_split(search, &n);
		for (i = 0; i < n && out == NULL; i++) {
			base = list_base(v[i]);
			xasprintf(&want, "/%s/", base);
			if ((found = strstr(path, want)) != NULL)
				out = found + strlen(want);
			free(base);
			free(want);
		}
		list_split_free(v, n);
		if (out != NULL)
			return out;
	}
	v = list_split(trim, &n);
	for (i = 0; i < n + 2 && out == NULL; i++) {
		const char *t = i < n ? v[i] : cwd[i - n];

		len = strlen(t);
		if (len == 0 || t[len - 1] != '/') {
			/* The prefix with a "/" added. */
			if (strncmp(path, t, len) == 0 && path[len] == '/')
				out = path + len + 1;
		} else if (strncmp(path, t, len) == 0)
			out = path + len;
	}
	list_split_free(v, n);
	return out != NULL ? out : path;
}

/* pprof's openSourceFile. */
static FILE *
list_open(const char *file, const char *search, const char *trim,
    char **why)
{
	const char	*path = list_trim(file, trim, search);
	char		**v, *dir, *parent, *name;
	FILE		*f = NULL;
	size_t		 n, i;

	*why = NULL;
	if (path[0] == '/') {
		if ((f = fopen(path, "r")) == NULL)
			xasprintf(why, "open %s: %s", path, strerror(errno));
		return f;
	}
	v = list_split(search, &n);
	for (i = 0; i < n && f == NULL; i++) {
		dir = xstrdup(v[i]);
		for (;;) {
			xasprintf(&name, "%s/%s", dir, path);
			f = fopen(name, "r");
			free(name);
			if (f != NULL)
				break;
			parent = list_dir(dir);
			if (strcmp(parent, dir) == 0) {
				free(parent);
				break;
			}
			free(dir);
			dir = parent;
		}
		free(dir);
	}
	list_split_free(v, n);
	if (f == NULL)
		xasprintf(why, "could not find file %s on path %s", path,
		    search);
	return f;
}

/* The file's lines as bufio.Scanner splits them (a final "\r" off),
 * safe to print: the profile names the file, and a tab is all of its
 * controls that stays. */
static char **
list_read(FILE *f, size_t *n)
{
	char	**lines = NULL, *line = NULL;
	size_t	 cap = 0;
	ssize_t	 len;

	*n = 0;
	while ((len = getline(&line, &cap, f)) != -1) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		lines = xappendarray(lines, *n, sizeof *lines);
		lines[(*n)++] = termsafe_mem(line, (size_t)len, TERMSAFE_TAB,
		    NULL);
	}
	free(line);
	return lines;
}

/* valueOrDot. */
static const char *
list_value(int64_t v, const char *unit, char *buf, size_t len)
{
	if (v == 0)
		return ".";
	return units_scaled_label(v, unit, "minimum", buf, len);
}

/* A line number moved by the margin, not past what int64 holds. */
static int64_t
list_margin(int64_t line, int64_t by)
{
	if (by > 0 && line > INT64_MAX - by)
		return INT64_MAX;
	if (by < 0 && line < INT64_MIN - by)
		return INT64_MIN;
	return line + by;
}

/* One function's lines in one file: pprof's getSourceFromFile. */
static int
list_file(FILE *f, const char *name, json_t *file, const char *unit,
    int64_t total, const struct render_list_opts *o, const char *search)
{
	char		 a[UNITS_LABEL_MAX], b[UNITS_LABEL_MAX];
	char		 pa[UNITS_PERCENT_MAX];
	const char	*path, *shown;
	json_t		*lines, *l;
	int64_t		 flat, cum, start, end, ln, lf, lc;
	char		**text = NULL, *why;
	FILE		*src;
	size_t		 ntext = 0, i, k;

	if ((path = render_str(file, "file")) == NULL ||
	    !json_is_array(lines = json_object_get(file, "lines")) ||
	    json_array_size(lines) == 0)
		return -1;
	flat = render_get_int(file, "flat");
	cum = render_get_int(file, "cum");
	/* pprof shows the path trimmed with the search path as given. */
	shown = list_trim(path, o->trim_path, o->source_path);
	fprintf(f, "ROUTINE ======================== %s in %s\n", name, shown);
	fprintf(f, "%10s %10s (flat, cum) %s of Total\n",
	    units_scaled_label(flat, unit, "minimum", a, sizeof a),
	    units_scaled_label(cum, unit, "minimum", b, sizeof b),
	    units_percentage(cum, total, pa, sizeof pa));
	if ((src = list_open(shown, search, o->trim_path, &why)) != NULL) {
		text = list_read(src, &ntext);
		fclose(src);
	}
	if (text == NULL) {
		/* No source here: the lines with values, by number (why
		 * names the user's directories: shown safe). */
		termsafe_line(f, " (no source: %s)", why != NULL ? why :
		    "the file is empty");
		json_array_foreach(lines, i, l) {
			fprintf(f, "%10s %10s %6" PRId64 ":\n",
			    list_value(render_get_int(l, "flat"), unit, a,
			    sizeof a), list_value(render_get_int(l, "cum"),
			    unit, b, sizeof b), render_get_int(l, "line"));
		}
		free(why);
		return 0;
	}
	free(why);
	/* Lines come sorted: the range is the first less the margin (or
	 * the function's start) to the last plus the margin. */
	start = render_get_int(file, "start_line");
	if (start == 0)
		start = list_margin(render_get_int(json_array_get(lines, 0),
		    "line"), -LIST_MARGIN);
	end = list_margin(render_get_int(json_array_get(lines,
	    json_array_size(lines) - 1), "line"), LIST_MARGIN);
	if (start < 1)
		start = 1;
	k = 0;
	for (ln = start; ln <= end && (size_t)ln <= ntext; ln++) {
		lf = lc = 0;
		for (; k < json_array_size(lines); k++) {
			l = json_array_get(lines, k);
			if (render_get_int(l, "line") > ln)
				break;
			if (render_get_int(l, "line") == ln) {
				lf = profctl_add(lf, render_get_int(l,
				    "flat"));
				lc = profctl_add(lc, render_get_int(l, "cum"));
			}
		}
		fprintf(f, "%10s %10s %6" PRId64 ":%s\n",
		    list_value(lf, unit, a, sizeof a),
		    list_value(lc, unit, b, sizeof b), ln, text[ln - 1]);
	}
	for (i = 0; i < ntext; i++)
		free(text[i]);
	free(text);
	return 0;
}

int
render_list(FILE *f, json_t *reply, const struct render_list_opts *o,
    char **cause)
{
	char		 a[UNITS_LABEL_MAX], cwd[PATH_MAX];
	const char	*unit, *name, *search = o->source_path;
	json_t		*funcs, *fn, *files, *file;
	int64_t		 total;
	size_t		 i, j;

	if ((unit = render_unit(reply)) == NULL ||
	    render_int(reply, "total", &total) != 0 ||
	    !json_is_array(funcs = json_object_get(reply, "functions")))
		return render_bad(cause, "no unit, total or functions");
	if (search == NULL || *search == '\0') {
		if (getcwd(cwd, sizeof cwd) == NULL) {
			xasprintf(cause, "could not stat current dir: %s",
			    strerror(errno));
			return -1;
		}
		search = cwd;
	}
	render_head(f, reply);
	fprintf(f, "Total: %s\n", units_scaled_label(total, unit, "minimum",
	    a, sizeof a));
	json_array_foreach(funcs, i, fn) {
		if ((name = render_str(fn, "function")) == NULL ||
		    !json_is_array(files = json_object_get(fn, "files")))
			return render_bad(cause, "bad function");
		if (json_array_size(files) == 0) {
			fprintf(f, "No source information for %s\n", name);
			continue;
		}
		json_array_foreach(files, j, file) {
			if (list_file(f, name, file, unit, total, o,
			    search) == -1)
				return render_bad(cause, "bad file");
		}
	}
	return 0;
}
