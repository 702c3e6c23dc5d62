/* tags.c: per label value, the sum of the values of the samples that
 * have it (pprof's printTags): summed per label set first, then each set's
 * sum goes to each of its labels.  A sample with several values for a key
 * counts for each, as in pprof. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "samples.h"
#include "tags.h"

struct tag_entry {
	const struct sample_label *l;
	int64_t value;
};

static int
entry_cmp(const void *a, const void *b)
{
	const struct sample_label *x = ((const struct tag_entry *)a)->l;
	const struct sample_label *y = ((const struct tag_entry *)b)->l;
	int c;

	if ((c = strcmp(x->key, y->key)) != 0)
		return c;
	if ((x->str == NULL) != (y->str == NULL))
		return x->str == NULL ? 1 : -1;
	if (x->str != NULL)
		return strcmp(x->str, y->str);
	return x->num < y->num ? -1 : x->num > y->num;
}

/* Each kept sample's value into its label set's sum; seen marks the sets
 * of kept samples (a sum of 0 still names its values, as in pprof). */
static int
tags_sum(struct samples *sm, int64_t *sum, char *seen, struct error *err)
{
	int64_t last_cs = -1;
	size_t i, at;
	int kept = 0;

	for (i = 0; i < sm->n; i++) {
		const struct sample *x = &sm->s[i];

		if (x->labelset == 0)
			continue;
		/* Samples come by callsite: walk each stack once. */
		if (x->callsite != last_cs) {
			if ((kept = samples_walk(sm, i, err)) == -1)
				return -1;
			last_cs = x->callsite;
		}
		if (!kept)
			continue;
		at = samples_set(sm, x->labelset);
		sum[at] += x->value;
		seen[at] = 1;
	}
	return 0;
}

int
tags_query(struct store *s, struct csindex *idx, const struct selection *sel,
    const char *only, struct tags_result *r, struct error *err)
{
	struct samples sm;
	struct tag_entry *e = NULL;
	struct tag_key *k;
	int64_t *sum = NULL;
	char *seen = NULL;
	size_t ne = 0, i, j, n;
	int rc = -1;

	memset(r, 0, sizeof *r);
	if (samples_open(s, idx, sel, &sm, err) == -1)
		return -1;
	sum = xcalloc(sm.nsets ? sm.nsets : 1, sizeof *sum);
	seen = xcalloc(sm.nsets ? sm.nsets : 1, 1);
	if (tags_sum(&sm, sum, seen, err) == -1)
		goto out;
	e = xreallocarray(NULL, sm.nlabels ? sm.nlabels : 1, sizeof *e);
	for (i = 0; i < sm.nsets; i++) {
		const struct sample_label *l;

		if (!seen[i])
			continue;
		l = samples_labels(&sm, sm.sets[i], &n);
		for (j = 0; j < n; j++) {
			if (only != NULL && strcmp(l[j].key, only) != 0)
				continue;
			e[ne].l = &l[j];
			e[ne++].value = sum[i];
		}
	}
	if (ne > 1)
		qsort(e, ne, sizeof *e, entry_cmp);
	for (i = 0; i < ne; i = j) {
		struct tag_value *v;

		if (r->nkeys == 0 || strcmp(r->keys[r->nkeys - 1].key,
		    e[i].l->key) != 0) {
			r->keys = xappendarray(r->keys, r->nkeys,
			    sizeof *r->keys);
			k = &r->keys[r->nkeys++];
			memset(k, 0, sizeof *k);
			k->key = xstrdup(e[i].l->key);
			k->unit = xstrdup(samples_unit(&sm, k->key));
		}
		k = &r->keys[r->nkeys - 1];
		k->values = xappendarray(k->values, k->nvalues,
		    sizeof *k->values);
		v = &k->values[k->nvalues++];
		v->str = e[i].l->str ? xstrdup(e[i].l->str) : NULL;
		v->num = e[i].l->num;
		v->value = 0;
		for (j = i; j < ne && entry_cmp(&e[i], &e[j]) == 0; j++)
			v->value += e[j].value;
	}
	r->metric = sm.metric;
	memset(&sm.metric, 0, sizeof sm.metric);
	r->total = sm.total;
	r->nprofiles = sm.nprofiles;
	rc = 0;
out:
	samples_close(&sm);
	free(sum);
	free(seen);
	free(e);
	if (rc == -1)
		tags_result_clear(r);
	return rc;
}

void
tags_result_clear(struct tags_result *r)
{
	size_t i, j;

	store_metric_clear(&r->metric);
	for (i = 0; i < r->nkeys; i++) {
		for (j = 0; j < r->keys[i].nvalues; j++)
			free(r->keys[i].values[j].str);
		free(r->keys[i].values);
		free(r->keys[i].key);
		free(r->keys[i].unit);
	}
	free(r->keys);
	memset(r, 0, sizeof *r);
}
