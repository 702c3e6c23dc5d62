/* store-fsum.h: top's per-function sums of rollup runs (DESIGN-STORAGE.md,
 * "Function sums"): for a selection the rollups answer, each run's flat
 * and cum per function (cum once per stack) and its caller -> callee
 * edges, kept by the reading connection between calls, so that top adds
 * up a few thousand sums per window instead of walking every stack of
 * it.  The query side (top.c through source-store.c) merges them with
 * the pairs of the rest of the window. */
#ifndef PROFD_STORE_FSUM_H
#define PROFD_STORE_FSUM_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct csindex;

/* Names are the index's printable names at function granularity
 * (csindex_name). */
struct store_fsum_fn {
	uint32_t name;
	int64_t flat, cum;
};
/* An edge once per stack through it (caller != callee); inl: inlined on
 * every such stack (top.c's edges_label); gid: the connection's number
 * of the edge (caller, callee), the same in every view, < ngid. */
struct store_fsum_edge {
	uint32_t caller, callee;
	uint32_t gid;
	int inl;
	int64_t weight;
};
/* One run's sums of the selected metric; total is the sum of |value| of
 * its pairs (callsite 0's too), as top's total. */
struct store_fsum_view {
	const struct store_fsum_fn *fn;
	size_t nfn;
	const struct store_fsum_edge *edge;
	size_t nedge;
	int64_t total;
	size_t ngid;			/* the edges' numbers are below it */
};

/* A selection's pairs, as store_select_values, but for the rollup runs
 * whose sums the connection holds (for index idx): those are left out of
 * the pairs, for store_fsum_views.  1 when the sums cannot answer (a
 * selection the rollups do not answer, a negative value: sums of
 * windows are not the window's then), with nothing to free. */
int store_select_fsum(struct store *, const struct csindex *idx,
    const struct store_filter *, struct store_cs_value **, size_t *,
    int64_t *nprofiles, struct error *);
/* With idx held (csindex_acquire): the sums of the runs the last
 * store_select_fsum left out, valid until the next call on the store;
 * and the runs it decoded summed for the calls after it.  inlined: the
 * frame flag of a frame inlined into its caller (FRAME_INLINED; the
 * store does not know the model's flags). */
int store_fsum_views(struct store *, const struct csindex *idx,
    unsigned inlined, const struct store_fsum_view **, size_t *,
    struct error *);
void store_fsum_free(struct store *);
/* Runs answered from their sums, for tests. */
int64_t store_fsum_hits(const struct store *);

#endif
