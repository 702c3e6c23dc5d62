/* store-rollup.h: the rollups as the sample files share them
 * (store-rollup.c keeps them, store-samples.c writes blocks into them,
 * store-select.c reads them); nothing outside the store includes it.
 * docs/DESIGN-STORAGE.md describes them. */
#ifndef PROFD_STORE_ROLLUP_H
#define PROFD_STORE_ROLLUP_H

#include <stdint.h>

#include "hmap.h"
#include "kv.h"
#include "srows.h"
#include "store-int.h"

/* Rollup rows held in memory by one import before they are written. */
#define ROLLUP_MEM_ROWS		(512u * 1024)

/* The rollup windows, in seconds; each is a multiple of the one before. */
#define STORE_NSPANS	2
#define STORE_HOUR	3600
#define STORE_DAY	86400
extern const int64_t store_spans[STORE_NSPANS];

static inline int64_t
store_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	if (a % b != 0 && (a < 0) != (b < 0))
		q--;
	return q;
}

static inline int64_t
store_window_of(int64_t bucket, int64_t span)
{
	return store_floor_div(bucket, span) * span;
}

static inline int64_t
store_ceil_to(int64_t a, int64_t span)
{
	return -store_floor_div(-a, span) * span;
}

/* A rollup's columns: per metric, the rows summed and their sum. */
static inline uint64_t
store_count_tag(uint64_t metric)
{
	return metric * 2;
}

static inline uint64_t
store_value_tag(uint64_t metric)
{
	return metric * 2 + 1;
}

/* One window's rows while an import or a delete adds them up. */
struct rwin {
	int64_t span, start;
	struct srows rows;
	int overflow;			/* too many keys: no rollup */
};

struct racc {
	struct rwin *w;
	size_t n;
	struct hmap at;			/* (span, start) -> 1 + index */
	size_t rows;
	size_t max;			/* keys of a window: ROLLUP_MAX_ENTRIES */
	int64_t profile;		/* whose rows (one profile's) */
};

/* (metric, profile id) pairs: the profiles a run counts. */
struct plist {
	struct kv *p;
	size_t n, cap;
};
void plist_add(struct plist *, int64_t metric, int64_t profile);
void plist_norm(struct plist *);
void plist_free(struct plist *);
/* A run's profile list, of one metric (0: every metric), appended to l
 * and/or put into set (either may be NULL). */
int plist_decode(const void *, size_t, int64_t metric, struct plist *l,
    struct imap *set, int64_t id, struct error *);

/* store-runs.c: a window's rows of one profile added as a run (merged
 * with others as they pile up), or taken out of the window. */
int store_runs_add(struct store *, int64_t scope, int64_t span,
    int64_t start, struct srows *delta, int overflow, int64_t profile,
    struct error *);
int store_runs_remove(struct store *, int64_t scope, int64_t span,
    int64_t start, const struct srows *delta, int overflow, int64_t profile,
    struct error *);

/* The days in [lo, hi] whose hours have runs and which have no row of
 * their own (open, store-runs.c), appended to days (grown by
 * xappendarray, as sel_windows grows it too): read from their hours. */
int store_runs_open(struct store *, int64_t scope, int64_t lo, int64_t hi,
    int64_t **days, size_t *n, struct error *);

/* Keys of a window past which it gets a marker row, not a rollup
 * (store-runs.c). */
size_t store_rollup_max(const struct store *);
/* Add sorted rows (columns cols[] of r, whose tags are metric ids) to the
 * windows they fall in. */
void store_rollup_add(struct racc *, const struct srows *, const size_t *cols,
    size_t ncols);
/* A stored block, every column of it, into the rollup windows of a;
 * flushed (sign 1 adds, -1 takes away) when they hold too many rows. */
int store_rollup_add_block(struct store *, struct racc *, int64_t scope,
    const void *blob, size_t len, int64_t base, int64_t id, int sign,
    struct srows *scratch, struct error *);
/* The windows added into the stored rollups as runs of a->profile (sign
 * 1) or taken out of them (-1), and emptied. */
int store_rollup_flush(struct store *, int64_t scope, struct racc *,
    int sign, struct error *);
void store_rollup_clear(struct racc *);
/* Schema 6: every profile's rollups and totals made from its blocks. */
int store_rollup_rebuild(struct store *, struct error *);

/* store-totals.c: (metric, bucket) -> total of one profile, in memory. */
struct totals {
	struct kv *kv;
	size_t n, cap;
};
/* Rows (columns cols[] of r, whose tags are metric ids) added. */
void store_totals_add(struct totals *, const struct srows *,
    const size_t *cols, size_t ncols);
void store_totals_add_all(struct totals *, const struct srows *);
/* A profile's totals inserted (sorted and merged first). */
int store_totals_write(struct store *, int64_t scope, int64_t profile,
    struct totals *, struct error *);
/* A stored profile's totals made from its blocks; deleted. */
int store_totals_profile(struct store *, int64_t profile, struct error *);
int store_totals_delete(struct store *, int64_t profile, struct error *);

#endif
