/* series.h: a window's series as Pyroscope counts them, for Grafana's
 * label browser and series list (querier.v1 LabelNames, LabelValues,
 * Series, ProfileTypes): one per scope, metric and set of push labels
 * among the profiles a selection keeps, and the sample labels of the
 * samples it keeps. */
#ifndef PROFD_SERIES_H
#define PROFD_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct selection;
struct store;

struct series_label {
	char *name, *value;
};

struct series {
	char *scope, *type, *unit;
	struct series_label *labels;	/* push labels, by name */
	size_t nlabels;
};

struct series_result {
	struct series *v;		/* by scope, type, unit, labels */
	size_t n;
	/* The string sample labels of the kept samples (with samples: 1),
	 * by name and value, each once. */
	struct series_label *sample;
	size_t nsample;
};

/* The series of sel's scopes and window whose profiles have samples its
 * label filters (push or sample labels) keep; its metric is not looked
 * at (every metric of a profile is a series).  samples: read the
 * samples' labels too (without, and without label filters, only the
 * profiles' rows are read).  A scope unknown to the store has none. */
int series_query(struct store *, const struct selection *, int samples,
    struct series_result *, struct error *);
void series_result_clear(struct series_result *);
/* Label sets compared and freed alike wherever they are kept: a label
 * by name then value (qsort's), a set label by label then by length. */
int series_label_cmp(const void *, const void *);
int series_labels_cmp(const struct series_label *, size_t,
    const struct series_label *, size_t);
void series_labels_free(struct series_label *, size_t);

#endif
