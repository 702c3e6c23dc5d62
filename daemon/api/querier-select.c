/* querier-select.c: what Grafana draws (SelectSeries: the time series;
 * SelectMergeStacktraces: the flame graph; SelectMergeProfile: the
 * merged profile as pprof), each the view profctl's timeline, tree and
 * export compute on the same selection: the selector's scopes that have
 * a metric the profile type ID selects (pyrotype_selects), that metric
 * as TYPE/UNIT, the window, the other matchers as label filters.  The
 * aggregate is the metric kind's, as profctl's without --aggregate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "export.h"
#include "flame.h"
#include "query.h"
#include "querier-int.h"
#include "timeline.h"
#include "tree.h"

/* Pyroscope's default when a call names no max_nodes. */
#define QUERIER_MAX_NODES	8192

/* The request's selection into sel and its selector into ls; 1 when no
 * selected scope has the profile type (an empty answer). */
static int
select_prepare(struct qenv *e, struct labelsel *ls, struct selection *sel,
    struct pyrotype *want, struct error *err)
{
	const struct querier_req *r = &e->qc->req;
	struct error pe = { 0 };

	memset(sel, 0, sizeof *sel);
	memset(ls, 0, sizeof *ls);
	if (r->profile_type == NULL || *r->profile_type == '\0')
		return error_set(err, ERR_INPUT, "profile_typeID: empty (a "
		    "profile type ID, as ProfileTypes lists them)");
	if (pyrotype_parse(r->profile_type, want, &pe) == -1)
		return error_set(err, ERR_INPUT, "profile_typeID: %.440s",
		    pe.msg);
	if (querier_labelsel(r->label_selector ? r->label_selector : "",
	    "label_selector", ls, err) == -1 || querier_scopes(e, err) == -1)
		return -1;
	if (pyrotype_select(want, ls, NULL, e->qc->scopes, e->qc->nscopes,
	    sel) == 0)
		return 1;
	return querier_window(r, sel, err);
}

static void
select_clear(struct labelsel *ls, struct selection *sel)
{
	labelsel_clear(ls);
	selection_clear(sel);
}

/* A scope gone, or without profiles, since it was listed: no answer,
 * not an error. */
static int
select_gone(struct error *err)
{
	if (err->kind != ERR_NOT_FOUND)
		return 0;
	error_clear(err);
	return 1;
}

static void
select_empty_flame(struct qenv *e)
{
	static char total[] = "total";
	char *names[] = { total };
	int64_t v[4] = { 0, 0, 0, 0 };
	struct flame_level level = { v, 4 };
	struct flame f;

	memset(&f, 0, sizeof f);
	f.names = names;
	f.nnames = 1;
	f.levels = &level;
	f.nlevels = 1;
	querier_reply_flame(&e->qc->reply, &f);
}

int
querier_select_stacks(struct qenv *e, struct error *err)
{
	const struct querier_req *r = &e->qc->req;
	struct tree_params p;
	struct tree_result tr;
	struct labelsel ls;
	struct selection sel;
	struct pyrotype want;
	struct flame f;
	int64_t max = QUERIER_MAX_NODES;
	int rc;

	if (r->format != QF_UNSPECIFIED && r->format != QF_FLAMEGRAPH)
		return error_set(err, ERR_UNSUPPORTED, "format %d: profd serves "
		    "the flame graph (PROFILE_FORMAT_FLAMEGRAPH) only",
		    r->format);
	if (r->has_max_nodes && r->max_nodes < 0)
		return error_set(err, ERR_INPUT, "max_nodes: %lld is "
		    "negative", (long long)r->max_nodes);
	if (r->has_max_nodes && r->max_nodes > 0)
		max = r->max_nodes;
	if ((rc = select_prepare(e, &ls, &sel, &want, err)) == 0) {
		memset(&p, 0, sizeof p);
		p.sel = &sel;
		if ((rc = tree_query(e->src, &p, &tr, err)) == 0) {
			flame_of_tree(&tr, max, &f);
			querier_reply_flame(&e->qc->reply, &f);
			flame_clear(&f);
			tree_result_clear(&tr);
		} else if (select_gone(err))
			rc = 1;
	}
	select_clear(&ls, &sel);
	if (rc == 1)
		select_empty_flame(e);
	return rc == -1 ? -1 : 0;
}

int
querier_select_profile(struct qenv *e, struct error *err)
{
	struct labelsel ls;
	struct selection sel;
	struct pyrotype want;
	int rc;

	if (e->qc->json)
		return error_set(err, ERR_UNSUPPORTED, "SelectMergeProfile in "
		    "JSON: profd answers it in protobuf only (Content-Type "
		    "application/proto)");
	if (!querier_local(e))
		return error_set(err, ERR_UNSUPPORTED, "SelectMergeProfile reads "
		    "this host's store, not the fleet (grafana-source)");
	/* max_nodes is not applied: the profile is whole. */
	if ((rc = select_prepare(e, &ls, &sel, &want, err)) == 0 &&
	    (rc = export_pprof(e->w->store, e->w->index, &sel,
	    &e->qc->profile, &e->qc->profile_len, err)) == -1 &&
	    select_gone(err))
		rc = 1;
	select_clear(&ls, &sel);
	if (rc == 1) {
		/* An empty Profile: no bytes. */
		e->qc->profile = xcalloc(1, 1);
		e->qc->profile_len = 0;
	}
	return rc == -1 ? -1 : 0;
}

/* ---- SelectSeries ---- */

struct group {
	struct querier_series s;	/* its labels: group_by's values */
	int64_t total;
};

struct groups {
	struct group *v;
	size_t n;
};

static void
group_free(struct group *g)
{
	size_t i;

	for (i = 0; i < g->s.nlabels; i++) {
		free(g->s.labels[i].name);
		free(g->s.labels[i].value);
	}
	free(g->s.labels);
	free(g->s.points);
}

static const char *
series_value(const struct series *s, const char *name)
{
	size_t i;

	if (strcmp(name, "service_name") == 0)
		return s->scope;
	for (i = 0; i < s->nlabels; i++)
		if (strcmp(s->labels[i].name, name) == 0)
			return s->labels[i].value;
	return "";
}

/* The group of s's values of the group_by labels, added if new. */
static void
groups_add(struct groups *gs, const struct querier_strs *by,
    const struct series *s)
{
	struct group *g;
	size_t i, j;

	for (i = 0; i < gs->n; i++) {
		for (j = 0; j < by->n; j++)
			if (strcmp(gs->v[i].s.labels[j].value,
			    series_value(s, by->v[j])) != 0)
				break;
		if (j == by->n)
			return;
	}
	gs->v = xreallocarray(gs->v, gs->n + 1, sizeof *gs->v);
	g = &gs->v[gs->n++];
	memset(g, 0, sizeof *g);
	g->s.labels = xcalloc(by->n, sizeof *g->s.labels);
	g->s.nlabels = by->n;
	for (j = 0; j < by->n; j++) {
		g->s.labels[j].name = xstrdup(by->v[j]);
		g->s.labels[j].value = xstrdup(series_value(s, by->v[j]));
	}
}

static void
group_copy(struct groups *gs, const struct group *g, size_t k,
    const char *value)
{
	struct group *c;
	size_t i, j;

	/* Once: a push label's value may be a sample label's too. */
	for (i = 0; i < gs->n; i++) {
		for (j = 0; j < g->s.nlabels; j++)
			if (strcmp(gs->v[i].s.labels[j].value, j == k ? value :
			    g->s.labels[j].value) != 0)
				break;
		if (j == g->s.nlabels)
			return;
	}
	gs->v = xreallocarray(gs->v, gs->n + 1, sizeof *gs->v);
	c = &gs->v[gs->n++];
	memset(c, 0, sizeof *c);
	c->s.nlabels = g->s.nlabels;
	c->s.labels = xcalloc(g->s.nlabels, sizeof *c->s.labels);
	for (j = 0; j < g->s.nlabels; j++) {
		c->s.labels[j].name = xstrdup(g->s.labels[j].name);
		c->s.labels[j].value = xstrdup(j == k ? value :
		    g->s.labels[j].value);
	}
}

/* Group by a sample label: a group whose series have no push label k is
 * one group per value its samples have of it (and "" for those that
 * have none); the groups without samples are dropped once counted. */
static void
groups_by_samples(struct groups *gs, size_t k, const struct series_result *r)
{
	struct groups out = { 0 };
	const char *name;
	size_t i, j;

	if (gs->n == 0 || strcmp(gs->v[0].s.labels[k].name,
	    "service_name") == 0)
		return;
	name = gs->v[0].s.labels[k].name;
	for (i = 0; i < gs->n; i++) {
		if (gs->v[i].s.labels[k].value[0] == '\0')
			for (j = 0; j < r->nsample; j++)
				if (strcmp(r->sample[j].name, name) == 0)
					group_copy(&out, &gs->v[i], k,
					    r->sample[j].value);
		group_copy(&out, &gs->v[i], k, gs->v[i].s.labels[k].value);
		group_free(&gs->v[i]);
	}
	free(gs->v);
	*gs = out;
}

/* The groups of the series of sel with the profile type (one, without
 * labels, when the request groups by nothing). */
static int
groups_make(struct qenv *e, const struct labelsel *ls,
    const struct selection *sel, const struct pyrotype *want,
    struct groups *gs, struct error *err)
{
	const struct querier_strs *by = &e->qc->req.group_by;
	struct series_result r;
	size_t i;

	memset(gs, 0, sizeof *gs);
	if (by->n == 0) {
		gs->v = xcalloc(1, sizeof *gs->v);
		gs->n = 1;
		return 0;
	}
	for (i = 0; i < by->n; i++)
		if (!querier_local(e) && strcmp(by->v[i], "service_name") != 0)
			return error_set(err, ERR_UNSUPPORTED, "group_by \"%s\": "
			    "the fleet's series are grouped by service_name "
			    "only", by->v[i]);
	if (querier_series(e, sel, 1, &r, err) == -1)
		return -1;
	for (i = 0; i < r.n; i++)
		if (pyrotype_selects(want, r.v[i].type, r.v[i].unit) &&
		    querier_series_keep(ls, &r.v[i]))
			groups_add(gs, by, &r.v[i]);
	for (i = 0; i < by->n; i++)
		groups_by_samples(gs, i, &r);
	series_result_clear(&r);
	return 0;
}

/* sel narrowed to group g: its scope when grouped by service_name, a
 * label filter per other label (an absent one, "", as labelsel reads
 * k=""). */
static void
group_selection(const struct selection *sel, const struct group *g,
    struct selection *out)
{
	struct label_filter *lf;
	size_t i;

	memset(out, 0, sizeof *out);
	out->metric = xstrdup(sel->metric);
	out->since_ns = sel->since_ns;
	out->until_ns = sel->until_ns;
	out->has_since = sel->has_since;
	out->has_until = sel->has_until;
	out->labels = xcalloc(sel->nlabels + g->s.nlabels + 1,
	    sizeof *out->labels);
	for (i = 0; i < sel->nlabels; i++) {
		out->labels[out->nlabels] = sel->labels[i];
		out->labels[out->nlabels].key = xstrdup(sel->labels[i].key);
		out->labels[out->nlabels++].value =
		    xstrdup(sel->labels[i].value);
	}
	for (i = 0; i < g->s.nlabels; i++) {
		if (strcmp(g->s.labels[i].name, "service_name") == 0) {
			out->scopes = xcalloc(1, sizeof *out->scopes);
			out->scopes[0] = xstrdup(g->s.labels[i].value);
			out->nscopes = 1;
			continue;
		}
		lf = &out->labels[out->nlabels++];
		lf->key = xstrdup(g->s.labels[i].name);
		if (g->s.labels[i].value[0] == '\0') {
			lf->value = xstrdup(".+");
			lf->regex = lf->negate = 1;
		} else
			lf->value = xstrdup(g->s.labels[i].value);
	}
	if (out->scopes == NULL) {
		out->scopes = xcalloc(sel->nscopes, sizeof *out->scopes);
		for (i = 0; i < sel->nscopes; i++)
			out->scopes[i] = xstrdup(sel->scopes[i]);
		out->nscopes = sel->nscopes;
	}
}

static int
group_points(struct qenv *e, const struct selection *sel, int64_t step_s,
    struct group *g, struct error *err)
{
	struct timeline_params p;
	struct timeline_result tl;
	struct selection gsel;
	size_t i;
	int rc;

	group_selection(sel, g, &gsel);
	memset(&p, 0, sizeof p);
	p.sel = &gsel;
	p.step_s = step_s;
	rc = timeline_query(e->src, &p, &tl, err);
	selection_clear(&gsel);
	if (rc == -1)
		return select_gone(err) ? 0 : -1;
	g->s.points = xcalloc(tl.npoints ? tl.npoints : 1,
	    sizeof *g->s.points);
	for (i = 0; i < tl.npoints; i++) {
		g->s.points[i].ms = (tl.start_s + (int64_t)i * tl.step_s) *
		    1000;
		g->s.points[i].value = (double)tl.values[i];
	}
	g->s.npoints = tl.npoints;
	g->total = tl.total;
	timeline_result_clear(&tl);
	return 0;
}

static int
group_counted(const struct group *g)
{
	size_t i;

	for (i = 0; i < g->s.npoints; i++)
		if (g->s.points[i].value != 0)
			return 1;
	return 0;
}

static int
group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return x->total > y->total ? -1 : x->total < y->total;
}

int
querier_select_series(struct qenv *e, struct error *err)
{
	const struct querier_req *r = &e->qc->req;
	struct querier_series *out;
	struct labelsel ls;
	struct selection sel;
	struct pyrotype want;
	struct groups gs = { 0 };
	int64_t step_s = 0;
	size_t i, n = 0;
	int rc;

	if (!(r->step_s >= 0) || r->step_s > 1e9)
		return error_set(err, ERR_INPUT, "step: %g is not a number of "
		    "seconds (0 to 1e9)", r->step_s);
	/* The store's buckets are seconds: a step is whole ones. */
	if (r->step_s > 0)
		step_s = r->step_s < 1 ? 1 : (int64_t)llround(r->step_s);
	if ((rc = select_prepare(e, &ls, &sel, &want, err)) == 0)
		rc = groups_make(e, &ls, &sel, &want, &gs, err);
	for (i = 0; rc == 0 && i < gs.n; i++)
		rc = group_points(e, &sel, step_s, &gs.v[i], err);
	select_clear(&ls, &sel);
	if (rc == 0 && r->has_limit && r->limit > 0 &&
	    (uint64_t)r->limit < gs.n) {
		qsort(gs.v, gs.n, sizeof *gs.v, group_cmp);
		for (i = (size_t)r->limit; i < gs.n; i++)
			group_free(&gs.v[i]);
		gs.n = (size_t)r->limit;
	}
	out = xcalloc(gs.n ? gs.n : 1, sizeof *out);
	/* A group nothing was counted in is no series. */
	for (i = 0; i < gs.n; i++)
		if (group_counted(&gs.v[i]))
			out[n++] = gs.v[i].s;
	if (rc != -1)
		querier_reply_series(&e->qc->reply, out, n);
	free(out);
	for (i = 0; i < gs.n; i++)
		group_free(&gs.v[i]);
	free(gs.v);
	return rc == -1 ? -1 : 0;
}
