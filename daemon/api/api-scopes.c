/* api-scopes.c: GET /v1/scopes: this host's scopes, or with fleet=1 those
 * of the fleet (from ClickHouse, with the hosts that shipped them). */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "query.h"
#include "selection.h"
#include "store.h"
#include "util.h"

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
scopes_work(struct api_call *call, void *worker)
{
	struct query_worker *w = worker;
	struct store_scope_info *v;
	size_t n;

	if (store_scopes(w->store, &v, &n, &call->err) == -1)
		return;
	api_result(call, 200, json_pack("{s:o}", "scopes", scopes_json(v, n)));
	store_scope_info_free(v, n);
}

static void
scopes_fleet_done(void *arg, const struct api_fleet_answer *a,
    const struct error *err)
{
	struct api_call *call = arg;
	json_t *hosts;
	size_t i;

	if (a != NULL) {
		hosts = json_array();
		for (i = 0; i < a->nhosts; i++)
			json_array_append_new(hosts, json_string(a->hosts[i]));
		api_result(call, 200, json_pack("{s:o, s:o}", "scopes",
		    scopes_json(a->scopes, a->nscopes), "hosts", hosts));
	} else
		call->err = *err;
	api_finish(call);
}

static void
scopes_fleet_start(struct api_call *call)
{
	/* No selection: every scope of the fleet. */
	static const struct selection all;
	struct api_fleet_view v = { .scopes = 1, .sel = &all };

	call->host->fleet_view(call->host->ctx, &v, scopes_fleet_done, call);
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
	if (p->fleet)
		api_fleet_submit(call, NULL, scopes_fleet_start);
	else
		api_submit(call, API_QUERY, scopes_work);
}
