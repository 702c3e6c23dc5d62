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
cmd_status_option(const struct cmd_entry *e, int ch, const char *arg,
    void *p)
{
	int	*json = p;

	if (ch == 'j') {
		*json = 1;
		return (CMD_OPT_TAKEN);
	}
	return (CMD_OPT_NOT_MINE);
}

static int
cmd_status_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "json",	no_argument,		NULL, 'j' },
		CMD_COMMON_OPTIONS
	};
	int	 rc, json = 0;

	rc = cmd_parse(&cmd_status_entry, c, argc, argv, "-:h", opts, NULL, 0,
	    cmd_status_option, &json);
	if (rc != -1)
		return (rc);
	return (cmd_get_render(c, xstrdup("/v1/status"), json,
	    render_status_json));
}
