/* series.c: the series of a window and the labels of its samples, read
 * per scope: the window's profiles per metric and series
 * (store_series_window), a profile of each series read for its push
 * labels; with label filters or sample labels asked for, only the
 * profiles that have samples the filters keep, with their label sets,
 * from store_select_all, export's read, so that a label filter means
 * here what it means to every view. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "query.h"
#include "selection.h"
#include "series.h"

static int
i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int
series_label_cmp(const void *a, const void *b)
{
	const struct series_label *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : strcmp(x->value, y->value);
}

int
series_labels_cmp(const struct series_label *x, size_t nx,
    const struct series_label *y, size_t ny)
{
	size_t i;
	int c;

	for (i = 0; i < nx && i < ny; i++)
		if ((c = series_label_cmp(&x[i], &y[i])) != 0)
			return c;
	return nx < ny ? -1 : nx > ny;
}

void
series_labels_free(struct series_label *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].value);
	}
	free(v);
}

static int
series_cmp(const void *a, const void *b)
{
	const struct series *x = a, *y = b;
	int c;

	if ((c = strcmp(x->scope, y->scope)) != 0 ||
	    (c = strcmp(x->type, y->type)) != 0 ||
	    (c = strcmp(x->unit, y->unit)) != 0)
		return c;
	return series_labels_cmp(x->labels, x->nlabels, y->labels,
	    y->nlabels);
}

static void
series_free_one(struct series *s)
{
	series_labels_free(s->labels, s->nlabels);
	free(s->scope);
	free(s->type);
	free(s->unit);
}

void
series_result_clear(struct series_result *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		series_free_one(&r->v[i]);
	free(r->v);
	for (i = 0; i < r->nsample; i++) {
		free(r->sample[i].name);
		free(r->sample[i].value);
	}
	free(r->sample);
	memset(r, 0, sizeof *r);
}

/* The series of metric m with profile p's push labels. */
static void
series_add(struct series_result *r, const char *scope,
    const struct store_metric *m, const struct store_profile_info *p)
{
	struct series *s;
	size_t j;

	r->v = xreallocarray(r->v, r->n + 1, sizeof *r->v);
	s = &r->v[r->n++];
	s->scope = xstrdup(scope);
	s->type = xstrdup(m->type);
	s->unit = xstrdup(m->unit);
	s->nlabels = p->nlabels;
	s->labels = xcalloc(p->nlabels ? p->nlabels : 1, sizeof *s->labels);
	for (j = 0; j < p->nlabels; j++) {
		s->labels[j].name = xstrdup(p->label_keys[j]);
		s->labels[j].value = xstrdup(p->label_values[j]);
	}
	if (s->nlabels > 1)
		qsort(s->labels, s->nlabels, sizeof *s->labels,
		    series_label_cmp);
}

/* A profile read for its push labels, one per series (store.h's: the
 * hash of its push labels). */
struct series_rep {
	int64_t series;
	struct store_profile_info p;
};

/* The scope's series from the window's profiles of each of its metrics
 * (store_series_window): those among ids (sorted) only, when ids is
 * set; one profile of each series read for its push labels: a read per
 * metric and per series, not one per profile. */
static int
series_scope_window(struct store *s, const struct selection *sel,
    const struct store_scope_info *si, const int64_t *ids, size_t nids,
    struct series_result *r, struct error *err)
{
	struct store_series_profile *v;
	struct series_rep *rep = NULL;
	struct store_filter f;
	int64_t *added = NULL;
	size_t n, nrep = 0, nadded, i, j, k, m;
	int rc = 0;

	memset(&f, 0, sizeof f);
	f.scopes = &si->id;
	f.nscopes = 1;
	selection_window(sel, &f.since_s, &f.until_s);
	for (m = 0; rc == 0 && m < si->nmetrics; m++) {
		f.metric_id = si->metrics[m].id;
		if ((rc = store_series_window(s, &f, &v, &n, err)) == -1)
			break;
		added = xreallocarray(added, n ? n : 1, sizeof *added);
		for (i = 0, nadded = 0; rc == 0 && i < n; i++) {
			if (ids != NULL && bsearch(&v[i].id, ids, nids,
			    sizeof *ids, i64_cmp) == NULL)
				continue;
			for (k = 0; k < nadded && added[k] != v[i].series; k++)
				;
			if (k < nadded)
				continue;
			added[nadded++] = v[i].series;
			for (j = 0; j < nrep && rep[j].series != v[i].series;
			    j++)
				;
			if (j == nrep) {
				rep = xreallocarray(rep, nrep + 1,
				    sizeof *rep);
				if ((rc = store_profile_get(s, v[i].id,
				    &rep[j].p, err)) == -1)
					break;
				rep[j].series = v[i].series;
				nrep++;
			}
			series_add(r, si->name, &si->metrics[m], &rep[j].p);
		}
		free(v);
	}
	for (j = 0; j < nrep; j++)
		store_profile_info_clear(&rep[j].p);
	free(rep);
	free(added);
	return rc;
}

static void
sample_label_cb(void *arg, const struct store_label_row *row)
{
	struct series_result *r = arg;
	struct series_label *l;

	if (row->is_num)
		return;
	r->sample = xreallocarray(r->sample, r->nsample + 1,
	    sizeof *r->sample);
	l = &r->sample[r->nsample++];
	l->name = xstrndup(row->key.p, row->key.n);
	l->value = xstrndup(row->str.p, row->str.n);
}

/* The profiles of one scope whose samples the filters keep, sorted, into
 * *ids; their sample labels into r when samples. */
static int
series_kept(struct store *s, const struct selection *one, int samples,
    struct series_result *r, int64_t **ids, size_t *nids, struct error *err)
{
	struct store_metric m;
	struct store_filter f;
	struct store_export_value *v = NULL;
	int64_t *scope_ids = NULL, *sets;
	size_t nv = 0, i, nsets = 0;
	int rc;

	*ids = NULL;
	*nids = 0;
	rc = query_resolve(s, one, &m, &f, &scope_ids, err);
	if (rc == 0)
		rc = store_select_all(s, &f, &v, &nv, ids, nids, err);
	store_metric_clear(&m);
	free(scope_ids);
	if (rc == -1)
		return -1;
	if (*nids > 1)
		qsort(*ids, *nids, sizeof **ids, i64_cmp);
	if (samples && nv > 0) {
		sets = xreallocarray(NULL, nv, sizeof *sets);
		for (i = 0; i < nv; i++)
			if (v[i].labelset != 0 && v[i].callsite != 0)
				sets[nsets++] = v[i].labelset;
		qsort(sets, nsets, sizeof *sets, i64_cmp);
		for (i = 0, nv = 0; i < nsets; i++)
			if (nv == 0 || sets[nv - 1] != sets[i])
				sets[nv++] = sets[i];
		if (nv > 0)
			rc = store_labels_by_set(s, sets, nv, sample_label_cb,
			    r, err);
		free(sets);
	}
	free(v);
	return rc;
}

static int
series_scope(struct store *s, const struct selection *sel, size_t k,
    const struct store_scope_info *si, int samples, struct series_result *r,
    struct error *err)
{
	static const int64_t none[1];
	struct selection one = *sel;
	int64_t *ids = NULL;
	size_t nids = 0;
	int rc;

	if (si == NULL || si->profiles == 0)
		return 0;
	if (!samples && sel->nlabels == 0)
		return series_scope_window(s, sel, si, NULL, 0, r, err);
	one.scopes = &sel->scopes[k];
	one.nscopes = 1;
	one.metric = NULL;
	one.profiles = NULL;
	one.nprofiles = 0;
	if ((rc = series_kept(s, &one, samples, r, &ids, &nids, err)) == -1 &&
	    err->kind == ERR_NOT_FOUND) {
		/* No profile left since the scope was listed. */
		error_clear(err);
		rc = 0;
	}
	/* None kept: an empty set, not NULL (no filter). */
	if (rc == 0)
		rc = series_scope_window(s, sel, si, ids != NULL ? ids : none,
		    nids, r, err);
	free(ids);
	return rc;
}

/* Sort v (n of size bytes) and drop the repeats, freeing them with
 * drop; the count left. */
static size_t
series_unique(void *v, size_t n, size_t size,
    int (*cmp)(const void *, const void *), void (*drop)(void *))
{
	char *b = v;
	size_t i, j = 0;

	if (n == 0)
		return 0;
	qsort(v, n, size, cmp);
	for (i = 1; i < n; i++) {
		if (cmp(b + j * size, b + i * size) == 0)
			drop(b + i * size);
		else if (++j != i)
			memcpy(b + j * size, b + i * size, size);
	}
	return j + 1;
}

static void
series_drop(void *p)
{
	series_free_one(p);
}

static void
label_drop(void *p)
{
	struct series_label *l = p;

	free(l->name);
	free(l->value);
}

int
series_query(struct store *s, const struct selection *sel, int samples,
    struct series_result *r, struct error *err)
{
	struct store_scope_info *si = NULL;
	size_t nsi = 0, k, j;
	int rc = 0;

	memset(r, 0, sizeof *r);
	if (store_scopes(s, &si, &nsi, err) == -1)
		return -1;
	for (k = 0; rc == 0 && k < sel->nscopes; k++) {
		for (j = 0; j < nsi && strcmp(si[j].name, sel->scopes[k]) != 0;
		    j++)
			;
		rc = series_scope(s, sel, k, j < nsi ? &si[j] : NULL, samples,
		    r, err);
	}
	store_scope_info_free(si, nsi);
	if (rc == -1) {
		series_result_clear(r);
		return -1;
	}
	r->n = series_unique(r->v, r->n, sizeof *r->v, series_cmp,
	    series_drop);
	r->nsample = series_unique(r->sample, r->nsample, sizeof *r->sample,
	    series_label_cmp, label_drop);
	return 0;
}
