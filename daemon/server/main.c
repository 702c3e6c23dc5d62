/* main.c: profd's command line. */
#include <malloc.h>
#include <stdio.h>

#include "config.h"
#include "log.h"
#include "server.h"

int
main(int argc, char **argv)
{
	struct config cfg;
	struct error err = { 0 };
	int rc = 0;

	/* Buffers of a megabyte and more (an import's sample rows, blobs)
	 * come from mmap and go back to the system when freed: glibc would
	 * otherwise raise this threshold after the first such free and keep
	 * them in its per-thread arenas. */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	/* Below that, up to 4 MiB freed at the top of an arena stays
	 * mapped: a query's scratch arrays would otherwise be handed back
	 * and faulted in again at every query (a third of a 3 ms tree). */
	mallopt(M_TRIM_THRESHOLD, 4 << 20);

	switch (config_from_args(&cfg, argc, argv, &err)) {
	case CONFIG_OK:
		log_init(cfg.log_level, cfg.foreground);
		rc = server_run(&cfg, argc, argv);
		break;
	case CONFIG_ERROR:
		fprintf(stderr, "profd: %s\n", err.msg);
		fprintf(stderr, "Try profd --help.\n");
		rc = 2;
		break;
	case CONFIG_HELP:
		config_usage(stdout);
		break;
	case CONFIG_VERSION:
		printf("profd %s\n", PROFD_VERSION);
		break;
	case CONFIG_PRINT:
		config_print(stdout, &cfg);
		break;
	}
	config_clear(&cfg);
	return rc;
}
