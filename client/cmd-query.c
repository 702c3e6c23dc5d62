/* cmd-query.c: one read-only SQL statement, POST /v1/query, its rows
 * printed as a table, CSV or JSON. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

static int	cmd_query_exec(struct client *, int, char **);

const struct cmd_entry cmd_query_entry = {
	"query",
	"query SQL [--json | --csv] [--max-rows N] [--timeout-ms N]",
	cmd_query_exec
};

/* A positive count for option name, or -1. */
static long long
cmd_query_number(const char *arg)
{
	long long	 n;
	char		*end;

	errno = 0;
	n = strtoll(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || n < 0)
		return (-1);
	return (n);
}

static int
cmd_query_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "json",	no_argument,		NULL, 'j' },
		{ "csv",	no_argument,		NULL, 'c' },
		{ "max-rows",	required_argument,	NULL, 'r' },
		{ "timeout-ms",	required_argument,	NULL, 't' },
		{ "socket",	required_argument,	NULL, 'S' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct cmd_entry	*e = &cmd_query_entry;
	struct http_reply	 reply;
	const char		*sql = NULL, *rows = NULL, *timeout = NULL;
	char			*url, *cause = NULL;
	json_t			*jrows;
	int			 ch, rc, json = 0, csv = 0;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:h", opts, NULL)) != -1) {
		switch (ch) {
		case 1:
			if (sql != NULL)
				return (cmd_usage_error(e, "query: unexpected "
				    "argument \"%s\" (quote the SQL as one "
				    "argument)", optarg));
			sql = optarg;
			continue;
		case 'j':
			json = 1;
			continue;
		case 'c':
			csv = 1;
			continue;
		case 'r':
			if (cmd_query_number(optarg) == -1)
				return (cmd_usage_error(e, "query: --max-rows "
				    "\"%s\" is not a number of rows", optarg));
			rows = optarg;
			continue;
		case 't':
			if (cmd_query_number(optarg) < 1)
				return (cmd_usage_error(e, "query: "
				    "--timeout-ms \"%s\" is not a number of "
				    "milliseconds", optarg));
			timeout = optarg;
			continue;
		}
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1)
			return (rc);
	}
	if (optind < argc) {
		if (sql != NULL || optind + 1 < argc)
			return (cmd_usage_error(e, "query: unexpected "
			    "argument \"%s\"", argv[optind + (sql == NULL)]));
		sql = argv[optind];
	}
	if (sql == NULL || *sql == '\0')
		return (cmd_usage_error(e, "query: no SQL given"));
	if (json && csv)
		return (cmd_usage_error(e, "query: --json and --csv exclude "
		    "each other"));

	url = xstrdup("/v1/query");
	if (rows != NULL)
		http_query_add(&url, "max_rows", rows);
	if (timeout != NULL)
		http_query_add(&url, "timeout_ms", timeout);
	rc = client_post_type(c, url, "text/plain; charset=utf-8", sql,
	    strlen(sql), &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		return (rc);
	if (json)
		render_json(stdout, reply.json);
	else if ((csv ? render_query_csv : render_query_table)(stdout,
	    reply.json, &cause) != 0) {
		fprintf(stderr, "profctl: %s\n", cause);
		free(cause);
		rc = PROFCTL_EXIT_REFUSED;
	} else if (!csv) {
		jrows = json_object_get(reply.json, "rows");
		fflush(stdout);
		fprintf(stderr, "(%zu row%s)\n", json_array_size(jrows),
		    json_array_size(jrows) == 1 ? "" : "s");
		if (json_is_true(json_object_get(reply.json, "truncated")))
			fprintf(stderr, "(truncated at %zu rows)\n",
			    json_array_size(jrows));
	}
	http_reply_clear(&reply);
	return (rc);
}
