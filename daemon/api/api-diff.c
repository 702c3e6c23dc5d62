/* api-diff.c: GET /v1/diff: the selection against a base selection given
 * by the same parameters prefixed with "base." (base.scope, base.since, …),
 * as a merged tree with both values per node and the top deltas. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "csindex.h"
#include "diff.h"
#include "query.h"
#include "selection.h"
#include "top.h"
#include "tree.h"
#include "util.h"

struct diff_req {
	struct selection base, cur;
	struct api_fleet_params fleet;
	int normalize;
	long long limit;
	/* fleet=1: the current selection's answer while the base's is
	 * asked, the tree's names copied (the fleet's last only until its
	 * callback returns). */
	struct tree_result cur_tree;
	struct top_result cur_top;
	char **names;
};

static void
diff_req_free(void *arg)
{
	struct diff_req *d = arg;
	size_t i;

	selection_clear(&d->base);
	selection_clear(&d->cur);
	api_fleet_params_clear(&d->fleet);
	if (d->names != NULL)
		for (i = 0; i < d->cur_tree.nnodes; i++)
			free(d->names[i]);
	free(d->names);
	tree_result_clear(&d->cur_tree);
	top_result_clear(&d->cur_top);
	free(d);
}

static json_t *
dnode_json(const struct diff_result *r, size_t i)
{
	const struct diff_node *n = &r->nodes[i];
	json_t *kids = json_array();
	size_t c;

	for (c = n->child; c != 0; c = r->nodes[c].next)
		json_array_append_new(kids, dnode_json(r, c));
	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:o}", "name", n->name,
	    "base", (json_int_t)n->base, "current", (json_int_t)n->cur,
	    "base_self", (json_int_t)n->base_self,
	    "current_self", (json_int_t)n->cur_self, "children", kids);
}

/* The reply of a diff, local or of the fleet. */
static void
diff_reply(struct api_call *call, struct diff_result *rp)
{
	struct diff_req *d = call->data;
	struct diff_result r = *rp;
	json_t *rows;
	size_t i, n;

	rows = json_array();
	n = d->limit >= 0 && (size_t)d->limit < r.nrows ? (size_t)d->limit :
	    r.nrows;
	for (i = 0; i < n; i++) {
		const struct diff_row *x = &r.rows[i];

		json_array_append_new(rows, json_pack("{s:s, s:I, s:I, s:I, "
		    "s:I, s:I, s:I}", "function", x->function,
		    "base_flat", (json_int_t)x->base_flat,
		    "current_flat", (json_int_t)x->cur_flat,
		    "delta_flat", (json_int_t)(x->cur_flat - x->base_flat),
		    "base_cum", (json_int_t)x->base_cum,
		    "current_cum", (json_int_t)x->cur_cum,
		    "delta_cum", (json_int_t)(x->cur_cum - x->base_cum)));
	}
	api_result(call, 200, json_pack("{s:o, s:s, s:b, s:f, "
	    "s:{s:I, s:I}, s:{s:I, s:I}, s:o, s:I, s:o}",
	    "metric", api_metric_json(r.metric.type, r.metric.unit),
	    "unit", r.metric.unit,
	    "normalized", d->normalize,
	    "scale", r.scale,
	    "base", "total", (json_int_t)r.base_total,
	    "profiles", (json_int_t)r.base_profiles,
	    "current", "total", (json_int_t)r.cur_total,
	    "profiles", (json_int_t)r.cur_profiles,
	    "root", dnode_json(&r, 0),
	    "rows_total", (json_int_t)r.nrows,
	    "rows", rows));
	diff_result_clear(&r);
}

static void
diff_work(struct api_call *call, void *worker)
{
	struct query_worker *w = worker;
	struct diff_req *d = call->data;
	struct diff_params p;
	struct diff_result r;

	memset(&p, 0, sizeof p);
	p.base = &d->base;
	p.cur = &d->cur;
	p.normalize = d->normalize;
	if (diff_query(w->store, w->index, &p, &r, &call->err) == 0)
		diff_reply(call, &r);
}

static void diff_fleet_ask(struct api_call *, const struct selection *,
    api_fleet_done *);

static void
diff_fleet_base(void *arg, const struct api_fleet_answer *a,
    const struct error *err)
{
	struct api_call *call = arg;
	struct diff_req *d = call->data;
	struct diff_result r;

	if (a == NULL)
		call->err = *err;
	else {
		if (diff_of(a->tree, &d->cur_tree, a->top, &d->cur_top,
		    d->normalize, &r, &call->err) == 0)
			diff_reply(call, &r);
		tree_result_clear(a->tree);
		top_result_clear(a->top);
	}
	api_finish(call);
}

static void
diff_fleet_cur(void *arg, const struct api_fleet_answer *a,
    const struct error *err)
{
	struct api_call *call = arg;
	struct diff_req *d = call->data;
	size_t i;

	if (a == NULL) {
		call->err = *err;
		api_finish(call);
		return;
	}
	d->cur_tree = *a->tree;
	d->cur_top = *a->top;
	/* The merge reads names only. */
	d->names = xreallocarray(NULL, d->cur_tree.nnodes + 1,
	    sizeof *d->names);
	for (i = 0; i < d->cur_tree.nnodes; i++) {
		d->names[i] = xstrdup(d->cur_tree.nodes[i].name);
		d->cur_tree.nodes[i].name = d->names[i];
		d->cur_tree.nodes[i].file = d->cur_tree.nodes[i].mapping = "";
	}
	/* The base is of the current's metric unless it names its own. */
	if (d->base.metric == NULL)
		xasprintf(&d->base.metric, "%s/%s", d->cur_tree.metric.type,
		    d->cur_tree.metric.unit);
	diff_fleet_ask(call, &d->base, diff_fleet_base);
}

static void
diff_fleet_ask(struct api_call *call, const struct selection *sel,
    api_fleet_done *done)
{
	struct diff_req *d = call->data;
	struct api_fleet_view v = {
		.top = 1, .tree = 1, .sel = sel, .hosts = d->fleet.hosts,
		.nhosts = d->fleet.nhosts,
	};

	call->host->fleet_view(call->host->ctx, &v, done, call);
}

static void
diff_fleet_start(struct api_call *call)
{
	struct diff_req *d = call->data;

	diff_fleet_ask(call, &d->cur, diff_fleet_cur);
}

void
api_diff_get(struct api_call *call)
{
	static const char *const own[] = { "normalize", "limit", "base.*",
	    "fleet", "host", NULL };
	const char *limit = api_param(call, "limit");
	struct diff_req *d;
	char *end;

	d = xcalloc(1, sizeof *d);
	call->data = d;
	call->free_data = diff_req_free;
	if (api_selection(call, &d->cur, NULL, own) == -1 ||
	    api_selection(call, &d->base, "base.", own) == -1)
		return;
	if (api_bool(call, "normalize", &d->normalize) == -1)
		return;
	d->limit = -1;
	if (limit != NULL) {
		d->limit = strtoll(limit, &end, 10);
		if (*limit == '\0' || *end != '\0' || d->limit < 0) {
			api_error(call, 400, "limit: \"%s\" is not a "
			    "non-negative integer", limit);
			return;
		}
	}
	if (api_fleet_params(call, &d->fleet) == -1)
		return;
	if (d->fleet.fleet) {
		if (api_fleet_check(call, &d->cur, GRAN_FUNCTION) == 0 &&
		    api_fleet_check(call, &d->base, GRAN_FUNCTION) == 0)
			api_fleet_submit(call, NULL, diff_fleet_start);
		return;
	}
	api_submit(call, API_QUERY, diff_work);
}
