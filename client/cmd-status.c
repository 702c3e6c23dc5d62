/* cmd-status.c: what profd is doing, GET /v1/status. */
#include "profctl.h"

static int	cmd_status_exec(struct client *, int, char **);

const struct cmd_entry cmd_status_entry = {
	"status",
	"status [--json]",
	cmd_status_exec
};

static int
cmd_status_exec(struct client *c, int argc, char **argv)
{
	return cmd_get_exec(&cmd_status_entry, c, argc, argv, "/v1/status",
	    render_status_json);
}
