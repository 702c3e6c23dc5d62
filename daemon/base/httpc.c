/* httpc.c: evhttp_make_request without a leak or a double free.
 *
 * libevent (2.1.12 as Debian 12 ships it, and 2.2 alike) returns -1 from
 * evhttp_make_request on two paths that differ in who frees the request:
 * when copying the URI fails it frees it (unless the user owns it); when
 * the connection cannot start (evhttp_connection_connect_ failing in
 * bind, bufferevent_setfd or bufferevent_enable, e.g. an event_add short
 * of memory) it only takes it off the connection's queue and leaves it to
 * no one.  The caller cannot tell which happened.  It may also answer the
 * request before returning 0: a connect that fails at once (socket()
 * out of descriptors once a numeric host is "resolved" on the spot, a
 * port out of range) runs the request's callback inside the call and
 * frees the request after it.
 *
 * Marked EVHTTP_REQ_DEFER_FREE for the call (what libevent itself does
 * around a callback that may free the request: evhttp_request_free then
 * only records NEEDS_FREE), the request outlives every path inside it;
 * after it, the request is freed here if the call failed or libevent
 * wanted it freed, and left to libevent if it is on its way. */
#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/http_struct.h>

#include "httpc.h"
#include "tls.h"

static struct evhttp_connection *
httpc_conn_bounded(struct evhttp_connection *conn, int64_t timeout)
{
	if (conn == NULL)
		return NULL;
	/* libevent reads a head of any size by default: a server that
	 * sends headers without end would hold profd's memory. */
	evhttp_connection_set_max_headers_size(conn, HTTPC_MAX_HEAD);
	evhttp_connection_set_retries(conn, 0);
	evhttp_connection_set_timeout(conn, (int)timeout);
	return conn;
}

struct evhttp_connection *
httpc_conn_new(struct event_base *base, struct evdns_base *dns,
    const char *host, int port, int64_t timeout)
{
	return httpc_conn_bounded(evhttp_connection_base_new(base, dns, host,
	    (unsigned short)port), timeout);
}

struct evhttp_connection *
httpc_conn_new_tls(struct event_base *base, struct evdns_base *dns,
    struct tls_ctx *tls, const char *host, int port, int64_t timeout)
{
	struct bufferevent *bev;
	struct evhttp_connection *conn;

	if ((bev = tls_bev_connect(tls, base, host)) == NULL)
		return NULL;
	/* The connection owns bev from here, and frees it with itself. */
	if ((conn = evhttp_connection_base_bufferevent_new(base, dns, bev,
	    host, (unsigned short)port)) == NULL) {
		bufferevent_free(bev);
		return NULL;
	}
	return httpc_conn_bounded(conn, timeout);
}

int
httpc_make_request(struct evhttp_connection *conn, struct evhttp_request *req,
    enum evhttp_cmd_type type, const char *uri)
{
	int rc;

	req->flags |= EVHTTP_REQ_DEFER_FREE;
	rc = evhttp_make_request(conn, req, type, uri);
	req->flags &= ~EVHTTP_REQ_DEFER_FREE;
	if (rc == -1 || (req->flags & EVHTTP_REQ_NEEDS_FREE) != 0) {
		req->flags &= ~EVHTTP_REQ_NEEDS_FREE;
		evhttp_request_free(req);
	}
	return rc;
}

static void
httpc_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct httpc_deadline *d = arg;
	struct bufferevent *bev;

	(void)fd;
	(void)what;
	d->fired = 1;
	/* Shut, not closed: libevent still owns the descriptor, and reads
	 * the end of it as it reads a server that hangs up. */
	if (d->conn != NULL &&
	    (bev = evhttp_connection_get_bufferevent(d->conn)) != NULL &&
	    (fd = bufferevent_getfd(bev)) != -1)
		(void)shutdown(fd, SHUT_RDWR);
}

void
httpc_deadline_init(struct httpc_deadline *d, struct event_base *base)
{
	d->ev = evtimer_new(base, httpc_deadline_cb, d);
	d->conn = NULL;
	d->fired = 0;
}

void
httpc_deadline_start(struct httpc_deadline *d, struct evhttp_connection *conn,
    int64_t seconds)
{
	struct timeval tv = { (time_t)seconds, 0 };

	d->conn = conn;
	d->fired = 0;
	if (d->ev != NULL)
		evtimer_add(d->ev, &tv);
}

void
httpc_deadline_stop(struct httpc_deadline *d)
{
	if (d->ev != NULL)
		evtimer_del(d->ev);
	d->conn = NULL;
}

void
httpc_deadline_free(struct httpc_deadline *d)
{
	if (d->ev != NULL)
		event_free(d->ev);
	d->ev = NULL;
	d->conn = NULL;
}
