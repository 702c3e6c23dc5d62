/* cmd.c: the command table and what every command's option parsing
 * shares. */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

const struct cmd_entry *cmd_table[] = {
	&cmd_push_entry,
	&cmd_scopes_entry,
	&cmd_profiles_entry,
	&cmd_top_entry,
	&cmd_flamegraph_entry,
	&cmd_tree_entry,
	&cmd_diff_entry,
	&cmd_export_entry,
	&cmd_query_entry,
	&cmd_timeline_entry,
	NULL
};

const struct cmd_entry *
cmd_find(const char *name)
{
	const struct cmd_entry	**e;

	for (e = cmd_table; *e != NULL; e++) {
		if (strcmp((*e)->name, name) == 0)
			return (*e);
	}
	return (NULL);
}

void
cmd_print_usage(FILE *f, const struct cmd_entry *e)
{
	fprintf(f, "usage: profctl [--socket PATH] %s\n", e->usage);
}

/* "profctl: message" and the command's usage on stderr; exit code 2. */
int
cmd_usage_error(const struct cmd_entry *e, const char *fmt, ...)
{
	va_list	 ap;

	fputs("profctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cmd_print_usage(stderr, e);
	return (PROFCTL_EXIT_USAGE);
}

/*
 * The options every command takes (--socket, --help) and getopt's
 * complaints. Returns -1 when parsing goes on, else the exit code.
 */
int
cmd_common_option(const struct cmd_entry *e, struct client *c, int ch,
    char **argv)
{
	switch (ch) {
	case 'S':
		free(c->socket);
		c->socket = xstrdup(optarg);
		return (-1);
	case 'h':
		cmd_print_usage(stdout, e);
		return (PROFCTL_EXIT_OK);
	case ':':
		return (cmd_usage_error(e, "%s: option %s needs an argument",
		    e->name, argv[optind - 1]));
	case '?':
		if (optopt > ' ' && optopt < 0x7f)
			return (cmd_usage_error(e, "%s: unknown option -%c",
			    e->name, optopt));
		return (cmd_usage_error(e, "%s: unknown option %s", e->name,
		    argv[optind - 1]));
	}
	return (cmd_usage_error(e, "%s: unexpected option", e->name));
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
	return (rc);
}
