/* retention.h: deleting profiles and collecting the rows they leave
 * unused, on the import thread: the steps of a retention pass (retainer.h)
 * and the deletes profctl asks for. */
#ifndef PROFD_RETENTION_H
#define PROFD_RETENTION_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct csindex;
struct store;

/* Profiles a drop step of a retention pass deletes at most. */
#define RETENTION_DROP_BATCH	64

/* Delete v[0..n) in one transaction, adding their samples to *samples
 * (unless NULL).  On the import thread. */
struct store_old_profile;
int retention_drop(struct store *, const struct store_old_profile *,
    size_t n, int64_t *samples, struct error *);

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
