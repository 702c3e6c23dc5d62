/* cmd-flamegraph.c: a selection's call tree, GET /v1/tree, as an
 * interactive SVG flame graph; with --diff, against a saved tree (or a saved
 * diff); with any --base-… flag, GET /v1/diff against a base selection. */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profctl.h"

static int	cmd_flamegraph_exec(struct client *, int, char **);

const struct cmd_entry cmd_flamegraph_entry = {
	"flamegraph",
	"flamegraph SELECTION [BASE-SELECTION] [--min-fraction F] "
	"[--title T] [--width PX] [--diff FILE] [-o FILE.svg]",
	cmd_flamegraph_exec
};

/* Write the SVG beside path and rename it over path once complete, so a
 * failure never leaves half a file; "-" or NULL is stdout. */
static int
cmd_flamegraph_write(const char *path, json_t *tree,
    const struct flamegraph_opts *o)
{
	FILE	*f;
	char	*tmp, *cause = NULL;
	mode_t	 mask;
	int	 fd, error;

	if (path == NULL || strcmp(path, "-") == 0) {
		if (flamegraph_render(stdout, tree, o, &cause) != 0) {
			fprintf(stderr, "profctl: %s\n", cause);
			free(cause);
			return (PROFCTL_EXIT_REFUSED);
		}
		return (PROFCTL_EXIT_OK);
	}
	xasprintf(&tmp, "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) == -1 || (f = fdopen(fd, "w")) == NULL) {
		fprintf(stderr, "profctl: %s: %s\n", path, strerror(errno));
		if (fd != -1) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return (PROFCTL_EXIT_USAGE);
	}
	/* mkstemp makes 0600; give the file what fopen would have. */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	if (flamegraph_render(f, tree, o, &cause) != 0) {
		fprintf(stderr, "profctl: %s\n", cause);
		free(cause);
		fclose(f);
		unlink(tmp);
		free(tmp);
		return (PROFCTL_EXIT_REFUSED);
	}
	error = ferror(f);
	if (fclose(f) != 0)
		error = 1;
	if (error || rename(tmp, path) != 0) {
		fprintf(stderr, "profctl: %s: %s\n", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return (PROFCTL_EXIT_USAGE);
	}
	free(tmp);
	return (PROFCTL_EXIT_OK);
}

static int
cmd_flamegraph_exec(struct client *c, int argc, char **argv)
{
	static const struct option	 opts[] = {
		SELECTION_OPTIONS,
		SELECTION_BASE_OPTIONS,
		{ "min-fraction",	required_argument,	NULL, 'f' },
		{ "title",		required_argument,	NULL, 't' },
		{ "width",		required_argument,	NULL, 'w' },
		{ "diff",		required_argument,	NULL, 'd' },
		{ "output",		required_argument,	NULL, 'o' },
		{ "socket",		required_argument,	NULL, 'S' },
		{ "help",		no_argument,		NULL, 'h' },
		{ NULL,			0,			NULL, 0 }
	};
	const struct cmd_entry	*e = &cmd_flamegraph_entry;
	struct flamegraph_opts	 o;
	struct http_reply	 reply;
	json_error_t		 jerr;
	struct selection	 sel;
	json_t			*base = NULL, *tree = NULL, *merged = NULL;
	const char		*frac = NULL;
	const char		*diff = NULL, *output = NULL;
	char			*url, *end, *cause = NULL;
	double			 d;
	int			 ch, rc;

	memset(&o, 0, sizeof o);
	memset(&reply, 0, sizeof reply);
	memset(&sel, 0, sizeof sel);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:s:m:f:t:w:d:o:h", opts,
	    NULL)) != -1) {
		if ((rc = selection_option(&sel, ch, optarg, &cause)) == 0)
			continue;
		if (rc == -1) {
			rc = cmd_usage_error(e, "flamegraph: %s", cause);
			goto out;
		}
		switch (ch) {
		case 1:
			rc = cmd_usage_error(e, "flamegraph: unexpected "
			    "argument \"%s\"", optarg);
			goto out;
		case 'f':
			errno = 0;
			d = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(d >= 0 && d <= 1)) {
				rc = cmd_usage_error(e, "flamegraph: "
				    "--min-fraction \"%s\" is not a fraction "
				    "between 0 and 1", optarg);
				goto out;
			}
			frac = optarg;
			continue;
		case 't':
			o.title = optarg;
			continue;
		case 'w':
			errno = 0;
			d = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(d >= 100 && d <= 100000)) {
				rc = cmd_usage_error(e, "flamegraph: "
				    "--width \"%s\" is not 100 to 100000 px",
				    optarg);
				goto out;
			}
			o.width = d;
			continue;
		case 'd':
			diff = optarg;
			continue;
		case 'o':
			output = optarg;
			continue;
		}
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1)
			goto out;
	}
	if (optind < argc) {
		rc = cmd_usage_error(e, "flamegraph: unexpected argument "
		    "\"%s\"", argv[optind]);
		goto out;
	}
	if (diff != NULL && sel.has_base) {
		rc = cmd_usage_error(e, "flamegraph: --diff and --base-… "
		    "flags exclude each other");
		goto out;
	}

	if (diff != NULL) {
		if ((base = json_load_file(diff, 0, &jerr)) == NULL) {
			fprintf(stderr, "profctl: %s: %s\n", diff, jerr.text);
			rc = PROFCTL_EXIT_USAGE;
			goto out;
		}
		/* A saved diff reply is drawn as it is. */
		if (json_is_integer(json_object_get(json_object_get(base,
		    "root"), "current"))) {
			rc = cmd_flamegraph_write(output, base, &o);
			goto out;
		}
	}
	if (!sel.has_scope) {
		rc = cmd_usage_error(e, "flamegraph: --scope is required");
		goto out;
	}
	if (sel.has_base && !sel.has_base_scope) {
		rc = cmd_usage_error(e, "flamegraph: --base-scope is required "
		    "with --base-… flags");
		goto out;
	}

	/* Any base flag: the daemon's diff, drawn as a differential graph. */
	url = xstrdup(sel.has_base ? "/v1/diff" : "/v1/tree");
	selection_query(&sel, &url);
	if (frac != NULL && !sel.has_base)
		http_query_add(&url, "min_fraction", frac);
	rc = client_get(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		goto out;
	tree = reply.json;
	if (base != NULL)
		tree = merged = flamegraph_diff_merge(base, reply.json);
	rc = cmd_flamegraph_write(output, tree, &o);
	json_decref(merged);
	http_reply_clear(&reply);
out:
	json_decref(base);
	free(cause);
	selection_clear(&sel);
	return (rc);
}
