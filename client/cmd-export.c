/* cmd-export.c: a selection as a gzipped pprof profile, GET /v1/export,
 * written to a file (beside it first, then renamed over it, so a failure
 * never leaves half a file). */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profctl.h"

static int	cmd_export_exec(struct client *, int, char **);

const struct cmd_entry cmd_export_entry = {
	"export",
	"export SELECTION -o FILE",
	cmd_export_exec
};

/* Write len bytes to path through a temporary file beside it. */
static int
cmd_export_write(const char *path, const void *p, size_t len)
{
	const char	*b = p;
	char		*tmp;
	mode_t		 mask;
	ssize_t		 n;
	int		 fd, saved;

	xasprintf(&tmp, "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) == -1) {
		fprintf(stderr, "profctl: %s: %s\n", path, strerror(errno));
		free(tmp);
		return (PROFCTL_EXIT_USAGE);
	}
	/* mkstemp makes 0600; give the file what open would have. */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	while (len > 0) {
		if ((n = write(fd, b, len)) == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		b += n;
		len -= (size_t)n;
	}
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto fail;
	free(tmp);
	return (PROFCTL_EXIT_OK);

fail:
	saved = errno;
	if (fd != -1)
		close(fd);
	unlink(tmp);
	free(tmp);
	fprintf(stderr, "profctl: %s: %s\n", path, strerror(saved));
	return (PROFCTL_EXIT_USAGE);
}

static int
cmd_export_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		{ "output",	required_argument,	NULL, 'o' },
		{ "socket",	required_argument,	NULL, 'S' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct cmd_entry	*e = &cmd_export_entry;
	struct http_reply	 reply;
	struct selection	 sel;
	const char		*output = NULL;
	char			*url, *cause = NULL;
	int			 ch, rc;

	memset(&sel, 0, sizeof sel);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:s:m:o:h", opts,
	    NULL)) != -1) {
		if ((rc = selection_option(&sel, ch, optarg, &cause)) == 0)
			continue;
		if (rc == -1) {
			rc = cmd_usage_error(e, "export: %s", cause);
			goto out;
		}
		switch (ch) {
		case 1:
			rc = cmd_usage_error(e, "export: unexpected argument "
			    "\"%s\"", optarg);
			goto out;
		case 'o':
			output = optarg;
			continue;
		}
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1)
			goto out;
	}
	if (optind < argc) {
		rc = cmd_usage_error(e, "export: unexpected argument \"%s\"",
		    argv[optind]);
		goto out;
	}
	if (!sel.has_scope) {
		rc = cmd_usage_error(e, "export: --scope is required");
		goto out;
	}
	if (output == NULL || *output == '\0') {
		rc = cmd_usage_error(e, "export: -o FILE is required");
		goto out;
	}

	url = xstrdup("/v1/export");
	selection_query(&sel, &url);
	rc = client_get_raw(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		goto out;
	if (strcmp(output, "-") == 0) {
		if (isatty(STDOUT_FILENO)) {
			fprintf(stderr, "profctl: not writing a gzipped "
			    "profile to a terminal\n");
			rc = PROFCTL_EXIT_USAGE;
		} else
			fwrite(reply.body, 1, reply.len, stdout);
	} else
		rc = cmd_export_write(output, reply.body, reply.len);
	http_reply_clear(&reply);
out:
	free(cause);
	selection_clear(&sel);
	return (rc);
}
