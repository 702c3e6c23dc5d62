/* retention.h: dropping what the retention settings no longer keep, and
 * the deletes profctl asks for.  A pass runs on the import thread as a
 * chain of short jobs (one transaction each), so pushes queued meanwhile
 * run between them. */
#ifndef PROFD_RETENTION_H
#define PROFD_RETENTION_H

#include <stdint.h>

#include "config.h"
#include "error.h"

struct csindex;
struct jobq;
struct retainer;
struct store;
struct importer;

struct retainer *retainer_new(void);
void retainer_free(struct retainer *);
/* On the loop: start a pass over the import queue unless one is running
 * (policy is copied). */
void retainer_start(struct retainer *, struct jobq *,
    const struct retention *);
/* Rows deleted some other way (DELETE /v1/profiles): the next pass
 * collects what they leave unused, even if it drops nothing.  Any
 * thread. */
void retainer_want_gc(struct retainer *);
/* Counters for /v1/health (on the loop). */
struct retainer_stats {
	int running;
	uint64_t passes, dropped, collected;
	int64_t last_pass_ns;		/* 0: none yet */
	int64_t last_dropped, last_collected;
	char last_error[512];		/* "": none */
};
void retainer_stats(const struct retainer *, struct retainer_stats *);

/* Profiles of one scope: all of them and the scope itself (no before, no
 * ids), those older than before_ns, or the given ids.  On the import
 * thread; a transaction per batch. */
struct retention_delete {
	const char *scope;
	int64_t before_ns;		/* 0: none */
	const int64_t *ids;
	size_t nids;
};
int retention_delete(struct store *, const struct retention_delete *,
    int64_t *profiles, int64_t *samples, int *scope_gone, struct error *);

/* One step of collecting unused interned rows (store_gc_step), with the
 * query threads' callsite index caught up first: the index keeps every
 * callsite and frame it has read, and a query that selected its values
 * before the collection (or from an older snapshot) may name rows the
 * step deletes, so the index must have read them while they were there.
 * On the import thread. */
int retention_gc_step(struct store *, struct csindex *, int *phase,
    size_t batch, int64_t *removed, struct error *);

#endif
