/* api-diff.c: GET /v1/diff: the selection against a base selection given
 * by the same parameters prefixed with "base." (base.scope, base.since, …),
 * as a merged tree with both values per node and the top deltas. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "diff.h"
#include "query.h"
#include "selection.h"
#include "top.h"
#include "tree.h"

struct diff_req {
	struct selection base, cur;
	struct api_fleet_params fleet;
	int normalize;
	long long limit;
};

static void
diff_req_free(void *arg)
{
	struct diff_req *d = arg;

	selection_clear(&d->base);
	selection_clear(&d->cur);
	api_fleet_params_clear(&d->fleet);
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
	    "metric", api_view_metric_json(&r.metric),
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
diff_work(struct api_call *call, struct stack_source *src)
{
	struct diff_req *d = call->data;
	struct diff_params p;
	struct diff_result r;

	memset(&p, 0, sizeof p);
	p.base = &d->base;
	p.cur = &d->cur;
	p.normalize = d->normalize;
	if (diff_query(src, &p, &r, &call->err) == 0)
		diff_reply(call, &r);
}

void
api_diff_get(struct api_call *call)
{
	const char *limit = api_param(call, "limit");
	struct diff_req *d;
	char *end;

	d = xcalloc(1, sizeof *d);
	call->data = d;
	call->free_data = diff_req_free;
	if (api_selection(call, &d->cur, NULL) == -1 ||
	    api_selection(call, &d->base, "base.") == -1)
		return;
	/* Both sides combined alike unless the base says otherwise: an
	 * average compared with a sum means nothing. */
	if (d->base.aggregate == AGG_DEFAULT)
		d->base.aggregate = d->cur.aggregate;
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
	api_view_submit(call, &d->fleet, diff_work);
}
