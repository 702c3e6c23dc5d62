/* cmd-diff.c: a selection against a base selection, GET /v1/diff, printed
 * as a table of the top deltas per function. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

static int	cmd_diff_exec(struct client *, int, char **);

const struct cmd_entry cmd_diff_entry = {
	"diff",
	"diff SELECTION BASE-SELECTION [--normalize] [--limit N] [--json]",
	cmd_diff_exec
};

static int
cmd_diff_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		SELECTION_BASE_OPTIONS,
		{ "normalize",	no_argument,		NULL, 'N' },
		{ "limit",	required_argument,	NULL, 'n' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "socket",	required_argument,	NULL, 'S' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct cmd_entry	*e = &cmd_diff_entry;
	struct http_reply	 reply;
	struct selection	 sel;
	char			*url, *end, *cause = NULL, limit[32];
	long long		 n = 0;
	int			 ch, rc, json = 0, normalize = 0;

	memset(&sel, 0, sizeof sel);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:s:m:n:h", opts,
	    NULL)) != -1) {
		if ((rc = selection_option(&sel, ch, optarg, &cause)) == 0)
			continue;
		if (rc == -1) {
			rc = cmd_usage_error(e, "diff: %s", cause);
			goto out;
		}
		switch (ch) {
		case 1:
			rc = cmd_usage_error(e, "diff: unexpected argument "
			    "\"%s\"", optarg);
			goto out;
		case 'N':
			normalize = 1;
			continue;
		case 'n':
			errno = 0;
			n = strtoll(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    n < 0) {
				rc = cmd_usage_error(e, "diff: --limit "
				    "\"%s\" is not a number of rows", optarg);
				goto out;
			}
			continue;
		case 'j':
			json = 1;
			continue;
		}
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1)
			goto out;
	}
	if (optind < argc) {
		rc = cmd_usage_error(e, "diff: unexpected argument \"%s\"",
		    argv[optind]);
		goto out;
	}
	if (!sel.has_scope) {
		rc = cmd_usage_error(e, "diff: --scope is required");
		goto out;
	}
	if (!sel.has_base_scope) {
		rc = cmd_usage_error(e, "diff: --base-scope is required");
		goto out;
	}

	url = xstrdup("/v1/diff");
	selection_query(&sel, &url);
	if (normalize)
		http_query_add(&url, "normalize", "true");
	if (n > 0) {
		snprintf(limit, sizeof limit, "%lld", n);
		http_query_add(&url, "limit", limit);
	}
	rc = client_get(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		goto out;
	if (json)
		render_json(stdout, reply.json);
	else if (render_diff_json(stdout, reply.json, &cause) != 0) {
		fprintf(stderr, "profctl: %s\n", cause);
		rc = PROFCTL_EXIT_REFUSED;
	}
	http_reply_clear(&reply);
out:
	free(cause);
	selection_clear(&sel);
	return (rc);
}
