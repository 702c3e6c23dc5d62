/* server.h: the daemon: configuration, the listening socket, the event loop
 * and the worker threads. */
#ifndef PROFD_SERVER_H
#define PROFD_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* Runs until SIGTERM/SIGINT; returns the process exit code.  SIGHUP
 * builds a new configuration from argc/argv and the config file. */
int server_run(struct config *, int argc, char **argv);

#endif
