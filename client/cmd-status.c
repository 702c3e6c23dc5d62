/* cmd-status.c: what profd is doing, GET /v1/status. */
#include <getopt.h>
#include <stdlib.h>

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
	static const struct option	 opts[] = {
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};
	struct cmd_args	 ca;
	int		 rc;

	rc = cmd_parse(&cmd_status_entry, c, argc, argv, "-:h", opts, &ca, 0,
	    NULL, NULL);
	if (rc != -1)
		return (rc);
	return (cmd_get_render(c, xstrdup("/v1/status"), ca.json,
	    render_status_json));
}
