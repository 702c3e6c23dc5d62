/* api-scopes.c: GET /v1/scopes. */
#include <stdlib.h>

#include "api.h"
#include "query.h"
#include "store.h"
#include "util.h"

static void
scopes_work(struct api_call *call, void *worker)
{
	struct query_worker *w = worker;
	struct store_scope_info *v;
	size_t n, i, j;
	json_t *arr;

	if (store_scopes(w->store, &v, &n, &call->err) == -1)
		return;
	arr = json_array();
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
	store_scope_info_free(v, n);
	api_result(call, 200, json_pack("{s:o}", "scopes", arr));
}

void
api_scopes_get(struct api_call *call)
{
	api_submit(call, API_QUERY, scopes_work);
}
