/* sblock.h: packed sample rows.  A set of rows (struct srows, srows.h)
 * sorted by their key and without duplicates encodes into one blob of
 * varints (the format is in sblock.c and docs/DESIGN-STORAGE.md).  Knows
 * no SQL. */
#ifndef PROFD_SBLOCK_H
#define PROFD_SBLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "error.h"

struct srows;

/* Encode sorted, merged rows.  Buckets are stored relative to base (the
 * smallest bucket of the rows). */
void sblock_encode(const struct srows *, int64_t base, struct buf *);
/* The same with only some columns, cols[0..ncols) (in that order). */
void sblock_encode_cols(const struct srows *, const size_t *cols,
    size_t ncols, int64_t base, struct buf *);

/* An encoded blob deflated in place (version 2) when that makes it
 * smaller; the decoder reads both versions. */
void sblock_deflate(struct buf *);

/* Unsigned LEB128, as in the blobs. */
void sblock_put_varint(struct buf *, uint64_t);
int sblock_get_varint(const uint8_t **, const uint8_t *end, uint64_t *);
/* Zigzag: signed values as unsigned, small magnitudes small. */
static inline uint64_t
sblock_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t
sblock_unzigzag(uint64_t u)
{
	return (int64_t)((u >> 1) ^ -(u & 1));
}

/* Whether a list of varints (sample_block.metrics) holds v. */
int sblock_varints_have(const void *, size_t, uint64_t v);

struct sblock_col {
	uint64_t tag;
	uint64_t scale;
	const uint8_t *p, *end;
	size_t ref;			/* whose stream it reads */
	int want;
	int konst;			/* no stream: every value is scale */
};

/* A cursor over an encoded block.  Only the columns asked for with
 * sblock_dec_want are decoded; v[col] holds their values after next. */
struct sblock_dec {
	const uint8_t *blob, *k, *kend;
	size_t nrows, row, run_left;
	int single;
	int64_t base, ls, cs, bucket;
	int first_in_run;
	struct sblock_col *cols;
	size_t ncols, capcols;
	int64_t *v;
	uint8_t *z;			/* a version 2 blob, inflated */
	size_t zcap;
	const char *what;		/* for error messages: what and */
	int64_t id;			/* which */
};

/* Read the header of a blob (what and id only name it in errors, e.g.
 * "sample block", 12); ERR_INTERNAL if it is corrupt.  A decoder may be
 * opened again on another blob; sblock_dec_free releases it. */
int sblock_dec_open(struct sblock_dec *, const void *, size_t, int64_t base,
    const char *what, int64_t id, struct error *);
void sblock_dec_free(struct sblock_dec *);
/* The column of a tag, or -1. */
int sblock_dec_col(const struct sblock_dec *, uint64_t tag);
void sblock_dec_want(struct sblock_dec *, int col);
void sblock_dec_want_all(struct sblock_dec *);
/* 1 with the next row in ls, cs, bucket and v, 0 at the end, -1 if the
 * blob is corrupt. */
int sblock_dec_next(struct sblock_dec *, struct error *);
/* Decode a whole blob into rows (every column). */
int sblock_decode(const void *, size_t, int64_t base, const char *what,
    int64_t id, struct srows *, struct error *);

#endif
