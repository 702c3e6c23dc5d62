/* ch.c: requests to ClickHouse on the loop.  Each request takes a kept
 * connection or makes one; one that answered whole goes back to the
 * kept ones, one that failed is dropped.  A request's end (done) always
 * runs from the loop, never inside ch_post: a connection that fails at
 * once answers within libevent's call, and the caller may not be ready
 * for it there. */
#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "ch.h"
#include "httpc.h"
#include "tls.h"

/* Connections kept alive between requests. */
#define CH_IDLE		4

struct ch_req {
	TAILQ_ENTRY(ch_req) entry;
	struct ch *ch;
	struct evhttp_connection *conn;
	struct evhttp_request *req;	/* in flight */
	struct httpc_deadline head;	/* its answer's head */
	struct event *later;		/* the end, from the loop */
	int code;			/* the answer's HTTP status */
	int failed;			/* 2: timed out, 1: other */
	int over;			/* the answer passed max_reply */
	int posting;			/* inside ch_post */
	struct buf errbody, reply;
	struct error err;
	struct ch_request r;
};

struct ch {
	struct event_base *base;
	struct evdns_base *dns;
	char *url, *host, *path;
	int port;
	struct tls_ctx *tls;		/* https; NULL: http */
	int ca_file;			/* fleet-ca-file named the CAs */
	int64_t timeout;
	struct evhttp_connection *idle[CH_IDLE];
	size_t nidle;
	int stopped;
	TAILQ_HEAD(, ch_req) inflight;
};

int
ch_url_parse(const char *url, char **host, int *port, char **path, int *tls,
    struct error *err)
{
	struct evhttp_uri *u;
	const char *h, *p, *scheme;

	if ((u = evhttp_uri_parse(url)) == NULL ||
	    (scheme = evhttp_uri_get_scheme(u)) == NULL ||
	    (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) ||
	    (h = evhttp_uri_get_host(u)) == NULL || *h == '\0' ||
	    evhttp_uri_get_query(u) != NULL ||
	    evhttp_uri_get_userinfo(u) != NULL) {
		if (u != NULL)
			evhttp_uri_free(u);
		return error_set(err, ERR_INPUT, "fleet-url: \"%s\" is not "
		    "http://HOST[:PORT][/PATH] or https://HOST[:PORT][/PATH] "
		    "(ClickHouse's HTTP interface)", url);
	}
	*tls = strcmp(scheme, "https") == 0;
	*host = xstrdup(h);
	/* ClickHouse's http_port and https_port as it ships. */
	*port = evhttp_uri_get_port(u) > 0 ? evhttp_uri_get_port(u) :
	    *tls ? 8443 : 8123;
	p = evhttp_uri_get_path(u);
	*path = xstrdup(p != NULL && *p != '\0' ? p : "/");
	evhttp_uri_free(u);
	return 0;
}

struct ch *
ch_new(struct event_base *base, struct evdns_base *dns, const char *url,
    const char *ca_file, int64_t timeout, struct error *err)
{
	struct ch *c = xcalloc(1, sizeof *c);
	int tls;

	if (ch_url_parse(url, &c->host, &c->port, &c->path, &tls, err) == -1) {
		free(c);
		return NULL;
	}
	if (tls && (c->tls = tls_client_new(ca_file, err)) == NULL) {
		free(c->host);
		free(c->path);
		free(c);
		return NULL;
	}
	c->ca_file = ca_file != NULL;
	c->base = base;
	c->dns = dns;
	c->url = xstrdup(url);
	c->timeout = timeout;
	TAILQ_INIT(&c->inflight);
	return c;
}

const char *
ch_url(const struct ch *c)
{
	return c->url;
}

struct event_base *
ch_base(const struct ch *c)
{
	return c->base;
}

static void
ch_conn_free_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	evhttp_connection_free(arg);
}

/* A connection freed once the callback that drops it has returned:
 * libevent still uses it after calling a request's callback. */
static void
ch_conn_drop(struct ch *c, struct evhttp_connection *conn)
{
	static const struct timeval now = { 0, 0 };

	if (conn != NULL && event_base_once(c->base, -1, EV_TIMEOUT,
	    ch_conn_free_cb, conn, &now) == -1)
		evhttp_connection_free(conn);
}

static void
ch_req_free(struct ch_req *r)
{
	httpc_deadline_free(&r->head);
	if (r->later != NULL)
		event_free(r->later);
	buf_free(&r->errbody);
	buf_free(&r->reply);
	free(r);
}

/* The request is over: its connection kept if it answered whole, the
 * caller told. */
static void
ch_finish(struct ch_req *r)
{
	struct ch *c = r->ch;
	int ok = r->err.kind == ERR_NONE;

	TAILQ_REMOVE(&c->inflight, r, entry);
	if (ok && r->conn != NULL && c->nidle < CH_IDLE && !c->stopped)
		c->idle[c->nidle++] = r->conn;
	else
		ch_conn_drop(c, r->conn);
	r->conn = NULL;
	buf_add(&r->reply, "", 1);
	r->r.done(r->r.arg, (const char *)r->reply.p, r->reply.n - 1,
	    ok ? NULL : &r->err);
	ch_req_free(r);
}

static void
ch_later_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ch_req *r = arg;

	(void)fd;
	(void)what;
	if (r->req != NULL) {
		/* Cut short (an answer past max_reply). */
		evhttp_cancel_request(r->req);
		r->req = NULL;
		httpc_deadline_stop(&r->head);
	}
	ch_finish(r);
}

/* End the request from the loop, as soon as it runs again. */
static void
ch_end_later(struct ch_req *r)
{
	static const struct timeval now = { 0, 0 };

	if (r->later == NULL)
		r->later = evtimer_new(r->ch->base, ch_later_cb, r);
	evtimer_add(r->later, &now);
}

static void
ch_fail_later(struct ch_req *r, enum error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
ch_fail_later(struct ch_req *r, enum error_kind kind, const char *fmt, ...)
{
	char msg[sizeof r->err.msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	error_set(&r->err, kind, "%s", msg);
	ch_end_later(r);
}

static void
ch_chunk_cb(struct evhttp_request *req, void *arg)
{
	struct ch_req *r = arg;
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t n = evbuffer_get_length(in), k;

	r->code = evhttp_request_get_response_code(req);
	if (n == 0 || r->over)
		;
	else if (r->code != 200) {
		/* An error message: its start is enough. */
		k = CH_MAX_ERROR - r->errbody.n;
		k = n < k ? n : k;
		buf_add(&r->errbody, evbuffer_pullup(in, (ev_ssize_t)k), k);
	} else if (r->r.data != NULL) {
		r->r.data(r->r.arg, in);
	} else if (r->reply.n + n > r->r.max_reply) {
		r->over = 1;
		error_set(&r->err, ERR_BUSY, "ClickHouse at %s answered more "
		    "than %zu bytes", r->ch->url, r->r.max_reply);
		ch_reading(r, 0);
		ch_end_later(r);
	} else
		buf_add(&r->reply, evbuffer_pullup(in, -1), n);
	evbuffer_drain(in, evbuffer_get_length(in));
}

static void
ch_error_cb(enum evhttp_request_error e, void *arg)
{
	struct ch_req *r = arg;

	r->failed = e == EVREQ_HTTP_TIMEOUT ? 2 : 1;
}

static int
ch_head_cb(struct evhttp_request *req, void *arg)
{
	struct ch_req *r = arg;

	(void)req;
	httpc_deadline_stop(&r->head);
	return 0;
}

static void
ch_http_cb(struct evhttp_request *req, void *arg)
{
	struct ch_req *r = arg;
	struct ch *c = r->ch;
	char why[200];

	r->req = NULL;
	httpc_deadline_stop(&r->head);
	if (r->over)
		return;			/* ch_later_cb ends it */
	if (req != NULL && r->code == 0)
		r->code = evhttp_request_get_response_code(req);
	if (req != NULL)
		/* What the chunk callback had not seen. */
		ch_chunk_cb(req, r);
	if (r->over)
		return;
	if (req == NULL || r->code == 0) {
		if (r->head.fired)
			error_set(&r->err, ERR_TIMEOUT, "ClickHouse at %s sent "
			    "no whole answer head within %" PRId64 " s",
			    c->url, c->timeout + CH_HEAD_SLACK);
		else if (r->failed == 2)
			error_set(&r->err, ERR_TIMEOUT, "ClickHouse at %s did "
			    "not answer within the fleet timeout (%" PRId64
			    " s)", c->url, c->timeout);
		else if (c->tls != NULL && r->conn != NULL &&
		    tls_bev_error(evhttp_connection_get_bufferevent(r->conn),
		    why, sizeof why))
			error_set(&r->err, ERR_BUSY, "ClickHouse at %s: %s "
			    "(CAs of %s)", c->url, why, c->ca_file ?
			    "fleet-ca-file" : "the system");
		else
			error_set(&r->err, ERR_BUSY, "ClickHouse at %s is "
			    "unreachable", c->url);
	} else if (r->code != 200)
		/* A refusal (memory, a shard down, a table not made yet)
		 * or, were it profd's bug, a bad query: ClickHouse's
		 * message says which. */
		error_set(&r->err, ERR_BUSY, "ClickHouse at %s answered %d: "
		    "%.*s", c->url, r->code, (int)r->errbody.n,
		    (const char *)r->errbody.p);
	if (r->posting)
		ch_end_later(r);
	else
		ch_finish(r);
}

struct ch_req *
ch_post(struct ch *c, const struct ch_request *rq)
{
	struct ch_req *r = xcalloc(1, sizeof *r);
	struct evhttp_request *req;
	char *enc, *uri;
	int rc;

	r->ch = c;
	r->r = *rq;
	httpc_deadline_init(&r->head, c->base);
	TAILQ_INSERT_TAIL(&c->inflight, r, entry);
	if (c->stopped) {
		ch_fail_later(r, ERR_BUSY, "profd is shutting down");
		return r;
	}
	if (c->nidle > 0)
		r->conn = c->idle[--c->nidle];
	else if (c->tls != NULL)
		r->conn = httpc_conn_new_tls(c->base, c->dns, c->tls, c->host,
		    c->port, c->timeout);
	else
		r->conn = httpc_conn_new(c->base, c->dns, c->host, c->port,
		    c->timeout);
	if (r->conn == NULL || (req = evhttp_request_new(ch_http_cb,
	    r)) == NULL) {
		ch_fail_later(r, ERR_INTERNAL, "cannot make a request to %s",
		    c->url);
		return r;
	}
	evhttp_request_set_header_cb(req, ch_head_cb);
	evhttp_request_set_chunked_cb(req, ch_chunk_cb);
	evhttp_request_set_error_cb(req, ch_error_cb);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Host",
	    c->host);
	if (rq->body != NULL) {
		enc = evhttp_encode_uri(rq->sql);
		if (rq->block_rows > 0)
			xasprintf(&uri, "%s?max_insert_block_size=%zu&query=%s",
			    c->path, rq->block_rows + 1, enc);
		else
			xasprintf(&uri, "%s?query=%s", c->path, enc);
		free(enc);
		evbuffer_add(evhttp_request_get_output_buffer(req), rq->body,
		    rq->n);
	} else {
		/* ClickHouse stops working at the timeout too. */
		xasprintf(&uri, "%s?max_execution_time=%" PRId64 "%s",
		    c->path, c->timeout, rq->one_thread ? "&max_threads=1" :
		    "");
		evbuffer_add(evhttp_request_get_output_buffer(req), rq->sql,
		    strlen(rq->sql));
	}
	r->req = req;
	r->posting = 1;
	httpc_deadline_start(&r->head, r->conn, c->timeout + CH_HEAD_SLACK);
	rc = httpc_make_request(r->conn, req, EVHTTP_REQ_POST, uri);
	r->posting = 0;
	free(uri);
	if (rc == -1) {
		/* The request is freed; the connection is not used again. */
		r->req = NULL;
		httpc_deadline_stop(&r->head);
		ch_fail_later(r, ERR_BUSY, "cannot send a request to %s",
		    c->url);
	}
	return r;
}

void
ch_cancel(struct ch_req *r)
{
	if (r == NULL)
		return;
	if (r->req != NULL)
		evhttp_cancel_request(r->req);
	r->req = NULL;
	httpc_deadline_stop(&r->head);
	TAILQ_REMOVE(&r->ch->inflight, r, entry);
	ch_conn_drop(r->ch, r->conn);
	ch_req_free(r);
}

void
ch_reading(struct ch_req *r, int on)
{
	struct bufferevent *bev;

	if (r->conn == NULL || r->req == NULL ||
	    (bev = evhttp_connection_get_bufferevent(r->conn)) == NULL)
		return;
	if (!on) {
		bufferevent_disable(bev, EV_READ);
		return;
	}
	bufferevent_enable(bev, EV_READ);
	/* What it read before it stopped is not news to the socket. */
	bufferevent_trigger(bev, EV_READ, BEV_OPT_DEFER_CALLBACKS);
}

void
ch_stop(struct ch *c)
{
	struct ch_req *r;

	if (c == NULL)
		return;
	c->stopped = 1;
	while (c->nidle > 0)
		evhttp_connection_free(c->idle[--c->nidle]);
	while ((r = TAILQ_FIRST(&c->inflight)) != NULL) {
		/* Not in a callback of the connection: freed now, with the
		 * request in flight (the loop may not run again). */
		if (r->conn != NULL)
			evhttp_connection_free(r->conn);
		r->conn = NULL;
		r->req = NULL;
		httpc_deadline_stop(&r->head);
		if (r->later != NULL)
			evtimer_del(r->later);
		error_set(&r->err, ERR_BUSY, "profd is shutting down");
		ch_finish(r);
	}
}

void
ch_free(struct ch *c)
{
	if (c == NULL)
		return;
	ch_stop(c);
	tls_ctx_free(c->tls);
	free(c->url);
	free(c->host);
	free(c->path);
	free(c);
}
