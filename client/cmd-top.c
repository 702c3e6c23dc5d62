/* cmd-top.c: flat and cum per function of a selection, GET /v1/top, printed as
 * `go tool pprof -top` prints them. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_top_exec(struct client *, int, char **);

const struct cmd_entry cmd_top_entry = {
	"top",
	"top SELECTION [--fleet [--host H ...]] [--limit N] [--cum] [--json]",
	cmd_top_exec
};

struct cmd_top_args {
	long long	 n;
	int		 cum;
};

static int
cmd_top_option(const struct cmd_entry *e, int ch, const char *arg, void *p)
{
	struct cmd_top_args	*a = p;

	switch (ch) {
	case 'n':
		return cmd_limit_option(e, arg, &a->n);
	case 'c':
		a->cum = 1;
		return CMD_OPT_TAKEN;
	}
	return CMD_OPT_NOT_MINE;
}

static int
cmd_top_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		FLEET_OPTIONS,
		{ "limit",	required_argument,	NULL, 'n' },
		{ "cum",	no_argument,		NULL, 'c' },
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};
	struct cmd_top_args	 a = { 0, 0 };
	struct cmd_args		 ca;
	char			*url;
	int			 rc;

	rc = cmd_parse(&cmd_top_entry, c, argc, argv, "-:s:m:n:h", opts, &ca,
	    CMD_PARSE_SELECTION | CMD_PARSE_SCOPE, cmd_top_option, &a);
	if (rc == -1) {
		url = xstrdup("/v1/top");
		selection_query(&ca.sel, &url);
		cmd_limit_query(&url, a.n);
		if (a.cum)
			http_query_add(&url, "sort", "cum");
		rc = cmd_get_render(c, url, ca.json, render_top_json);
	}
	selection_clear(&ca.sel);
	return rc;
}
