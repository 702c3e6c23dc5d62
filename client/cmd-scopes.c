/* cmd-scopes.c: list the scopes profd knows, GET /v1/scopes. */
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
	return cmd_get_exec(&cmd_scopes_entry, c, argc, argv, "/v1/scopes",
	    render_scopes_json);
}
