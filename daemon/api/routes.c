/* routes.c: the route table.  The dispatcher checks the path and method,
 * parses the query string once and calls the handler. */
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "clock.h"
#include "routes.h"

const struct route routes[] = {
	{ "POST", "/v1/profiles", ROUTE_NEEDS_WRITER, api_profiles_post },
	{ "GET", "/v1/profiles", ROUTE_READONLY, api_profiles_get },
	{ "DELETE", "/v1/profiles", ROUTE_NEEDS_WRITER, api_profiles_delete },
	{ "GET", "/v1/scopes", ROUTE_READONLY, api_scopes_get },
	{ "GET", "/v1/top", ROUTE_READONLY, api_top_get },
	{ "GET", "/v1/tree", ROUTE_READONLY, api_tree_get },
	{ "GET", "/v1/peek", ROUTE_READONLY, api_peek_get },
	{ "GET", "/v1/traces", ROUTE_READONLY, api_traces_get },
	{ "GET", "/v1/tags", ROUTE_READONLY, api_tags_get },
	{ "GET", "/v1/list", ROUTE_READONLY, api_list_get },
	{ "GET", "/v1/diff", ROUTE_READONLY, api_diff_get },
	{ "GET", "/v1/timeline", ROUTE_READONLY, api_timeline_get },
	{ "GET", "/v1/export", ROUTE_READONLY, api_export_get },
	{ "POST", "/v1/query", ROUTE_READONLY, api_query_post },
	{ "GET", "/v1/health", ROUTE_LOOP, api_health_get },
	{ "GET", "/v1/status", ROUTE_LOOP, api_status_get },
	{ "POST", "/v1/uploads", ROUTE_IO, api_uploads_post },
	{ "PUT", "/v1/uploads", ROUTE_IO, api_uploads_put },
	{ "DELETE", "/v1/uploads", ROUTE_IO, api_uploads_delete },
	/* Pyroscope's push API (api-ingest.c). */
	{ "POST", "/ingest", ROUTE_NEEDS_WRITER | ROUTE_TCP_WRITE,
	    api_ingest_post },
	/* Its Connect push service, as Grafana Alloy calls it
	 * (api-connect.c). */
	{ "POST", "/push.v1.PusherService/Push", ROUTE_NEEDS_WRITER |
	    ROUTE_TCP_WRITE, api_connect_push_post },
	/* Grafana's Pyroscope data source: querier.v1's Connect calls
	 * (api-querier.c), to a read credential on the TCP listener. */
#define QUERIER(m) { "POST", "/querier.v1.QuerierService/" m, \
	    ROUTE_READONLY | ROUTE_TCP_READ, api_querier_post }
	QUERIER("ProfileTypes"),
	QUERIER("LabelNames"),
	QUERIER("LabelValues"),
	QUERIER("Series"),
	QUERIER("SelectSeries"),
	QUERIER("SelectMergeStacktraces"),
	QUERIER("SelectMergeProfile"),
	QUERIER("GetProfileStats"),
#undef QUERIER
	/* The Drilldown app's stored settings: none (api-querier.c). */
	{ "POST", "/settings.v1.SettingsService/Get", ROUTE_LOOP |
	    ROUTE_TCP_READ, api_querier_settings_get },
	/* The rest of what Grafana or its Profiles Drilldown app may call
	 * that profd does not serve (SelectMergeSpanProfile, Diff, ...,
	 * GitHub and upload services): Connect's unimplemented, not a 404.
	 * After the methods served: the first route that matches wins. */
#define UNSERVED(p) { "POST", p, ROUTE_LOOP | ROUTE_PREFIX | \
	    ROUTE_TCP_READ, api_querier_unimplemented }
	UNSERVED("/querier.v1.QuerierService"),
	UNSERVED("/settings.v1.SettingsService"),
	UNSERVED("/vcs.v1.VCSService"),
	UNSERVED("/adhocprofiles.v1.AdHocProfileService"),
#undef UNSERVED
	/* Its HTTP render API, as Grafana's older data source and
	 * pyroscope-cli read flame graphs (api-render.c). */
	{ "GET", "/pyroscope/render", ROUTE_READONLY | ROUTE_TCP_READ,
	    api_render_get },
	{ "GET", "/pyroscope/render-diff", ROUTE_READONLY | ROUTE_TCP_READ,
	    api_render_diff_get },
	/* The browser UI (web/), from memory. */
	{ "GET", "/ui", ROUTE_LOOP | ROUTE_PREFIX, api_ui_get },
	{ "GET", "/", ROUTE_LOOP, api_ui_get },
};
const int nroutes = (int)(sizeof routes / sizeof routes[0]);

int
routes_path_matches(const struct route *r, const char *path)
{
	size_t n = strlen(r->path);

	if (!(r->flags & ROUTE_PREFIX))
		return strcmp(r->path, path) == 0;
	return strncmp(r->path, path, n) == 0 &&
	    (path[n] == '\0' || path[n] == '/');
}

static const char *
method_name(enum evhttp_cmd_type cmd)
{
	switch (cmd) {
	case EVHTTP_REQ_GET:
		return "GET";
	case EVHTTP_REQ_POST:
		return "POST";
	case EVHTTP_REQ_HEAD:
		return "HEAD";
	case EVHTTP_REQ_PUT:
		return "PUT";
	case EVHTTP_REQ_DELETE:
		return "DELETE";
	default:
		return "OTHER";
	}
}

void
routes_dispatch(struct evhttp_request *req, void *arg)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	const char *query = uri ? evhttp_uri_get_query(uri) : NULL;
	const char *method = method_name(evhttp_request_get_command(req));
	const struct route *found = NULL;
	const char *nul;
	struct api_call *call;
	int i, path_known = 0;

	call = xcalloc(1, sizeof *call);
	call->host = arg;
	call->req = req;
	call->start_ns = mono_ns();
	TAILQ_INIT(&call->query);
	for (i = 0; path != NULL && i < nroutes; i++) {
		if (!routes_path_matches(&routes[i], path))
			continue;
		path_known = 1;
		/* HEAD is its GET, answered without the body
		 * (http_reply_send). */
		if (strcmp(routes[i].method, method) == 0 ||
		    (strcmp(method, "HEAD") == 0 &&
		    strcmp(routes[i].method, "GET") == 0)) {
			found = &routes[i];
			break;
		}
	}
	if (found == NULL) {
		if (path_known)
			api_error(call, 405, "method %s not allowed on %s",
			    method, path);
		else
			api_error(call, 404, "no such endpoint: %s",
			    path ? path : "(none)");
		return;
	}
	call->route = found;
	/* Decoded, %00 would end the value early: "a%00b" would act as "a". */
	if (query != NULL && (nul = strstr(query, "%00")) != NULL) {
		api_error(call, 400, "the query string has a NUL byte (%%00 at "
		    "offset %zu): no parameter may contain one",
		    (size_t)(nul - query));
		return;
	}
	if (query != NULL && evhttp_parse_query_str(query, &call->query) != 0) {
		api_error(call, 400, "the query string is not valid "
		    "(bad %%-encoding?)");
		return;
	}
	found->handler(call);
}
