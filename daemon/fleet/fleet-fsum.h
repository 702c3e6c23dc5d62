/* fleet-fsum.h: top's per-function sums shipped to ClickHouse and read
 * back (schema/clickhouse/008-functions.sql): each function and call
 * edge by a 64-bit key, its names in function_names, kept by the reader
 * in a cache as the frames of stacks are (fleet-cache.h), so that a top's answer
 * is numbers. */
#ifndef PROFD_FLEET_FSUM_H
#define PROFD_FLEET_FSUM_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "error.h"
#include "hmap.h"
#include "store-fsum.h"

struct csindex;
struct fleet_cache;
struct fleet_tsv_field;

/* A batch's keys: each (kind, caller, name) met, its key, and the rows
 * of function_names for them (key, caller, name), one a key. */
struct fleet_fsum_keys {
	struct hmap seen;		/* kind caller NUL name -> 1 + index */
	uint64_t *keys;
	size_t nkeys;
	struct buf rows;
	struct buf scratch;
};
void fleet_fsum_keys_clear(struct fleet_fsum_keys *);

/* One profile's pairs of one metric (callsites of idx, held) as rows of
 * function_rows, each row head (its scope, metric, host, time and
 * profile, tab-terminated) then kind, key, a, b: a row per function top
 * counts (flat, cum), per call edge (weight, 1 when the callee was not
 * inlined on every stack through it) and one of the profile (key 0, its
 * total), their names into k.  None (*rows 0) when a value is
 * negative. */
int fleet_fsum_rows(struct buf *out, struct fleet_fsum_keys *k,
    const struct csindex *idx, const char *head,
    const struct store_cs_value *v, size_t n, size_t *rows,
    struct error *);

/* A window's sums as the reader takes them, names made ids of idx. */
struct fleet_fsum_raw {
	int kind;
	uint64_t key;
	int64_t a, b;
};
struct fleet_fsum {
	struct csindex *idx;
	/* The names of keys, kept between calls (names never change under
	 * a key), shared by the query threads: a key's caller and name,
	 * NUL after each, in one allocation. */
	struct fleet_cache *names;
	struct fleet_fsum_raw *raw;	/* the reply's functions and edges */
	size_t nraw;
	struct store_fsum_fn *fn;
	size_t nfn;
	struct store_fsum_edge *edge;
	size_t nedge;
	int64_t profiles, total;	/* the profiles summed, their total */
	int64_t whole;			/* the whole hours' profiles; -1 */
	struct store_fsum_view view;
};

void fleet_fsum_init(struct fleet_fsum *, struct csindex *,
    struct fleet_cache *names);
/* A row of fleet_sql_fsums' reply (arg: the fleet_fsum). */
int fleet_fsum_row(void *arg, struct fleet_tsv_field *, size_t n,
    struct error *);
/* A row of fleet_sql_fnames' reply: a key's names, kept. */
int fleet_fsum_name_row(void *arg, struct fleet_tsv_field *, size_t n,
    struct error *);
/* The rows read named from the kept names: how many keys have none
 * (their keys in *missing, to free: ask them, then again). */
size_t fleet_fsum_resolve(struct fleet_fsum *, uint64_t **missing);
/* The rows as one view; valid until the next reset or clear. */
const struct store_fsum_view *fleet_fsum_view(struct fleet_fsum *);
void fleet_fsum_reset(struct fleet_fsum *);
void fleet_fsum_clear(struct fleet_fsum *);

#endif
