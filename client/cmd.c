/* cmd.c: the command table and what every command's option parsing
 * shares. */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "profctl.h"

const struct cmd_entry *cmd_table[] = {
	&cmd_push_entry,
	&cmd_record_entry,
	&cmd_scopes_entry,
	&cmd_profiles_entry,
	&cmd_delete_entry,
	&cmd_top_entry,
	&cmd_flamegraph_entry,
	&cmd_tree_entry,
	&cmd_peek_entry,
	&cmd_traces_entry,
	&cmd_tags_entry,
	&cmd_list_entry,
	&cmd_diff_entry,
	&cmd_export_entry,
	&cmd_query_entry,
	&cmd_timeline_entry,
	&cmd_status_entry,
	&cmd_web_entry,
	NULL
};

const struct cmd_entry *
cmd_find(const char *name)
{
	const struct cmd_entry	**e;

	for (e = cmd_table; *e != NULL; e++) {
		if (strcmp((*e)->name, name) == 0)
			return *e;
	}
	return NULL;
}

void
cmd_print_usage(FILE *f, const struct cmd_entry *e)
{
	fprintf(f, "usage: profctl [--socket PATH] %s\n", e->usage);
}

/* "profctl: message" and the command's usage on stderr; exit code 2.
 * The message quotes arguments, file names among them: shown safe. */
int
cmd_usage_error(const struct cmd_entry *e, const char *fmt, ...)
{
	va_list	 ap;

	fputs("profctl: ", stderr);
	va_start(ap, fmt);
	termsafe_vline(stderr, fmt, ap);
	va_end(ap);
	cmd_print_usage(stderr, e);
	return PROFCTL_EXIT_USAGE;
}

/*
 * The options every command takes (--socket, --help) and getopt's
 * complaints. Returns -1 when parsing goes on, else the exit code.
 */
static int
cmd_common_option(const struct cmd_entry *e, struct client *c, int ch,
    char **argv)
{
	switch (ch) {
	case 'S':
		free(c->socket);
		c->socket = xstrdup(optarg);
		return -1;
	case 'h':
		cmd_print_usage(stdout, e);
		return PROFCTL_EXIT_OK;
	case ':':
		return cmd_usage_error(e, "%s: option %s needs an argument",
		    e->name, argv[optind - 1]);
	case '?':
		if (optopt > ' ' && optopt < 0x7f)
			return cmd_usage_error(e, "%s: unknown option -%c",
			    e->name, optopt);
		return cmd_usage_error(e, "%s: unknown option %s", e->name,
		    argv[optind - 1]);
	}
	return cmd_usage_error(e, "%s: unexpected option", e->name);
}

/* The exit code, turned into a failure if stdout could not be written. */
int
cmd_finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "profctl: error writing output\n");
		if (rc == PROFCTL_EXIT_OK)
			rc = PROFCTL_EXIT_REFUSED;
	}
	return rc;
}

/*
 * The getopt loop of a command, into a (cleared first): with
 * CMD_PARSE_SELECTION the selection options go to a->sel, --json (where
 * opts has CMD_JSON_OPTION) sets a->json; then own (if not NULL) takes the
 * command's own options, then come the options every command takes. own
 * returns CMD_OPT_TAKEN, CMD_OPT_NOT_MINE or an exit code; it sees
 * operands (code 1) before they are refused. With CMD_PARSE_OPERANDS
 * operands after "--" are left to the caller, with CMD_PARSE_SCOPE --scope
 * is required. Returns -1 when the command goes on, else the exit code;
 * the caller clears a->sel either way.
 */
int
cmd_parse(const struct cmd_entry *e, struct client *c, int argc, char **argv,
    const char *optstring, const struct option *opts, struct cmd_args *a,
    int flags, cmd_option_fn own, void *arg)
{
	char	*cause = NULL;
	int	 ch, rc;

	memset(a, 0, sizeof *a);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
		if (ch == CMD_OPT_JSON) {
			a->json = 1;
			continue;
		}
		if ((flags & CMD_PARSE_SELECTION) &&
		    (rc = selection_option(&a->sel, ch, optarg, &cause)) != 1) {
			if (rc == 0)
				continue;
			rc = cmd_usage_error(e, "%s: %s", e->name, cause);
			free(cause);
			return rc;
		}
		if (own != NULL &&
		    (rc = own(e, ch, optarg, arg)) != CMD_OPT_NOT_MINE) {
			if (rc == CMD_OPT_TAKEN)
				continue;
			return rc;
		}
		if (ch == 1)
			return cmd_usage_error(e, "%s: unexpected argument "
			    "\"%s\"", e->name, optarg);
		if ((rc = cmd_common_option(e, c, ch, argv)) != -1)
			return rc;
	}
	if (!(flags & CMD_PARSE_OPERANDS) && optind < argc)
		return cmd_usage_error(e, "%s: unexpected argument \"%s\"",
		    e->name, argv[optind]);
	if (flags & CMD_PARSE_SCOPE)
		return cmd_need_scope(e, &a->sel);
	return -1;
}

/* A cmd_option_fn for a command whose one option of its own is a string:
 * p is a struct cmd_string naming the option's code. */
int
cmd_string_option(const struct cmd_entry *e, int ch, const char *arg,
    void *p)
{
	struct cmd_string	*s = p;

	(void)e;
	if (ch != s->ch)
		return CMD_OPT_NOT_MINE;
	s->value = arg;
	return CMD_OPT_TAKEN;
}

/* The exec of a command that takes nothing but --json: GET path and
 * print its reply with render. */
int
cmd_get_exec(const struct cmd_entry *e, struct client *c, int argc,
    char **argv, const char *path, cmd_render_fn render)
{
	static const struct option	 opts[] = {
		CMD_JSON_OPTION,
		CMD_COMMON_OPTIONS
	};
	struct cmd_args	 ca;
	int		 rc;

	rc = cmd_parse(e, c, argc, argv, "-:h", opts, &ca, 0, NULL, NULL);
	if (rc != -1)
		return rc;
	return cmd_get_render(c, xstrdup(path), ca.json, render);
}

/* -1 if the selection has a --scope, else the usage error saying so. */
int
cmd_need_scope(const struct cmd_entry *e, const struct selection *sel)
{
	if (sel->has_scope)
		return -1;
	return cmd_usage_error(e, "%s: --scope is required", e->name);
}

/* 0 if all of arg is a number, stored in *d, else -1. */
int
cmd_double(const char *arg, double *d)
{
	char	*end;

	errno = 0;
	*d = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0')
		return -1;
	return 0;
}

/* --limit N: a count of rows, 0 for no limit. */
int
cmd_limit_option(const struct cmd_entry *e, const char *arg, long long *n)
{
	char	*end;

	errno = 0;
	*n = strtoll(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || *n < 0)
		return cmd_usage_error(e, "%s: --limit \"%s\" is not a "
		    "number of rows", e->name, arg);
	return CMD_OPT_TAKEN;
}

/* Add limit=N to *url unless n is 0, pprof's "no limit". */
void
cmd_limit_query(char **url, long long n)
{
	char	 limit[32];

	if (n > 0) {
		snprintf(limit, sizeof limit, "%lld", n);
		http_query_add(url, "limit", limit);
	}
}

/* A JSON reply printed as it is (json set) or by render, its strings made
 * safe first (termsafe_json); the exit code. */
int
cmd_render(json_t *reply, int json, cmd_render_fn render)
{
	char	*cause = NULL;

	if (json) {
		render_json(stdout, reply);
		return PROFCTL_EXIT_OK;
	}
	termsafe_json(reply);
	if (render(stdout, reply, &cause) != 0) {
		termsafe_line(stderr, "profctl: %s", cause);
		free(cause);
		return PROFCTL_EXIT_REFUSED;
	}
	return PROFCTL_EXIT_OK;
}

/* GET url (freed) and print its JSON reply as cmd_render does. */
int
cmd_get_render(struct client *c, char *url, int json, cmd_render_fn render)
{
	struct http_reply	 reply;
	int			 rc;

	rc = client_get(c, url, &reply);
	free(url);
	if (rc != PROFCTL_EXIT_OK)
		return rc;
	rc = cmd_render(reply.json, json, render);
	http_reply_clear(&reply);
	return rc;
}

/* A reply that ended in profd's error after its status went out (a query
 * past its limits): "profctl: [what: ]error: detail (the reply was cut
 * short; printed)", printed saying what became of what came before. */
void
cmd_reply_cut(const char *what, const char *error, const char *detail,
    const char *printed)
{
	fflush(stdout);
	termsafe_line(stderr, "profctl: %s%s%s: %s (the reply was cut short; "
	    "%s)", what != NULL ? what : "", what != NULL ? ": " : "", error,
	    detail, printed);
}

/* Send a request and print its JSON reply as render_json does, as it
 * arrives (a reply can be larger than memory). A reply that ends in an
 * error is printed as it came, and fails. */
int
cmd_stream_json(struct client *c, const char *method, const char *url,
    const char *ctype, const void *body, size_t len, const char *what)
{
	struct render_json_stream	*s;
	const char			*error, *detail;
	int				 rc;

	s = render_json_stream_new(stdout);
	rc = client_stream(c, method, url, ctype, body, len,
	    render_json_stream_feed, s);
	if (rc == PROFCTL_EXIT_OK && render_json_stream_error(s, &error,
	    &detail)) {
		cmd_reply_cut(what, error, detail, "printed as it came");
		rc = PROFCTL_EXIT_REFUSED;
	}
	render_json_stream_free(s);
	return rc;
}

/*
 * Write a file through a temporary file beside path, renamed over it once
 * complete, so a failure never leaves half a file. fill writes to the
 * stream and returns an exit code, having said what went wrong if not
 * PROFCTL_EXIT_OK.
 */
int
cmd_write_file(const char *path, int (*fill)(FILE *, void *), void *arg)
{
	FILE	*f;
	char	*tmp;
	mode_t	 mask;
	int	 fd, rc, error;

	xasprintf(&tmp, "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) == -1 || (f = fdopen(fd, "w")) == NULL) {
		termsafe_line(stderr, "profctl: %s: %s", path,
		    strerror(errno));
		if (fd != -1) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return PROFCTL_EXIT_USAGE;
	}
	/* mkstemp makes 0600; give the file what fopen would have. */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	if ((rc = fill(f, arg)) != PROFCTL_EXIT_OK) {
		fclose(f);
		unlink(tmp);
		free(tmp);
		return rc;
	}
	error = ferror(f);
	if (fclose(f) != 0)
		error = 1;
	if (error || rename(tmp, path) != 0) {
		termsafe_line(stderr, "profctl: %s: %s", path,
		    strerror(errno));
		unlink(tmp);
		free(tmp);
		return PROFCTL_EXIT_USAGE;
	}
	free(tmp);
	return PROFCTL_EXIT_OK;
}
