/* fleet.h: shipping every committed profile to ClickHouse (issue 16).
 * The shipper lives on the event loop: batches are read on a query
 * thread, ClickHouse is spoken to with libevent's HTTP client, and the
 * shipped profiles are marked by the import thread (the store's writer)
 * only after ClickHouse acknowledged them.  ClickHouse down or slow
 * costs retries with backoff, never a blocked import or query. */
#ifndef PROFD_FLEET_H
#define PROFD_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct event_base;
struct jobq;
struct fleet;
struct retention;
struct store;

struct fleet_config {
	const char *url;		/* ClickHouse's HTTP interface */
	const char *host;		/* this host's name in the fleet */
	const char *database;
	const char *cluster;		/* NULL: none (no Distributed tables) */
	size_t batch;			/* profiles per batch */
	size_t batch_bytes;		/* rows past which a batch ends */
	int64_t interval;		/* seconds between polls when idle */
	/* The store's writer, which counts the backlog (store_ship_live),
	 * and its bound in bytes (0: none), for the status. */
	struct store *store;
	uint64_t backlog_max;
};


/* Shipping through ch (ch.c; the caller's, freed after the fleet).
 * reads: the query queue (workers are struct query_worker); writes: the
 * import queue (struct import_worker). */
struct ch;
struct fleet *fleet_new(struct event_base *, const struct fleet_config *,
    struct ch *, struct jobq *reads, struct jobq *writes);
/* Cancel what is in flight; the jobs that come back after are dropped. */
void fleet_stop(struct fleet *);
/* After the queues are gone. */
void fleet_free(struct fleet *);
/* The store's retention policy (at the start and on SIGHUP): the day
 * partitions past its max-age are dropped in ClickHouse. */
void fleet_set_retention(struct fleet *, const struct retention *);
/* A status provider's report (base/status.h): "fleet" of /v1/status,
 * null when nothing ships (f NULL). */
#include <jansson.h>
json_t *fleet_status(void *f);

#endif
