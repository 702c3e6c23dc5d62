/* api-status.c: GET /v1/status, what profd is doing: imports since start
 * by source, the import in flight, the last errors, and what the status
 * providers the server registered show of its parts (the spool's
 * backlog, the fleet, the scrape targets, the TCP listener).  Answered
 * on the loop, like /v1/health: those parts live on the loop, the rest
 * is read under the activity mutex. */
#include "activity.h"
#include "api.h"
#include "clock.h"
#include "status.h"

#include <unistd.h>

static json_t *
status_current(const struct activity_current *c)
{
	if (!c->active)
		return json_null();
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:f, s:s, s:I, s:o, s:I, "
	    "s:o}",
	    "source", activity_source_name(c->source),
	    "what", c->what,
	    "scope", c->scope,
	    "bytes", status_count(c->bytes),
	    "bytes_read", status_count(c->bytes_read),
	    "seconds", (double)(mono_ns() - c->started_ns) / 1e9,
	    "phase", activity_phase_name(c->phase),
	    "bytes_done", (json_int_t)c->bytes_done,
	    "bytes_total", status_count(c->bytes_total),
	    "samples_done", (json_int_t)c->samples_done,
	    "samples_total", status_count(c->samples_total));
}

void
api_status_get(struct api_call *call)
{
	struct activity_snapshot snap;
	json_t *imports, *errors, *reply;
	uint64_t done, failed;
	size_t i;
	int s;

	activity_snapshot(call->host->activity, &snap);
	api_host_import_counts(call->host, &done, &failed);
	imports = json_pack("{s:I, s:I}", "done", (json_int_t)done,
	    "failed", (json_int_t)failed);
	for (s = 0; s < ACT_NSOURCES; s++)
		json_object_set_new(imports, activity_source_name(s),
		    json_pack("{s:I, s:I}", "done", (json_int_t)snap.done[s],
		    "failed", (json_int_t)snap.failed[s]));
	errors = json_array();
	for (i = 0; i < snap.nerrors; i++)
		json_array_append_new(errors, json_pack("{s:o, s:I, s:s, s:s, "
		    "s:s, s:s}",
		    "time", status_time(snap.errors[i].time_ns),
		    "time_ns", (json_int_t)snap.errors[i].time_ns,
		    "source", activity_source_name(snap.errors[i].source),
		    "what", snap.errors[i].what,
		    "scope", snap.errors[i].scope,
		    "error", snap.errors[i].msg));
	reply = json_pack("{s:s, s:s, s:I, s:f, s:o, s:o, s:I, s:I}",
	    "status", "ok",
	    "version", PROFD_VERSION,
	    "pid", (json_int_t)getpid(),
	    "uptime_s", api_host_uptime(call->host),
	    "imports", imports,
	    "importing", status_current(&snap.current),
	    "import_queue", (json_int_t)jobq_depth(call->host->queues[API_IMPORT]),
	    "query_queue", (json_int_t)jobq_depth(call->host->queues[API_QUERY]));
	/* Reads on the query threads now and waiting for one (the store's
	 * and the fleet's), and those stopped before their end (api.c):
	 * their client left, or they ran past query-timeout. */
	json_object_set_new(reply, "views", json_pack("{s:I, s:I, s:I, s:I}",
	    "running", (json_int_t)(jobq_running(call->host->queues[
	    API_QUERY]) + jobq_running(call->host->queues[API_FLEET])),
	    "waiting", (json_int_t)(jobq_depth(call->host->queues[
	    API_QUERY]) + jobq_depth(call->host->queues[API_FLEET])),
	    "cancelled", (json_int_t)atomic_load(
	    &call->host->views_cancelled),
	    "timed_out", (json_int_t)atomic_load(
	    &call->host->views_timed_out)));
	/* The server's parts (spool, fleet, scrape, tcp), then the errors. */
	api_host_report(call->host, API_STATUS, reply);
	json_object_set_new(reply, "errors", errors);
	json_object_set_new(reply, "errors_total",
	    json_integer((json_int_t)snap.nerrors_total));
	api_reply(call, 200, reply);
}
