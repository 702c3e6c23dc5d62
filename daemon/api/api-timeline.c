/* api-timeline.c: GET /v1/timeline: the selection's total per time step,
 * to see when a service got hot before picking a window. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "query.h"
#include "rfc3339.h"
#include "selection.h"
#include "timeline.h"

struct timeline_req {
	struct selection sel;
	struct api_fleet_params fleet;
	int64_t step_s;
};

static void
timeline_req_free(void *arg)
{
	struct timeline_req *t = arg;

	selection_clear(&t->sel);
	api_fleet_params_clear(&t->fleet);
	free(t);
}

static void
timeline_reply(struct api_call *call, struct timeline_result *rp)
{
	struct timeline_result r = *rp;
	json_t *points;
	char when[64];
	size_t i;

	points = json_array();
	for (i = 0; i < r.npoints; i++) {
		int64_t ns = (r.start_s + (int64_t)i * r.step_s) * 1000000000;

		format_rfc3339(ns, when, sizeof when);
		json_array_append_new(points, json_pack("{s:s, s:I, s:I}",
		    "time", when, "time_ns", (json_int_t)ns,
		    "value", (json_int_t)r.values[i]));
	}
	api_result(call, 200, json_pack("{s:o, s:s, s:I, s:I, s:o}",
	    "metric", api_view_metric_json(&r.metric),
	    "unit", r.metric.unit,
	    "step_s", (json_int_t)r.step_s,
	    "total", (json_int_t)r.total,
	    "points", points));
	timeline_result_clear(&r);
}

static void
timeline_work(struct api_call *call, struct stack_source *src)
{
	struct timeline_req *t = call->data;
	struct timeline_params p;
	struct timeline_result r;

	memset(&p, 0, sizeof p);
	p.sel = &t->sel;
	p.step_s = t->step_s;
	if (timeline_query(src, &p, &r, &call->err) == 0)
		timeline_reply(call, &r);
}

void
api_timeline_get(struct api_call *call)
{
	const char *step = api_param(call, "step");
	struct timeline_req *t;
	char *end;
	long long v;

	t = xcalloc(1, sizeof *t);
	call->data = t;
	call->free_data = timeline_req_free;
	if (api_selection(call, &t->sel, NULL) == -1)
		return;
	if (step != NULL) {
		v = strtoll(step, &end, 10);
		if (*end == 'm')
			v *= 60, end++;
		else if (*end == 'h')
			v *= 3600, end++;
		else if (*end == 'd')
			v *= 86400, end++;
		else if (*end == 's')
			end++;
		if (end == step || *end != '\0' || v <= 0) {
			api_error(call, 400, "step: \"%s\" is not a duration "
			    "of whole seconds (10s, 5m, 1h, 1d)", step);
			return;
		}
		t->step_s = v;
	}
	if (api_fleet_params(call, &t->fleet) == -1)
		return;
	api_view_submit(call, &t->fleet, timeline_work);
}
