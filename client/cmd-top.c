/* cmd-top.c: flat and cum per function of a selection, GET /v1/top, printed as
 * `go tool pprof -top` prints them. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

static int	cmd_top_exec(struct client *, int, char **);

const struct cmd_entry cmd_top_entry = {
	"top",
	"top SELECTION [--limit N] [--cum] [--json]",
	cmd_top_exec
};

static int
cmd_top_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		{ "limit",	required_argument,	NULL, 'n' },
		{ "cum",	no_argument,		NULL, 'c' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "socket",	required_argument,	NULL, 'S' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct cmd_entry	*e = &cmd_top_entry;
	struct http_reply	 reply;
	struct selection	 sel;
	char			*url, *end, *cause = NULL, limit[32];
	long long		 n = 0;
	int			 ch, rc, json = 0, cum = 0;

	memset(&sel, 0, sizeof sel);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:s:m:n:h", opts,
	    NULL)) != -1) {
		if ((rc = selection_option(&sel, ch, optarg, &cause)) == 0)
			continue;
		if (rc == -1) {
			rc = cmd_usage_error(e, "top: %s", cause);
			goto out;
		}
		switch (ch) {
		case 1:
			rc = cmd_usage_error(e, "top: unexpected argument "
			    "\"%s\"", optarg);
			goto out;
		case 'n':
			errno = 0;
			n = strtoll(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    n < 0) {
				rc = cmd_usage_error(e, "top: --limit "
				    "\"%s\" is not a number of rows", optarg);
				goto out;
			}
			continue;
		case 'c':
			cum = 1;
			continue;
		case 'j':
			json = 1;
			continue;
		}
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1)
			goto out;
	}
	if (optind < argc) {
		rc = cmd_usage_error(e, "top: unexpected argument \"%s\"",
		    argv[optind]);
		goto out;
	}
	if (!sel.has_scope) {
		rc = cmd_usage_error(e, "top: --scope is required");
		goto out;
	}

	url = xstrdup("/v1/top");
	selection_query(&sel, &url);
	if (n > 0) {	/* 0 is pprof's "no limit", as is leaving it out */
		snprintf(limit, sizeof limit, "%lld", n);
		http_query_add(&url, "limit", limit);
	}
	if (cum)
		http_query_add(&url, "sort", "cum");
	rc = client_get(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		goto out;
	if (json)
		render_json(stdout, reply.json);
	else if (render_top_json(stdout, reply.json, &cause) != 0) {
		fprintf(stderr, "profctl: %s\n", cause);
		rc = PROFCTL_EXIT_REFUSED;
	}
	http_reply_clear(&reply);
out:
	free(cause);
	selection_clear(&sel);
	return (rc);
}
