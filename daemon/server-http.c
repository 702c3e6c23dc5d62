/* server-http.c: libevent's HTTP server as profd configures it, and the
 * guard around each connection.
 *
 * libevent 2.1 has no connection limit, no accept error policy of its own
 * (it warns and retries at once, forever, when descriptors run out), read
 * timeouts that every byte resets, and HTML error pages.  Every connection
 * is therefore given (evhttp_set_bevcb) a filter bufferevent over its
 * socket: the input side sees the bytes before libevent parses them, so it
 * can time the head and the body and count the body bytes held; the output
 * side sees every reply, so libevent's own error pages can be rewritten
 * into the JSON every error is; the filter's free callback says when the
 * connection is gone.  A reply is the handler's ("ours") from the moment
 * the request is dispatched until libevent says it is written; anything
 * else libevent writes is one of its error pages, or "100 Continue". */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/http_struct.h>
#include <event2/listener.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "http-error.h"
#include "log.h"
#include "server-http.h"
#include "util.h"

/* Where a connection is in its request. */
enum conn_state {
	C_IDLE,			/* between requests: no deadline */
	C_HEAD,			/* reading the head: header-timeout */
	C_BODY,			/* reading the body: body-timeout */
	C_HANDLER,		/* dispatched: the handler has it */
	C_REFUSED,		/* answered by the guard, closing */
};

struct conn {
	struct server_http *sh;
	struct bufferevent *bev;	/* the filter libevent uses */
	struct bufferevent *under;	/* the socket */
	struct event *timer;		/* deadline, or flush-then-close */
	struct event *kick;		/* process output libevent added */
	struct evbuffer_cb_entry *out_cb;	/* calls the kick */
	int fd;				/* -1 until known */
	enum conn_state state;
	int over;			/* accepted beyond max-connections */
	int ours;			/* the reply being written is ours */
	int out_discard;		/* the rest of the output is dropped */
	size_t sendfirst;		/* bytes at the front of the output
					 * that are ready to go as they are */
	int nl;				/* end-of-head scanner state */
	int64_t close_by_ns;		/* C_REFUSED: give up flushing */
	size_t head_bytes;
	uint64_t body_bytes;		/* counted in sh->inflight */
};

struct server_http {
	struct evhttp *http;
	struct event_base *base;
	const struct config *cfg;
	void (*cb)(struct evhttp_request *, void *);
	void *cbarg;
	struct evhttp_bound_socket *bound;
	struct evconnlistener *listener;
	struct event *resume;		/* accept again after a pause */
	int paused;
	struct conn **byfd;		/* to find a request's connection */
	size_t nbyfd;
	size_t nconns;
	uint64_t inflight;		/* body bytes held */
	uint64_t accept_errors;
	uint64_t refused_conns, refused_body, refused_head, timed_out;
	int64_t warned_ns;		/* last accept warning */
	int64_t episode_ns;		/* first failed accept of an episode */
	uint64_t episode_errors;	/* failed accepts since the last one */
	struct server_http *next;	/* in listening */
};

/* The listener's error callback gets the listener's callback argument,
 * which evhttp owns (the evhttp): find the guard by its listener.  All on
 * the loop thread. */
static struct server_http *listening;

static void conn_arm(struct conn *, int64_t seconds);
static void server_http_accepted(struct server_http *);

static int64_t
ms_to_ns(int64_t ms)
{
	return ms * 1000000;
}

static void
conn_release_body(struct conn *c)
{
	c->sh->inflight -= c->body_bytes;
	c->body_bytes = 0;
}

static void
conn_register(struct conn *c)
{
	struct server_http *sh = c->sh;
	int fd = (int)bufferevent_getfd(c->under);
	size_t n;

	if (fd < 0)
		return;
	if ((size_t)fd >= sh->nbyfd) {
		n = sh->nbyfd ? sh->nbyfd : 256;
		while (n <= (size_t)fd)
			n *= 2;
		sh->byfd = xreallocarray(sh->byfd, n, sizeof *sh->byfd);
		memset(sh->byfd + sh->nbyfd, 0, (n - sh->nbyfd) *
		    sizeof *sh->byfd);
		sh->nbyfd = n;
	}
	sh->byfd[fd] = c;
	c->fd = fd;
}

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
	/* The filter's buffers outlive this call a little. */
	evbuffer_remove_cb_entry(bufferevent_get_output(c->bev), c->out_cb);
	event_del(c->kick);
	event_free(c->timer);
	event_free(c->kick);
	free(c);
}

/* evhttp has freed the connection (bufferevent_free clears the
 * callbacks), and libevent finalizes it later.  A trigger or flush now
 * would take a new reference to it and finalize it a second time. */
static int
conn_dead(struct conn *c)
{
	bufferevent_event_cb ecb;

	bufferevent_getcb(c->bev, NULL, NULL, &ecb, NULL);
	return ecb == NULL;
}

/* Close as libevent closes a connection whose read timed out: it frees
 * the connection (and so this filter) without a reply.  c is gone after. */
static void
conn_close(struct conn *c)
{
	bufferevent_trigger_event(c->bev, BEV_EVENT_READING |
	    BEV_EVENT_TIMEOUT, 0);
}

/* A reply written by the guard itself, straight to the socket; libevent
 * never sees the request.  The connection closes once it is sent. */
static void
conn_refuse(struct conn *c, int status, const char *detail)
{
	char head[256];
	size_t len;
	char *body = http_error_json(status, detail, &len);

	snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\n"
	    "%sConnection: close\r\n\r\n", status, http_error_reason(status),
	    len, status == 503 ? "Retry-After: 1\r\n" : "");
	bufferevent_write(c->under, head, strlen(head));
	bufferevent_write(c->under, body, len);
	free(body);
	conn_release_body(c);
	c->state = C_REFUSED;
	c->out_discard = 1;
	c->close_by_ns = mono_ns() + ms_to_ns(2000);
	event_del(c->timer);
	event_add(c->timer, &(struct timeval){ 0, 0 });
}

static void
conn_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (conn_dead(c))
		return;
	if (c->state == C_REFUSED) {
		/* Wait for the reply to leave, a little. */
		if (evbuffer_get_length(bufferevent_get_output(c->under)) > 0 &&
		    mono_ns() < c->close_by_ns) {
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

static void
conn_arm(struct conn *c, int64_t seconds)
{
	event_del(c->timer);
	event_add(c->timer, &(struct timeval){ (time_t)seconds, 0 });
}

/* Scan for the empty line ending a head, as libevent reads lines: a line
 * ends at LF, with or without CR before it.  Returns the bytes of p that
 * belong to the head, or n if it goes on. */
static size_t
conn_scan_head(struct conn *c, const unsigned char *p, size_t n, int *end)
{
	size_t i;

	*end = 0;
	for (i = 0; i < n; i++) {
		if (p[i] == '\n') {
			if (c->nl >= 1) {
				*end = 1;
				c->nl = 0;
				return i + 1;
			}
			c->nl = 1;
		} else if (p[i] == '\r' && c->nl == 1)
			c->nl = 2;
		else if (p[i] != '\r')
			c->nl = 0;
	}
	return n;
}

/* One body of max-body always fits. */
static uint64_t
server_http_budget(const struct config *cfg)
{
	return cfg->max_inflight_body > cfg->limits.max_body ?
	    cfg->max_inflight_body : cfg->limits.max_body;
}

/* Copy, not move: libevent reads at most 4 kB at a time into a fresh
 * 8 kB chain once the last was moved away, so moving the chains of a
 * body that evhttp holds until it is whole doubles its memory; copying
 * packs them. */
static void
conn_copy(struct evbuffer *src, struct evbuffer *dst)
{
	struct evbuffer_iovec v[8];
	int i, n;

	while (evbuffer_get_length(src) > 0) {
		n = evbuffer_peek(src, -1, NULL, v, 8);
		if (n > 8)
			n = 8;
		for (i = 0; i < n; i++) {
			evbuffer_add(dst, v[i].iov_base, v[i].iov_len);
			evbuffer_drain(src, v[i].iov_len);
		}
	}
}

static enum bufferevent_filter_result
conn_in(struct evbuffer *src, struct evbuffer *dst, ev_ssize_t lim,
    enum bufferevent_flush_mode mode, void *arg)
{
	struct conn *c = arg;
	struct server_http *sh = c->sh;
	const struct config *cfg = sh->cfg;
	struct evbuffer_iovec v;
	size_t len = evbuffer_get_length(src), off = 0, n;
	int end;
	char msg[160];

	if (c->fd < 0)
		conn_register(c);
	if (c->state == C_REFUSED) {
		evbuffer_drain(src, len);
		return BEV_OK;
	}
	while (off < len && c->state != C_REFUSED) {
		switch (c->state) {
		case C_IDLE:
			c->state = C_HEAD;
			c->head_bytes = 0;
			c->nl = 0;
			conn_arm(c, c->over && cfg->header_timeout > 2 ? 2 :
			    cfg->header_timeout);
			continue;
		case C_HEAD: {
			struct evbuffer_ptr ptr;

			evbuffer_ptr_set(src, &ptr, off, EVBUFFER_PTR_SET);
			if (evbuffer_peek(src, -1, &ptr, &v, 1) < 1)
				goto out;
			n = conn_scan_head(c, v.iov_base, v.iov_len, &end);
			c->head_bytes += n;
			off += n;
			if (c->head_bytes > cfg->max_header_size) {
				sh->refused_head++;
				snprintf(msg, sizeof msg, "the request line and "
				    "headers pass max-header-size (%zu bytes)",
				    cfg->max_header_size);
				conn_refuse(c, 431, msg);
				break;
			}
			if (end) {
				c->state = C_BODY;
				conn_arm(c, cfg->body_timeout);
			}
			break;
		}
		case C_BODY:
			n = len - off;
			if (sh->inflight + n > server_http_budget(cfg)) {
				sh->refused_body++;
				snprintf(msg, sizeof msg, "request bodies being "
				    "received pass max-inflight-body (%llu "
				    "bytes); retry later",
				    (unsigned long long)server_http_budget(cfg));
				conn_refuse(c, 503, msg);
				break;
			}
			sh->inflight += n;
			c->body_bytes += n;
			off = len;
			break;
		case C_HANDLER:
		case C_REFUSED:
			/* Pipelined bytes while a reply is on its way. */
			off = len;
			break;
		}
	}
out:
	if (c->state == C_REFUSED) {
		evbuffer_drain(src, len);
		return BEV_OK;
	}
	conn_copy(src, dst);
	return BEV_OK;
}

/* Move the first n bytes of src to the socket's buffer and write them at
 * once.  libevent thinks a reply sent, and may close the connection
 * (shutting the socket down), as soon as this filter's buffer is empty,
 * although the socket's buffer may still hold the end of it.  So when the
 * socket does not take everything, the last byte goes back to src
 * (c->sendfirst) until the socket has taken the rest: the socket's write
 * callback brings us back then. */
static enum bufferevent_filter_result
conn_send(struct conn *c, struct evbuffer *src, size_t n,
    struct evbuffer *dst)
{
	struct evbuffer *tmp;
	size_t len;
	int fd;

	if (evbuffer_get_length(dst) > 0)
		return BEV_NEED_MORE;
	evbuffer_remove_buffer(src, dst, n);
	c->sendfirst = 0;
	if ((fd = (int)bufferevent_getfd(c->under)) < 0)
		return BEV_OK;
	/* The socket's bufferevent keeps its output's front frozen (only it
	 * writes from there, and removing from a frozen front fails):
	 * thaw it for these writes and the move back, as it does. */
	errno = 0;
	evbuffer_unfreeze(dst, 1);
	while (evbuffer_get_length(dst) > 0)
		if (evbuffer_write(dst, fd) <= 0)
			break;
	if ((len = evbuffer_get_length(dst)) > 1 && (errno == EAGAIN ||
	    errno == EWOULDBLOCK || errno == EINTR)) {
		tmp = evbuffer_new();
		evbuffer_remove_buffer(dst, tmp, len - 1);
		evbuffer_prepend_buffer(src, dst);
		evbuffer_add_buffer(dst, tmp);
		evbuffer_free(tmp);
		c->sendfirst = 1;
	}
	evbuffer_freeze(dst, 1);
	return BEV_OK;
}

static enum bufferevent_filter_result
conn_out(struct evbuffer *src, struct evbuffer *dst, ev_ssize_t lim,
    enum bufferevent_flush_mode mode, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *mine;
	enum bufferevent_filter_result r;
	size_t n;

	if (c->sendfirst > 0) {
		r = conn_send(c, src, c->sendfirst, dst);
		if (r != BEV_OK || c->sendfirst > 0)
			return r;
	}
	if (c->out_discard) {
		evbuffer_drain(src, evbuffer_get_length(src));
		return BEV_OK;
	}
	if (c->ours)
		return conn_send(c, src, evbuffer_get_length(src), dst);
	if (evbuffer_get_length(dst) > 0)
		return BEV_NEED_MORE;
	mine = evbuffer_new();
	r = http_error_rewrite(src, mine, c->sh->cfg->limits.max_body,
	    &c->out_discard) == 0 ? BEV_OK : BEV_NEED_MORE;
	if ((n = evbuffer_get_length(mine)) > 0) {
		evbuffer_prepend_buffer(src, mine);
		r = conn_send(c, src, n, dst);
	}
	evbuffer_free(mine);
	return r;
}

/* libevent adds to the output before it enables writing, and a filter
 * only looks at its output when it is added to with writing enabled: so
 * look again once libevent is done adding. */
static void
conn_kick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (!conn_dead(c) &&
	    evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
		bufferevent_flush(c->bev, EV_WRITE, BEV_NORMAL);
}

static void
conn_output_added(struct evbuffer *buf, const struct evbuffer_cb_info *info,
    void *arg)
{
	struct conn *c = arg;

	if (info->n_added > 0)
		event_active(c->kick, EV_TIMEOUT, 1);
}

/* evhttp_set_bevcb: a new connection. */
static struct bufferevent *
conn_new(struct event_base *base, void *arg)
{
	struct server_http *sh = arg;
	struct conn *c = xcalloc(1, sizeof *c);
	char msg[160];

	c->sh = sh;
	c->fd = -1;
	c->under = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
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
	c->out_cb = evbuffer_add_cb(bufferevent_get_output(c->bev),
	    conn_output_added, c);
	sh->nconns++;
	server_http_accepted(sh);
	c->state = C_HEAD;
	if (sh->nconns > sh->cfg->max_connections) {
		c->over = 1;
		sh->refused_conns++;
		if (sh->nconns > sh->cfg->max_connections +
		    SERVER_HTTP_HEALTH_SLOTS) {
			snprintf(msg, sizeof msg, "profd has %zu connections "
			    "open (max-connections %zu); retry later",
			    sh->nconns - 1, sh->cfg->max_connections);
			conn_refuse(c, 503, msg);
			return c->bev;
		}
	}
	conn_arm(c, c->over && sh->cfg->header_timeout > 2 ? 2 :
	    sh->cfg->header_timeout);
	return c->bev;
}

static struct conn *
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

/* The reply is written: the next bytes are a new request. */
static void
conn_reply_done(struct evhttp_request *req, void *arg)
{
	struct conn *c = arg;

	c->ours = 0;
	conn_release_body(c);
	if (c->state == C_HANDLER)
		c->state = C_IDLE;
}

static int
is_health(struct evhttp_request *req)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;

	return evhttp_request_get_command(req) == EVHTTP_REQ_GET &&
	    path != NULL && strcmp(path, "/v1/health") == 0;
}

/* A whole request has arrived. */
static void
server_http_dispatch(struct evhttp_request *req, void *arg)
{
	struct server_http *sh = arg;
	struct conn *c = conn_of(sh, req);
	struct evkeyvalq *h;
	size_t len;
	char *body, msg[160];

	if (c != NULL) {
		event_del(c->timer);
		c->state = C_HANDLER;
		c->ours = 1;
		evhttp_request_set_on_complete_cb(req, conn_reply_done, c);
		if (c->over && !is_health(req)) {
			snprintf(msg, sizeof msg, "profd has more than %zu "
			    "connections open (max-connections); retry later",
			    sh->cfg->max_connections);
			body = http_error_json(503, msg, &len);
			h = evhttp_request_get_output_headers(req);
			evhttp_add_header(h, "Content-Type",
			    "application/json");
			evhttp_add_header(h, "Retry-After", "1");
			evhttp_add_header(h, "Connection", "close");
			evbuffer_add(evhttp_request_get_output_buffer(req),
			    body, len);
			free(body);
			evhttp_send_reply(req, 503, NULL, NULL);
			return;
		}
	}
	/* libevent takes any digits as a version (HTTP/0.1, HTTP/1555...5.1
	 * overflowing an int), keeps them in a char (HTTP/1.0111111111 is
	 * 1.-57) and answers in it. */
	if (req->major != 1 || (req->minor != 0 && req->minor != 1)) {
		req->major = 1;
		req->minor = 1;
		body = http_error_json(400, "the HTTP version is not 1.0 or 1.1",
		    &len);
		h = evhttp_request_get_output_headers(req);
		evhttp_add_header(h, "Content-Type", "application/json");
		evhttp_add_header(h, "Connection", "close");
		evbuffer_add(evhttp_request_get_output_buffer(req), body, len);
		free(body);
		evhttp_send_reply(req, 400, http_error_reason(400), NULL);
		return;
	}
	/* No route takes HEAD, and libevent 2.1 would send the 405's body
	 * without its length on a connection kept open: the client would
	 * read it as the start of the next reply.  Headers only, and close. */
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) {
		h = evhttp_request_get_output_headers(req);
		evhttp_add_header(h, "Allow", "GET, POST, PUT, DELETE");
		evhttp_add_header(h, "Connection", "close");
		evhttp_send_reply(req, 405, http_error_reason(405), NULL);
		return;
	}
	sh->cb(req, sh->cbarg);
}

static void
server_http_configure(struct server_http *sh)
{
	const struct config *cfg = sh->cfg;

	evhttp_set_max_body_size(sh->http, (ev_ssize_t)cfg->limits.max_body);
	/* Above the guard's own limit, which answers first with 431. */
	evhttp_set_max_headers_size(sh->http,
	    (ev_ssize_t)cfg->max_header_size + 1024);
	evhttp_set_timeout(sh->http, (int)cfg->idle_timeout);
}

struct server_http *
server_http_setup(struct evhttp *http, struct event_base *base,
    const struct config *cfg, void (*cb)(struct evhttp_request *, void *),
    void *arg)
{
	struct server_http *sh = xcalloc(1, sizeof *sh);

	sh->http = http;
	sh->base = base;
	sh->cfg = cfg;
	sh->cb = cb;
	sh->cbarg = arg;
	server_http_configure(sh);
	/* Every method, even unknown ones, reaches the router, which answers
	 * 405 in JSON; libevent would answer 501 in HTML. */
	evhttp_set_allowed_methods(http, 0xffff);
	evhttp_set_bevcb(http, conn_new, sh);
	evhttp_set_gencb(http, server_http_dispatch, sh);
	return sh;
}

void
server_http_set_config(struct server_http *sh, const struct config *cfg)
{
	sh->cfg = cfg;
	server_http_configure(sh);
}

static void
server_http_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server_http *sh = arg;

	if (sh->listener != NULL && sh->paused)
		evconnlistener_enable(sh->listener);
	sh->paused = 0;
}

/* accept() failed for a reason that retrying at once will not cure (out
 * of descriptors or memory): stop accepting for 100 ms and let the backlog
 * wait.  One warning when an episode begins (at most one per 10 s) and one
 * line when a connection is accepted again. */
static void
server_http_accept_error(struct evconnlistener *lis, void *arg)
{
	struct server_http *sh;
	int err = EVUTIL_SOCKET_ERROR();
	int64_t now = mono_ns();

	(void)arg;
	for (sh = listening; sh != NULL && sh->listener != lis; sh = sh->next)
		;
	if (sh == NULL) {
		/* Not ours: no way to pause it but to stop it. */
		evconnlistener_disable(lis);
		return;
	}

	sh->accept_errors++;
	evconnlistener_disable(lis);
	sh->paused = 1;
	event_add(sh->resume, &(struct timeval){ 0, 100000 });
	if (sh->episode_errors++ > 0)
		return;
	sh->episode_ns = now;
	if (sh->warned_ns != 0 && now - sh->warned_ns < 10 * 1000000000LL)
		return;
	sh->warned_ns = now;
	log_warn("accept: %s with %zu connections open; accepting in 100 ms "
	    "steps until it works%s", strerror(err), sh->nconns,
	    err == EMFILE || err == ENFILE ? "; raise the file limit "
	    "(LimitNOFILE=) or lower max-connections" : "");
}

/* A connection was accepted: an episode of failed accepts is over. */
static void
server_http_accepted(struct server_http *sh)
{
	if (sh->episode_errors == 0)
		return;
	if (sh->warned_ns == sh->episode_ns)
		log_info("accept: working again after %llu failed accepts in "
		    "%.1f s", (unsigned long long)sh->episode_errors,
		    (double)(mono_ns() - sh->episode_ns) / 1e9);
	sh->episode_errors = 0;
}

int
server_http_listen(struct server_http *sh, int fd)
{
	if ((sh->bound = evhttp_accept_socket_with_handle(sh->http, fd)) ==
	    NULL)
		return -1;
	sh->listener = evhttp_bound_socket_get_listener(sh->bound);
	evconnlistener_set_error_cb(sh->listener, server_http_accept_error);
	sh->next = listening;
	listening = sh;
	if (sh->resume == NULL)
		sh->resume = evtimer_new(sh->base, server_http_resume_cb, sh);
	return 0;
}

static void
server_http_unlink(struct server_http *sh)
{
	struct server_http **pp;

	for (pp = &listening; *pp != NULL; pp = &(*pp)->next)
		if (*pp == sh) {
			*pp = sh->next;
			break;
		}
}

void
server_http_unlisten(struct server_http *sh)
{
	server_http_unlink(sh);
	if (sh->bound != NULL)
		evhttp_del_accept_socket(sh->http, sh->bound);
	sh->bound = NULL;
	sh->listener = NULL;
}

void
server_http_free(struct server_http *sh)
{
	int i;

	if (sh == NULL)
		return;
	/* evhttp_free frees the listener and the connections; a connection's
	 * bufferevents are finalized later, by the loop, and the filter's
	 * free callback needs the guard: run the loop until they are gone,
	 * not leaving them to event_base_free (which runs them after the
	 * guard is freed, and while walking a queue they would change). */
	sh->listener = NULL;
	if (sh->resume != NULL)
		event_del(sh->resume);
	evhttp_free(sh->http);
	for (i = 0; i < 16 && (i < 2 || sh->nconns > 0); i++)
		event_base_loop(sh->base, EVLOOP_NONBLOCK);
	server_http_unlink(sh);
	if (sh->resume != NULL)
		event_free(sh->resume);
	free(sh->byfd);
	free(sh);
}

json_t *
server_http_json(const struct server_http *sh)
{
	return json_pack("{s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:I}",
	    "connections", (json_int_t)sh->nconns,
	    "max_connections", (json_int_t)sh->cfg->max_connections,
	    "inflight_body_bytes", (json_int_t)sh->inflight,
	    "accept_paused", sh->paused,
	    "accept_errors", (json_int_t)sh->accept_errors,
	    "refused_connections", (json_int_t)sh->refused_conns,
	    "refused_bodies", (json_int_t)sh->refused_body,
	    "refused_heads", (json_int_t)sh->refused_head,
	    "timed_out", (json_int_t)sh->timed_out);
}
