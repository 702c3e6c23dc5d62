/* cmd-tree.c: a selection's call tree, GET /v1/tree, as an indented text
 * tree; --folded prints the daemon's folded stacks, --json its JSON. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

static int	cmd_tree_exec(struct client *, int, char **);

const struct cmd_entry cmd_tree_entry = {
	"tree",
	"tree SELECTION [--min-fraction F] [--json | --folded]",
	cmd_tree_exec
};

static int
cmd_tree_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		{ "min-fraction",	required_argument,	NULL, 'f' },
		{ "json",		no_argument,		NULL, 'j' },
		{ "folded",		no_argument,		NULL, 'F' },
		{ "socket",		required_argument,	NULL, 'S' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL,			0,			NULL, 0 }
	};
	const struct cmd_entry	*e = &cmd_tree_entry;
	struct http_reply	 reply;
	struct selection	 sel;
	const char		*frac = NULL;
	char			*url, *end, *cause = NULL;
	double			 d;
	int			 ch, rc, json = 0, folded = 0;

	memset(&sel, 0, sizeof sel);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:s:m:f:h", opts,
	    NULL)) != -1) {
		if ((rc = selection_option(&sel, ch, optarg, &cause)) == 0)
			continue;
		if (rc == -1) {
			rc = cmd_usage_error(e, "tree: %s", cause);
			goto out;
		}
		switch (ch) {
		case 1:
			rc = cmd_usage_error(e, "tree: unexpected argument "
			    "\"%s\"", optarg);
			goto out;
		case 'f':
			errno = 0;
			d = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(d >= 0 && d < 1)) {
				rc = cmd_usage_error(e, "tree: --min-fraction "
				    "\"%s\" is not a fraction from 0 to under "
				    "1", optarg);
				goto out;
			}
			frac = optarg;
			continue;
		case 'j':
			json = 1;
			continue;
		case 'F':
			folded = 1;
			continue;
		}
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1)
			goto out;
	}
	if (optind < argc) {
		rc = cmd_usage_error(e, "tree: unexpected argument \"%s\"",
		    argv[optind]);
		goto out;
	}
	if (json && folded) {
		rc = cmd_usage_error(e, "tree: --json and --folded exclude "
		    "each other");
		goto out;
	}
	if (!sel.has_scope) {
		rc = cmd_usage_error(e, "tree: --scope is required");
		goto out;
	}

	url = xstrdup("/v1/tree");
	selection_query(&sel, &url);
	if (frac != NULL)
		http_query_add(&url, "min_fraction", frac);
	if (folded) {
		/* text/plain: passed through as the daemon wrote it. */
		http_query_add(&url, "format", "folded");
		rc = client_get_raw(c, url, &reply);
		free(url);
		if (rc != PROFCTL_EXIT_OK)
			goto out;
		fwrite(reply.body, 1, reply.len, stdout);
		http_reply_clear(&reply);
		goto out;
	}
	rc = client_get(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		goto out;
	if (json)
		render_json(stdout, reply.json);
	else if (render_tree_json(stdout, reply.json, &cause) != 0) {
		fprintf(stderr, "profctl: %s\n", cause);
		rc = PROFCTL_EXIT_REFUSED;
	}
	http_reply_clear(&reply);
out:
	free(cause);
	selection_clear(&sel);
	return (rc);
}
