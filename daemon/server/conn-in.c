/* conn-in.c: the guard's input filter (conn.c has the rest of the guard):
 * it sees a connection's bytes before libevent's parser and frames them
 * into requests itself: the head (timed, its size and header lines
 * checked, its version read), then the body to its end as libevent will
 * read it (reqbody.c), each byte of it counted in the body budget.
 *
 * One request at a time goes on to libevent: once one is whole, what
 * follows it (a pipelined request) stays in the socket's buffer until
 * its reply is written, and reading stops once that holds more than
 * HOLD bytes (conn.c reads on at the reply).  Without that framing the
 * guard took the next request's bytes for this body's and the middle of
 * a request for a head (issue 40).
 *
 * With a head check (the TCP listener) the head is held here, whole,
 * and decided on before libevent sees it or any body byte is read: a
 * refusal is sent at once, reading stops and the connection closes. */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "http-error.h"
#include "server-http-int.h"

/* Bytes of the requests that follow one being answered, kept unread. */
#define HOLD	(64 << 10)

/* The body budget: one body of max-body always fits. */
static uint64_t
conn_budget(const struct config *cfg)
{
	return cfg->max_inflight_body > cfg->limits.max_body ?
	    cfg->max_inflight_body : cfg->limits.max_body;
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

/* Copy, not move, the first n bytes of src to dst: libevent reads at
 * most 4 kB at a time into a fresh 8 kB chain once the last was moved
 * away, so moving the chains of a body that evhttp holds until it is
 * whole doubles its memory; copying packs them. */
static void
conn_copy(struct evbuffer *src, struct evbuffer *dst, size_t n)
{
	struct evbuffer_iovec v[8];
	size_t k;
	int i, m;

	while (n > 0) {
		m = evbuffer_peek(src, (ev_ssize_t)n, NULL, v, 8);
		if (m > 8)
			m = 8;
		if (m <= 0)
			break;
		for (i = 0; i < m && n > 0; i++) {
			k = v[i].iov_len < n ? v[i].iov_len : n;
			evbuffer_add(dst, v[i].iov_base, k);
			evbuffer_drain(src, k);
			n -= k;
		}
	}
}

void
conn_head_start(struct conn *c)
{
	c->state = C_HEAD;
	c->head_bytes = 0;
	c->nl = 0;
	c->linelen = 0;
	c->line_done = 0;
	reqhead_init(&c->rh);
	if (c->sh->head_check != NULL && c->held == NULL)
		c->held = evbuffer_new();
}

/* The request is whole and libevent's: no deadline until its reply is
 * written (the handler's time is not the client's). */
static void
conn_whole(struct conn *c)
{
	c->state = C_HANDLER;
	event_del(c->timer);
}

/* The held head asked of the listener's check: 0 to go on, -1 refused. */
static int
conn_check_head(struct conn *c)
{
	struct server_http *sh = c->sh;
	struct server_http_verdict v;
	struct server_http_head h;
	struct reqhead_req rq;
	size_t n = evbuffer_get_length(c->held);
	char *head = xmalloc(n + 1);

	evbuffer_copyout(c->held, head, n);
	memset(&v, 0, sizeof v);
	if (reqhead_parse(head, n, &rq) == -1) {
		free(head);
		conn_refuse(c, 400, "the request line is not METHOD "
		    "TARGET HTTP/1.x", NULL);
		return -1;
	}
	h.method = rq.method;
	h.target = rq.target;
	h.authorization = rq.authorization;
	h.body = reqhead_body(&c->rh) != REQHEAD_NO_BODY;
	sh->head_check(&h, &v, sh->head_arg);
	free(head);
	if (v.status != 0) {
		conn_refuse(c, v.status, v.detail, v.challenges);
		return -1;
	}
	if (v.authenticated && !c->authed && conn_authenticated(c) == -1)
		return -1;
	return 0;
}

/* The head has ended (its bytes passed on, or held in c->held). */
static void
conn_head_done(struct conn *c, struct evbuffer *dst)
{
	const struct config *cfg = c->sh->cfg;
	char msg[200];

	reqbody_start(&c->body, &c->rh);
	if (c->held != NULL) {
		if (conn_check_head(c) == -1)
			return;
		/* libevent refuses it too, once it has the head (which
		 * the socket's guard passes on as it comes). */
		if (reqhead_body(&c->rh) == REQHEAD_LENGTH &&
		    (uint64_t)c->rh.content_length > cfg->limits.max_body) {
			snprintf(msg, sizeof msg, "the request body passes "
			    "max-body (%zu bytes); send larger blobs through "
			    "/v1/uploads", cfg->limits.max_body);
			conn_refuse(c, 413, msg, NULL);
			return;
		}
		/* Passed: the head goes on to libevent as it came. */
		evbuffer_add_buffer(dst, c->held);
	}
	if (reqhead_body(&c->rh) == REQHEAD_NO_BODY)
		conn_whole(c);
	else {
		c->state = C_BODY;
		conn_arm(c, cfg->body_timeout);
	}
}

/* Some of the head, from the front of src. */
static void
conn_head(struct conn *c, struct evbuffer *src, struct evbuffer *dst)
{
	struct server_http *sh = c->sh;
	const struct config *cfg = sh->cfg;
	struct evbuffer_iovec v;
	const char *why;
	char msg[160];
	size_t n;
	int end;

	if (evbuffer_peek(src, -1, NULL, &v, 1) < 1)
		return;
	if (!c->line_done && conn_scan_line(c, v.iov_base, v.iov_len) ==
	    -1) {
		conn_refuse(c, 400, "the HTTP version is not 1.0 or 1.1",
		    NULL);
		return;
	}
	n = conn_scan_head(c, v.iov_base, v.iov_len, &end);
	if ((why = reqhead_feed(&c->rh, v.iov_base, n)) != NULL) {
		conn_refuse(c, 400, why, NULL);
		return;
	}
	c->head_bytes += n;
	if (c->head_bytes > cfg->max_header_size) {
		sh->refused_head++;
		snprintf(msg, sizeof msg, "the request line and headers pass "
		    "max-header-size (%zu bytes)", cfg->max_header_size);
		conn_refuse(c, 431, msg, NULL);
		return;
	}
	conn_copy(src, c->held != NULL ? c->held : dst, n);
	sh->bytes_read += n;
	if (end)
		conn_head_done(c, dst);
}

/* Some of the body, from the front of src. */
static void
conn_body(struct conn *c, struct evbuffer *src, struct evbuffer *dst)
{
	struct server_http *sh = c->sh;
	struct evbuffer_iovec v;
	const char *why;
	char msg[160];
	size_t n;
	int end;

	if (evbuffer_peek(src, -1, NULL, &v, 1) < 1)
		return;
	n = reqbody_feed(&c->body, v.iov_base, v.iov_len, &end, &why);
	if (why != NULL) {
		conn_refuse(c, 400, why, NULL);
		return;
	}
	if (sh->inflight + n > conn_budget(sh->cfg)) {
		sh->refused_body++;
		snprintf(msg, sizeof msg, "request bodies being received pass "
		    "max-inflight-body (%llu bytes); retry later",
		    (unsigned long long)conn_budget(sh->cfg));
		conn_refuse(c, 503, msg, NULL);
		return;
	}
	sh->inflight += n;
	c->body_bytes += n;
	conn_copy(src, dst, n);
	sh->bytes_read += n;
	if (end)
		conn_whole(c);
}

enum bufferevent_filter_result
conn_in(struct evbuffer *src, struct evbuffer *dst, ev_ssize_t lim,
    enum bufferevent_flush_mode mode, void *arg)
{
	struct conn *c = arg;
	struct server_http *sh = c->sh;
	const struct config *cfg = sh->cfg;
	size_t len = evbuffer_get_length(src), left;
	enum conn_state was;

	(void)lim;
	(void)mode;
	if (c->fd < 0)
		conn_register(c);
	/* libevent has let go of the connection (and shut its socket's
	 * sending side): nothing is answered any more. */
	if (conn_dead(c) && c->state != C_REFUSED) {
		c->state = C_REFUSED;
		c->out_discard = 1;
	}
	while ((left = evbuffer_get_length(src)) > 0 &&
	    c->state != C_REFUSED && c->state != C_HANDLER) {
		was = c->state;
		switch (c->state) {
		case C_IDLE:
			conn_head_start(c);
			conn_arm(c, c->over && cfg->header_timeout > 2 ? 2 :
			    cfg->header_timeout);
			break;
		case C_HEAD:
			conn_head(c, src, dst);
			break;
		case C_BODY:
			conn_body(c, src, dst);
			break;
		case C_HANDLER:
		case C_REFUSED:
			break;
		}
		if (c->state == was && evbuffer_get_length(src) == left)
			break;		/* an empty chain in front: later */
	}
	if (c->state == C_REFUSED) {
		/* Read before the refusal: dropped. */
		sh->bytes_read += evbuffer_get_length(src);
		evbuffer_drain(src, evbuffer_get_length(src));
	} else if (c->state == C_HANDLER && !c->paused &&
	    evbuffer_get_length(src) > HOLD) {
		c->paused = 1;
		bufferevent_disable(c->under, EV_READ);
	}
	/* BEV_OK only when something was taken: libevent calls again while
	 * it is and bytes are left. */
	return evbuffer_get_length(src) < len ? BEV_OK : BEV_NEED_MORE;
}
