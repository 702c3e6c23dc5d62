/* cmd-views.c: pprof's other text views of a selection: peek REGEX
 * (GET /v1/peek), traces (GET /v1/traces) and tags (GET /v1/tags),
 * printed as go tool pprof -peek, -traces and -tags print them; the text
 * of peek and traces is profd's (format=text), printed as it is. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

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
			return (cmd_usage_error(e, "%s: unexpected argument "
			    "\"%s\" (one regular expression)", e->name, arg));
		a->regex = arg;
		return (CMD_OPT_TAKEN);
	case 'g':
		if (strcmp(arg, "function") != 0 && strcmp(arg, "line") != 0 &&
		    strcmp(arg, "file") != 0)
			return (cmd_usage_error(e, "%s: --granularity \"%s\" "
			    "is none of function, line, file", e->name, arg));
		a->gran = arg;
		return (CMD_OPT_TAKEN);
	case 't':
		if (*arg == '\0')
			return (cmd_usage_error(e, "%s: --tag is empty",
			    e->name));
		a->tag = arg;
		return (CMD_OPT_TAKEN);
	case 'n':
		return (cmd_limit_option(e, arg, &a->limit));
	}
	return (CMD_OPT_NOT_MINE);
}

/* Parse, ask path with the view's parameters, print with render (NULL:
 * the reply is text to print as it is, or JSON with --json).  REGEX is
 * the one operand of peek and none of the others'. */
/* GET url (freed) with format=text, its body to standard output. */
static int
cmd_get_text(struct client *c, char *url)
{
	struct http_reply	 reply;
	size_t			 n;
	int			 rc;

	http_query_add(&url, "format", "text");
	rc = client_get_raw(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		return (rc);
	/* A reply cut short ends in profd's error line, not the last
	 * separator: that goes to standard error. */
	for (n = reply.len; n > 0 && reply.body[n - 1] == '\n'; n--)
		;
	while (n > 0 && reply.body[n - 1] != '\n')
		n--;
	if (strncmp(reply.body + n, "profd: ", 7) == 0) {
		fwrite(reply.body, 1, n, stdout);
		fflush(stdout);
		fprintf(stderr, "profctl: %s", reply.body + n + 7);
		rc = PROFCTL_EXIT_REFUSED;
	} else
		fwrite(reply.body, 1, reply.len, stdout);
	http_reply_clear(&reply);
	return (rc);
}

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
			rc = cmd_get_text(c, url);
		else
			rc = cmd_get_render(c, url, ca.json, render);
	}
	selection_clear(&ca.sel);
	return (rc);
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

	return (cmd_view_run(&cmd_peek_entry, c, argc, argv, "-:s:m:h", opts,
	    "/v1/peek", NULL));
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

	return (cmd_view_run(&cmd_traces_entry, c, argc, argv, "-:s:m:n:h",
	    opts, "/v1/traces", NULL));
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

	return (cmd_view_run(&cmd_tags_entry, c, argc, argv, "-:s:m:t:h", opts,
	    "/v1/tags", render_tags_json));
}
