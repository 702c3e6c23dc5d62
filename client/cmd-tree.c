/* cmd-tree.c: a selection's call tree, GET /v1/tree, as an indented text
 * tree; --folded prints the daemon's folded stacks, --json its JSON. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

/* The default --min-fraction of the text tree (pprof's nodefraction). */
#define CMD_TREE_TEXT_FRACTION	"0.005"

static int	cmd_tree_exec(struct client *, int, char **);

const struct cmd_entry cmd_tree_entry = {
	"tree",
	"tree SELECTION [--fleet [--host H ...]] [--min-fraction F]\n"
	"    [--json | --folded]",
	cmd_tree_exec
};

struct cmd_tree_args {
	const char	*frac;
	int		 folded;
};

static int
cmd_tree_option(const struct cmd_entry *e, int ch, const char *arg, void *p)
{
	struct cmd_tree_args	*a = p;
	double			 d;

	switch (ch) {
	case 'f':
		if (cmd_double(arg, &d) != 0 || !(d >= 0 && d < 1))
			return cmd_usage_error(e, "tree: --min-fraction "
			    "\"%s\" is not a fraction from 0 to under 1", arg);
		a->frac = arg;
		return CMD_OPT_TAKEN;
	case 'F':
		a->folded = 1;
		return CMD_OPT_TAKEN;
	}
	return CMD_OPT_NOT_MINE;
}

/* --folded: text/plain, passed through as the daemon wrote it, but for
 * what a terminal would obey in it. */
static int
cmd_tree_folded(struct client *c, char *url)
{
	struct http_reply	 reply;
	int			 rc;

	http_query_add(&url, "format", "folded");
	rc = client_get_raw(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		return rc;
	termsafe_write(stdout, reply.body, reply.len, TERMSAFE_TEXT);
	http_reply_clear(&reply);
	return rc;
}

static int
cmd_tree_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		FLEET_OPTIONS,
		{ "min-fraction",	required_argument,	NULL, 'f' },
		CMD_JSON_OPTION,
		{ "folded",		no_argument,		NULL, 'F' },
		CMD_COMMON_OPTIONS
	};
	const struct cmd_entry	*e = &cmd_tree_entry;
	struct cmd_tree_args	 a = { NULL, 0 };
	struct cmd_args		 ca;
	char			*url;
	int			 rc;

	rc = cmd_parse(e, c, argc, argv, "-:s:m:f:h", opts, &ca,
	    CMD_PARSE_SELECTION,	    cmd_tree_option, &a);
	if (rc == -1 && ca.json && a.folded)
		rc = cmd_usage_error(e, "tree: --json and --folded exclude "
		    "each other");
	if (rc == -1)
		rc = cmd_need_scope(e, &ca.sel);
	if (rc == -1) {
		url = xstrdup("/v1/tree");
		selection_query(&ca.sel, &url);
		/* The text tree is for reading: like pprof -tree it leaves
		 * out what is under 0.5% unless told otherwise. */
		if (a.frac == NULL && !ca.json && !a.folded)
			a.frac = CMD_TREE_TEXT_FRACTION;
		if (a.frac != NULL)
			http_query_add(&url, "min_fraction", a.frac);
		/* The text tree shows names: no source files to parse. */
		if (!ca.json && !a.folded)
			http_query_add(&url, "source", "false");
		if (a.folded)
			rc = cmd_tree_folded(c, url);
		else
			rc = cmd_get_render(c, url, ca.json, render_tree_json);
	}
	selection_clear(&ca.sel);
	return rc;
}
