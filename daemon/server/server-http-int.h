/* server-http-int.h: what the HTTP server (server-http.c) and the guard
 * around each of its connections (conn.c) share. */
#ifndef PROFD_SERVER_HTTP_INT_H
#define PROFD_SERVER_HTTP_INT_H

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <stddef.h>
#include <stdint.h>

#include "reqhead.h"
#include "config.h"

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
	struct bufferevent *under;	/* the socket, or TLS over it */
	struct evbuffer_cb_entry *under_cb;	/* TLS: its output drained */
	int tls;			/* under is TLS */
	int tls_end;			/* TLS: the output's end is in under */
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
	/* The request line's last bytes, for its version. */
	char line[24];
	size_t linelen;
	int line_done;
	struct reqhead rh;		/* its header lines (reqhead.c) */
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
	uint64_t refused_origin;
	int64_t warned_ns;		/* last accept warning */
	int64_t episode_ns;		/* first failed accept of an episode */
	uint64_t episode_errors;	/* failed accepts since the last one */
	struct event *trim;		/* conn.c: the heap trimmed after bodies */
	uint64_t released;		/* body bytes released since */
	int64_t trimmed_ns;		/* the last trim (monotonic) */
	int64_t trim_due_ns;		/* the next, if no body is held */
	struct server_http *next;	/* in listening */
	int any_host;			/* no Host check, no page */
	struct tls_ctx *tls;		/* new connections' TLS; NULL: none */
};

/* conn.c: evhttp_set_bevcb's callback: the filter over a new connection
 * (arg: the server_http). */
struct bufferevent *conn_new(struct event_base *, void *arg);
/* The guard of the connection a request came on, or NULL. */
struct conn *conn_of(struct server_http *, struct evhttp_request *);
/* evhttp_request_set_on_complete_cb: the reply is written (arg: conn). */
void conn_reply_done(struct evhttp_request *, void *arg);

#endif
