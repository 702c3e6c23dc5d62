/* api-health.c: GET /v1/health, answered on the loop from counters only:
 * it never waits for the store, an import or a query. */
#include "api.h"
#include "retainer.h"
#include "rfc3339.h"
#include "store.h"

static json_t *
health_retention(const struct retainer *rt)
{
	struct retainer_stats st;
	char t[40] = "";

	retainer_stats(rt, &st);
	if (st.last_pass_ns != 0)
		format_rfc3339(st.last_pass_ns, t, sizeof t);
	return json_pack("{s:b, s:I, s:I, s:I, s:s?, s:I, s:I, s:s?}",
	    "running", st.running,
	    "passes", (json_int_t)st.passes,
	    "profiles_dropped", (json_int_t)st.dropped,
	    "rows_collected", (json_int_t)st.collected,
	    "last_pass", t[0] ? t : NULL,
	    "last_pass_profiles_dropped", (json_int_t)st.last_dropped,
	    "last_pass_rows_collected", (json_int_t)st.last_collected,
	    "last_error", st.last_error[0] ? st.last_error : NULL);
}

void
api_health_get(struct api_call *call)
{
	const struct config *cfg = call->host->cfg;
	uint64_t done, failed;
	size_t running = jobq_running(call->host->queues[API_IMPORT]);
	json_t *reply;

	api_host_import_counts(call->host, &done, &failed);
	reply = json_pack("{s:s, s:s, s:f, s:I, s:b, s:I, s:I, s:I, s:I, s:s, "
	    "s:s, s:o, s:o}",
	    "status", "ok",
	    "version", PROFD_VERSION,
	    "uptime_s", api_host_uptime(call->host),
	    "queue_depth", (json_int_t)(jobq_depth(call->host->queues[API_IMPORT]) +
	    running),
	    "importing", running > 0,
	    "imports_done", (json_int_t)done,
	    "imports_failed", (json_int_t)failed,
	    "query_queue_depth", (json_int_t)jobq_depth(call->host->queues[API_QUERY]),
	    "store_bytes", (json_int_t)store_file_size(cfg->db_path),
	    "socket", cfg->socket_path,
	    "db", cfg->db_path,
	    "routes", api_host_route_json(call->host),
	    "retention", health_retention(call->host->retainer));
	/* The server's: its connection guards' counters ("http"). */
	api_host_report(call->host, API_HEALTH, reply);
	api_reply(call, 200, reply);
}
