/* conn.c: the guard around each connection of the HTTP server (see
 * server-http.c for why it exists): a filter bufferevent whose input side
 * (conn-in.c) frames, times and counts the requests and refuses what
 * passes a limit with a JSON reply of its own, and whose output side
 * (conn-out.c) makes every reply libevent writes itself JSON.  Here: a
 * connection's life (accepted, counted, timed, closed, freed), the
 * strangers of a listener with a head check (connections no request of
 * which has shown a credential yet: few, short-lived, the oldest closed
 * first), and the requests that waited for a reply read on after it. */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "clock.h"
#include "log.h"
#include "server-http-int.h"
#include "server-http.h"
#include "tls.h"

/* The filter's free callback: the connection is gone. */
static void
conn_free(void *arg)
{
	struct conn *c = arg;
	struct server_http *sh = c->sh;

	if (c->fd >= 0 && (size_t)c->fd < sh->nbyfd && sh->byfd[c->fd] == c)
		sh->byfd[c->fd] = NULL;
	conn_release_body(c);
	sh->nconns--;
	if (c->stranger) {
		TAILQ_REMOVE(&sh->strangers, c, link);
		sh->nstrangers--;
	}
	if (c->authed)
		sh->nauthed--;
	if (c->held != NULL)
		evbuffer_free(c->held);
	/* The filter's buffers outlive this call a little. */
	evbuffer_remove_cb_entry(bufferevent_get_output(c->bev), c->out_cb);
	if (c->under_cb != NULL)
		evbuffer_remove_cb_entry(bufferevent_get_output(c->under),
		    c->under_cb);
	event_del(c->kick);
	event_free(c->timer);
	event_free(c->kick);
	event_free(c->next);
	free(c);
}

static void
conn_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (conn_dead(c))
		return;
	if (c->state == C_REFUSED) {
		/* Wait for the reply to leave, a little. */
		if (conn_unsent(c) && mono_ns() < c->close_by_ns) {
			event_add(c->timer, &(struct timeval){ 0, 20000 });
			return;
		}
		conn_close(c);
		return;
	}
	if (c->state == C_HEAD || c->state == C_BODY) {
		c->sh->timed_out++;
		log_debug("closing a connection that did not send its request "
		    "%s in time", c->state == C_HEAD ? "head" : "body");
		conn_close(c);
	}
}

/* Close the oldest strangers while there are more than
 * tcp-max-unauthenticated: a stranger who opens connections (or holds
 * them through slow handshakes and heads) pushes out only other
 * strangers, and an agent with a credential needs its connection to
 * live only through its handshake and its first head. */
static void
conn_strangers_trim(struct server_http *sh)
{
	struct conn *o;

	while (sh->nstrangers > sh->cfg->tcp_max_unauth &&
	    (o = TAILQ_FIRST(&sh->strangers)) != NULL) {
		TAILQ_REMOVE(&sh->strangers, o, link);
		o->stranger = 0;
		sh->nstrangers--;
		if (o->state != C_REFUSED && !conn_dead(o)) {
			/* Closed unread and unanswered, from the loop. */
			sh->strangers_closed++;
			o->state = C_REFUSED;
			o->out_discard = 1;
			o->close_by_ns = mono_ns();
			bufferevent_disable(o->under, EV_READ);
			event_del(o->timer);
			event_add(o->timer, &(struct timeval){ 0, 0 });
		}
	}
}

/* A reply was written while the next request waited in the socket's
 * buffer: read it now (libevent reads again only when more bytes come).
 * After the reply libevent reads a new request, or has let go of the
 * connection. */
static void
conn_next_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(c->bev);
	size_t had = evbuffer_get_length(in);

	(void)fd;
	(void)what;
	if (conn_dead(c) || c->state == C_HANDLER || c->state == C_REFUSED)
		return;
	bufferevent_flush(c->bev, EV_READ, BEV_NORMAL);
	/* libevent reads only between requests, which is where the guard
	 * is when it had no whole request before this. */
	if (evbuffer_get_length(in) > had && !conn_dead(c))
		bufferevent_trigger(c->bev, EV_READ,
		    BEV_TRIG_IGNORE_WATERMARKS);
}

/* A connection was accepted: an episode of failed accepts (counted by
 * server-http.c's accept error callback) is over. */
static void
conn_accepted(struct server_http *sh)
{
	if (sh->episode_errors == 0)
		return;
	if (sh->warned_ns == sh->episode_ns)
		log_info("accept: working again after %llu failed accepts in "
		    "%.1f s", (unsigned long long)sh->episode_errors,
		    (double)(mono_ns() - sh->episode_ns) / 1e9);
	sh->episode_errors = 0;
}

/* evhttp_set_bevcb: a new connection. */
struct bufferevent *
conn_new(struct event_base *base, void *arg)
{
	struct server_http *sh = arg;
	struct conn *c = xcalloc(1, sizeof *c);
	char msg[160];
	int broken = 0;

	c->sh = sh;
	c->fd = -1;
	/* With TLS, a plain one (libevent's if this fails) would speak
	 * clear text: the connection is refused instead. */
	c->tls = sh->tls != NULL;
	c->under = c->tls ? tls_bev_accept(sh->tls, base) :
	    bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (c->under == NULL && c->tls) {
		log_warn("TLS: OpenSSL cannot make a connection; closing it");
		c->under = bufferevent_socket_new(base, -1,
		    BEV_OPT_CLOSE_ON_FREE);
		c->tls = 0;
		broken = 1;
	}
	if (c->under == NULL) {
		free(c);
		return NULL;	/* libevent makes a plain one */
	}
	/* Deferred callbacks: libevent 2.1's filter re-arms its timeout
	 * after calling evhttp's write callback, which may have freed the
	 * connection (Connection: close), leaving a freed event in the
	 * timer heap; deferred, evhttp runs after the filter is done. */
	c->bev = bufferevent_filter_new(c->under, conn_in, conn_out,
	    BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS, conn_free, c);
	if (c->bev == NULL) {
		bufferevent_free(c->under);
		free(c);
		return NULL;
	}
	c->timer = evtimer_new(base, conn_timer_cb, c);
	c->kick = event_new(base, -1, 0, conn_kick_cb, c);
	c->next = event_new(base, -1, 0, conn_next_cb, c);
	c->out_cb = evbuffer_add_cb(bufferevent_get_output(c->bev),
	    conn_output_added, c);
	if (c->tls)
		c->under_cb = evbuffer_add_cb(bufferevent_get_output(c->under),
		    conn_tls_drained, c);
	sh->nconns++;
	conn_accepted(sh);
	conn_head_start(c);
	if (broken) {
		/* Closed unread and unanswered. */
		c->state = C_REFUSED;
		c->out_discard = 1;
		c->close_by_ns = mono_ns();
		event_add(c->timer, &(struct timeval){ 0, 0 });
		return c->bev;
	}
	if (sh->head_check != NULL) {
		/* A stranger until a head shows a credential: header-timeout
		 * from now for its handshake and head. */
		c->stranger = 1;
		TAILQ_INSERT_TAIL(&sh->strangers, c, link);
		sh->nstrangers++;
		conn_strangers_trim(sh);
		conn_arm(c, sh->cfg->header_timeout);
		return c->bev;
	}
	if (sh->nconns > sh->cfg->max_connections) {
		c->over = 1;
		sh->refused_conns++;
		if (sh->nconns > sh->cfg->max_connections +
		    SERVER_HTTP_HEALTH_SLOTS) {
			snprintf(msg, sizeof msg, "profd has %zu connections "
			    "open (max-connections %zu); retry later",
			    sh->nconns - 1, sh->cfg->max_connections);
			conn_refuse(c, 503, msg, NULL);
			return c->bev;
		}
	}
	conn_arm(c, c->over && sh->cfg->header_timeout > 2 ? 2 :
	    sh->cfg->header_timeout);
	return c->bev;
}

struct conn *
conn_of(struct server_http *sh, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev;
	evutil_socket_t fd;

	if (evcon == NULL ||
	    (bev = evhttp_connection_get_bufferevent(evcon)) == NULL ||
	    (fd = bufferevent_getfd(bev)) < 0 || (size_t)fd >= sh->nbyfd ||
	    sh->byfd[fd] == NULL || sh->byfd[fd]->bev != bev)
		return NULL;
	return sh->byfd[fd];
}

/* The reply is written: the next bytes are a new request, and those
 * that came meanwhile are read once libevent is ready for them. */
void
conn_reply_done(struct evhttp_request *req, void *arg)
{
	struct conn *c = arg;

	(void)req;
	c->ours = 0;
	conn_release_body(c);
	if (c->state != C_HANDLER)
		return;
	c->state = C_IDLE;
	if (c->paused) {
		c->paused = 0;
		bufferevent_enable(c->under, EV_READ);
	}
	if (evbuffer_get_length(bufferevent_get_input(c->under)) > 0)
		event_active(c->next, EV_TIMEOUT, 1);
}
