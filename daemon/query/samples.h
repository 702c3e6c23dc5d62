/* samples.h: a selection's samples one by one, as pprof's -traces and
 * -tags see them: every (stack, label set) some selected profile has,
 * with its value of the selected metric (0 when it has only values of
 * other metrics: pprof prints such samples too), their labels, and the
 * stack after the frame filters. */
#ifndef PROFD_SAMPLES_H
#define PROFD_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "stackwalk.h"
#include "store.h"

struct csindex;
struct selection;

struct sample {
	int64_t callsite, labelset, value;
};

/* One label of a label set: a string, or a number (its unit is the
 * key's: samples_unit). */
struct sample_label {
	char *key, *str;		/* str NULL for a number */
	int64_t num;
};

struct samples {
	struct store_metric metric;
	int64_t total;			/* sum of |value|, pprof's total */
	int64_t nprofiles;
	struct sample *s;		/* by callsite, then label set */
	size_t n;
	/* Label sets: ids sorted, each a run of labels. */
	int64_t *sets;
	size_t nsets, *set_first, *set_n;
	struct sample_label *labels;
	size_t nlabels, labelcap;
	/* Per numeric key, its unit as pprof's NumLabelUnits infers it. */
	char **unit_keys, **units;
	size_t nunits;
	/* The stack walker, the index held until samples_close. */
	struct csindex *idx;
	int locked;
	struct stackwalk w;
};

int samples_open(struct store *, struct csindex *, const struct selection *,
    struct samples *, struct error *);
/* Walk sample i's stack into sm->w (root first): 1, 0 if the frame
 * filters drop it, -1. */
int samples_walk(struct samples *, size_t i, struct error *);
/* The index of a label set in sets, SIZE_MAX if it is not there. */
size_t samples_set(const struct samples *, int64_t labelset);
/* The labels of a label set (none for 0). */
const struct sample_label *samples_labels(const struct samples *,
    int64_t labelset, size_t *n);
/* The unit of a numeric label key. */
const char *samples_unit(const struct samples *, const char *key);
void samples_close(struct samples *);

#endif
