/* querier-labels.c: what Grafana's label browser and profile type
 * picker ask (ProfileTypes, LabelNames, LabelValues, Series): the series
 * of the selectors' scopes in the window (querier_series), each labelled
 * as Pyroscope labels one: service_name (the scope), __profile_type__
 * (its metric's ID, pyrotype.h), __name__ (the ID's first part) and its
 * push labels; the sample labels of the samples kept count among the
 * names and values.  Several selectors (matchers) are OR-ed, as
 * Pyroscope does; none is every series. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "querier-int.h"

struct strs {
	char **v;
	size_t n;
};

static void
strs_add(struct strs *s, const char *v)
{
	s->v = xappendarray(s->v, s->n, sizeof *s->v);
	s->v[s->n++] = xstrdup(v);
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, each once. */
static void
strs_unique(struct strs *s)
{
	size_t i, j = 0;

	if (s->n == 0)
		return;
	qsort(s->v, s->n, sizeof *s->v, str_cmp);
	for (i = 1; i < s->n; i++) {
		if (strcmp(s->v[j], s->v[i]) == 0)
			free(s->v[i]);
		else
			s->v[++j] = s->v[i];
	}
	s->n = j + 1;
}

static void
strs_clear(struct strs *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

int
querier_series_keep(const struct labelsel *ls, const struct series *s)
{
	struct pyrotype t;
	char id[5 * PYROTYPE_PART];
	size_t i;

	/* A metric no ID can name is not Grafana's to see. */
	if (pyrotype_of(s->type, s->unit, &t) == -1)
		return 0;
	pyrotype_id(&t, id, sizeof id);
	for (i = 0; i < ls->n; i++) {
		if (strcmp(ls->v[i].name, "__profile_type__") == 0 &&
		    !labelsel_match(&ls->v[i], id))
			return 0;
		if (strcmp(ls->v[i].name, "__name__") == 0 &&
		    !labelsel_match(&ls->v[i], t.name))
			return 0;
	}
	return 1;
}

/* What each kept series of a selector adds to the answer. */
typedef void (*series_fn)(void *, const struct series *,
    const struct pyrotype *);
typedef void (*sample_fn)(void *, const struct series_label *);

/* Every selector of the request (the matchers, or "{}"), its series
 * kept handed to fn, then its sample labels to sfn (when set) if a
 * series was kept. */
static int
querier_each(struct qenv *e, series_fn fn, sample_fn sfn, void *arg,
    struct error *err)
{
	const struct querier_strs *m = &e->qc->req.matchers;
	static char all[] = "{}";
	char *one[] = { all };
	char *const *sels = m->n > 0 ? m->v : one;
	size_t nsels = m->n > 0 ? m->n : 1, i, j;
	struct series_result r;
	struct selection sel;
	struct labelsel ls;
	struct pyrotype t;
	char what[32];
	int rc = 0, kept;

	for (i = 0; rc == 0 && i < nsels; i++) {
		memset(&sel, 0, sizeof sel);
		memset(&ls, 0, sizeof ls);
		snprintf(what, sizeof what, "matchers[%zu]", i);
		if ((rc = querier_labelsel(sels[i], what, &ls, err)) == 0 &&
		    (rc = querier_selection(e, &ls, &sel, err)) == 0)
			rc = querier_series(e, &sel, sfn != NULL, &r, err);
		for (j = 0, kept = 0; rc == 0 && j < r.n; j++)
			if (querier_series_keep(&ls, &r.v[j]) &&
			    pyrotype_of(r.v[j].type, r.v[j].unit, &t) == 0) {
				fn(arg, &r.v[j], &t);
				kept = 1;
			}
		for (j = 0; rc == 0 && kept && sfn != NULL && j < r.nsample;
		    j++)
			sfn(arg, &r.sample[j]);
		if (rc == 0)
			series_result_clear(&r);
		selection_clear(&sel);
		labelsel_clear(&ls);
	}
	return rc;
}

struct types {
	struct pyrotype *v;
	size_t n;
};

static void
types_fn(void *arg, const struct series *s, const struct pyrotype *t)
{
	struct types *ts = arg;

	(void)s;
	ts->v = xappendarray(ts->v, ts->n, sizeof *ts->v);
	ts->v[ts->n++] = *t;
}

static int
type_cmp(const void *a, const void *b)
{
	char x[5 * PYROTYPE_PART], y[5 * PYROTYPE_PART];

	pyrotype_id(a, x, sizeof x);
	pyrotype_id(b, y, sizeof y);
	return strcmp(x, y);
}

int
querier_profile_types(struct qenv *e, struct error *err)
{
	struct types ts = { 0 };
	size_t i, j = 0;

	if (querier_each(e, types_fn, NULL, &ts, err) == -1) {
		free(ts.v);
		return -1;
	}
	if (ts.n > 0) {
		qsort(ts.v, ts.n, sizeof *ts.v, type_cmp);
		for (i = 1; i < ts.n; i++)
			if (type_cmp(&ts.v[j], &ts.v[i]) != 0)
				ts.v[++j] = ts.v[i];
		ts.n = j + 1;
	}
	querier_reply_types(&e->qc->reply, ts.v, ts.n);
	free(ts.v);
	return 0;
}

static void
names_fn(void *arg, const struct series *s, const struct pyrotype *t)
{
	size_t i;

	(void)t;
	strs_add(arg, "service_name");
	strs_add(arg, "__name__");
	strs_add(arg, "__profile_type__");
	for (i = 0; i < s->nlabels; i++)
		strs_add(arg, s->labels[i].name);
}

static void
sample_names_fn(void *arg, const struct series_label *l)
{
	strs_add(arg, l->name);
}

int
querier_label_names(struct qenv *e, struct error *err)
{
	struct strs names = { 0 };

	if (querier_each(e, names_fn, sample_names_fn, &names, err) == -1) {
		strs_clear(&names);
		return -1;
	}
	strs_unique(&names);
	querier_reply_names(&e->qc->reply, names.v, names.n);
	strs_clear(&names);
	return 0;
}

struct values {
	const char *name;
	struct strs v;
};

static void
values_fn(void *arg, const struct series *s, const struct pyrotype *t)
{
	struct values *vs = arg;
	char id[5 * PYROTYPE_PART];
	size_t i;

	if (strcmp(vs->name, "service_name") == 0)
		strs_add(&vs->v, s->scope);
	else if (strcmp(vs->name, "__name__") == 0)
		strs_add(&vs->v, t->name);
	else if (strcmp(vs->name, "__profile_type__") == 0) {
		pyrotype_id(t, id, sizeof id);
		strs_add(&vs->v, id);
	} else
		for (i = 0; i < s->nlabels; i++)
			if (strcmp(s->labels[i].name, vs->name) == 0)
				strs_add(&vs->v, s->labels[i].value);
}

static void
sample_values_fn(void *arg, const struct series_label *l)
{
	struct values *vs = arg;

	if (strcmp(l->name, vs->name) == 0)
		strs_add(&vs->v, l->value);
}

int
querier_label_values(struct qenv *e, struct error *err)
{
	struct values vs = { 0 };

	vs.name = e->qc->req.name != NULL ? e->qc->req.name : "";
	if (*vs.name == '\0')
		return error_set(err, ERR_INPUT, "LabelValuesRequest: name: "
		    "empty (the label whose values to list)");
	if (querier_each(e, values_fn, sample_values_fn, &vs, err) == -1) {
		strs_clear(&vs.v);
		return -1;
	}
	strs_unique(&vs.v);
	querier_reply_names(&e->qc->reply, vs.v.v, vs.v.n);
	strs_clear(&vs.v);
	return 0;
}

/* Series' label sets, each a run of labels. */
struct sets {
	const struct querier_strs *only;	/* label_names, or none */
	struct series_label *labels;
	size_t nlabels;
	struct querier_series *v;
	size_t n;
};

static void
sets_label(struct sets *ss, struct querier_series *q, const char *name,
    const char *value)
{
	size_t i;

	for (i = 0; i < ss->only->n; i++)
		if (strcmp(ss->only->v[i], name) == 0)
			break;
	if (ss->only->n > 0 && i == ss->only->n)
		return;
	q->labels = xreallocarray(q->labels, q->nlabels + 1,
	    sizeof *q->labels);
	q->labels[q->nlabels].name = xstrdup(name);
	q->labels[q->nlabels++].value = xstrdup(value);
}

static int
set_cmp(const void *a, const void *b)
{
	const struct querier_series *x = a, *y = b;

	return series_labels_cmp(x->labels, x->nlabels, y->labels,
	    y->nlabels);
}

static void
set_free(struct querier_series *q)
{
	series_labels_free(q->labels, q->nlabels);
}

static void
sets_fn(void *arg, const struct series *s, const struct pyrotype *t)
{
	struct sets *ss = arg;
	struct querier_series *q;
	char id[5 * PYROTYPE_PART];
	size_t i;

	ss->v = xappendarray(ss->v, ss->n, sizeof *ss->v);
	q = &ss->v[ss->n++];
	memset(q, 0, sizeof *q);
	pyrotype_id(t, id, sizeof id);
	sets_label(ss, q, "service_name", s->scope);
	sets_label(ss, q, "__profile_type__", id);
	sets_label(ss, q, "__name__", t->name);
	for (i = 0; i < s->nlabels; i++)
		sets_label(ss, q, s->labels[i].name, s->labels[i].value);
	if (q->nlabels > 1)
		qsort(q->labels, q->nlabels, sizeof *q->labels,
		    series_label_cmp);
}

int
querier_series_list(struct qenv *e, struct error *err)
{
	struct sets ss = { 0 };
	size_t i, j = 0;
	int rc;

	ss.only = &e->qc->req.label_names;
	rc = querier_each(e, sets_fn, NULL, &ss, err);
	if (rc == 0 && ss.n > 0) {
		qsort(ss.v, ss.n, sizeof *ss.v, set_cmp);
		for (i = 1; i < ss.n; i++) {
			if (set_cmp(&ss.v[j], &ss.v[i]) == 0)
				set_free(&ss.v[i]);
			else
				ss.v[++j] = ss.v[i];
		}
		ss.n = j + 1;
	}
	if (rc == 0)
		querier_reply_label_sets(&e->qc->reply, ss.v, ss.n);
	for (i = 0; i < ss.n; i++)
		set_free(&ss.v[i]);
	free(ss.v);
	return rc;
}

int
querier_profile_stats(struct qenv *e, struct error *err)
{
	const struct store_scope_info *si;
	int64_t oldest = INT64_MAX, newest = INT64_MIN;
	size_t i;
	int any = 0;

	if (querier_scopes(e, err) == -1)
		return -1;
	for (i = 0; i < e->qc->nscopes; i++) {
		si = &e->qc->scopes[i];
		if (si->profiles == 0)
			continue;
		any = 1;
		if (si->first_ns < oldest)
			oldest = si->first_ns;
		if (si->last_ns > newest)
			newest = si->last_ns;
	}
	querier_reply_stats(&e->qc->reply, any, any ? oldest / 1000000 : 0,
	    any ? newest / 1000000 : 0);
	return 0;
}
