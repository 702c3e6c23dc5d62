/* import-int.h: the importer's state, shared by import.c (the run: one
 * transaction, hashing, duplicates, the result) and import-sink.c (the
 * decoders' sink: interning through caches, sample values). */
#ifndef PROFD_IMPORT_INT_H
#define PROFD_IMPORT_INT_H

#include "hmap.h"
#include "import.h"
#include "model.h"

/* The caches stop growing at this much memory (a profile of millions of
 * distinct stacks would otherwise cache them all): a map full at the
 * bound is emptied where it is, its memory kept, and refills; whole
 * stacks (at most half) keep what they hold and take no more.  See importer_caches_end() for between imports,
 * docs/DESIGN-STORAGE.md "The importer". */
#define IMPORT_CACHE_MAX	(8u << 20)

/* Byte-keyed caches (bmap); callsites are interned by the store in
 * memory (its map is not counted against this bound: store-cs.c). */
enum cache {
	C_STRING, C_METRIC, C_MAPPING, C_FUNCTION, C_FRAME, C_STACK,
	C_LABELSET, C_COUNT
};

struct importer {
	struct store *store;
	const struct limits *limits;
	const atomic_int *stop;		/* set: give up imports from files */
	const atomic_int *abort;	/* set: give up any import */
	unsigned polls;			/* sink calls since abort was read */
	struct bmap cache[C_COUNT];
	unsigned stuck;			/* 1 << cache: refused room */
	size_t hits, refused;		/* this import's, once full */
	size_t stack_looks, stack_hits;	/* this import's whole stacks */
	uint8_t *stack_key;		/* scratch: a stack's key */
	size_t stack_keycap;
	/* The last stack walked, root first: its frames and callsites.  The
	 * next one starts below the part they share. */
	int64_t *path_frame, *path_id;
	size_t npath, path_cap;
	/* The depth from which the callsites on the path were made by the
	 * stack that walked it (SIZE_MAX: none); the outer frames the next
	 * stack shares with it, as its caller said (stack_ahead; SIZE_MAX:
	 * not said). */
	size_t path_made, path_told;
	int niced;
	uint64_t pipe_min;		/* importer_set_pipe_min's */

	/* Per import. */
	struct activity_progress *progress;
	int64_t nsampled;		/* samples handed to the store */
	int64_t profile_id;
	struct store_metric *metrics;
	size_t nmetrics;
	int64_t *totals;
	struct store_samples *samples;
	int64_t bucket_s;		/* time bucket size, whole seconds */
	/* The profile's time if its meta gives none: the push's, else the
	 * import's (importer_time). */
	int64_t req_time_ns, imported_ns;
	int64_t bt_lo, bt_hi, bt_bucket;	/* [lo, hi) ns is bt_bucket */
	struct model_meta meta;
	int have_meta;
	char **comments;
	size_t ncomments;
	char *doc_url, *period_type, *period_unit;
	struct import_count *counts;
	size_t ncounts;
	/* The last label set asked for, as given (strings in this import's
	 * input): samples in a row mostly carry the same labels. */
	struct model_label *last_labels;
	size_t nlast_labels, last_labels_cap;
	int64_t last_labelset;
	/* The metrics the request keeps (none: all): the decoder's metric i
	 * is the stored metric keep_at[i], or SIZE_MAX if dropped; kept is
	 * a sample's values so renumbered (import-sink.c). */
	const struct import_metric *keep;
	size_t nkeep;
	size_t ndecoded;		/* metrics the decoder named */
	size_t *keep_at, keep_cap;
	int64_t *kept;
	size_t kept_cap;
};

/* The profile's time from the time its meta gives (0: none), and the
 * bucket of its untimed samples. */
static inline int64_t
importer_time(const struct importer *im, int64_t meta_time_ns)
{
	return meta_time_ns ? meta_time_ns : im->req_time_ns ?
	    im->req_time_ns : im->imported_ns;
}

static inline int64_t
importer_bucket(const struct importer *im, int64_t time_ns)
{
	return time_ns / 1000000000 / im->bucket_s * im->bucket_s;
}

/* The sink's callbacks; ctx is the importer. */
extern const struct sink import_sink;
void importer_caches_clear(struct importer *);
/* Before a decode: what req keeps; importer_keep_free at the end. */
void importer_keep_begin(struct importer *, const struct import_request *);
void importer_keep_free(struct importer *);
/* After an import: caches that filled up are emptied. */
void importer_caches_end(struct importer *);

#endif
