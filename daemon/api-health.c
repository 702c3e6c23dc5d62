/* api-health.c: GET /v1/health, answered on the loop from counters only:
 * it never waits for the store, an import or a query. */
#include "api.h"
#include "retention.h"
#include "server-http.h"
#include "store.h"

void
api_health_get(struct api_call *call)
{
	const struct config *cfg = server_config(call->srv);
	uint64_t done, failed;
	size_t running = server_import_running(call->srv);

	server_import_counts(call->srv, &done, &failed);
	api_reply(call, 200, json_pack("{s:s, s:s, s:f, s:I, s:b, s:I, s:I, "
	    "s:I, s:I, s:s, s:s, s:o, s:o, s:o}",
	    "status", "ok",
	    "version", PROFD_VERSION,
	    "uptime_s", server_uptime(call->srv),
	    "queue_depth", (json_int_t)(server_import_depth(call->srv) +
	    running),
	    "importing", running > 0,
	    "imports_done", (json_int_t)done,
	    "imports_failed", (json_int_t)failed,
	    "query_queue_depth", (json_int_t)server_query_depth(call->srv),
	    "store_bytes", (json_int_t)store_file_size(cfg->db_path),
	    "socket", cfg->socket_path,
	    "db", cfg->db_path,
	    "routes", server_route_stats(call->srv),
	    "retention", retainer_json(server_retainer(call->srv)),
	    "http", server_http_json(server_guard(call->srv))));
}
