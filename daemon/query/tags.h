/* tags.h: how a selection's value spreads over its label values, as go
 * tool pprof -tags counts it: per label key, the value of the samples
 * (after the frame filters) with each of its values. */
#ifndef PROFD_TAGS_H
#define PROFD_TAGS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct csindex;
struct selection;

struct tag_value {
	char *str;			/* NULL: a number, num */
	int64_t num;
	int64_t value;
};

struct tag_key {
	char *key;
	char *unit;			/* of its numbers (pprof's inference) */
	struct tag_value *values;	/* strings by name, then numbers */
	size_t nvalues;
};

struct tags_result {
	struct store_metric metric;
	int64_t total, nprofiles;
	struct tag_key *keys;		/* by name */
	size_t nkeys;
};

/* only: one key, or NULL for every key. */
int tags_query(struct store *, struct csindex *, const struct selection *,
    const char *only, struct tags_result *, struct error *);
void tags_result_clear(struct tags_result *);

#endif
