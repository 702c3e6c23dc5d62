/* main.c: profctl, the command-line client of profd. Global options, then
 * one command from the table in cmd.c. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

static void
main_usage(FILE *f)
{
	const struct cmd_entry	**e;
	char			 *def;

	fprintf(f, "usage: profctl [--socket PATH] COMMAND [ARGS]\n"
	    "       profctl --help | --version\n\ncommands:\n");
	for (e = cmd_table; *e != NULL; e++)
		fprintf(f, "  %s\n", (*e)->usage);
	fprintf(f, "\n%s%s", SELECTION_USAGE, FLEET_USAGE);
	def = paths_default_socket();
	fprintf(f, "\noptions:\n"
	    "  --socket PATH  profd's socket (default: $PROFD_SOCKET, else\n"
	    "                 %s)\n"
	    "  --help         show this help\n"
	    "  --version      show the version\n"
	    "\nexit status:\n"
	    "  0  success\n"
	    "  1  the daemon refused the request (or a file could not be"
	    " read)\n"
	    "  2  usage error, or the daemon could not be reached\n", def);
	free(def);
}

static int
main_usage_error(const char *msg, const char *arg)
{
	termsafe_line(stderr, "profctl: %s%s", msg, arg != NULL ? arg : "");
	main_usage(stderr);
	return PROFCTL_EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "socket",	required_argument,	NULL, 'S' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct cmd_entry	*e;
	struct client		 c;
	int			 ch, rc;

	memset(&c, 0, sizeof c);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			free(c.socket);
			c.socket = xstrdup(optarg);
			break;
		case 'h':
			main_usage(stdout);
			free(c.socket);
			return cmd_finish(PROFCTL_EXIT_OK);
		case 'V':
			printf("profctl %s\n", PROFD_VERSION);
			free(c.socket);
			return cmd_finish(PROFCTL_EXIT_OK);
		case ':':
			free(c.socket);
			return main_usage_error("option needs an argument: ",
			    argv[optind - 1]);
		default:
			free(c.socket);
			return main_usage_error("unknown option: ",
			    argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		free(c.socket);
		return main_usage_error("no command given", NULL);
	}
	if ((e = cmd_find(argv[optind])) == NULL) {
		free(c.socket);
		return main_usage_error("unknown command: ", argv[optind]);
	}

	rc = e->exec(&c, argc - optind, argv + optind);
	client_free(&c);
	return cmd_finish(rc);
}
