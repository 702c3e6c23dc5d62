/* cmd-profiles.c: list the profiles of one scope, GET /v1/profiles. */
#include <getopt.h>
#include <stdlib.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_profiles_exec(struct client *, int, char **);

const struct cmd_entry cmd_profiles_entry = {
	"profiles",
	"profiles --scope S [--json]",
	cmd_profiles_exec
};

static int
cmd_profiles_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "scope",	required_argument,	NULL, 's' },
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};
	const struct cmd_entry	*e = &cmd_profiles_entry;
	struct cmd_args		 ca;
	struct cmd_string	 scope = { 's', NULL };
	char			*url;
	int			 rc;

	rc = cmd_parse(e, c, argc, argv, "-:s:h", opts, &ca, 0,
	    cmd_string_option, &scope);
	if (rc == -1 && scope.value == NULL)
		rc = cmd_usage_error(e, "profiles: --scope is required");
	if (rc != -1)
		return rc;
	url = xstrdup("/v1/profiles");
	http_query_add(&url, "scope", scope.value);
	return cmd_get_render(c, url, ca.json, render_profiles_json);
}
