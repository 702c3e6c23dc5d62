/* groups.c: a selection's timeline per group of label values (groups.h).
 * One read gives the window's values per (bucket, profile, label set);
 * a row's group is found by hash from its profile's scope and push
 * labels (one profile read per series) and its label set's labels (read
 * once per label set), and the rows are summed per group and step after
 * one sort: n log n in the rows, where a timeline per group read the
 * window once per group and compared every new group with every other.
 * A group is what a timeline of the selection with the filters k=v of
 * its values keeps (k!~".+" for ""), the metric's aggregate applied as
 * the timeline applies it (per series and step, aggregate.c); where a
 * profile's push label and its samples' label share a key, the push
 * label's value is the samples' group (a filter keeps them for either). */
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "alloc.h"
#include "buf.h"
#include "cancel.h"
#include "groups.h"
#include "hmap.h"
#include "query.h"
#include "selection.h"
#include "timeline.h"

/* A row made (group, step, series) and its value. */
struct grow {
	int64_t g, step, series, v;
};

struct gq {
	struct store *s;
	const struct groups_params *p;
	struct store_filter *f;
	const struct selection *sel;
	struct groups_result *r;
	int samples;			/* a key may be a sample label */
	/* Profiles: id -> 1 + index; each its scope and its series' push
	 * labels (1 + index in plab, 0 not read yet). */
	struct imap pidx;
	struct gprof {
		int64_t id, scope_id, series;
		size_t plab;
	} *prof;
	size_t nprof;
	/* Per series read: nby push label values (NULL: none). */
	struct hmap sidx;		/* (scope, series) -> 1 + index */
	char ***plab;
	size_t nplab;
	/* Label sets: id -> 1 + index; nby sample label values each. */
	struct imap lsidx;
	char **lsv;
	size_t nls;
	/* (profile, label set) -> 1 + group; values -> 1 + group. */
	struct hmap rowg, keyg;
	struct buf key;
	struct grow *rows;
	size_t nrows;
};

static void
gq_prof_add(struct gq *q, const struct store_series_profile *sp)
{
	struct gprof *g;

	if (imap_get(&q->pidx, (uint64_t)sp->id) != 0)
		return;
	q->prof = xreallocarray(q->prof, q->nprof + 1, sizeof *q->prof);
	g = &q->prof[q->nprof++];
	g->id = sp->id;
	g->scope_id = sp->scope_id;
	g->series = sp->series;
	g->plab = 0;
	imap_put(&q->pidx, (uint64_t)sp->id, (int64_t)q->nprof);
}

/* Every profile of the rows with its scope and series: those of the
 * window at once; one whose time is outside it but whose samples are
 * inside (a trace's), by id over the scopes' whole time. */
static int
gq_profiles(struct gq *q, const struct store_group_value *v, size_t n,
    struct error *err)
{
	struct store_series_profile *sp = NULL;
	struct store_filter all = *q->f;
	int64_t *out = NULL;
	size_t nsp = 0, nout = 0, i;
	int rc;

	if (store_series_window(q->s, q->f, &sp, &nsp, err) == -1)
		return -1;
	for (i = 0; i < nsp; i++)
		gq_prof_add(q, &sp[i]);
	free(sp);
	for (i = 0; i < n; i++)
		if (imap_get(&q->pidx, (uint64_t)v[i].profile) == 0 &&
		    (nout == 0 || out[nout - 1] != v[i].profile)) {
			out = xreallocarray(out, nout + 1, sizeof *out);
			out[nout++] = v[i].profile;
		}
	if (nout == 0)
		return 0;
	all.since_s = INT64_MIN;
	all.until_s = INT64_MAX;
	all.profiles = out;
	all.nprofiles = nout;
	rc = store_series_window(q->s, &all, &sp, &nsp, err);
	for (i = 0; rc == 0 && i < nsp; i++)
		gq_prof_add(q, &sp[i]);
	free(sp);
	free(out);
	return rc;
}

static int
gq_key_index(const struct gq *q, const char *key, size_t len)
{
	size_t j;

	for (j = 0; j < q->p->nby; j++)
		if (strlen(q->p->by[j]) == len &&
		    memcmp(q->p->by[j], key, len) == 0)
			return (int)j;
	return -1;
}

static void
gq_label_cb(void *arg, const struct store_label_row *row)
{
	struct gq *q = arg;
	int64_t k = imap_get(&q->lsidx, (uint64_t)row->labelset);
	char **slot;
	int j;

	if (k == 0 || row->is_num || row->str.n == 0 ||
	    (j = gq_key_index(q, row->key.p, row->key.n)) < 0)
		return;
	slot = &q->lsv[(size_t)(k - 1) * q->p->nby + (size_t)j];
	if (*slot == NULL)
		*slot = xstrndup(row->str.p, row->str.n);
}

static int
i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The group keys' labels of every label set of the rows. */
static int
gq_label_sets(struct gq *q, const struct store_group_value *v, size_t n,
    struct error *err)
{
	int64_t *sets;
	size_t i, ns = 0;
	int rc;

	if (!q->samples || n == 0)
		return 0;
	sets = xcalloc(n, sizeof *sets);
	for (i = 0; i < n; i++)
		if (v[i].labelset != 0)
			sets[ns++] = v[i].labelset;
	qsort(sets, ns, sizeof *sets, i64_cmp);
	for (i = 0; i < ns; i++)
		if (q->nls == 0 || sets[q->nls - 1] != sets[i]) {
			sets[q->nls++] = sets[i];
			imap_put(&q->lsidx, (uint64_t)sets[i],
			    (int64_t)q->nls);
		}
	q->lsv = xcalloc(q->nls ? q->nls * q->p->nby : 1, sizeof *q->lsv);
	rc = q->nls > 0 ? store_labels_by_set(q->s, sets, q->nls, gq_label_cb,
	    q, err) : 0;
	free(sets);
	return rc;
}

/* The push labels of profile k's series (nby values, NULL where none),
 * read from the first of its profiles met. */
static int
gq_push_labels(struct gq *q, struct gprof *g, struct error *err)
{
	struct store_profile_info info;
	int64_t key[2] = { g->scope_id, g->series }, at;
	char **v;
	size_t i;
	int j;

	if (g->plab != 0)
		return 0;
	if ((at = hmap_get(&q->sidx, key, sizeof key)) != 0) {
		g->plab = (size_t)at;
		return 0;
	}
	if (store_profile_get(q->s, g->id, &info, err) == -1)
		return -1;
	v = xcalloc(q->p->nby, sizeof *v);
	for (i = 0; i < info.nlabels; i++)
		if (info.label_values[i][0] != '\0' && (j = gq_key_index(q,
		    info.label_keys[i], strlen(info.label_keys[i]))) >= 0 &&
		    v[j] == NULL)
			v[j] = xstrdup(info.label_values[i]);
	store_profile_info_clear(&info);
	q->plab = xreallocarray(q->plab, q->nplab + 1, sizeof *q->plab);
	q->plab[q->nplab++] = v;
	hmap_put(&q->sidx, key, sizeof key, (int64_t)q->nplab);
	g->plab = q->nplab;
	return 0;
}

static const char *
gq_scope_name(const struct gq *q, int64_t scope_id)
{
	size_t i;

	for (i = 0; i < q->f->nscopes; i++)
		if (q->f->scopes[i] == scope_id)
			return q->sel->scopes[i];
	return "";
}

/* The group of a (profile, label set), made if new: -1 on error. */
static int64_t
gq_group(struct gq *q, int64_t profile, int64_t labelset, struct error *err)
{
	int64_t rk[2] = { profile, labelset }, g, k, ls;
	const char *val;
	struct gprof *pr;
	struct groups_series *gs;
	uint32_t len;
	size_t j;

	if ((g = hmap_get(&q->rowg, rk, sizeof rk)) != 0)
		return g - 1;
	k = imap_get(&q->pidx, (uint64_t)profile);
	pr = k != 0 ? &q->prof[k - 1] : NULL;
	if (pr != NULL && gq_push_labels(q, pr, err) == -1)
		return -1;
	ls = labelset != 0 ? imap_get(&q->lsidx, (uint64_t)labelset) : 0;
	q->key.n = 0;
	for (j = 0; j < q->p->nby; j++) {
		val = NULL;
		if (strcmp(q->p->by[j], "service_name") == 0)
			val = pr != NULL ? gq_scope_name(q, pr->scope_id) : "";
		else if (pr != NULL && q->plab[pr->plab - 1][j] != NULL)
			val = q->plab[pr->plab - 1][j];
		else if (ls != 0)
			val = q->lsv[(size_t)(ls - 1) * q->p->nby + j];
		if (val == NULL)
			val = "";
		/* Length-prefixed: no value's bytes end another's. */
		len = (uint32_t)strlen(val);
		buf_add(&q->key, &len, sizeof len);
		buf_add(&q->key, val, len);
	}
	if ((g = hmap_get(&q->keyg, q->key.p, q->key.n)) == 0) {
		q->r->v = xreallocarray(q->r->v, q->r->n + 1,
		    sizeof *q->r->v);
		gs = &q->r->v[q->r->n++];
		memset(gs, 0, sizeof *gs);
		gs->values = xcalloc(q->p->nby, sizeof *gs->values);
		gs->nvalues = q->p->nby;
		/* The key's values, in order, back from its bytes. */
		for (j = 0, k = 0; j < q->p->nby; j++) {
			memcpy(&len, q->key.p + k, sizeof len);
			gs->values[j] = xstrndup((const char *)q->key.p + k +
			    sizeof len, len);
			k += (int64_t)(sizeof len + len);
		}
		g = (int64_t)q->r->n;
		hmap_put(&q->keyg, q->key.p, q->key.n, g);
	}
	hmap_put(&q->rowg, rk, sizeof rk, g);
	return g - 1;
}

static int
grow_cmp(const void *a, const void *b)
{
	const struct grow *x = a, *y = b;

	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return x->series < y->series ? -1 : x->series > y->series;
}

static int
series_cmp(const void *a, const void *b, void *arg)
{
	const struct groups_series *x = a, *y = b;
	size_t n = *(const size_t *)arg, j;
	int c;

	for (j = 0; j < n; j++)
		if ((c = strcmp(x->values[j], y->values[j])) != 0)
			return c;
	return 0;
}

static void
series_free(struct groups_series *gs)
{
	size_t j;

	for (j = 0; j < gs->nvalues; j++)
		free(gs->values[j]);
	free(gs->values);
	free(gs->points);
}

/* The rows summed per (group, step, series), each series' sum made what
 * it counts (aggregate_steps_value), then per (group, step): the
 * groups' points. */
static void
gq_points(struct gq *q, const struct aggregate_steps *st)
{
	struct groups_series *gs;
	struct grow *w = q->rows;
	int64_t sum, v;
	size_t i = 0, j;

	if (q->nrows > 1)
		qsort(w, q->nrows, sizeof *w, grow_cmp);
	while (i < q->nrows) {
		gs = &q->r->v[w[i].g];
		sum = 0;
		/* One step of one group: its series one after the other. */
		for (j = i; j < q->nrows && w[j].g == w[i].g &&
		    w[j].step == w[i].step;) {
			size_t k = j;

			v = 0;
			for (; j < q->nrows && w[j].g == w[k].g &&
			    w[j].step == w[k].step && w[j].series ==
			    w[k].series; j++)
				v += w[j].v;
			sum += st != NULL ? aggregate_steps_value(st,
			    w[k].step, w[k].series, v) : v;
		}
		if (sum != 0) {
			gs->points = xreallocarray(gs->points,
			    gs->npoints + 1, sizeof *gs->points);
			gs->points[gs->npoints].step = w[i].step;
			gs->points[gs->npoints++].value = sum;
			gs->total += sum;
		}
		i = j;
	}
}

/* The groups without a point (nothing counted in them) dropped, the
 * others in the order of their values. */
static void
gq_finish(struct gq *q)
{
	struct groups_result *r = q->r;
	size_t i, n = 0, nby = q->p->nby;

	for (i = 0; i < r->n; i++) {
		if (r->v[i].npoints == 0)
			series_free(&r->v[i]);
		else
			r->v[n++] = r->v[i];
	}
	r->n = n;
	if (n > 1)
		qsort_r(r->v, n, sizeof *r->v, series_cmp, &nby);
}

static int
gq_rows(struct gq *q, const struct store_group_value *v, size_t n,
    const struct aggregate_steps *st, struct error *err)
{
	int64_t g, series = 0, step = q->r->step_s, start = 0, at;
	size_t i;

	if (st == NULL && n > 0) {
		/* timeline_query's steps over the same buckets. */
		step = timeline_step(v[0].bucket, v[n - 1].bucket,
		    q->p->step_s);
		start = v[0].bucket / step * step;
		q->r->step_s = step;
	}
	q->rows = xcalloc(n ? n : 1, sizeof *q->rows);
	for (i = 0; i < n; i++) {
		if (cancel_poll(err) == -1)
			return -1;
		if (v[i].value == 0)
			continue;
		if (st != NULL) {
			if (!aggregate_steps_row(st, v[i].profile,
			    v[i].bucket, &series, &at))
				continue;
		} else
			at = start + (v[i].bucket - start) / step * step;
		if ((g = gq_group(q, v[i].profile, v[i].labelset, err)) < 0)
			return -1;
		q->rows[q->nrows].g = g;
		q->rows[q->nrows].step = at;
		q->rows[q->nrows].series = series;
		q->rows[q->nrows++].v = v[i].value;
	}
	return 0;
}

int
groups_query(struct store *s, const struct groups_params *p,
    struct groups_result *r, struct error *err)
{
	struct aggregate_steps *st = NULL;
	struct store_group_value *v = NULL;
	struct store_filter f;
	struct gq q;
	int64_t *ids = NULL, step = p->step_s;
	size_t n = 0, i;
	int rc = -1;

	memset(r, 0, sizeof *r);
	memset(&q, 0, sizeof q);
	q.s = s;
	q.p = p;
	q.f = &f;
	q.sel = p->sel;
	q.r = r;
	for (i = 0; i < p->nby; i++)
		if (strcmp(p->by[i], "service_name") != 0)
			q.samples = 1;
	if (query_resolve(s, p->sel, &r->metric, &f, &ids, err) == -1)
		goto out;
	r->step_s = step > 0 ? step : 1;
	/* Combined per series: each profile's values as given, the plan
	 * saying which count where. */
	if (AGGREGATE_PER_SERIES(r->metric.aggregate)) {
		f.raw = 1;
		if (aggregate_steps_new(s, &f, r->metric.aggregate, &step, &st,
		    err) == -1)
			goto out;
		r->step_s = step > 0 ? step : 1;
	}
	if (store_select_groups(s, &f, &v, &n, err) == -1 ||
	    gq_profiles(&q, v, n, err) == -1 ||
	    gq_label_sets(&q, v, n, err) == -1 ||
	    gq_rows(&q, v, n, st, err) == -1)
		goto out;
	gq_points(&q, st);
	gq_finish(&q);
	rc = 0;
out:
	if (rc == -1)
		groups_result_clear(r);
	aggregate_steps_free(st);
	free(v);
	free(ids);
	for (i = 0; i < q.nplab; i++) {
		size_t j;

		for (j = 0; j < p->nby; j++)
			free(q.plab[i][j]);
		free(q.plab[i]);
	}
	free(q.plab);
	for (i = 0; i < q.nls * p->nby; i++)
		free(q.lsv[i]);
	free(q.lsv);
	free(q.prof);
	free(q.rows);
	imap_clear(&q.pidx);
	imap_clear(&q.lsidx);
	hmap_clear(&q.sidx);
	hmap_clear(&q.rowg);
	hmap_clear(&q.keyg);
	buf_free(&q.key);
	return rc;
}

void
groups_result_clear(struct groups_result *r)
{
	size_t i;

	store_metric_clear(&r->metric);
	for (i = 0; i < r->n; i++)
		series_free(&r->v[i]);
	free(r->v);
	memset(r, 0, sizeof *r);
}
