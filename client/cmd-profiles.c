/* cmd-profiles.c: list the profiles of one scope, GET /v1/profiles. */
#include <getopt.h>
#include <stdlib.h>

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
		{ "json",	no_argument,		NULL, 'j' },
		{ "socket",	required_argument,	NULL, 'S' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct cmd_entry	*e = &cmd_profiles_entry;
	struct http_reply	 reply;
	const char		*scope = NULL;
	char			*url, *cause = NULL;
	int			 ch, rc, json = 0;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:s:h", opts, NULL)) != -1) {
		switch (ch) {
		case 1:
			return (cmd_usage_error(e, "profiles: unexpected "
			    "argument \"%s\"", optarg));
		case 's':
			scope = optarg;
			continue;
		case 'j':
			json = 1;
			continue;
		}
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1)
			return (rc);
	}
	if (optind < argc)
		return (cmd_usage_error(e, "profiles: unexpected argument "
		    "\"%s\"", argv[optind]));
	if (scope == NULL)
		return (cmd_usage_error(e, "profiles: --scope is required"));

	url = xstrdup("/v1/profiles");
	http_query_add(&url, "scope", scope);
	rc = client_get(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		return (rc);
	if (json)
		render_json(stdout, reply.json);
	else if (render_profiles_json(stdout, reply.json, &cause) != 0) {
		fprintf(stderr, "profctl: %s\n", cause);
		free(cause);
		rc = PROFCTL_EXIT_REFUSED;
	}
	http_reply_clear(&reply);
	return (rc);
}
