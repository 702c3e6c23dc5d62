/* server-status.c: what /v1/status and /v1/health show of the server's
 * parts.  Each part's JSON is made beside it (spool.c, server-tcp.c,
 * server-http.c, secrets.c, scrape/scrape.c, fleet/fleet.c) and reaches
 * the API as a status provider registered here, in the order the replies
 * have always had. */
#include <jansson.h>

#include "api.h"
#include "fleet.h"
#include "scrape.h"
#include "secrets.h"
#include "server-http.h"
#include "server-int.h"
#include "spool.h"
#include "status.h"

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
		{ "fleet", fleet_status, srv->fleet },
		{ "scrape", scraper_status, srv->scraper },
		{ "tcp", server_tcp_status, srv },
		{ "secrets", secrets_status, srv->secrets },
	};
	const struct status_provider health = { "http", server_status_http,
	    srv };
	size_t i;

	for (i = 0; i < sizeof status / sizeof status[0]; i++)
		api_host_provide(&srv->host, API_STATUS, &status[i]);
	api_host_provide(&srv->host, API_HEALTH, &health);
}
