/* cmd-timeline.c: a selection's totals per time step, GET /v1/timeline, as
 * a terminal sparkline. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_timeline_exec(struct client *, int, char **);

const struct cmd_entry cmd_timeline_entry = {
	"timeline",
	"timeline SELECTION [--fleet [--host H ...]] [--step DURATION] [--json]",
	cmd_timeline_exec
};

struct cmd_timeline_args {
	const char	*step;
};

static int
cmd_timeline_option(const struct cmd_entry *e, int ch, const char *arg,
    void *p)
{
	struct cmd_timeline_args	*a = p;

	switch (ch) {
	case 't':
		if (*arg == '\0')
			return cmd_usage_error(e, "timeline: --step must not "
			    "be empty");
		a->step = arg;	/* the daemon checks it */
		return CMD_OPT_TAKEN;
	}
	return CMD_OPT_NOT_MINE;
}

static int
cmd_timeline_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		FLEET_OPTIONS,
		{ "step",	required_argument,	NULL, 't' },
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};
	struct cmd_timeline_args	 a = { NULL };
	struct cmd_args			 ca;
	char				*url;
	int				 rc;

	rc = cmd_parse(&cmd_timeline_entry, c, argc, argv, "-:s:m:h", opts,
	    &ca, CMD_PARSE_SELECTION | CMD_PARSE_SCOPE, cmd_timeline_option,
	    &a);
	if (rc == -1) {
		url = xstrdup("/v1/timeline");
		selection_query(&ca.sel, &url);
		if (a.step != NULL)
			http_query_add(&url, "step", a.step);
		rc = cmd_get_render(c, url, ca.json, render_timeline_json);
	}
	selection_clear(&ca.sel);
	return rc;
}
