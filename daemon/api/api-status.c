/* api-status.c: GET /v1/status, what profd is doing: imports since start
 * by source, the import in flight, the spool's backlog, the last errors.
 * Answered on the loop, like /v1/health: the spool's state lives on the
 * loop, the rest is read under the activity mutex. */
#include "activity.h"
#include "api.h"
#include "util.h"

#include <stdlib.h>
#include <unistd.h>

static json_t *
status_count(int64_t n)
{
	return n < 0 ? json_null() : json_integer((json_int_t)n);
}

static json_t *
status_current(const struct activity_current *c)
{
	if (!c->active)
		return json_null();
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:f}",
	    "source", activity_source_name(c->source),
	    "what", c->what,
	    "scope", c->scope,
	    "bytes", status_count(c->bytes),
	    "bytes_read", status_count(c->bytes_read),
	    "seconds", (double)(mono_ns() - c->started_ns) / 1e9);
}

static json_t *
status_spool(struct api_host *h)
{
	struct api_spool_stats st;

	if (h->spool_stats(h->ctx, &st) == 0)
		return json_null();
	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:b, s:b, s:o, s:I, s:I, "
	    "s:I, s:I, s:I}",
	    "dir", st.dir,
	    "watched_dirs", (json_int_t)st.watched_dirs,
	    "waiting_files", (json_int_t)st.waiting,
	    "waiting_bytes", (json_int_t)st.waiting_bytes,
	    "in_flight", (json_int_t)st.in_flight,
	    "scanning", st.scanning,
	    "more", st.more,
	    "last_scan", st.last_scan_ns ? api_time_json(st.last_scan_ns) :
	    json_null(),
	    "last_scan_ns", (json_int_t)st.last_scan_ns,
	    "imported", (json_int_t)st.imported,
	    "duplicates", (json_int_t)st.duplicates,
	    "refused", (json_int_t)st.refused,
	    "retried", (json_int_t)st.retried);
}

static json_t *
status_time(int64_t ns)
{
	return ns != 0 ? api_time_json(ns) : json_null();
}

static json_t *
status_fleet(struct api_host *h)
{
	struct api_fleet_stats st;

	if (h->fleet_stats == NULL || h->fleet_stats(h->ctx, &st) == 0)
		return json_null();
	return json_pack("{s:s, s:s, s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:I, "
	    "s:o, s:I, s:I, s:o, s:o, s:s?, s:I, s:i, s:I, s:I, s:o}",
	    "url", st.url,
	    "host", st.host,
	    "database", st.database,
	    "lag_profiles", status_count(st.lag_profiles),
	    "lag_bytes", status_count(st.lag_bytes),
	    "shipped_profiles", (json_int_t)st.shipped_profiles,
	    "shipped_rows", (json_int_t)st.shipped_rows,
	    "skipped_profiles", (json_int_t)st.skipped_profiles,
	    "expired_profiles", (json_int_t)st.expired_profiles,
	    "backlog_max", (json_int_t)st.backlog_max,
	    "unshipped_deleted", status_count(st.unshipped_deleted),
	    "batches", (json_int_t)st.batches,
	    "failures", (json_int_t)st.failures,
	    "last_success", status_time(st.last_success_ns),
	    "last_error_time", status_time(st.last_error_ns),
	    "last_error", st.last_error[0] != '\0' ? st.last_error : NULL,
	    "backoff_s", (json_int_t)st.backoff,
	    "schema_version", st.schema_version,
	    "max_age_s", (json_int_t)st.retain_max_age,
	    "partitions_dropped", (json_int_t)st.partitions_dropped,
	    "last_drop", status_time(st.last_drop_ns));
}

static json_t *
status_tcp(struct api_host *h)
{
	struct api_tcp_stats st;

	if (h->tcp_stats == NULL || h->tcp_stats(h->ctx, &st) == 0)
		return json_null();
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I}",
	    "listen", st.listen,
	    "auth", st.auth,
	    "connections", (json_int_t)st.connections,
	    "requests", (json_int_t)st.requests,
	    "unauthorized", (json_int_t)st.unauthorized,
	    "not_found", (json_int_t)st.not_found,
	    "refused_origins", (json_int_t)st.refused_origins);
}

/* The scrape targets, each profile with its last success and error and
 * its next scrape ([] when there is none). */
static json_t *
status_scrape(struct api_host *h)
{
	struct api_scrape_target *v = NULL;
	json_t *a = json_array(), *ps;
	size_t n, i, j;

	n = h->scrape_stats != NULL ? h->scrape_stats(h->ctx, &v) : 0;
	for (i = 0; i < n; i++) {
		ps = json_array();
		for (j = 0; j < v[i].nprofiles; j++) {
			const struct api_scrape_profile *p = &v[i].profiles[j];

			json_array_append_new(ps, json_pack("{s:s, s:I, s:I, "
			    "s:I, s:I, s:o, s:o, s:s?, s:o, s:b, s:I, s:I}",
			    "profile", p->name,
			    "scrapes", (json_int_t)p->scrapes,
			    "stored", (json_int_t)p->stored,
			    "duplicates", (json_int_t)p->duplicates,
			    "failures", (json_int_t)p->failures,
			    "last_success", status_time(p->last_success_ns),
			    "last_error_time", status_time(p->last_error_ns),
			    "last_error", p->last_error[0] != '\0' ?
			    p->last_error : NULL,
			    "next", status_time(p->next_ns),
			    "in_flight", p->in_flight,
			    "backoff_s", (json_int_t)p->backoff,
			    "last_bytes", (json_int_t)p->last_bytes));
		}
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:I, s:I, "
		    "s:I, s:o}",
		    "name", v[i].name,
		    "url", v[i].url,
		    "scope", v[i].scope,
		    "interval_s", (json_int_t)v[i].interval,
		    "cpu_seconds", (json_int_t)v[i].cpu_seconds,
		    "timeout_s", (json_int_t)v[i].timeout,
		    "profiles", ps));
	}
	free(v);
	return a;
}

void
api_status_get(struct api_call *call)
{
	struct activity_snapshot snap;
	json_t *imports, *errors;
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
		    "time", snap.errors[i].time_ns ?
		    api_time_json(snap.errors[i].time_ns) : json_null(),
		    "time_ns", (json_int_t)snap.errors[i].time_ns,
		    "source", activity_source_name(snap.errors[i].source),
		    "what", snap.errors[i].what,
		    "scope", snap.errors[i].scope,
		    "error", snap.errors[i].msg));
	api_reply(call, 200, json_pack("{s:s, s:s, s:I, s:f, s:o, s:o, s:I, "
	    "s:I, s:o, s:o, s:o, s:o, s:o, s:I}",
	    "status", "ok",
	    "version", PROFD_VERSION,
	    "pid", (json_int_t)getpid(),
	    "uptime_s", api_host_uptime(call->host),
	    "imports", imports,
	    "importing", status_current(&snap.current),
	    "import_queue", (json_int_t)jobq_depth(call->host->queues[API_IMPORT]),
	    "query_queue", (json_int_t)jobq_depth(call->host->queues[API_QUERY]),
	    "spool", status_spool(call->host),
	    "fleet", status_fleet(call->host),
	    "scrape", status_scrape(call->host),
	    "tcp", status_tcp(call->host),
	    "errors", errors,
	    "errors_total", (json_int_t)snap.nerrors_total));
}
