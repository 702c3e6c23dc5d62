/* store-gauge.h: several reads of one commit, and a gauge window's edges
 * (store-gauge.c); a window's sums kept between calls, for gauges and
 * store_select_values (store-gauge-sums.c). */
#ifndef PROFD_STORE_GAUGE_H
#define PROFD_STORE_GAUGE_H

#include <stdint.h>

#include "error.h"
#include "store.h"

/* A read transaction opened for the reads that follow, unless one is
 * open already (*held 0: then nothing to release).  A gauge's window is
 * read in several reads (its profiles per series, their totals, the
 * window's sums) whose numbers must come from the same commit. */
int store_gauge_hold(struct store *, int *held, struct error *);
/* Its end; after a failed read too (the transaction may be gone). */
int store_gauge_release(struct store *, int held, struct error *);

/* A scope's metric's window [*since_s, *until_s] (seconds, buckets)
 * widened out to the boundaries of the longest rollup span, else of the
 * shortest, as far as the scope has no row of the metric between (its
 * per-bucket totals, sample_total): the widened window's sums are the
 * window's, and more of it is whole windows that the rollups answer.
 * An edge with a row before the next boundary, or open, stays. */
int store_gauge_widen(struct store *, int64_t scope, int64_t metric,
    int64_t *since_s, int64_t *until_s, struct error *);
/* store_select_values of a window of one metric (no labels, profile
 * ids or raw values: else store_select_values itself), with the sums of
 * its rollup runs and of the blocks it takes whole kept between calls
 * (store-gauge-sums.c): the same pairs and profile count. */
/* Whether the scope has a row of the metric in buckets [a, b] (its
 * per-bucket totals): 1, 0, -1 on error. */
int store_gauge_any(struct store *, int64_t scope, int64_t metric,
    int64_t a, int64_t b, struct error *);
int store_gauge_select(struct store *, const struct store_filter *,
    struct store_cs_value **, size_t *, int64_t *nprofiles,
    struct error *);
/* The same for store_select_values (a delta read the rollups answer
 * part of: tree, flame graph), with the select's plan always. */
int store_pairs_select(struct store *, const struct store_filter *,
    struct store_cs_value **, size_t *, int64_t *nprofiles,
    struct error *);
/* Rollup runs whose bytes the reads through the kept pairs (the two
 * above) read and inflated, process-wide, for tests: a run whose pairs
 * are held is not read. */
uint64_t store_gauge_runs_read(void);

#endif
