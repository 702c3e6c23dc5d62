/* conn.c: the guard around each connection of the HTTP server (see
 * server-http.c for why it exists): an input filter that times the head
 * and the body, counts the body bytes held and refuses what passes a
 * limit with a JSON reply of its own; an output filter that makes every
 * reply libevent writes itself JSON and never lets an end go unsent; and
 * the heap trimmed once large bodies are let go. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/http_struct.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "alloc.h"
#include "clock.h"
#include "http-error.h"
#include "log.h"
#include "memtrim.h"
#include "server-http-int.h"
#include "server-http.h"
#include "tls.h"

static void conn_arm(struct conn *, int64_t seconds);

static int64_t
ms_to_ns(int64_t ms)
{
	return ms * 1000000;
}

/* Large bodies gone, the heap is trimmed (memtrim.c says why): once
 * TRIM_BYTES of bodies were released, a second later (the last of them
 * freed by then: a refused one goes with its connection, an imported one
 * on the import thread), at most once per TRIM_EVERY seconds, so that a
 * steady stream of large pushes does not fault its pages in again and
 * again, and while no body is held if that comes within TRIM_EVERY:
 * malloc_trim holds each arena's lock while it walks it, the loop's
 * included: 30-50 ms for 400 MiB on a quiet heap, seconds while bodies
 * are written into it on a busy machine. */
#define TRIM_BYTES	(64ULL << 20)
#define TRIM_EVERY	10
#define NS		1000000000LL

static void
conn_trim_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server_http *sh = arg;
	struct timeval second = { 1, 0 };
	int64_t now = mono_ns();

	(void)fd;
	(void)what;
	if (sh->inflight > 0 && now - sh->trim_due_ns < TRIM_EVERY * NS) {
		evtimer_add(sh->trim, &second);
		return;
	}
	sh->released = 0;
	sh->trimmed_ns = now;
	memtrim_async();
}

static void
conn_released(struct server_http *sh, uint64_t n)
{
	struct timeval tv = { 1, 0 };
	int64_t now;

	sh->released += n;
	if (sh->released < TRIM_BYTES || (sh->trim == NULL && (sh->trim =
	    evtimer_new(sh->base, conn_trim_cb, sh)) == NULL) ||
	    evtimer_pending(sh->trim, NULL))
		return;
	now = mono_ns();
	if (sh->trimmed_ns != 0 && now - sh->trimmed_ns < (TRIM_EVERY - 1) * NS)
		tv.tv_sec = (time_t)(TRIM_EVERY - (now - sh->trimmed_ns) / NS);
	sh->trim_due_ns = now + tv.tv_sec * NS;
	evtimer_add(sh->trim, &tv);
}

static void
conn_release_body(struct conn *c)
{
	c->sh->inflight -= c->body_bytes;
	conn_released(c->sh, c->body_bytes);
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
	/* A reply leaves in several writes (TLS records, the last byte
	 * held back until the rest is sent): with Nagle's algorithm the
	 * later ones wait for the client's delayed ACK, 40 ms a reply on a
	 * kept connection.  A Unix socket refuses the option: no matter. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 },
	    sizeof(int));
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
	if (c->under_cb != NULL)
		evbuffer_remove_cb_entry(bufferevent_get_output(c->under),
		    c->under_cb);
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

/* Is the version of a request line's tail HTTP/1.0 or HTTP/1.1, as
 * libevent reads it (sscanf "HTTP/%d.%d")?  A tail with no space in it
 * holds a version token too long to be either. */
static int
conn_version_ok(const char *line, size_t n)
{
	char tok[sizeof ((struct conn *)0)->line + 1], extra;
	const char *sp;
	int major, minor;

	if (n > 0 && line[n - 1] == '\r')
		n--;
	if ((sp = memrchr(line, ' ', n)) == NULL)
		return 0;
	n -= (size_t)(sp + 1 - line);
	memcpy(tok, sp + 1, n);
	tok[n] = '\0';
	return sscanf(tok, "HTTP/%d.%d%c", &major, &minor, &extra) == 2 &&
	    major == 1 && (minor == 0 || minor == 1);
}

/* Keep the request line's last bytes; at its end, check its version:
 * libevent answers "100 Continue" in the request's version before any
 * handler sees it (HTTP/1.2 100 Continue).  -1: not 1.0 or 1.1. */
static int
conn_scan_line(struct conn *c, const unsigned char *p, size_t n)
{
	const unsigned char *lf = memchr(p, '\n', n);
	size_t k = lf != NULL ? (size_t)(lf - p) : n;
	size_t cap = sizeof c->line;

	if (k >= cap) {
		p += k - cap;
		k = cap;
	}
	if (c->linelen + k > cap) {
		memmove(c->line, c->line + (c->linelen + k - cap),
		    cap - k);
		c->linelen = cap - k;
	}
	memcpy(c->line + c->linelen, p, k);
	c->linelen += k;
	if (lf == NULL)
		return 0;
	c->line_done = 1;
	return conn_version_ok(c->line, c->linelen) ? 0 : -1;
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
	const char *why;
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
			c->linelen = 0;
			c->line_done = 0;
			reqhead_init(&c->rh);
			conn_arm(c, c->over && cfg->header_timeout > 2 ? 2 :
			    cfg->header_timeout);
			continue;
		case C_HEAD: {
			struct evbuffer_ptr ptr;

			evbuffer_ptr_set(src, &ptr, off, EVBUFFER_PTR_SET);
			if (evbuffer_peek(src, -1, &ptr, &v, 1) < 1)
				goto out;
			if (!c->line_done && conn_scan_line(c, v.iov_base,
			    v.iov_len) == -1) {
				conn_refuse(c, 400, "the HTTP version is not "
				    "1.0 or 1.1");
				break;
			}
			n = conn_scan_head(c, v.iov_base, v.iov_len, &end);
			if ((why = reqhead_feed(&c->rh, v.iov_base, n)) !=
			    NULL) {
				conn_refuse(c, 400, why);
				break;
			}
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

/* TLS: OpenSSL's bufferevent writes on its own, so nothing is written
 * from here.  The same end is kept from libevent: the last byte waits in
 * src until the TLS bufferevent has written all before it (its write
 * callback brings us back), and once that byte is handed over too the
 * filter says nothing (BEV_NEED_MORE) until conn_tls_drained sees it
 * gone, then tells libevent the output is written. */
static enum bufferevent_filter_result
conn_send_tls(struct conn *c, struct evbuffer *src, size_t n,
    struct evbuffer *dst)
{
	if (evbuffer_get_length(dst) > 0)
		return BEV_NEED_MORE;
	if (n > 1) {
		evbuffer_remove_buffer(src, dst, n - 1);
		c->sendfirst = 1;
		return BEV_OK;
	}
	evbuffer_remove_buffer(src, dst, n);
	c->sendfirst = 0;
	if (evbuffer_get_length(src) > 0)
		return BEV_OK;
	c->tls_end = 1;
	return BEV_NEED_MORE;
}

static void
conn_tls_drained(struct evbuffer *buf, const struct evbuffer_cb_info *info,
    void *arg)
{
	struct conn *c = arg;

	if (!c->tls_end || info->n_deleted == 0 || evbuffer_get_length(buf) > 0)
		return;
	c->tls_end = 0;
	if (!conn_dead(c))
		bufferevent_trigger(c->bev, EV_WRITE, BEV_OPT_DEFER_CALLBACKS);
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

	if (c->tls)
		return conn_send_tls(c, src, n, dst);
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
	c->out_cb = evbuffer_add_cb(bufferevent_get_output(c->bev),
	    conn_output_added, c);
	if (c->tls)
		c->under_cb = evbuffer_add_cb(bufferevent_get_output(c->under),
		    conn_tls_drained, c);
	sh->nconns++;
	conn_accepted(sh);
	c->state = C_HEAD;
	if (broken) {
		/* Closed unread and unanswered. */
		c->state = C_REFUSED;
		c->out_discard = 1;
		c->close_by_ns = mono_ns();
		event_add(c->timer, &(struct timeval){ 0, 0 });
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
			conn_refuse(c, 503, msg);
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

/* The reply is written: the next bytes are a new request. */
void
conn_reply_done(struct evhttp_request *req, void *arg)
{
	struct conn *c = arg;

	c->ours = 0;
	conn_release_body(c);
	if (c->state == C_HANDLER)
		c->state = C_IDLE;
}
