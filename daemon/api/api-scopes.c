/* api-scopes.c: GET /v1/scopes: this host's scopes, or with fleet=1 those
 * of the fleet (from ClickHouse, with the hosts that shipped them). */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "query.h"
#include "source.h"
#include "selection.h"
#include "store.h"

static json_t *
scopes_json(const struct store_scope_info *v, size_t n)
{
	json_t *arr = json_array();
	size_t i, j;

	for (i = 0; i < n; i++) {
		json_t *metrics = json_array();
		int have = v[i].profiles > 0;

		for (j = 0; j < v[i].nmetrics; j++)
			json_array_append_new(metrics, api_metric_json(
			    v[i].metrics[j].type, v[i].metrics[j].unit));
		json_array_append_new(arr, json_pack("{s:s, s:I, s:o, s:o, "
		    "s:o, s:o, s:o}",
		    "name", v[i].name,
		    "profiles", (json_int_t)v[i].profiles,
		    "metrics", metrics,
		    "first_time", have ? api_time_json(v[i].first_ns) :
		    json_null(),
		    "first_time_ns", have ? json_integer(v[i].first_ns) :
		    json_null(),
		    "last_time", have ? api_time_json(v[i].last_ns) :
		    json_null(),
		    "last_time_ns", have ? json_integer(v[i].last_ns) :
		    json_null()));
	}
	return arr;
}

static void
scopes_work(struct api_call *call, struct stack_source *src)
{
	const struct api_fleet_params *p = call->source;
	struct store_scope_info *v;
	char **hosts;
	size_t n, nhosts, i;
	json_t *reply, *h;

	if (src->ops->scopes(src, &v, &n, &hosts, &nhosts, &call->err) == -1)
		return;
	reply = json_pack("{s:o}", "scopes", scopes_json(v, n));
	if (p->fleet) {
		h = json_array();
		for (i = 0; i < nhosts; i++)
			json_array_append_new(h, json_string(hosts[i]));
		json_object_set_new(reply, "hosts", h);
	}
	api_result(call, 200, reply);
	store_scope_info_free(v, n);
	for (i = 0; i < nhosts; i++)
		free(hosts[i]);
	free(hosts);
}

static void
scopes_params_free(void *p)
{
	api_fleet_params_clear(p);
	free(p);
}

void
api_scopes_get(struct api_call *call)
{
	struct api_fleet_params *p = xcalloc(1, sizeof *p);

	call->data = p;
	call->free_data = scopes_params_free;
	if (api_fleet_params(call, p) == -1)
		return;
	if (p->nhosts > 0) {
		api_error(call, 400, "host: /v1/scopes lists every host's "
		    "scopes (and the hosts)");
		return;
	}
	api_view_submit(call, p, scopes_work);
}
