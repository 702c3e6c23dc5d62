/* srows.h: sample rows.  A row is keyed by (label set, callsite, bucket)
 * and has one int64 per column.  Columns carry a tag that the caller gives
 * a meaning to: a metric id in a raw sample block, a metric's row count or
 * value in a rollup.  sblock.h encodes a set of them. */
#ifndef PROFD_SROWS_H
#define PROFD_SROWS_H

#include <stddef.h>
#include <stdint.h>

/* Rows in columns: key arrays and a row-major value matrix. */
struct srows {
	size_t n, cap;
	size_t ncols;
	uint64_t *tags;			/* ncols, the column tags */
	int64_t *ls, *cs, *bucket;	/* n each */
	int64_t *v;			/* n * ncols */
};

void srows_free(struct srows *);
/* Drop the rows, keep the columns and the memory. */
void srows_reset(struct srows *);
/* The column of a tag, added (zero in every row) if new. */
size_t srows_col(struct srows *, uint64_t tag);
/* Append a row; vals has ncols values. */
void srows_push(struct srows *, int64_t ls, int64_t cs, int64_t bucket,
    const int64_t *vals);
/* Room for want rows in all. */
void srows_grow(struct srows *, size_t want);
/* Sort by (ls, cs, bucket) and sum the rows of equal keys. */
void srows_sort_merge(struct srows *);
/* The same, the result made in spare's memory (which then holds r's):
 * a writer sorting batch after batch allocates nothing. */
void srows_sort_merge_reuse(struct srows *, struct srows *spare);
/* Row "from" copied over row "to", as a compaction in place does. */
void srows_move_row(struct srows *, size_t to, size_t from);
/* Keep the rows for which keep(arg, values) says 1. */
void srows_filter(struct srows *, int (*keep)(void *, const int64_t *,
    size_t ncols), void *);
/* The number of rows srows_merge(a, b) makes, nothing allocated. */
size_t srows_merge_count(const struct srows *a, const struct srows *b);
/* out = a + sign * b, both sorted and merged; columns are the union. */
void srows_merge(struct srows *out, const struct srows *a,
    const struct srows *b, int sign);

#endif
