/* spool.h: the spool directory, on the event loop.  inotify watches the
 * spool, its scope directories and their format directories; a listing at
 * start-up and a slow periodic rescan catch what events missed.  Files
 * found wait in a backlog and are fed to the import queue a few at a time;
 * every file operation (listing, stat, open, import, rename) runs on the
 * I/O or import thread (spool-file.c), never on the loop. */
#ifndef PROFD_SPOOL_H
#define PROFD_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "error.h"

struct event_base;
struct spool;

/* Watch dir (made ready by spool_prepare) and list it on the I/O queue.
 * The host's queues must exist; the spool counts its imports in the
 * host's counters and reads its settings from host->cfg. */
struct spool *spool_new(struct api_host *, struct event_base *,
    const char *dir, struct error *);
/* The loop has stopped: queue nothing more (the queues are being
 * drained, and a job's end must not start another). */
void spool_stop(struct spool *);
/* After the queues are freed. */
void spool_free(struct spool *);
/* Its status provider (ctx: the spool, NULL when there is none): the
 * backlog, what is in flight, the last listing, the counts. */
json_t *spool_status(void *ctx);

#endif
