/* httpc.h: a request handed to libevent's HTTP client so that it is freed
 * exactly once, whatever happens in the call (the fleet's ClickHouse
 * requests, the scraper's GETs). */
#ifndef PROFD_HTTPC_H
#define PROFD_HTTPC_H

#include <event2/http.h>
#include <stdint.h>

/* evhttp_make_request, except that on -1 the request has been freed (by
 * libevent or here, never both), and that a request libevent answered
 * within the call (a connection that cannot even start: its callback
 * has already run) is freed too, with 0 returned as libevent does.  The
 * callback may thus run before this returns: set what it clears before
 * the call, and touch nothing the callback may free after it. */
int httpc_make_request(struct evhttp_connection *, struct evhttp_request *,
    enum evhttp_cmd_type, const char *uri);

/* The largest response head profd reads from a server (a scrape target,
 * ClickHouse), the status line and every header line together, and so
 * any one line: as the Unix socket's heads and the scraper's unix: path. */
#define HTTPC_MAX_HEAD		(64 * 1024)

/* A new client connection with profd's bounds: HTTPC_MAX_HEAD, no retry,
 * timeout seconds of silence at most; NULL if it cannot be made. */
struct evdns_base;
struct tls_ctx;
struct evhttp_connection *httpc_conn_new(struct event_base *,
    struct evdns_base *, const char *host, int port, int64_t timeout);
/* The same over TLS (tls.h: the server's certificate checked against
 * tls's CAs and host); tls_bev_error on its bufferevent says what
 * failed. */
struct evhttp_connection *httpc_conn_new_tls(struct event_base *,
    struct evdns_base *, struct tls_ctx *, const char *host, int port,
    int64_t timeout);

/* A bound on the time to a response's whole head.  libevent's timeout
 * is per read: a server that sends a byte of head now and then holds a
 * request for HTTPC_MAX_HEAD times it.  Started as the request is made,
 * stopped from the request's header callback (evhttp_request_set_header_cb:
 * it gets the request's own argument, so the caller's code calls
 * httpc_deadline_stop) and from its callback.  When it passes, the
 * connection's socket is shut: the request fails through its callback as
 * on a read timeout, with fired set so that the error can say which. */
struct event;
struct httpc_deadline {
	struct event *ev;
	struct evhttp_connection *conn;
	int fired;
};
void httpc_deadline_init(struct httpc_deadline *, struct event_base *);
void httpc_deadline_start(struct httpc_deadline *,
    struct evhttp_connection *, int64_t seconds);
void httpc_deadline_stop(struct httpc_deadline *);
void httpc_deadline_free(struct httpc_deadline *);

#endif
