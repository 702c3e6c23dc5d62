/* api-watch.c: a read's client looked at while its work waits or runs, so
 * that a client that leaves stops its read within a second (its cancel's
 * gone flag, base/cancel.h), instead of a query thread working minutes
 * for nobody.
 *
 * libevent does not say it: once a request with a body is read it stops
 * reading the connection, and sees its end only when it writes the reply.
 * So a timer looks, a few times a second: the request detached from its
 * connection (libevent freed it: the client closed while a GET was
 * answered), or the socket's peer hung up (POLLRDHUP: its FIN arrived,
 * whatever bytes are still unread before it; a TLS close_notify is one
 * of those).  A client that half-closes and waits for its reply is taken
 * for gone, as libevent itself takes it for a GET. */
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <poll.h>

#include "api.h"

/* A client gone is seen within this, its work stopped soon after. */
static const struct timeval watch_every = { 0, 250000 };

static int
watch_gone(struct api_call *call)
{
	struct evhttp_connection *evcon;
	struct bufferevent *bev;
	struct pollfd p;

	if (call->req == NULL ||
	    (evcon = evhttp_request_get_connection(call->req)) == NULL)
		return 1;
	if ((bev = evhttp_connection_get_bufferevent(evcon)) == NULL ||
	    (p.fd = (int)bufferevent_getfd(bev)) < 0)
		return 0;
	p.events = POLLRDHUP;
	p.revents = 0;
	if (poll(&p, 1, 0) != 1)
		return 0;
	return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

static void
watch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct api_call *call = arg;

	(void)fd;
	(void)what;
	if (watch_gone(call)) {
		/* The work sees it at its next look, or drops the call
		 * unrun; nothing more to watch. */
		atomic_store(&call->cancel.gone, 1);
		return;
	}
	evtimer_add(call->watch, &watch_every);
}

void
api_watch_start(struct api_call *call)
{
	struct evhttp_connection *evcon;

	if (call->watch != NULL || call->req == NULL ||
	    (evcon = evhttp_request_get_connection(call->req)) == NULL)
		return;
	if ((call->watch = evtimer_new(evhttp_connection_get_base(evcon),
	    watch_cb, call)) == NULL)
		return;		/* unwatched: query-timeout still bounds it */
	evtimer_add(call->watch, &watch_every);
}

void
api_watch_stop(struct api_call *call)
{
	if (call->watch == NULL)
		return;
	event_free(call->watch);
	call->watch = NULL;
}
