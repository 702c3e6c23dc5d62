/* fleet-query.h: views of the fleet answered by ClickHouse (fleet=1).
 * Each question is sent from the loop with libevent's HTTP client, its
 * reply read as it arrives (fleet-tsv.c) into the view (fleet-view.c);
 * nothing waits.  A ClickHouse that does not answer is an error naming
 * it and its URL after the fleet timeout. */
#ifndef PROFD_FLEET_QUERY_H
#define PROFD_FLEET_QUERY_H

#include <stdint.h>

#include "api.h"
#include "error.h"

struct event_base;
struct fleet_queries;

struct fleet_queries_config {
	const char *url;		/* ClickHouse's HTTP interface */
	const char *database;
	const char *cluster;		/* NULL: the local tables */
	int64_t timeout;		/* seconds, per question */
};

/* ClickHouse's URL, http://HOST[:PORT][/PATH]: its parts (copies), or
 * -1 with err (ERR_INPUT naming fleet-url). */
int fleet_url_parse(const char *url, char **host, int *port, char **path,
    struct error *);
/* The shipper's and the views' HTTP to ClickHouse: a connection kept
 * alive, made by httpc_conn_new (no retries: a failure is the caller's
 * to retry; the fleet timeout; a bounded head); a request with the Host
 * ClickHouse is reached by, head_cb called when its answer's head is in
 * (to stop the head's deadline, httpc.h).  NULL if libevent could not
 * make one. */
struct evhttp_connection;
struct evhttp_request;
struct evhttp_request *fleet_http_request(
    void (*cb)(struct evhttp_request *, void *),
    int (*head_cb)(struct evhttp_request *, void *), void *arg,
    const char *host);
/* How long after the fleet timeout (ClickHouse's max_execution_time: a
 * query's head comes when its first block is ready) the head of an
 * answer may take, whole, before the request fails. */
#define FLEET_HEAD_SLACK	5
/* A connection freed once the callback that drops it has returned:
 * libevent still uses it after calling a request's callback, which may
 * run inside another of its callbacks (httpc.h). */
void fleet_http_conn_drop(struct event_base *, struct evhttp_connection *);
/* NULL with err if the URL is not http://host[:port][/path]. */
struct fleet_queries *fleet_queries_new(struct event_base *,
    const struct fleet_queries_config *, struct error *);
/* api_host's fleet_view. */
void fleet_queries_view(struct fleet_queries *, const struct api_fleet_view *,
    api_fleet_done *, void *arg);
/* One line of the stacks' reply into the view (a: 6 arrays' room). */
struct fleet_tsv_array;
struct fleet_tsv_field;
struct fleet_view;
int fleet_query_stack_row(struct fleet_tsv_array *a, struct fleet_view *,
    struct fleet_tsv_field *, size_t n, struct error *);
/* Every question in flight answered with an error ("shutting down"). */
void fleet_queries_stop(struct fleet_queries *);
void fleet_queries_free(struct fleet_queries *);

#endif
