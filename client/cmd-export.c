/* cmd-export.c: a selection as a gzipped pprof profile, GET /v1/export,
 * written to a file (beside it first, then renamed over it, so a failure
 * never leaves half a file). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "profctl.h"

static int	cmd_export_exec(struct client *, int, char **);

const struct cmd_entry cmd_export_entry = {
	"export",
	"export SELECTION -o FILE",
	cmd_export_exec
};

struct cmd_export_body {
	const char	*p;
	size_t		 len;
};

static int
cmd_export_fill(FILE *f, void *arg)
{
	struct cmd_export_body	*b = arg;

	fwrite(b->p, 1, b->len, f);
	return PROFCTL_EXIT_OK;	/* cmd_write_file sees errors */
}

static int
cmd_export_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		{ "output",	required_argument,	NULL, 'o' },
		CMD_COMMON_OPTIONS
	};
	const struct cmd_entry	*e = &cmd_export_entry;
	struct cmd_export_body	 b;
	struct http_reply	 reply;
	struct cmd_args		 ca;
	struct cmd_string	 output = { 'o', NULL };
	char			*url;
	int			 rc;

	rc = cmd_parse(e, c, argc, argv, "-:s:m:o:h", opts, &ca,
	    CMD_PARSE_SELECTION | CMD_PARSE_SCOPE, cmd_string_option, &output);
	if (rc == -1 && (output.value == NULL || *output.value == '\0'))
		rc = cmd_usage_error(e, "export: -o FILE is required");
	if (rc != -1)
		goto out;

	url = xstrdup("/v1/export");
	selection_query(&ca.sel, &url);
	rc = client_get_raw(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		goto out;
	if (strcmp(output.value, "-") == 0) {
		if (isatty(STDOUT_FILENO)) {
			fprintf(stderr, "profctl: not writing a gzipped "
			    "profile to a terminal\n");
			rc = PROFCTL_EXIT_USAGE;
		} else
			fwrite(reply.body, 1, reply.len, stdout);
	} else {
		b.p = reply.body;
		b.len = reply.len;
		rc = cmd_write_file(output.value, cmd_export_fill, &b);
	}
	http_reply_clear(&reply);
out:
	selection_clear(&ca.sel);
	return rc;
}
