/* server-status.c: what /v1/status and /v1/health show of the server's
 * parts.  Each part's JSON is made beside it (spool.c, server-tcp.c,
 * server-http.c, scrape/scrape.c) and reaches the API as a status
 * provider registered here, in the order the replies have always had.
 * The fleet's is made here from fleet_get_stats for now, with the
 * backlog's counts the store's writer committed. */
#include <jansson.h>

#include "api.h"
#include "fleet.h"
#include "scrape.h"
#include "server-http.h"
#include "server-int.h"
#include "spool.h"
#include "status.h"
#include "store.h"

/* "fleet": null when nothing ships. */
static json_t *
server_status_fleet(void *ctx)
{
	struct server *srv = ctx;
	struct api_fleet_stats st;

	if (srv->fleet == NULL)
		return json_null();
	fleet_get_stats(srv->fleet, &st);
	/* The backlog as the writer committed it, deletes by retention or
	 * DELETE included: the shipper sees it only at its rounds. */
	store_ship_live(srv->iw.store, &st.lag_profiles, &st.lag_bytes,
	    &st.unshipped_deleted);
	st.backlog_max = (int64_t)srv->cfg->fleet_backlog_max;
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

/* /v1/health's "http": the TCP listener's connections count beside the
 * socket's. */
static json_t *
server_status_http(void *ctx)
{
	struct server *srv = ctx;
	struct server_http_stats st = { 0 }, t;

	server_http_stats(srv->guard, &st);
	if (srv->tcp_guard != NULL) {
		server_http_stats(srv->tcp_guard, &t);
		server_http_stats_add(&st, &t);
	}
	return server_http_stats_json(&st);
}

void
server_status_register(struct server *srv)
{
	const struct status_provider status[] = {
		{ "spool", spool_status, srv->spool },
		{ "fleet", server_status_fleet, srv },
		{ "scrape", scraper_status, srv->scraper },
		{ "tcp", server_tcp_status, srv },
	};
	const struct status_provider health = { "http", server_status_http,
	    srv };
	size_t i;

	for (i = 0; i < sizeof status / sizeof status[0]; i++)
		api_host_provide(&srv->host, API_STATUS, &status[i]);
	api_host_provide(&srv->host, API_HEALTH, &health);
}
