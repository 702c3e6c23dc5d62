/* cmd-top.c: flat and cum per function of a scope, GET /v1/top, printed as
 * `go tool pprof -top` prints them. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>

#include "profctl.h"

static int	cmd_top_exec(struct client *, int, char **);

const struct cmd_entry cmd_top_entry = {
	"top",
	"top --scope S [--metric TYPE[/UNIT]] [--limit N] [--cum] [--json]",
	cmd_top_exec
};

static int
cmd_top_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "scope",	required_argument,	NULL, 's' },
		{ "metric",	required_argument,	NULL, 'm' },
		{ "limit",	required_argument,	NULL, 'n' },
		{ "cum",	no_argument,		NULL, 'c' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "socket",	required_argument,	NULL, 'S' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct cmd_entry	*e = &cmd_top_entry;
	struct http_reply	 reply;
	const char		*scope = NULL, *metric = NULL;
	char			*url, *end, *cause = NULL, limit[32];
	long long		 n = 0;
	int			 ch, rc, json = 0, cum = 0;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:s:m:n:h", opts,
	    NULL)) != -1) {
		switch (ch) {
		case 1:
			return (cmd_usage_error(e, "top: unexpected argument "
			    "\"%s\"", optarg));
		case 's':
			scope = optarg;
			continue;
		case 'm':
			metric = optarg;
			continue;
		case 'n':
			errno = 0;
			n = strtoll(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    n < 0)
				return (cmd_usage_error(e, "top: --limit "
				    "\"%s\" is not a number of rows", optarg));
			continue;
		case 'c':
			cum = 1;
			continue;
		case 'j':
			json = 1;
			continue;
		}
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1)
			return (rc);
	}
	if (optind < argc)
		return (cmd_usage_error(e, "top: unexpected argument \"%s\"",
		    argv[optind]));
	if (scope == NULL)
		return (cmd_usage_error(e, "top: --scope is required"));

	url = xstrdup("/v1/top");
	http_query_add(&url, "scope", scope);
	if (metric != NULL)
		http_query_add(&url, "metric", metric);
	if (n > 0) {	/* 0 is pprof's "no limit", as is leaving it out */
		snprintf(limit, sizeof limit, "%lld", n);
		http_query_add(&url, "limit", limit);
	}
	if (cum)
		http_query_add(&url, "sort", "cum");
	rc = client_get(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		return (rc);
	if (json)
		render_json(stdout, reply.json);
	else if (render_top_json(stdout, reply.json, &cause) != 0) {
		fprintf(stderr, "profctl: %s\n", cause);
		free(cause);
		rc = PROFCTL_EXIT_REFUSED;
	}
	http_reply_clear(&reply);
	return (rc);
}
