/* querier-series.c: SelectSeries, the time series Grafana draws of a
 * profile type: the selection's timeline (profctl timeline's) at the
 * request's step, or with group_by a series per group of label values:
 * from the store in one read of the window, whatever the number of
 * groups (query/groups.c); from the fleet, grouped by service_name only,
 * a timeline per scope.
 *
 * A reply is bounded before its points are made: a step that makes more
 * than TIMELINE_MAX_POINTS points a series over the window is
 * invalid_argument, naming the step it takes at least; more series than
 * query-max-series (after the request's limit, its top N by total), or
 * more points in all than query-max-points, is resource_exhausted naming
 * the setting.  So a reply holds at most query-max-points points (about
 * 20 bytes each in protobuf, 45 in JSON) and query-max-series label
 * sets; and the fleet asks ClickHouse query-max-series timelines at
 * most. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "groups.h"
#include "query.h"
#include "querier-int.h"
#include "source.h"
#include "timeline.h"

/* A series of the reply being made. */
struct qs {
	struct querier_series s;	/* its labels (owned), then points */
	int64_t total;
	size_t order;			/* its place in the reply */
	/* Its values: the steps of a group (not owned), or a timeline. */
	const struct groups_series *g;
	struct timeline_result tl;
	size_t npoints;			/* what its points will be */
};

struct qss {
	struct qs *v;
	size_t n;
	int64_t step_s;			/* the groups' */
};

static void
qs_free(struct qs *q)
{
	series_labels_free(q->s.labels, q->s.nlabels);
	free(q->s.points);
	timeline_result_clear(&q->tl);
}

static void
qss_clear(struct qss *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		qs_free(&a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

/* A series labelled with group_by's keys and these values. */
static struct qs *
qss_add(struct qss *a, const struct querier_strs *by, char *const *values)
{
	struct qs *q;
	size_t j;

	a->v = xappendarray(a->v, a->n, sizeof *a->v);
	q = &a->v[a->n];
	memset(q, 0, sizeof *q);
	q->order = a->n++;
	q->s.nlabels = by->n;
	q->s.labels = xcalloc(by->n ? by->n : 1, sizeof *q->s.labels);
	for (j = 0; j < by->n; j++) {
		q->s.labels[j].name = xstrdup(by->v[j]);
		q->s.labels[j].value = xstrdup(values[j]);
	}
	return q;
}

static int
qs_by_total(const void *a, const void *b)
{
	const struct qs *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int
qs_by_order(const void *a, const void *b)
{
	const struct qs *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* The request's step in whole seconds, refused when it makes more than
 * TIMELINE_MAX_POINTS points a series over the window asked. */
static int
series_step(const struct querier_req *r, int64_t *step_s, struct error *err)
{
	int64_t span, n, need;

	if (!(r->step_s >= 0) || r->step_s > 1e9)
		return error_set(err, ERR_INPUT, "step: %g is not a number of "
		    "seconds (0 to 1e9)", r->step_s);
	/* The store's buckets are seconds: a step is whole ones.  None
	 * (0) is theirs, made coarser as a timeline's past
	 * TIMELINE_MAX_POINTS. */
	*step_s = 0;
	if (r->step_s == 0)
		return 0;
	*step_s = r->step_s < 1 ? 1 : (int64_t)llround(r->step_s);
	if (r->start_ms <= 0 || r->end_ms <= 0)
		return 0;
	span = r->end_ms / 1000 - r->start_ms / 1000;
	if ((n = span / *step_s + 1) <= TIMELINE_MAX_POINTS)
		return 0;
	need = span / (TIMELINE_MAX_POINTS - 1) +
	    (span % (TIMELINE_MAX_POINTS - 1) != 0);
	return error_set(err, ERR_INPUT, "step: %lld s over the %lld s "
	    "asked is %lld points a series; a series has %d at most: a step "
	    "of %lld s or more", (long long)*step_s, (long long)span,
	    (long long)n, TIMELINE_MAX_POINTS, (long long)need);
}

/* A timeline of sel into q, 0 with nothing in it when the scope is gone
 * or has nothing there. */
static int
series_timeline(struct qenv *e, const struct selection *sel, int64_t step_s,
    struct qs *q, struct error *err)
{
	struct timeline_params p;
	size_t i;
	int nonzero = 0;

	memset(&p, 0, sizeof p);
	p.sel = sel;
	p.step_s = step_s;
	if (timeline_query(e->src, &p, &q->tl, err) == -1) {
		if (err->kind != ERR_NOT_FOUND)
			return -1;
		error_clear(err);
		return 0;
	}
	for (i = 0; i < q->tl.npoints; i++)
		nonzero |= q->tl.values[i] != 0;
	/* A timeline nothing was counted in is no series. */
	if (nonzero) {
		q->total = q->tl.total;
		q->npoints = q->tl.npoints;
	}
	return 0;
}

/* The store's groups, each a series whose points run from its first
 * step with a value to its last. */
static int
series_groups(struct qenv *e, const struct selection *sel, int64_t step_s,
    struct groups_result *gr, struct qss *a, struct error *err)
{
	const struct querier_strs *by = &e->qc->req.group_by;
	struct groups_params p;
	const struct groups_series *g;
	struct qs *q;
	size_t i;

	memset(&p, 0, sizeof p);
	p.sel = sel;
	p.by = (const char *const *)by->v;
	p.nby = by->n;
	p.step_s = step_s;
	if (groups_query(e->w->store, &p, gr, err) == -1) {
		if (err->kind != ERR_NOT_FOUND)
			return -1;
		error_clear(err);
		return 0;
	}
	a->step_s = gr->step_s;
	for (i = 0; i < gr->n; i++) {
		g = &gr->v[i];
		q = qss_add(a, by, g->values);
		q->g = g;
		q->total = g->total;
		q->npoints = (size_t)((g->points[g->npoints - 1].step -
		    g->points[0].step) / gr->step_s + 1);
	}
	return 0;
}

/* The fleet's series by service_name: a timeline per scope of sel
 * that has profiles in the window, no more than the reply may hold. */
static int
series_fleet(struct qenv *e, const struct selection *sel, int64_t step_s,
    struct qss *a, struct error *err)
{
	const struct querier_strs *by = &e->qc->req.group_by;
	const struct store_scope_info *si;
	struct selection one;
	char **values, **in;
	size_t i, j, n = 0;
	int rc = 0;

	for (i = 0; i < by->n; i++)
		if (strcmp(by->v[i], "service_name") != 0)
			return error_set(err, ERR_UNSUPPORTED, "group_by \"%s\": "
			    "the fleet's series are grouped by service_name "
			    "only", by->v[i]);
	in = xcalloc(sel->nscopes ? sel->nscopes : 1, sizeof *in);
	for (i = 0; i < sel->nscopes; i++)
		if ((si = querier_scope(e, sel->scopes[i])) != NULL &&
		    si->profiles > 0 &&
		    (!sel->has_since || si->last_ns >= sel->since_ns) &&
		    (!sel->has_until || si->first_ns <= sel->until_ns))
			in[n++] = sel->scopes[i];
	/* Each a question to ClickHouse: refused before the first. */
	if (n > e->qc->max_series) {
		free(in);
		return error_set(err, ERR_TOO_LARGE, "group_by: %zu services; "
		    "a reply holds at most %zu series (query-max-series): a "
		    "narrower selector", n, e->qc->max_series);
	}
	values = xcalloc(by->n, sizeof *values);
	for (i = 0; rc == 0 && i < n; i++) {
		one = *sel;
		one.scopes = &in[i];
		one.nscopes = 1;
		for (j = 0; j < by->n; j++)
			values[j] = in[i];
		rc = series_timeline(e, &one, step_s, qss_add(a, by, values),
		    err);
	}
	free(values);
	free(in);
	return rc;
}

/* The request's limit (its top N by total, in their order), then the
 * reply's bounds. */
static int
series_bound(struct qenv *e, struct qss *a, struct error *err)
{
	const struct querier_req *r = &e->qc->req;
	size_t i, n = 0;
	uint64_t points = 0;

	/* A series nothing was counted in is none. */
	for (i = 0; i < a->n; i++)
		if (a->v[i].npoints == 0)
			qs_free(&a->v[i]);
		else
			a->v[n++] = a->v[i];
	a->n = n;
	if (r->has_limit && r->limit > 0 && (uint64_t)r->limit < a->n) {
		qsort(a->v, a->n, sizeof *a->v, qs_by_total);
		for (i = (size_t)r->limit; i < a->n; i++)
			qs_free(&a->v[i]);
		a->n = (size_t)r->limit;
		qsort(a->v, a->n, sizeof *a->v, qs_by_order);
	}
	if (a->n > e->qc->max_series)
		return error_set(err, ERR_TOO_LARGE, "group_by: %zu series; a "
		    "reply holds at most %zu (query-max-series): the top N "
		    "with limit, or a narrower selector", a->n,
		    e->qc->max_series);
	for (i = 0; i < a->n; i++)
		points += a->v[i].npoints;
	if (points > e->qc->max_points)
		return error_set(err, ERR_TOO_LARGE, "%zu series of %llu "
		    "points in all; a reply holds at most %zu points "
		    "(query-max-points): a coarser step, a shorter window or "
		    "a limit", a->n, (unsigned long long)points,
		    e->qc->max_points);
	return 0;
}

/* The points of each series: a timeline's, or a group's steps from its
 * first to its last, 0 where it has none. */
static void
series_points(struct qss *a)
{
	struct querier_point *pt;
	const struct groups_series *g;
	struct qs *q;
	size_t i, k, at;

	for (i = 0; i < a->n; i++) {
		q = &a->v[i];
		q->s.points = pt = xcalloc(q->npoints, sizeof *pt);
		q->s.npoints = q->npoints;
		if ((g = q->g) == NULL) {
			for (k = 0; k < q->npoints; k++) {
				pt[k].ms = (q->tl.start_s + (int64_t)k *
				    q->tl.step_s) * 1000;
				pt[k].value = (double)q->tl.values[k];
			}
			continue;
		}
		for (k = 0; k < q->npoints; k++)
			pt[k].ms = (g->points[0].step + (int64_t)k *
			    a->step_s) * 1000;
		for (k = 0; k < g->npoints; k++) {
			at = (size_t)((g->points[k].step - g->points[0].step) /
			    a->step_s);
			pt[at].value = (double)g->points[k].value;
		}
	}
}

int
querier_select_series(struct qenv *e, struct error *err)
{
	const struct querier_req *r = &e->qc->req;
	struct querier_series *out;
	struct groups_result gr;
	struct qss a = { 0 };
	struct labelsel ls;
	struct selection sel;
	struct pyrotype want;
	struct series kept;
	int64_t step_s = 0;
	size_t i;
	int rc;

	memset(&gr, 0, sizeof gr);
	if (series_step(r, &step_s, err) == -1)
		return -1;
	if ((rc = querier_select_prepare(e, &ls, &sel, &want, err)) == 0) {
		memset(&kept, 0, sizeof kept);
		kept.type = want.type;
		kept.unit = want.unit;
		if (r->group_by.n == 0)
			rc = series_timeline(e, &sel, step_s,
			    qss_add(&a, &r->group_by, NULL), err);
		/* The selector's __name__ and __profile_type__ must keep
		 * the type (they leave the scopes as they are). */
		else if (!querier_series_keep(&ls, &kept))
			rc = 0;
		else if (querier_local(e))
			rc = series_groups(e, &sel, step_s, &gr, &a, err);
		else
			rc = series_fleet(e, &sel, step_s, &a, err);
	}
	querier_select_clear(&ls, &sel);
	/* No scope with the type: no series. */
	if (rc == 1)
		rc = 0;
	if (rc == 0 && (rc = series_bound(e, &a, err)) == 0) {
		series_points(&a);
		out = xcalloc(a.n ? a.n : 1, sizeof *out);
		for (i = 0; i < a.n; i++)
			out[i] = a.v[i].s;
		querier_reply_series(&e->qc->reply, out, a.n);
		free(out);
	}
	qss_clear(&a);
	groups_result_clear(&gr);
	return rc == -1 ? -1 : 0;
}
