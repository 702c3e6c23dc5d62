/* cmd-list.c: flat and cum per source line of the functions matching
 * REGEX, GET /v1/list, printed as go tool pprof -list prints them, with
 * the source read here (render-list.c). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_list_exec(struct client *, int, char **);

const struct cmd_entry cmd_list_entry = {
	"list",
	"list REGEX SELECTION [--fleet [--host H ...]] [--source-path DIR]\n"
	"    [--trim-path PREFIX] [--json]",
	cmd_list_exec
};

struct cmd_list_args {
	const char	*regex;
	struct render_list_opts o;
};

static int
cmd_list_option(const struct cmd_entry *e, int ch, const char *arg, void *p)
{
	struct cmd_list_args	*a = p;

	switch (ch) {
	case 1:
		if (a->regex != NULL)
			return cmd_usage_error(e, "list: unexpected argument "
			    "\"%s\" (one regular expression)", arg);
		a->regex = arg;
		return CMD_OPT_TAKEN;
	case 'p':
		a->o.source_path = arg;
		return CMD_OPT_TAKEN;
	case 'T':
		a->o.trim_path = arg;
		return CMD_OPT_TAKEN;
	}
	return CMD_OPT_NOT_MINE;
}

static int
cmd_list_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		FLEET_OPTIONS,
		{ "source-path", required_argument,	NULL, 'p' },
		{ "trim-path",	required_argument,	NULL, 'T' },
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};
	struct cmd_list_args	 a;
	struct cmd_args		 ca;
	struct http_reply	 reply;
	char			*url, *cause = NULL;
	int			 rc;

	memset(&a, 0, sizeof a);
	rc = cmd_parse(&cmd_list_entry, c, argc, argv, "-:s:m:h", opts, &ca,
	    CMD_PARSE_SELECTION | CMD_PARSE_SCOPE, cmd_list_option, &a);
	if (rc == -1 && (a.regex == NULL || *a.regex == '\0'))
		rc = cmd_usage_error(&cmd_list_entry, "list: no REGEX given");
	if (rc != -1) {
		selection_clear(&ca.sel);
		return rc;
	}
	url = xstrdup("/v1/list");
	http_query_add(&url, "regex", a.regex);
	selection_query(&ca.sel, &url);
	selection_clear(&ca.sel);
	rc = client_get(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		return rc;
	if (ca.json)
		render_json(stdout, reply.json);
	else {
		termsafe_json(reply.json);
		if (render_list(stdout, reply.json, &a.o, &cause) != 0) {
			termsafe_line(stderr, "profctl: %s", cause);
			free(cause);
			rc = PROFCTL_EXIT_REFUSED;
		}
	}
	http_reply_clear(&reply);
	return rc;
}
