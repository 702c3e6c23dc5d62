/* import-int.h: the importer's state, shared by import.c (the run: one
 * transaction, hashing, duplicates, the result) and import-sink.c (the
 * decoders' sink: interning through caches, sample values). */
#ifndef PROFD_IMPORT_INT_H
#define PROFD_IMPORT_INT_H

#include "hmap.h"
#include "import.h"
#include "model.h"

/* Past this much cache memory the caches are dropped and refilled, after
 * an import and during one (a profile of millions of distinct stacks
 * would otherwise cache them all): a cache only saves lookups. */
#define IMPORT_CACHE_MAX	(48u << 20)

enum cache {
	C_STRING, C_METRIC, C_MAPPING, C_FUNCTION, C_FRAME, C_CALLSITE,
	C_STACK, C_LABELSET, C_COUNT
};

struct importer {
	struct store *store;
	const struct limits *limits;
	const atomic_int *stop;		/* set: give up imports from files */
	struct hmap cache[C_COUNT];
	unsigned puts;			/* since the last size check */
	int niced;

	/* Per import. */
	int64_t profile_id;
	struct store_metric *metrics;
	size_t nmetrics;
	int64_t *totals;
	struct store_samples *samples;
	int64_t bucket_s;		/* time bucket size, whole seconds */
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
};

/* The sink's callbacks; ctx is the importer. */
extern const struct sink import_sink;
void importer_caches_clear(struct importer *);

#endif
