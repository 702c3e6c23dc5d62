/* source.h: where the views' stacks come from.  Every view (top, peek,
 * tree, diff, timeline, list, scopes) reads a stack source: the
 * selection's (callsite, value) pairs summed over its profiles, or per
 * time bucket, with the index that names each callsite's frames.  The
 * store is one source (source-store.c), ClickHouse, the fleet's, another
 * (fleet/fleet-source.c); the views are written once over this, as
 * SQLite's virtual tables are over their modules, so a fleet answer
 * equals the answer of one store holding the same profiles. */
#ifndef PROFD_SOURCE_H
#define PROFD_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct csindex;
struct selection;
struct stack_source;
struct store_fsum_view;

struct stack_source_ops {
	/* The selection's pairs, merged over its profiles as its
	 * aggregate says (metric->aggregate: the one asked for, else its
	 * kind's, kind_aggregate), and the metric they are of: the one
	 * named (ERR_INPUT when no selected scope has it, or it has several
	 * units there), else the default metric of the newest profile of
	 * the first scope; ERR_NOT_FOUND for an unknown scope.  The index names every
	 * callsite they hold until release. */
	int (*select)(struct stack_source *, const struct selection *,
	    struct store_metric *, struct store_cs_value **, size_t *,
	    int64_t *nprofiles, struct error *);
	/* The same per time bucket (seconds), in time order.  Without
	 * stacks, the source may sum each bucket over its callsites
	 * (callsite -1), as the store's per-bucket totals do.  *step_s is
	 * the timeline's step (0: 1 s); a source that combines the
	 * profiles of each step (a gauge's average, docs/TIME.md) puts
	 * each step's values at its start and sets the step it used
	 * (timeline_step's, for the profiles' range). */
	int (*buckets)(struct stack_source *, const struct selection *,
	    int stacks, int64_t *step_s, struct store_metric *,
	    struct store_bucket_value **, size_t *, struct error *);
	/* top's shortcut (may be NULL): the pairs of select, but with the
	 * parts the source keeps per-function sums of (store-fsum.h) left
	 * out of them and given as those sums instead, valid until release;
	 * 1 when it has none for the selection (then select). */
	int (*select_fsum)(struct stack_source *, const struct selection *,
	    struct store_metric *, struct store_cs_value **, size_t *,
	    int64_t *nprofiles, const struct store_fsum_view **, size_t *,
	    struct error *);
	/* Every scope, by name; and the hosts whose profiles these are
	 * (none for one host's store: its own). */
	int (*scopes)(struct stack_source *, struct store_scope_info **,
	    size_t *, char ***hosts, size_t *nhosts, struct error *);
	/* The pairs of select or buckets are walked no more; the index's
	 * strings stay valid until the source is freed. */
	void (*release)(struct stack_source *);
	void (*free)(struct stack_source *);
};

struct stack_source {
	const struct stack_source_ops *ops;
	const struct csindex *index;	/* between select and release */
};

/* source-store.c: the store's stacks, over the query threads' shared
 * index.  Freed with stack_source_free. */
struct store;
struct stack_source *source_store_new(struct store *, struct csindex *);

static inline void
stack_source_free(struct stack_source *src)
{
	if (src != NULL)
		src->ops->free(src);
}

#endif
