/* samples.c: the samples of a selection with their labels: the rows of
 * every metric (store_select_all, as export reads them) folded into one
 * per (callsite, label set) with the selected metric's value, and the
 * labels of the sets they name read once. */
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "alloc.h"
#include "csindex.h"
#include "query.h"
#include "samples.h"
#include "selection.h"

static int
set_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

size_t
samples_set(const struct samples *sm, int64_t id)
{
	size_t lo = 0, hi = sm->nsets;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sm->sets[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sm->nsets && sm->sets[lo] == id ? lo : SIZE_MAX;
}

/* Rows come in label set order (store_labels_by_set reads the sets in
 * the order given, each set's labels in the order they were added). */
static void
label_row(void *arg, const struct store_label_row *r)
{
	struct samples *sm = arg;
	struct sample_label *l;
	size_t at = samples_set(sm, r->labelset), i;

	if (at == SIZE_MAX)
		return;
	if (sm->nlabels == sm->labelcap) {
		sm->labelcap = sm->labelcap ? sm->labelcap * 2 : 64;
		sm->labels = xreallocarray(sm->labels, sm->labelcap,
		    sizeof *sm->labels);
	}
	if (sm->set_n[at] == 0)
		sm->set_first[at] = sm->nlabels;
	sm->set_n[at]++;
	l = &sm->labels[sm->nlabels++];
	l->key = xstrndup(r->key.p, r->key.n);
	l->str = r->is_num ? NULL : xstrndup(r->str.p, r->str.n);
	l->num = r->num;
	if (!r->is_num)
		return;
	/* pprof's NumLabelUnits: the first unit a key has, else "bytes"
	 * for alignment and request, else the key itself. */
	for (i = 0; i < sm->nunits; i++)
		if (strcmp(sm->unit_keys[i], l->key) == 0)
			break;
	if (i == sm->nunits) {
		sm->unit_keys = xreallocarray(sm->unit_keys, i + 1,
		    sizeof *sm->unit_keys);
		sm->units = xreallocarray(sm->units, i + 1, sizeof *sm->units);
		sm->unit_keys[i] = xstrdup(l->key);
		sm->units[i] = NULL;
		sm->nunits++;
	}
	if (sm->units[i] == NULL && r->num_unit.n > 0)
		sm->units[i] = xstrndup(r->num_unit.p, r->num_unit.n);
}

int
samples_open(struct store *s, struct csindex *idx,
    const struct selection *sel, struct samples *sm, struct error *err)
{
	struct store_export_value *v = NULL;
	struct store_filter f;
	int64_t *ids = NULL, *profiles = NULL;
	size_t nv = 0, np = 0, i, j;
	int rc = -1;

	memset(sm, 0, sizeof *sm);
	sm->idx = idx;
	if (query_resolve(s, sel, &sm->metric, &f, &ids, err) == -1)
		goto out;
	/* Samples are listed one by one: a series' average, last or max
	 * profile is no sample; their values as given are (sum). */
	if (AGGREGATE_PER_SERIES(sm->metric.aggregate))
		sm->metric.aggregate = AGG_SUM;
	if (store_select_all(s, &f, &v, &nv, &profiles, &np, err) == -1)
		goto out;
	sm->nprofiles = (int64_t)np;
	sm->s = xreallocarray(NULL, nv ? nv : 1, sizeof *sm->s);
	for (i = 0; i < nv; i = j) {
		struct sample *x = &sm->s[sm->n];

		x->callsite = v[i].callsite;
		x->labelset = v[i].labelset;
		x->value = 0;
		for (j = i; j < nv && v[j].callsite == v[i].callsite &&
		    v[j].labelset == v[i].labelset; j++)
			if (v[j].metric == f.metric_id)
				x->value += v[j].value;
		if (x->callsite == 0)
			continue;
		sm->total += x->value < 0 ? -x->value : x->value;
		sm->n++;
	}
	/* The label sets named, once each. */
	sm->sets = xreallocarray(NULL, sm->n ? sm->n : 1, sizeof *sm->sets);
	for (i = 0; i < sm->n; i++)
		if (sm->s[i].labelset != 0)
			sm->sets[sm->nsets++] = sm->s[i].labelset;
	if (sm->nsets > 1)
		qsort(sm->sets, sm->nsets, sizeof *sm->sets, set_cmp);
	for (i = j = 0; i < sm->nsets; i++)
		if (j == 0 || sm->sets[j - 1] != sm->sets[i])
			sm->sets[j++] = sm->sets[i];
	sm->nsets = j;
	sm->set_first = xcalloc(sm->nsets ? sm->nsets : 1,
	    sizeof *sm->set_first);
	sm->set_n = xcalloc(sm->nsets ? sm->nsets : 1, sizeof *sm->set_n);
	if (sm->nsets > 0 && store_labels_by_set(s, sm->sets, sm->nsets,
	    label_row, sm, err) == -1)
		goto out;
	if (csindex_acquire(idx, s, err) == -1)
		goto out;
	sm->locked = 1;
	stackwalk_init(&sm->w, idx, sel, GRAN_FUNCTION);
	rc = 0;
out:
	free(v);
	free(ids);
	free(profiles);
	if (rc == -1)
		samples_close(sm);
	return rc;
}

int
samples_walk(struct samples *sm, size_t i, struct error *err)
{
	return stackwalk_run(&sm->w, sm->s[i].callsite, err);
}

const struct sample_label *
samples_labels(const struct samples *sm, int64_t labelset, size_t *n)
{
	size_t at = labelset != 0 ? samples_set(sm, labelset) : SIZE_MAX;

	if (at == SIZE_MAX || sm->set_n[at] == 0) {
		*n = 0;
		return NULL;
	}
	*n = sm->set_n[at];
	return &sm->labels[sm->set_first[at]];
}

const char *
samples_unit(const struct samples *sm, const char *key)
{
	size_t i;

	for (i = 0; i < sm->nunits; i++)
		if (strcmp(sm->unit_keys[i], key) == 0)
			break;
	if (i < sm->nunits && sm->units[i] != NULL)
		return sm->units[i];
	if (strcmp(key, "alignment") == 0 || strcmp(key, "request") == 0)
		return "bytes";
	return key;
}

void
samples_close(struct samples *sm)
{
	size_t i;

	if (sm->locked)
		csindex_release(sm->idx);
	stackwalk_clear(&sm->w);
	store_metric_clear(&sm->metric);
	free(sm->s);
	free(sm->sets);
	free(sm->set_first);
	free(sm->set_n);
	for (i = 0; i < sm->nlabels; i++) {
		free(sm->labels[i].key);
		free(sm->labels[i].str);
	}
	free(sm->labels);
	for (i = 0; i < sm->nunits; i++) {
		free(sm->unit_keys[i]);
		free(sm->units[i]);
	}
	free(sm->unit_keys);
	free(sm->units);
	memset(sm, 0, sizeof *sm);
}
