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
#include <sys/queue.h>

#include "config.h"
#include "reqbody.h"
#include "reqhead.h"
#include "server-http.h"

/* Where a connection is in its request. */
enum conn_state {
	C_IDLE,			/* between requests: no deadline */
	C_HEAD,			/* reading the head: header-timeout */
	C_BODY,			/* reading the body: body-timeout */
	C_HANDLER,		/* whole: libevent and the handler have it;
				 * what follows waits for its reply */
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
	struct event *next;		/* a reply done: read what waits */
	int fd;				/* -1 until known */
	int is_tcp;			/* fd is a TCP socket */
	enum conn_state state;
	int over;			/* accepted beyond max-connections */
	/* A listener with a head check (the TCP one): a connection is a
	 * stranger until a head of it passed with credentials. */
	int authed;
	int stranger;			/* in sh->strangers */
	TAILQ_ENTRY(conn) link;
	struct evbuffer *held;		/* the head, until the check passed */
	int paused;			/* reading stopped: a request waits */
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
	struct reqbody body;		/* where the body ends */
	uint64_t body_bytes;		/* counted in sh->inflight */
};
TAILQ_HEAD(conn_list, conn);

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
	struct event *trim;		/* the heap trimmed after bodies */
	uint64_t released;		/* body bytes released since */
	int64_t trimmed_ns;		/* the last trim (monotonic) */
	int64_t trim_due_ns;		/* the next, if no body is held */
	struct server_http *next;	/* in listening */
	int any_host;			/* no Host check, no page */
	struct tls_ctx *tls;		/* new connections' TLS; NULL: none */
	server_http_head_fn *head_check;	/* NULL: none */
	void *head_arg;
	struct conn_list strangers;	/* oldest first */
	size_t nstrangers, nauthed;
	uint64_t strangers_closed;	/* closed at tcp-max-unauthenticated */
	uint64_t bytes_read;		/* taken from the connections */
};

/* The guard's files, each calling only those below it: conn.c (a
 * connection's life), conn-in.c and conn-out.c (its filters),
 * conn-refuse.c (what they share). */

/* conn.c: evhttp_set_bevcb's callback: the filter over a new connection
 * (arg: the server_http). */
struct bufferevent *conn_new(struct event_base *, void *arg);
/* The guard of the connection a request came on, or NULL. */
struct conn *conn_of(struct server_http *, struct evhttp_request *);
/* evhttp_request_set_on_complete_cb: the reply is written (arg: conn). */
void conn_reply_done(struct evhttp_request *, void *arg);

/* conn-refuse.c.  Close c as a read timeout does (c is gone after, once
 * the loop ran). */
void conn_close(struct conn *);
/* Has evhttp let go of c (its callbacks cleared)? */
int conn_dead(struct conn *);
/* Answer with the guard's own JSON error and close, reading nothing
 * more from the socket (the peer's bytes stay in the kernel);
 * challenges: values of WWW-Authenticate, NULL ended (NULL: none). */
void conn_refuse(struct conn *, int status, const char *detail,
    const char *const *challenges);
void conn_arm(struct conn *, int64_t seconds);
void conn_register(struct conn *);
/* The body's bytes given back to the budget. */
void conn_release_body(struct conn *);
/* Is some of a refusal still on its way to the peer (in the buffer, or
 * not acknowledged: a close with unread bytes sends a reset)? */
int conn_unsent(struct conn *);
/* A head of c passed the check with credentials: c leaves the strangers
 * and takes one of max-connections; -1 if none is left (refused). */
int conn_authenticated(struct conn *);

/* conn-in.c: the input filter; a request's head begins. */
void conn_head_start(struct conn *);
enum bufferevent_filter_result conn_in(struct evbuffer *src,
    struct evbuffer *dst, ev_ssize_t lim, enum bufferevent_flush_mode,
    void *arg);

/* conn-out.c: the output filter, and the writes it makes. */
enum bufferevent_filter_result conn_out(struct evbuffer *src,
    struct evbuffer *dst, ev_ssize_t lim, enum bufferevent_flush_mode,
    void *arg);
void conn_tls_drained(struct evbuffer *, const struct evbuffer_cb_info *,
    void *arg);
void conn_output_added(struct evbuffer *, const struct evbuffer_cb_info *,
    void *arg);
void conn_kick_cb(evutil_socket_t, short, void *arg);

#endif
