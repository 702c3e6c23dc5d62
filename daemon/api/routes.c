/* routes.c: the route table.  The dispatcher checks the path and method,
 * parses the query string once, refuses a parameter the route does not
 * take (the one place that rule lives) and calls the handler. */
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "buf.h"
#include "clock.h"
#include "connect-err.h"
#include "routes.h"
#include "selection.h"

/* A route's parameters: P("a", "b") is { "a", "b", NULL }. */
#define P(...)	((const char *const []){ __VA_ARGS__, NULL })
#define FLEET	"fleet", "host"

const struct route routes[] = {
	{ "POST", "/v1/profiles", ROUTE_NEEDS_WRITER, api_profiles_post,
	    P("scope", "format", "name", "label", "metric", "kind", "keep",
	    "bucket", "upload") },
	{ "GET", "/v1/profiles", ROUTE_READONLY, api_profiles_get,
	    P("scope", "since", "until", "label", "metric", "profile",
	    "limit", "cursor") },
	{ "DELETE", "/v1/profiles", ROUTE_NEEDS_WRITER, api_profiles_delete,
	    P("scope", "before", "id") },
	{ "GET", "/v1/scopes", ROUTE_READONLY, api_scopes_get, P(FLEET) },
	{ "GET", "/v1/top", ROUTE_READONLY | ROUTE_SELECTION, api_top_get,
	    P("limit", "sort", "granularity", FLEET) },
	{ "GET", "/v1/tree", ROUTE_READONLY | ROUTE_SELECTION, api_tree_get,
	    P("format", "min_fraction", "source", FLEET) },
	{ "GET", "/v1/peek", ROUTE_READONLY | ROUTE_SELECTION, api_peek_get,
	    P("regex", "granularity", "format", FLEET) },
	{ "GET", "/v1/traces", ROUTE_READONLY | ROUTE_SELECTION,
	    api_traces_get, P("limit", "format") },
	{ "GET", "/v1/tags", ROUTE_READONLY | ROUTE_SELECTION, api_tags_get,
	    P("tag") },
	{ "GET", "/v1/list", ROUTE_READONLY | ROUTE_SELECTION, api_list_get,
	    P("regex", FLEET) },
	{ "GET", "/v1/diff", ROUTE_READONLY | ROUTE_SELECTION, api_diff_get,
	    P("normalize", "limit", "base.*", FLEET) },
	{ "GET", "/v1/timeline", ROUTE_READONLY | ROUTE_SELECTION,
	    api_timeline_get, P("step", FLEET) },
	{ "GET", "/v1/export", ROUTE_READONLY | ROUTE_SELECTION,
	    api_export_get, NULL },
	{ "POST", "/v1/query", ROUTE_READONLY, api_query_post,
	    P("max_rows", "timeout_ms", "max_bytes") },
	{ "GET", "/v1/health", ROUTE_LOOP, api_health_get, NULL },
	{ "GET", "/v1/status", ROUTE_LOOP, api_status_get, NULL },
	{ "POST", "/v1/uploads", ROUTE_IO, api_uploads_post, NULL },
	{ "PUT", "/v1/uploads", ROUTE_IO, api_uploads_put, P("id", "offset") },
	{ "DELETE", "/v1/uploads", ROUTE_IO, api_uploads_delete, P("id") },
	/* Pyroscope's push API (api-ingest.c): the parameters its server
	 * reads and its documentation lists, which its agents send
	 * (grafana/pyroscope pkg/ingester/pyroscope/ingest_handler.go). */
	{ "POST", "/ingest", ROUTE_NEEDS_WRITER | ROUTE_TCP_WRITE,
	    api_ingest_post, P("name", "from", "until", "format",
	    "sampleRate", "spyName", "units", "aggregationType") },
	/* Its Connect push service, as Grafana Alloy calls it
	 * (api-connect.c); a Connect unary call's query is empty. */
	{ "POST", "/push.v1.PusherService/Push", ROUTE_NEEDS_WRITER |
	    ROUTE_TCP_WRITE | ROUTE_CONNECT, api_connect_push_post, NULL },
	/* OpenTelemetry's profiles over OTLP/HTTP (api-otlp.c): the path of
	 * opentelemetry-proto's profiles_service_http.yaml, no parameters. */
	{ "POST", "/v1development/profiles", ROUTE_NEEDS_WRITER |
	    ROUTE_TCP_WRITE, api_otlp_post, NULL },
	/* Grafana's Pyroscope data source: querier.v1's Connect calls
	 * (api-querier.c), to a read credential on the TCP listener. */
#define QUERIER(m) { "POST", "/querier.v1.QuerierService/" m, \
	    ROUTE_READONLY | ROUTE_TCP_READ | ROUTE_CONNECT, \
	    api_querier_post, NULL }
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
	    ROUTE_TCP_READ | ROUTE_CONNECT, api_querier_settings_get, NULL },
	/* The rest of what Grafana or its Profiles Drilldown app may call
	 * that profd does not serve (SelectMergeSpanProfile, Diff, ...,
	 * GitHub and upload services): Connect's unimplemented, not a 404.
	 * After the methods served: the first route that matches wins. */
#define UNSERVED(p) { "POST", p, ROUTE_LOOP | ROUTE_PREFIX | \
	    ROUTE_TCP_READ | ROUTE_CONNECT, api_querier_unimplemented, NULL }
	UNSERVED("/querier.v1.QuerierService"),
	UNSERVED("/settings.v1.SettingsService"),
	UNSERVED("/vcs.v1.VCSService"),
	UNSERVED("/adhocprofiles.v1.AdHocProfileService"),
#undef UNSERVED
	/* Its HTTP render API, as Grafana's older data source and
	 * pyroscope-cli read flame graphs (api-render.c): the parameters
	 * Pyroscope documents and reads (groupBy's groups are not served:
	 * null), and profd's aggregate=. */
	{ "GET", "/pyroscope/render", ROUTE_READONLY | ROUTE_TCP_READ,
	    api_render_get, P("query", "from", "until", "format", "maxNodes",
	    "max-nodes", "groupBy", "aggregation", "aggregate") },
	{ "GET", "/pyroscope/render-diff", ROUTE_READONLY | ROUTE_TCP_READ,
	    api_render_diff_get, P("leftQuery", "leftFrom", "leftUntil",
	    "rightQuery", "rightFrom", "rightUntil", "format", "maxNodes",
	    "max-nodes", "aggregation", "aggregate") },
	/* The browser UI (web/), from memory: the query is the page's. */
	{ "GET", "/ui", ROUTE_LOOP | ROUTE_PREFIX | ROUTE_ANY_PARAMS,
	    api_ui_get, NULL },
	{ "GET", "/", ROUTE_LOOP | ROUTE_ANY_PARAMS, api_ui_get, NULL },
};
#undef FLEET
#undef P
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

/* Does r take a parameter named key? */
static int
routes_takes(const struct route *r, const char *key)
{
	const char *const *p;
	size_t n;

	if ((r->flags & ROUTE_ANY_PARAMS) ||
	    ((r->flags & ROUTE_SELECTION) && selection_key(key)))
		return 1;
	for (p = r->params; p != NULL && *p != NULL; p++) {
		n = strlen(*p);
		if (n >= 2 && strcmp(*p + n - 2, ".*") == 0) {
			if (strncmp(key, *p, n - 1) == 0 &&
			    selection_key(key + n - 1))
				return 1;
		} else if (strcmp(key, *p) == 0)
			return 1;
	}
	return 0;
}

/* 400 naming the first parameter r does not take, and those it does;
 * -1 once sent. */
static int
routes_check_params(struct api_call *call, const struct route *r)
{
	const char *const *p;
	struct evkeyval *kv;
	struct buf takes = { 0 };
	char msg[1024];

	TAILQ_FOREACH(kv, &call->query, next) {
		if (routes_takes(r, kv->key))
			continue;
		if (r->flags & ROUTE_SELECTION)
			buf_printf(&takes, "the selection's");
		for (p = r->params; p != NULL && *p != NULL; p++)
			buf_printf(&takes, "%s%s", takes.n > 0 ? ", " : "", *p);
		if (takes.n == 0)
			buf_printf(&takes, "none");
		buf_add(&takes, "", 1);
		snprintf(msg, sizeof msg, "%.64s: not a parameter of %s (it "
		    "takes %s)", kv->key, r->path, (const char *)takes.p);
		buf_free(&takes);
		if (r->flags & ROUTE_CONNECT)
			connect_refuse(call, 400, "invalid_argument", msg);
		else
			api_error(call, 400, "%s", msg);
		return -1;
	}
	return 0;
}

/* A method's name as the route table and the TCP listener's head
 * check name it. */
const char *
routes_method_name(enum evhttp_cmd_type cmd)
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
	const char *method = routes_method_name(evhttp_request_get_command(req));
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
	if (routes_check_params(call, found) == -1)
		return;
	found->handler(call);
}
