/* cmd-views.c: pprof's other text views of a selection: peek REGEX
 * (GET /v1/peek), traces (GET /v1/traces) and tags (GET /v1/tags),
 * printed as go tool pprof -peek, -traces and -tags print them; the text
 * of peek and traces is profd's (format=text), printed as it is but for
 * what a terminal would obey in it (termsafe.c). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_peek_exec(struct client *, int, char **);
static int	cmd_traces_exec(struct client *, int, char **);
static int	cmd_tags_exec(struct client *, int, char **);

const struct cmd_entry cmd_peek_entry = {
	"peek",
	"peek REGEX SELECTION [--fleet [--host H ...]]\n"
	"    [--granularity function|line|file] [--json]",
	cmd_peek_exec
};

const struct cmd_entry cmd_traces_entry = {
	"traces",
	"traces SELECTION [--limit N] [--json]",
	cmd_traces_exec
};

const struct cmd_entry cmd_tags_entry = {
	"tags",
	"tags SELECTION [--tag KEY] [--json]",
	cmd_tags_exec
};

struct cmd_view_args {
	const char	*regex;		/* the operand of peek and list */
	const char	*gran;
	const char	*tag;
	long long	 limit;
};

/* REGEX, and the options of the views. */
static int
cmd_view_option(const struct cmd_entry *e, int ch, const char *arg, void *p)
{
	struct cmd_view_args	*a = p;

	switch (ch) {
	case 1:
		if (a->regex != NULL)
			return cmd_usage_error(e, "%s: unexpected argument "
			    "\"%s\" (one regular expression)", e->name, arg);
		a->regex = arg;
		return CMD_OPT_TAKEN;
	case 'g':
		if (strcmp(arg, "function") != 0 && strcmp(arg, "line") != 0 &&
		    strcmp(arg, "file") != 0)
			return cmd_usage_error(e, "%s: --granularity \"%s\" "
			    "is none of function, line, file", e->name, arg);
		a->gran = arg;
		return CMD_OPT_TAKEN;
	case 't':
		if (*arg == '\0')
			return cmd_usage_error(e, "%s: --tag is empty",
			    e->name);
		a->tag = arg;
		return CMD_OPT_TAKEN;
	case 'n':
		return cmd_limit_option(e, arg, &a->limit);
	}
	return CMD_OPT_NOT_MINE;
}

/*
 * The text of a view (format=text) to standard output as it streams in,
 * a line once it is whole. A reply cut short ends in profd's error line,
 * "profd: ...", where the last separator would be: that goes to standard
 * error. So a line that may be it (and the blank lines after it) is held
 * until the next one begins or the reply ends.
 */
struct cmd_view_text {
	char	*held;
	size_t	 n, cap;
	int	 nl;		/* the last byte was a newline, or none came */
};

/* Can what is held still be profd's error line? */
static int
cmd_view_text_maybe_error(const struct cmd_view_text *t)
{
	return memcmp(t->held, "profd: ", t->n < 7 ? t->n : 7) == 0;
}

static int
cmd_view_text_feed(void *arg, const char *p, size_t n, char **cause)
{
	struct cmd_view_text	*t = arg;
	const char		*end = p + n, *nl;
	size_t			 k;

	(void)cause;
	while (p < end) {
		if (t->nl && *p != '\n' && t->n > 0) {
			termsafe_write(stdout, t->held, t->n, TERMSAFE_TEXT);
			t->n = 0;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		k = nl != NULL ? (size_t)(nl + 1 - p) : (size_t)(end - p);
		if (t->cap - t->n <= k) {
			t->cap = (t->n + k + 1) * 2;
			t->held = xreallocarray(t->held, t->cap, 1);
		}
		memcpy(t->held + t->n, p, k);
		t->n += k;
		t->nl = nl != NULL;
		p += k;
		/* Whole lines that are not the error line go out now. */
		if (t->nl && !cmd_view_text_maybe_error(t)) {
			termsafe_write(stdout, t->held, t->n, TERMSAFE_TEXT);
			t->n = 0;
		}
	}
	return 0;
}

/* GET url (freed) with format=text, its body to standard output. */
static int
cmd_view_text(struct client *c, char *url)
{
	struct cmd_view_text	 t = { NULL, 0, 0, 1 };
	int			 rc;

	http_query_add(&url, "format", "text");
	rc = client_stream(c, "GET", url, NULL, NULL, 0, cmd_view_text_feed,
	    &t);
	free(url);
	if (rc == PROFCTL_EXIT_OK && t.n > 0) {
		t.held[t.n] = '\0';
		if (strncmp(t.held, "profd: ", 7) == 0) {
			fflush(stdout);
			fputs("profctl: ", stderr);
			termsafe_write(stderr, t.held + 7, t.n - 7,
			    TERMSAFE_TEXT);
			rc = PROFCTL_EXIT_REFUSED;
		} else
			termsafe_write(stdout, t.held, t.n, TERMSAFE_TEXT);
	}
	free(t.held);
	return rc;
}

/* Parse, ask path with the view's parameters, print with render (NULL:
 * the reply is text to print as it is, or JSON with --json, either as it
 * streams in). REGEX is the one operand of peek and none of the
 * others'. */
static int
cmd_view_run(const struct cmd_entry *e, struct client *c, int argc,
    char **argv, const char *optstring, const struct option *opts,
    const char *path, cmd_render_fn render)
{
	struct cmd_view_args	 a;
	struct cmd_args		 ca;
	char			*url;
	int			 rc, want_regex = e == &cmd_peek_entry;

	memset(&a, 0, sizeof a);
	rc = cmd_parse(e, c, argc, argv, optstring, opts, &ca,
	    CMD_PARSE_SELECTION | CMD_PARSE_SCOPE, cmd_view_option, &a);
	if (rc == -1 && want_regex && (a.regex == NULL || *a.regex == '\0'))
		rc = cmd_usage_error(e, "%s: no REGEX given", e->name);
	else if (rc == -1 && !want_regex && a.regex != NULL)
		rc = cmd_usage_error(e, "%s: unexpected argument \"%s\"",
		    e->name, a.regex);
	if (rc == -1) {
		url = xstrdup(path);
		if (a.regex != NULL)
			http_query_add(&url, "regex", a.regex);
		selection_query(&ca.sel, &url);
		if (a.gran != NULL)
			http_query_add(&url, "granularity", a.gran);
		if (a.tag != NULL)
			http_query_add(&url, "tag", a.tag);
		cmd_limit_query(&url, a.limit);
		if (render == NULL && !ca.json)
			rc = cmd_view_text(c, url);
		else if (render == NULL) {
			rc = cmd_stream_json(c, "GET", url, NULL, NULL, 0,
			    NULL);
			free(url);
		} else
			rc = cmd_get_render(c, url, ca.json, render);
	}
	selection_clear(&ca.sel);
	return rc;
}

static int
cmd_peek_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		FLEET_OPTIONS,
		{ "granularity", required_argument,	NULL, 'g' },
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};

	return cmd_view_run(&cmd_peek_entry, c, argc, argv, "-:s:m:h", opts,
	    "/v1/peek", NULL);
}

static int
cmd_traces_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		{ "limit",	required_argument,	NULL, 'n' },
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};

	return cmd_view_run(&cmd_traces_entry, c, argc, argv, "-:s:m:n:h",
	    opts, "/v1/traces", NULL);
}

static int
cmd_tags_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		{ "tag",	required_argument,	NULL, 't' },
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};

	return cmd_view_run(&cmd_tags_entry, c, argc, argv, "-:s:m:t:h", opts,
	    "/v1/tags", render_tags_json);
}
