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
	"query SQL [--json | --csv] [--max-rows N] [--max-bytes N] "
	    "[--timeout-ms N]",
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

struct cmd_query_args {
	const char	*sql;
	const char	*rows;
	const char	*bytes;
	const char	*timeout;
	int		 csv;
};

static int
cmd_query_option(const struct cmd_entry *e, int ch, const char *arg, void *p)
{
	struct cmd_query_args	*a = p;

	switch (ch) {
	case 1:
		if (a->sql != NULL)
			return (cmd_usage_error(e, "query: unexpected argument "
			    "\"%s\" (quote the SQL as one argument)", arg));
		a->sql = arg;
		return (CMD_OPT_TAKEN);
	case 'c':
		a->csv = 1;
		return (CMD_OPT_TAKEN);
	case 'r':
		if (cmd_query_number(arg) == -1)
			return (cmd_usage_error(e, "query: --max-rows \"%s\" "
			    "is not a number of rows", arg));
		a->rows = arg;
		return (CMD_OPT_TAKEN);
	case 'b':
		if (cmd_query_number(arg) < 1)
			return (cmd_usage_error(e, "query: --max-bytes \"%s\" "
			    "is not a number of bytes", arg));
		a->bytes = arg;
		return (CMD_OPT_TAKEN);
	case 't':
		if (cmd_query_number(arg) < 1)
			return (cmd_usage_error(e, "query: --timeout-ms \"%s\" "
			    "is not a number of milliseconds", arg));
		a->timeout = arg;
		return (CMD_OPT_TAKEN);
	}
	return (CMD_OPT_NOT_MINE);
}

/*
 * A reply whose status was sent before the query failed (past max_bytes,
 * past the time limit, a run-time error) ends with the members of an error
 * reply: the rows before it are not all there is, so say so and print
 * none of them.
 */
static int
cmd_query_failed(const struct http_reply *reply)
{
	const char	*error, *detail;
	char		*e, *d;

	error = json_string_value(json_object_get(reply->json, "error"));
	if (error == NULL)
		return (0);
	detail = json_string_value(json_object_get(reply->json, "detail"));
	e = xstrdup(error);
	d = xstrdup(detail != NULL ? detail : "");
	render_clean(e);
	render_clean(d);
	fprintf(stderr, "profctl: query: %s: %s (the reply was cut short; "
	    "nothing printed)\n", e, d);
	free(e);
	free(d);
	return (1);
}

static int
cmd_query_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		CMD_JSON_OPTION,
		{ "csv",	no_argument,		NULL, 'c' },
		{ "max-rows",	required_argument,	NULL, 'r' },
		{ "max-bytes",	required_argument,	NULL, 'b' },
		{ "timeout-ms",	required_argument,	NULL, 't' },
		CMD_COMMON_OPTIONS
	};
	const struct cmd_entry	*e = &cmd_query_entry;
	struct cmd_query_args	 a;
	struct cmd_args		 ca;
	struct http_reply	 reply;
	char			*url;
	json_t			*jrows;
	int			 rc;

	memset(&a, 0, sizeof a);
	rc = cmd_parse(e, c, argc, argv, "-:h", opts, &ca,
	    CMD_PARSE_OPERANDS, cmd_query_option, &a);
	if (rc != -1)
		return (rc);
	if (optind < argc) {
		if (a.sql != NULL || optind + 1 < argc)
			return (cmd_usage_error(e, "query: unexpected "
			    "argument \"%s\"", argv[optind + (a.sql == NULL)]));
		a.sql = argv[optind];
	}
	if (a.sql == NULL || *a.sql == '\0')
		return (cmd_usage_error(e, "query: no SQL given"));
	if (ca.json && a.csv)
		return (cmd_usage_error(e, "query: --json and --csv exclude "
		    "each other"));

	url = xstrdup("/v1/query");
	if (a.rows != NULL)
		http_query_add(&url, "max_rows", a.rows);
	if (a.bytes != NULL)
		http_query_add(&url, "max_bytes", a.bytes);
	if (a.timeout != NULL)
		http_query_add(&url, "timeout_ms", a.timeout);
	rc = client_post_type(c, url, "text/plain; charset=utf-8", a.sql,
	    strlen(a.sql), &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		return (rc);
	if (cmd_query_failed(&reply)) {
		http_reply_clear(&reply);
		return (PROFCTL_EXIT_REFUSED);
	}
	rc = cmd_render(reply.json, ca.json,
	    a.csv ? render_query_csv : render_query_table);
	if (rc == PROFCTL_EXIT_OK && !ca.json && !a.csv) {
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
