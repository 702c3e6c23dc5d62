/* query.h: reports over stored profiles.  Query code asks the store for
 * (callsite, value) pairs of a selection, builds what it needs once in
 * memory and returns plain data; the server turns it into JSON. */
#ifndef PROFD_QUERY_H
#define PROFD_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct selection;

struct csindex;
struct stackwalk;

/* What top, tree and list start from: the selection's values of a
 * source, whose index names their callsites, and a stack walker at a
 * granularity.  query_walk_close undoes whatever query_walk_open
 * reached. */
struct stack_source;
struct query_walk {
	struct store_cs_value *vals;
	size_t nvals;
	struct stack_source *src;	/* selected: released at close */
};
int query_walk_open(struct stack_source *, const struct selection *,
    int granularity, struct store_metric *, int64_t *nprofiles,
    struct query_walk *, struct stackwalk *, struct error *);
void query_walk_close(struct query_walk *, struct stackwalk *);
/* From value *i on, the next one with a stack the frame filters keep,
 * walked into the stackwalk: 1 with *i its index, 0 at the end, -1. */
int query_walk_next(const struct query_walk *, struct stackwalk *,
    size_t *i, struct error *);

/* Query threads' state: a read-only store and the shared index and,
 * when profd has a fleet, how to read it: a stack source over the
 * fleet's hosts (none: all), made by whatever holds the fleet
 * (fleet/fleet-source.c, set up by the server). */
struct query_worker {
	struct store *store;
	struct csindex *index;
	struct stack_source *(*fleet_open)(void *ctx, char *const *hosts,
	    size_t nhosts);
	void *fleet_ctx;		/* NULL: no fleet */
};

/* The (callsite, value) pairs of a selection, merged over its profiles by
 * summing, and the metric they are of: the one named (ERR_INPUT when no
 * selected scope has it, or it has several units there), else the default
 * metric of the newest profile of the first scope.  ERR_NOT_FOUND for an
 * unknown scope. */
/* The metric and store filter of a selection (with the same errors as
 * query_select), without reading any sample; *scope_ids backs the
 * filter's scopes and is for the caller to free, even on error. */
struct store_filter;
int query_resolve(struct store *, const struct selection *,
    struct store_metric *, struct store_filter *, int64_t **scope_ids,
    struct error *);
int query_select(struct store *, struct csindex *, const struct selection *,
    struct store_metric *, struct store_cs_value **, size_t *,
    int64_t *nprofiles, struct error *);

#endif
