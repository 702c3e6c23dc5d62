/* cmd-query.c: one read-only SQL statement, POST /v1/query, its rows
 * printed as a table, CSV or JSON as the reply streams in. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_query_exec(struct client *, int, char **);

#define CMD_QUERY_TYPE	"text/plain; charset=utf-8"

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
		return -1;
	return n;
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
			return cmd_usage_error(e, "query: unexpected argument "
			    "\"%s\" (quote the SQL as one argument)", arg);
		a->sql = arg;
		return CMD_OPT_TAKEN;
	case 'c':
		a->csv = 1;
		return CMD_OPT_TAKEN;
	case 'r':
		if (cmd_query_number(arg) == -1)
			return cmd_usage_error(e, "query: --max-rows \"%s\" "
			    "is not a number of rows", arg);
		a->rows = arg;
		return CMD_OPT_TAKEN;
	case 'b':
		if (cmd_query_number(arg) < 1)
			return cmd_usage_error(e, "query: --max-bytes \"%s\" "
			    "is not a number of bytes", arg);
		a->bytes = arg;
		return CMD_OPT_TAKEN;
	case 't':
		if (cmd_query_number(arg) < 1)
			return cmd_usage_error(e, "query: --timeout-ms \"%s\" "
			    "is not a number of milliseconds", arg);
		a->timeout = arg;
		return CMD_OPT_TAKEN;
	}
	return CMD_OPT_NOT_MINE;
}

/*
 * The rows as a table or CSV, printed as they come (a table at the end:
 * its widths depend on every row). A reply whose status was sent before
 * the query failed (past max_bytes, past the time limit, a run-time error)
 * ends with the members of an error reply: the rows before it are not all
 * there is, so say so; the table prints none of them.
 */
static int
cmd_query_rows(struct client *c, const char *url, const char *sql, int csv)
{
	struct render_query	*q;
	const char		*error, *detail;
	char			*printed;
	size_t			 n;
	int			 rc;

	q = render_query_new(stdout, csv);
	rc = client_stream(c, "POST", url, CMD_QUERY_TYPE, sql, strlen(sql),
	    render_query_feed, q);
	n = render_query_rows(q);
	if (rc == PROFCTL_EXIT_OK && render_query_failed(q, &error, &detail)) {
		if (csv)
			xasprintf(&printed, "the %zu row%s before it %s "
			    "printed", n, n == 1 ? "" : "s", n == 1 ? "was" :
			    "were");
		else
			printed = xstrdup("nothing printed");
		cmd_reply_cut("query", error, detail, printed);
		free(printed);
		rc = PROFCTL_EXIT_REFUSED;
	} else if (rc == PROFCTL_EXIT_OK && !csv) {
		fflush(stdout);
		fprintf(stderr, "(%zu row%s)\n", n, n == 1 ? "" : "s");
		if (render_query_truncated(q))
			fprintf(stderr, "(truncated at %zu rows)\n", n);
	}
	render_query_free(q);
	return rc;
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
	char			*url;
	int			 rc;

	memset(&a, 0, sizeof a);
	rc = cmd_parse(e, c, argc, argv, "-:h", opts, &ca,
	    CMD_PARSE_OPERANDS, cmd_query_option, &a);
	if (rc != -1)
		return rc;
	if (optind < argc) {
		if (a.sql != NULL || optind + 1 < argc)
			return cmd_usage_error(e, "query: unexpected "
			    "argument \"%s\"", argv[optind + (a.sql == NULL)]);
		a.sql = argv[optind];
	}
	if (a.sql == NULL || *a.sql == '\0')
		return cmd_usage_error(e, "query: no SQL given");
	if (ca.json && a.csv)
		return cmd_usage_error(e, "query: --json and --csv exclude "
		    "each other");

	url = xstrdup("/v1/query");
	if (a.rows != NULL)
		http_query_add(&url, "max_rows", a.rows);
	if (a.bytes != NULL)
		http_query_add(&url, "max_bytes", a.bytes);
	if (a.timeout != NULL)
		http_query_add(&url, "timeout_ms", a.timeout);
	if (ca.json)
		rc = cmd_stream_json(c, "POST", url, CMD_QUERY_TYPE, a.sql,
		    strlen(a.sql), "query");
	else
		rc = cmd_query_rows(c, url, a.sql, a.csv);
	free(url);
	return rc;
}
