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
		{ "json",	no_argument,		NULL, 'j' },
		{ "socket",	required_argument,	NULL, 'S' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct cmd_entry	*e = &cmd_scopes_entry;
	struct http_reply	 reply;
	char			*cause = NULL;
	int			 ch, rc, json = 0;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:h", opts, NULL)) != -1) {
		switch (ch) {
		case 1:
			return (cmd_usage_error(e, "scopes: unexpected "
			    "argument \"%s\"", optarg));
		case 'j':
			json = 1;
			continue;
		}
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1)
			return (rc);
	}
	if (optind < argc)
		return (cmd_usage_error(e, "scopes: unexpected argument "
		    "\"%s\"", argv[optind]));

	if ((rc = client_get(c, "/v1/scopes", &reply)) != PROFCTL_EXIT_OK)
		return (rc);
	if (json)
		render_json(stdout, reply.json);
	else if (render_scopes_json(stdout, reply.json, &cause) != 0) {
		fprintf(stderr, "profctl: %s\n", cause);
		free(cause);
		rc = PROFCTL_EXIT_REFUSED;
	}
	http_reply_clear(&reply);
	return (rc);
}
