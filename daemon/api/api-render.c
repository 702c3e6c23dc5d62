/* api-render.c: GET /pyroscope/render and /pyroscope/render-diff,
 * Pyroscope's HTTP render API, as Grafana's older Pyroscope data source,
 * pyroscope-cli and Pyroscope's own UI call it (grafana/pyroscope
 * pkg/querier/http.go: Render, RenderDiff).
 *
 * render: the flame graph of query over [from, until] as flamebearer
 * JSON ({"version": 1, "flamebearer": {names, levels, numTicks, maxSelf},
 * "metadata", "timeline", "groups", "heatmap"}), its levels those of
 * query/flame.c pruned to maxNodes, numTicks the tree's total, and the
 * timeline the selection's totals at Pyroscope's step for the range.
 * render-diff: leftQuery over [leftFrom, leftUntil] against rightQuery
 * over [rightFrom, rightUntil] as the "double" flamebearer (seven numbers
 * a node, leftTicks, rightTicks); the two must name one profile type.
 *
 * The query's scopes are the source's that have the profile type's
 * metric and pass its service_name matchers; its other matchers are the
 * label filters (query/labelsel.c).  The numbers are the views' own
 * (tree_query, timeline_query, diff_query) over the source
 * api_pyro_source() names: the same as profctl tree, top, timeline and
 * diff on the same selection. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api-pyro.h"
#include "buf.h"
#include "clock.h"
#include "diff.h"
#include "flame.h"
#include "jsonw.h"
#include "pyroquery.h"
#include "selection.h"
#include "source.h"
#include "timeline.h"
#include "tree.h"

/* One side: a query over a window, made a selection on the worker. */
struct render_side {
	struct pyroquery q;
	int64_t from_ns, until_ns;
	struct selection sel;
};

struct render_req {
	struct render_side side[2];	/* render: [0]; diff: left, right */
	int diff;
	int64_t max_nodes;
	enum metric_aggregate agg;
	struct api_fleet_params src;
};

static void
render_req_free(void *arg)
{
	struct render_req *r = arg;
	int i;

	for (i = 0; i < 2; i++) {
		pyroquery_clear(&r->side[i].q);
		selection_clear(&r->side[i].sel);
	}
	api_fleet_params_clear(&r->src);
	free(r);
}

/* The side's selection: the source's scopes that have its profile
 * type's metric and pass its service_name matchers (and are its APP),
 * its label filters, its window.  No scope: sel.nscopes 0. */
static int
render_select(struct stack_source *src, struct render_side *sd,
    enum metric_aggregate agg, struct error *err)
{
	struct store_scope_info *sc = NULL;
	char **hosts = NULL;
	size_t nsc = 0, nhosts = 0, i;
	int rc = -1;

	if (src->ops->scopes(src, &sc, &nsc, &hosts, &nhosts, err) == -1)
		goto out;
	pyrotype_select(&sd->q.type, &sd->q.ls, sd->q.scope, sc, nsc,
	    &sd->sel);
	sd->sel.since_ns = sd->from_ns;
	sd->sel.until_ns = sd->until_ns;
	sd->sel.has_since = sd->sel.has_until = 1;
	sd->sel.aggregate = agg;
	rc = selection_compile(&sd->sel, err);
out:
	store_scope_info_free(sc, nsc);
	for (i = 0; i < nhosts; i++)
		free(hosts[i]);
	free(hosts);
	return rc;
}

/* metadata's units and sampleRate for a metric, as Pyroscope's
 * ExportToFlamebearer (pkg/model/flamegraph.go) says them: CPU time is
 * "samples" at 1e9 a second (its ticks are nanoseconds), counts of
 * objects and goroutines "objects", anything else its unit. */
static void
render_metadata(struct buf *out, const char *format,
    const struct pyrotype *t)
{
	const char *units = t->unit;
	int64_t rate = 100;

	if (strcmp(t->type, "inuse_objects") == 0 ||
	    strcmp(t->type, "alloc_objects") == 0 ||
	    strcmp(t->type, "goroutine") == 0 ||
	    strcmp(t->type, "samples") == 0)
		units = "objects";
	else if (strcmp(t->type, "cpu") == 0) {
		units = "samples";
		rate = 1000000000;
	}
	jsonw_raw(out, ",\"metadata\":{");
	jsonw_key(out, "format");
	jsonw_str(out, format);
	jsonw_mstr(out, "spyName", "");
	jsonw_mint(out, "sampleRate", rate);
	jsonw_mstr(out, "units", units);
	jsonw_mstr(out, "name", t->type);
	jsonw_raw(out, "}");
}

static void
render_flamebearer(struct buf *out, const struct flame *f)
{
	size_t i, j;

	jsonw_raw(out, "{\"version\":1,\"flamebearer\":{\"names\":[");
	for (i = 0; i < f->nnames; i++) {
		if (i > 0)
			jsonw_raw(out, ",");
		jsonw_str(out, f->names[i]);
	}
	jsonw_raw(out, "],\"levels\":[");
	for (i = 0; i < f->nlevels; i++) {
		jsonw_raw(out, i > 0 ? ",[" : "[");
		for (j = 0; j < f->levels[i].n; j++) {
			if (j > 0)
				jsonw_raw(out, ",");
			jsonw_int(out, f->levels[i].v[j]);
		}
		jsonw_raw(out, "]");
	}
	jsonw_raw(out, "]");
	jsonw_mint(out, "numTicks", f->total);
	jsonw_mint(out, "maxSelf", f->max_self);
	jsonw_raw(out, "}");
}

/* The timeline over the window, Pyroscope's way: startTime the window's
 * start (here on a step boundary, as the points are), a sample every
 * durationDelta seconds to its end, 0 where nothing was. */
static void
render_timeline(struct buf *out, const struct render_side *sd,
    const struct timeline_result *r, int64_t step)
{
	int64_t from = sd->from_ns / 1000000000;
	int64_t until = sd->until_ns / 1000000000;
	int64_t start, *v, at;
	size_t n, i;

	if (r != NULL && r->step_s > 0)
		step = r->step_s;
	start = (from >= 0 ? from : from - step + 1) / step * step;
	n = until >= start ? (size_t)((until - start) / step + 1) : 1;
	if (n > TIMELINE_MAX_POINTS)
		n = TIMELINE_MAX_POINTS;
	v = xcalloc(n, sizeof *v);
	for (i = 0; r != NULL && i < r->npoints; i++) {
		at = (r->start_s + (int64_t)i * r->step_s - start) / step;
		/* Never out of the window: kept at its ends if so, so that
		 * the samples add up to the total. */
		at = at < 0 ? 0 : at >= (int64_t)n ? (int64_t)n - 1 : at;
		v[at] += r->values[i];
	}
	jsonw_raw(out, ",\"timeline\":{");
	jsonw_key(out, "startTime");
	jsonw_int(out, start);
	jsonw_raw(out, ",\"samples\":[");
	for (i = 0; i < n; i++) {
		if (i > 0)
			jsonw_raw(out, ",");
		jsonw_int(out, v[i]);
	}
	jsonw_raw(out, "]");
	jsonw_mint(out, "durationDelta", step);
	jsonw_raw(out, ",\"watermarks\":null}");
	free(v);
}

static void
render_work(struct api_call *call, struct stack_source *src)
{
	struct render_req *r = call->data;
	struct render_side *sd = &r->side[0];
	struct tree_params tp = { &sd->sel, 0 };
	struct timeline_params lp;
	struct tree_result tr;
	struct timeline_result tl;
	struct flame f;
	struct buf out = { 0 };
	int64_t step = pyroquery_step(sd->from_ns / 1000000,
	    sd->until_ns / 1000000);
	int have = 0;

	memset(&tr, 0, sizeof tr);
	memset(&tl, 0, sizeof tl);
	if (render_select(src, sd, r->agg, &call->err) == -1)
		return;
	if (sd->sel.nscopes > 0) {
		memset(&lp, 0, sizeof lp);
		lp.sel = &sd->sel;
		lp.step_s = step;
		if (tree_query(src, &tp, &tr, &call->err) == -1)
			return;
		if (timeline_query(src, &lp, &tl, &call->err) == -1) {
			tree_result_clear(&tr);
			return;
		}
		have = 1;
	}
	/* No scope has it: an empty graph, as Pyroscope answers. */
	flame_of_tree(&tr, r->max_nodes, &f);
	render_flamebearer(&out, &f);
	render_metadata(&out, "single", &sd->q.type);
	render_timeline(&out, sd, have ? &tl : NULL, step);
	jsonw_raw(&out, ",\"groups\":null,\"heatmap\":null}\n");
	buf_add(&out, "", 1);
	api_result_text(call, 200, "application/json", (char *)out.p);
	flame_clear(&f);
	tree_result_clear(&tr);
	timeline_result_clear(&tl);
}

/* A side without a scope is compared as empty: the other side's scopes
 * over a window that holds nothing (since past 2262), so that the metric
 * still resolves and nothing is read. */
static void
render_side_empty(struct render_side *empty, const struct render_side *other)
{
	size_t i;

	empty->sel.scopes = xcalloc(other->sel.nscopes, sizeof(char *));
	for (i = 0; i < other->sel.nscopes; i++)
		empty->sel.scopes[i] = xstrdup(other->sel.scopes[i]);
	empty->sel.nscopes = other->sel.nscopes;
	if (empty->sel.metric == NULL && other->sel.metric != NULL)
		empty->sel.metric = xstrdup(other->sel.metric);
	empty->sel.since_ns = INT64_MAX;
}

static void
render_diff_work(struct api_call *call, struct stack_source *src)
{
	struct render_req *r = call->data;
	struct render_side *l = &r->side[0], *rt = &r->side[1];
	struct diff_params dp;
	struct diff_result d;
	struct flame f;
	struct buf out = { 0 };
	int64_t lticks, rticks;

	memset(&d, 0, sizeof d);
	if (render_select(src, l, r->agg, &call->err) == -1 ||
	    render_select(src, rt, r->agg, &call->err) == -1)
		return;
	if (l->sel.nscopes == 0 && rt->sel.nscopes > 0)
		render_side_empty(l, rt);
	else if (rt->sel.nscopes == 0 && l->sel.nscopes > 0)
		render_side_empty(rt, l);
	if (l->sel.nscopes > 0) {
		memset(&dp, 0, sizeof dp);
		dp.base = &l->sel;
		dp.cur = &rt->sel;
		if (diff_query(src, &dp, &d, &call->err) == -1)
			return;
	}
	flame_of_diff(&d, r->max_nodes, &f, &lticks, &rticks);
	render_flamebearer(&out, &f);
	render_metadata(&out, "double", &l->q.type);
	jsonw_raw(&out, ",\"timeline\":null,\"groups\":null,\"heatmap\":null");
	jsonw_mint(&out, "leftTicks", lticks);
	jsonw_mint(&out, "rightTicks", rticks);
	jsonw_raw(&out, "}\n");
	buf_add(&out, "", 1);
	api_result_text(call, 200, "application/json", (char *)out.p);
	flame_clear(&f);
	diff_result_clear(&d);
}

/* One side's query and window from the parameters named qname, fname,
 * uname; -1 once a 400 is sent. */
static int
render_side_params(struct api_call *call, struct render_side *sd,
    const char *qname, const char *fname, const char *uname, int64_t now)
{
	const char *q = api_param(call, qname);
	const char *from = api_param(call, fname);
	struct error err = { 0 };

	if (pyroquery_parse(qname, q ? q : "", &sd->q, &err) == -1 ||
	    /* Pyroscope's UI asks for the last hour unless told. */
	    pyroquery_time(fname, from ? from : "now-1h", now, &sd->from_ns,
	    &err) == -1 ||
	    pyroquery_time(uname, api_param(call, uname) ? api_param(call,
	    uname) : "", now, &sd->until_ns, &err) == -1) {
		api_error(call, 400, "%s", err.msg);
		return -1;
	}
	if (sd->from_ns > sd->until_ns) {
		api_error(call, 400, "%s: %s is after %s", fname, fname,
		    uname);
		return -1;
	}
	return 0;
}

/* The parameters both endpoints share: maxNodes (or max-nodes),
 * format, aggregation; -1 once a 400 is sent. */
static int
render_common_params(struct api_call *call, struct render_req *r)
{
	const char *mn = api_param(call, "maxNodes");
	const char *format = api_param(call, "format");
	const char *agg = api_param(call, "aggregation");
	const char *aggregate = api_param(call, "aggregate");
	struct error err = { 0 };

	if (mn == NULL || *mn == '\0')
		mn = api_param(call, "max-nodes");
	if (pyroquery_max_nodes(mn == api_param(call, "maxNodes") ? "maxNodes" :
	    "max-nodes", mn, &r->max_nodes, &err) == -1) {
		api_error(call, 400, "%s", err.msg);
		return -1;
	}
	if (format != NULL && *format != '\0' && strcmp(format, "json") != 0) {
		api_error(call, 400, "format: \"%s\" is not served (json "
		    "only: flamebearer JSON)", format);
		return -1;
	}
	/* Pyroscope's aggregation (the timeline's, sum or avg): avg is
	 * profd's aggregate=avg; sum, the way each metric's kind adds up
	 * a window (docs/TIME.md).  profd's own aggregate= says more. */
	r->agg = AGG_DEFAULT;
	if (agg != NULL && strcmp(agg, "avg") == 0)
		r->agg = AGG_AVG;
	else if (agg != NULL && *agg != '\0' && strcmp(agg, "sum") != 0) {
		api_error(call, 400, "aggregation: \"%s\" is neither sum nor "
		    "avg", agg);
		return -1;
	}
	if (aggregate != NULL && aggregate_parse(aggregate, &r->agg) == -1) {
		api_error(call, 400, "aggregate: \"%s\" is not one of delta, "
		    "sum, avg, last, max", aggregate);
		return -1;
	}
	return 0;
}

void
api_render_get(struct api_call *call)
{
	struct render_req *r;

	r = xcalloc(1, sizeof *r);
	call->data = r;
	call->free_data = render_req_free;
	if (render_side_params(call, &r->side[0], "query", "from", "until",
	    now_ns()) == -1 || render_common_params(call, r) == -1)
		return;
	api_pyro_source(call, &r->src);
	api_view_submit(call, &r->src, render_work);
}

void
api_render_diff_get(struct api_call *call)
{
	struct render_req *r;
	char lid[5 * PYROTYPE_PART], rid[5 * PYROTYPE_PART];
	int64_t now = now_ns();

	r = xcalloc(1, sizeof *r);
	call->data = r;
	call->free_data = render_req_free;
	r->diff = 1;
	if (render_side_params(call, &r->side[0], "leftQuery", "leftFrom",
	    "leftUntil", now) == -1 ||
	    render_side_params(call, &r->side[1], "rightQuery", "rightFrom",
	    "rightUntil", now) == -1 || render_common_params(call, r) == -1)
		return;
	pyrotype_id(&r->side[0].q.type, lid, sizeof lid);
	pyrotype_id(&r->side[1].q.type, rid, sizeof rid);
	if (strcmp(lid, rid) != 0) {
		api_error(call, 400, "rightQuery: its profile type %s is not "
		    "leftQuery's %s: profile types must match", rid, lid);
		return;
	}
	api_pyro_source(call, &r->src);
	api_view_submit(call, &r->src, render_diff_work);
}
