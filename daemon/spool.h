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

#include "error.h"

struct event_base;
struct server;
struct spool;

struct spool_stats {
	const char *dir;
	size_t watched_dirs;
	size_t waiting;			/* files in the backlog */
	uint64_t waiting_bytes;
	size_t in_flight;		/* on the import queue */
	int scanning;			/* a full listing is under way */
	int more;			/* more files than the backlog holds */
	int64_t last_scan_ns;		/* CLOCK_REALTIME; 0: none yet */
	uint64_t imported, duplicates, refused, retried;
};

/* Watch dir (made ready by spool_prepare) and list it on the I/O queue.
 * The server's queues must exist. */
struct spool *spool_new(struct server *, struct event_base *,
    const char *dir, struct error *);
/* The loop has stopped: queue nothing more (the queues are being
 * drained, and a job's end must not start another). */
void spool_stop(struct spool *);
/* After the queues are freed. */
void spool_free(struct spool *);
void spool_stats(struct spool *, struct spool_stats *);

#endif
