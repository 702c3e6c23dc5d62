/* server.h: the daemon: configuration, the listening socket, the event loop
 * and the worker threads. */
#ifndef PROFD_SERVER_H
#define PROFD_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct config {
	char *socket_path;
	char *db_path;
	char *uploads_dir;		/* NULL: "uploads" beside the store */
	int foreground;
	int log_level;
	int query_threads;
	size_t import_queue;		/* waiting imports before 503 */
	size_t query_queue;
	struct limits limits;
};

/* Per-user or system defaults, as profctl computes them too. */
void config_defaults(struct config *);
void config_clear(struct config *);

/* Runs until SIGTERM/SIGINT; returns the process exit code. */
int server_run(const struct config *);

#endif
