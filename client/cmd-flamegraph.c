/* cmd-flamegraph.c: a scope's call tree, GET /v1/tree, as an interactive
 * SVG flame graph; with --diff, against a saved tree (or a saved diff). */
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
	"flamegraph --scope S [--metric TYPE[/UNIT]] [--min-fraction F] "
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
		{ "scope",		required_argument,	NULL, 's' },
		{ "metric",		required_argument,	NULL, 'm' },
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
	json_t			*base = NULL, *tree = NULL, *merged = NULL;
	const char		*scope = NULL, *metric = NULL, *frac = NULL;
	const char		*diff = NULL, *output = NULL;
	char			*url, *end;
	double			 d;
	int			 ch, rc;

	memset(&o, 0, sizeof o);
	memset(&reply, 0, sizeof reply);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "-:s:m:f:t:w:d:o:h", opts,
	    NULL)) != -1) {
		switch (ch) {
		case 1:
			return (cmd_usage_error(e, "flamegraph: unexpected "
			    "argument \"%s\"", optarg));
		case 's':
			scope = optarg;
			continue;
		case 'm':
			metric = optarg;
			continue;
		case 'f':
			errno = 0;
			d = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(d >= 0 && d <= 1))
				return (cmd_usage_error(e, "flamegraph: "
				    "--min-fraction \"%s\" is not a fraction "
				    "between 0 and 1", optarg));
			frac = optarg;
			continue;
		case 't':
			o.title = optarg;
			continue;
		case 'w':
			errno = 0;
			d = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(d >= 100 && d <= 100000))
				return (cmd_usage_error(e, "flamegraph: "
				    "--width \"%s\" is not 100 to 100000 px",
				    optarg));
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
			return (rc);
	}
	if (optind < argc)
		return (cmd_usage_error(e, "flamegraph: unexpected argument "
		    "\"%s\"", argv[optind]));

	if (diff != NULL) {
		if ((base = json_load_file(diff, 0, &jerr)) == NULL) {
			fprintf(stderr, "profctl: %s: %s\n", diff, jerr.text);
			return (PROFCTL_EXIT_USAGE);
		}
		/* A saved diff reply is drawn as it is. */
		if (json_is_integer(json_object_get(json_object_get(base,
		    "root"), "current"))) {
			rc = cmd_flamegraph_write(output, base, &o);
			json_decref(base);
			return (rc);
		}
	}
	if (scope == NULL) {
		json_decref(base);
		return (cmd_usage_error(e, "flamegraph: --scope is required"));
	}

	url = xstrdup("/v1/tree");
	http_query_add(&url, "scope", scope);
	if (metric != NULL)
		http_query_add(&url, "metric", metric);
	if (frac != NULL)
		http_query_add(&url, "min_fraction", frac);
	rc = client_get(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK) {
		json_decref(base);
		return (rc);
	}
	tree = reply.json;
	if (base != NULL)
		tree = merged = flamegraph_diff_merge(base, reply.json);
	rc = cmd_flamegraph_write(output, tree, &o);
	json_decref(merged);
	json_decref(base);
	http_reply_clear(&reply);
	return (rc);
}
