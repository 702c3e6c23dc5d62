/* fleet-fsum.h: top's per-function sums shipped to ClickHouse and read
 * back (schema/clickhouse/008-functions.sql). */
#ifndef PROFD_FLEET_FSUM_H
#define PROFD_FLEET_FSUM_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "error.h"
#include "store-fsum.h"

struct csindex;
struct fleet_tsv_field;

/* One profile's pairs of one metric (callsites of idx, held) as rows of
 * function_rows, each row head (its scope, metric, host, time and
 * profile, tab-terminated) then kind, caller, name, a, b: a row per
 * function top counts (flat, cum), per call edge (weight, 1 when the
 * callee was not inlined on every stack through it) and one of the
 * profile (its total).  None (*rows 0) when a value is negative. */
int fleet_fsum_rows(struct buf *out, const struct csindex *idx,
    const char *head, const struct store_cs_value *v, size_t n,
    size_t *rows, struct error *);

/* A window's sums as the reader takes them, names made ids of idx. */
struct fleet_fsum {
	struct csindex *idx;
	struct store_fsum_fn *fn;
	size_t nfn;
	struct store_fsum_edge *edge;
	size_t nedge;
	int64_t profiles, total;	/* the profiles summed, their total */
	int64_t whole;			/* the whole hours' profiles; -1 */
	struct store_fsum_view view;
};

void fleet_fsum_init(struct fleet_fsum *, struct csindex *);
/* A row of fleet_sql_fsums' reply (arg: the fleet_fsum). */
int fleet_fsum_row(void *arg, struct fleet_tsv_field *, size_t n,
    struct error *);
/* The rows read as one view; valid until the next reset or clear. */
const struct store_fsum_view *fleet_fsum_view(struct fleet_fsum *);
void fleet_fsum_reset(struct fleet_fsum *);
void fleet_fsum_clear(struct fleet_fsum *);

#endif
