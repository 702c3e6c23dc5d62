/* cmd-flamegraph.c: a selection's call tree, GET /v1/tree, as an
 * interactive SVG flame graph; with --diff, against a saved tree (or a saved
 * diff); with any --base-… flag, GET /v1/diff against a base selection. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_flamegraph_exec(struct client *, int, char **);

const struct cmd_entry cmd_flamegraph_entry = {
	"flamegraph",
	"flamegraph SELECTION [BASE-SELECTION] [--fleet [--host H ...]]\n"
	"    [--min-fraction F] "
	"[--title T] [--width PX] [--diff FILE] [-o FILE.svg]",
	cmd_flamegraph_exec
};

struct cmd_flamegraph_args {
	struct flamegraph_opts	 o;
	json_t			*tree;	/* while writing */
	const char		*frac;
	const char		*diff;
	const char		*output;
};

static int
cmd_flamegraph_fill(FILE *f, void *p)
{
	struct cmd_flamegraph_args	*a = p;
	char				*cause = NULL;

	if (flamegraph_render(f, a->tree, &a->o, &cause) != 0) {
		termsafe_line(stderr, "profctl: %s", cause);
		free(cause);
		return PROFCTL_EXIT_REFUSED;
	}
	return PROFCTL_EXIT_OK;
}

/* Write the SVG of tree to a->output, through a temporary file beside it;
 * "-" or NULL is stdout. */
static int
cmd_flamegraph_write(struct cmd_flamegraph_args *a, json_t *tree)
{
	a->tree = tree;
	if (a->output == NULL || strcmp(a->output, "-") == 0)
		return cmd_flamegraph_fill(stdout, a);
	return cmd_write_file(a->output, cmd_flamegraph_fill, a);
}

static int
cmd_flamegraph_option(const struct cmd_entry *e, int ch, const char *arg,
    void *p)
{
	struct cmd_flamegraph_args	*a = p;
	double				 d;

	switch (ch) {
	case 'f':
		if (cmd_double(arg, &d) != 0 || !(d >= 0 && d <= 1))
			return cmd_usage_error(e, "flamegraph: --min-fraction "
			    "\"%s\" is not a fraction between 0 and 1", arg);
		a->frac = arg;
		return CMD_OPT_TAKEN;
	case 't':
		a->o.title = arg;
		return CMD_OPT_TAKEN;
	case 'w':
		if (cmd_double(arg, &d) != 0 || !(d >= 100 && d <= 100000))
			return cmd_usage_error(e, "flamegraph: --width \"%s\" "
			    "is not 100 to 100000 px", arg);
		a->o.width = d;
		return CMD_OPT_TAKEN;
	case 'd':
		a->diff = arg;
		return CMD_OPT_TAKEN;
	case 'o':
		a->output = arg;
		return CMD_OPT_TAKEN;
	}
	return CMD_OPT_NOT_MINE;
}

static int
cmd_flamegraph_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		SELECTION_BASE_OPTIONS,
		FLEET_OPTIONS,
		{ "min-fraction",	required_argument,	NULL, 'f' },
		{ "title",		required_argument,	NULL, 't' },
		{ "width",		required_argument,	NULL, 'w' },
		{ "diff",		required_argument,	NULL, 'd' },
		{ "output",		required_argument,	NULL, 'o' },
		CMD_COMMON_OPTIONS
	};
	const struct cmd_entry		*e = &cmd_flamegraph_entry;
	struct cmd_flamegraph_args	 a;
	struct http_reply		 reply;
	json_error_t			 jerr;
	struct cmd_args			 ca;
	json_t				*base = NULL, *tree, *merged = NULL;
	char				*url;
	int				 rc;

	memset(&a, 0, sizeof a);
	rc = cmd_parse(e, c, argc, argv, "-:s:m:f:t:w:d:o:h", opts, &ca,
	    CMD_PARSE_SELECTION,	    cmd_flamegraph_option, &a);
	if (rc != -1)
		goto out;
	if (a.diff != NULL && ca.sel.has_base) {
		rc = cmd_usage_error(e, "flamegraph: --diff and --base-… "
		    "flags exclude each other");
		goto out;
	}

	if (a.diff != NULL) {
		if ((base = json_load_file(a.diff, 0, &jerr)) == NULL) {
			termsafe_line(stderr, "profctl: %s: %s", a.diff,
			    jerr.text);
			rc = PROFCTL_EXIT_USAGE;
			goto out;
		}
		/* A saved diff reply is drawn as it is. */
		if (json_is_integer(json_object_get(json_object_get(base,
		    "root"), "current"))) {
			rc = cmd_flamegraph_write(&a, base);
			goto out;
		}
	}
	if ((rc = cmd_need_scope(e, &ca.sel)) != -1)
		goto out;
	if (ca.sel.has_base && !ca.sel.has_base_scope) {
		rc = cmd_usage_error(e, "flamegraph: --base-scope is required "
		    "with --base-… flags");
		goto out;
	}

	/* Any base flag: the daemon's diff, drawn as a differential graph. */
	url = xstrdup(ca.sel.has_base ? "/v1/diff" : "/v1/tree");
	selection_query(&ca.sel, &url);
	if (a.frac != NULL && !ca.sel.has_base)
		http_query_add(&url, "min_fraction", a.frac);
	rc = client_get(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		goto out;
	tree = reply.json;
	if (base != NULL)
		tree = merged = flamegraph_diff_merge(base, reply.json);
	rc = cmd_flamegraph_write(&a, tree);
	json_decref(merged);
	http_reply_clear(&reply);
out:
	json_decref(base);
	selection_clear(&ca.sel);
	return rc;
}
