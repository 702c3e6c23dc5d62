/* cmd-timeline.c: a selection's totals per time step, GET /v1/timeline, as
 * a terminal sparkline. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

static int	cmd_timeline_exec(struct client *, int, char **);

const struct cmd_entry cmd_timeline_entry = {
	"timeline",
	"timeline SELECTION [--step DURATION] [--json]",
	cmd_timeline_exec
};

static int
cmd_timeline_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		{ "step",	required_argument,	NULL, 't' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "socket",	required_argument,	NULL, 'S' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct cmd_entry	*e = &cmd_timeline_entry;
	struct http_reply	 reply;
	struct selection	 sel;
	const char		*step = NULL;
	char			*url, *cause = NULL;
	int			 ch, rc, json = 0;

	memset(&sel, 0, sizeof sel);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:s:m:h", opts,
	    NULL)) != -1) {
		if ((rc = selection_option(&sel, ch, optarg, &cause)) == 0)
			continue;
		if (rc == -1) {
			rc = cmd_usage_error(e, "timeline: %s", cause);
			goto out;
		}
		switch (ch) {
		case 1:
			rc = cmd_usage_error(e, "timeline: unexpected "
			    "argument \"%s\"", optarg);
			goto out;
		case 't':
			if (*optarg == '\0') {
				rc = cmd_usage_error(e, "timeline: --step "
				    "must not be empty");
				goto out;
			}
			step = optarg;	/* the daemon checks it */
			continue;
		case 'j':
			json = 1;
			continue;
		}
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1)
			goto out;
	}
	if (optind < argc) {
		rc = cmd_usage_error(e, "timeline: unexpected argument "
		    "\"%s\"", argv[optind]);
		goto out;
	}
	if (!sel.has_scope) {
		rc = cmd_usage_error(e, "timeline: --scope is required");
		goto out;
	}

	url = xstrdup("/v1/timeline");
	selection_query(&sel, &url);
	if (step != NULL)
		http_query_add(&url, "step", step);
	rc = client_get(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		goto out;
	if (json)
		render_json(stdout, reply.json);
	else if (render_timeline_json(stdout, reply.json, &cause) != 0) {
		fprintf(stderr, "profctl: %s\n", cause);
		rc = PROFCTL_EXIT_REFUSED;
	}
	http_reply_clear(&reply);
out:
	free(cause);
	selection_clear(&sel);
	return (rc);
}
