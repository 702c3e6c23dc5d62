/* cmd-scopes.c: list the scopes profd knows, GET /v1/scopes. */
#include <getopt.h>
#include <stdlib.h>

#include "profctl.h"

static int	cmd_scopes_exec(struct client *, int, char **);

const struct cmd_entry cmd_scopes_entry = {
	"scopes",
	"scopes [--json]",
	cmd_scopes_exec
};

static int
cmd_scopes_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};
	struct cmd_args	 ca;
	int		 rc;

	rc = cmd_parse(&cmd_scopes_entry, c, argc, argv, "-:h", opts, &ca, 0,
	    NULL, NULL);
	if (rc != -1)
		return (rc);
	return (cmd_get_render(c, xstrdup("/v1/scopes"), ca.json,
	    render_scopes_json));
}
