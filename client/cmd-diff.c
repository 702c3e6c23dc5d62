/* cmd-diff.c: a selection against a base selection, GET /v1/diff, printed
 * as a table of the top deltas per function. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_diff_exec(struct client *, int, char **);

const struct cmd_entry cmd_diff_entry = {
	"diff",
	"diff SELECTION BASE-SELECTION [--fleet [--host H ...]] [--normalize]\n"
	"    [--limit N] [--json]",
	cmd_diff_exec
};

struct cmd_diff_args {
	long long	 n;
	int		 normalize;
};

static int
cmd_diff_option(const struct cmd_entry *e, int ch, const char *arg, void *p)
{
	struct cmd_diff_args	*a = p;

	switch (ch) {
	case 'N':
		a->normalize = 1;
		return CMD_OPT_TAKEN;
	case 'n':
		return cmd_limit_option(e, arg, &a->n);
	}
	return CMD_OPT_NOT_MINE;
}

static int
cmd_diff_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		SELECTION_BASE_OPTIONS,
		FLEET_OPTIONS,
		{ "normalize",	no_argument,		NULL, 'N' },
		{ "limit",	required_argument,	NULL, 'n' },
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};
	const struct cmd_entry	*e = &cmd_diff_entry;
	struct cmd_diff_args	 a = { 0, 0 };
	struct cmd_args		 ca;
	char			*url;
	int			 rc;

	rc = cmd_parse(e, c, argc, argv, "-:s:m:n:h", opts, &ca,
	    CMD_PARSE_SELECTION | CMD_PARSE_SCOPE, cmd_diff_option, &a);
	if (rc == -1 && !ca.sel.has_base_scope)
		rc = cmd_usage_error(e, "diff: --base-scope is required");
	if (rc == -1) {
		url = xstrdup("/v1/diff");
		selection_query(&ca.sel, &url);
		if (a.normalize)
			http_query_add(&url, "normalize", "true");
		cmd_limit_query(&url, a.n);
		rc = cmd_get_render(c, url, ca.json, render_diff_json);
	}
	selection_clear(&ca.sel);
	return rc;
}
