/* server-http.h: how profd configures libevent's HTTP server, and the guard
 * it puts around every connection: a count of connections (503 beyond
 * max-connections, but for GET /v1/health), a pause of accept() when file
 * descriptors run out, absolute deadlines for a request's head and body
 * that a trickling client cannot push back, a head size limit, a budget of
 * body bytes held across connections, and JSON for the errors libevent
 * answers itself.  server.c and the fuzz harness both use it, so the
 * harness sees the request path exactly as the daemon configures it. */
#ifndef PROFD_SERVER_HTTP_H
#define PROFD_SERVER_HTTP_H

#include <event2/event.h>
#include <event2/http.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "config.h"

/* Connections accepted beyond max-connections that are still read, so a
 * health check gets through; beyond these a connection gets 503 at once
 * without being read. */
#define SERVER_HTTP_HEALTH_SLOTS	16

struct server_http;

/* Configure http (limits, methods, timeouts, the per-connection filter)
 * and route complete requests to cb.  cfg must outlive the guard or be
 * replaced with server_http_set_config. */
struct server_http *server_http_setup(struct evhttp *, struct event_base *,
    const struct config *, void (*cb)(struct evhttp_request *, void *),
    void *arg);
/* The settings after a reload (limits and timeouts take effect for new
 * requests). */
void server_http_set_config(struct server_http *, const struct config *);
/* Answer any Host header: the TCP listener's agents name the host they
 * reach, and it serves only ingest with credentials, which a page of
 * another site (DNS rebinding) does not have. */
void server_http_any_host(struct server_http *);
/* Speak TLS on the connections accepted from now on (tls.h; NULL: clear
 * text).  The context stays the caller's; connections keep what they
 * use of it. */
struct tls_ctx;
void server_http_set_tls(struct server_http *, struct tls_ctx *);

/* A request's head, whole, before any byte of its body is read: what a
 * listener decides on (the TCP one: route, method, credentials). */
struct server_http_head {
	const char *method, *target;	/* as libevent reads them */
	const char *authorization;	/* the first; NULL: none */
	int body;			/* a body follows */
};
struct server_http_verdict {
	int status;			/* 0: go on; else the refusal's */
	/* The request proves a credential (or none is asked for): its
	 * connection may stay open and idle, and takes one of
	 * max-connections; until one does, it is a stranger's. */
	int authenticated;
	char detail[400];		/* the refusal's detail */
	const char *challenges[3];	/* WWW-Authenticate values, NULL
					 * ended */
};
typedef void server_http_head_fn(const struct server_http_head *,
    struct server_http_verdict *, void *arg);
/* Decide on each head with check (zeroed verdict in).  A refusal is
 * sent at once and the connection closed, no byte of the body read.
 * With a check, connections are strangers until a head proves a
 * credential: at most tcp-max-unauthenticated of them (the oldest closed
 * beyond), each given header-timeout from its accept and closed after
 * its reply; max-connections counts the others only. */
void server_http_set_head_check(struct server_http *, server_http_head_fn *,
    void *arg);
/* Accept on a listening socket (taken); -1 if libevent refuses it. */
int server_http_listen(struct server_http *, int fd);
/* Stop accepting (SIGTERM); connections open stay. */
void server_http_unlisten(struct server_http *);
/* Free the guard and the evhttp it was set up on, with its connections
 * (before event_base_free). */
void server_http_free(struct server_http *);
/* What a guard counts, for /v1/health (and the TCP listener's line of
 * /v1/status). */
struct server_http_stats {
	size_t connections, max_connections;
	uint64_t inflight_body_bytes;
	int accept_paused;
	uint64_t accept_errors, refused_connections, refused_bodies;
	uint64_t refused_heads, timed_out;
	uint64_t refused_origins;	/* 403: a page of another origin */
	/* With a head check: connections without credentials yet, and
	 * those closed at tcp-max-unauthenticated. */
	size_t strangers;
	uint64_t strangers_closed;
	uint64_t bytes_read;		/* request bytes taken, all told */
};
void server_http_stats(const struct server_http *,
    struct server_http_stats *);
/* Add b's counts of connections and refusals to a's (two guards: the
 * socket's and the TCP listener's). */
void server_http_stats_add(struct server_http_stats *,
    const struct server_http_stats *);
/* /v1/health's "http": the counters as JSON. */
json_t *server_http_stats_json(const struct server_http_stats *);

#endif
