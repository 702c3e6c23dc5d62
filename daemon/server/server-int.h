/* server-int.h: the daemon's state, shared by its start-up and shut-down
 * (server.c) and what its loop does besides HTTP (server-events.c). */
#ifndef PROFD_SERVER_INT_H
#define PROFD_SERVER_INT_H

#include <event2/event.h>
#include <event2/http.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stdint.h>

#include "api.h"
#include "config.h"
#include "import.h"
#include "query.h"

struct server {
	struct config *cfg;		/* replaced on SIGHUP */
	struct config **old_cfgs;	/* kept: threads may point into them */
	size_t nold_cfgs;
	int argc;
	char **argv;
	struct import_worker iw;	/* the import thread's state */
	struct query_worker *readers;	/* the query threads' */
	void **rwp;			/* &readers[i], for jobq_new */
	struct query_worker *fleet_readers;	/* the fleet's (no store) */
	void **fwp;
	void *iwp, *no_state;		/* &iw; the I/O thread's (none) */
	struct csindex *index;		/* shared by queries and GC */
	char *updir;
	/* What the endpoints use: queues, uploads, activity, retainer,
	 * counters (api.h). */
	struct api_host host;
	struct event *retention;	/* the periodic pass */
	atomic_int stopping;		/* SIGTERM: roll back long imports */
	struct server_http *guard;	/* limits and deadlines per connection */
	/* The TCP listener (server-tcp.c), NULL without listen-tcp. */
	struct server_http *tcp_guard;
	struct evhttp *tcp_http;
	int tcp_fd;			/* until evhttp has it; -1: none */
	char *tcp_name;			/* what it is bound to */
	uint64_t tcp_requests, tcp_unauthorized, tcp_not_found;
	uint64_t tcp_forbidden;		/* 403: the other kind's credential */
	struct tls_ctx *tls;		/* tls-cert and tls-key; NULL: none */
	char *tls_reload_error;		/* the last SIGHUP's, NULL: none */
	struct event *drain;		/* after SIGTERM, until idle */
	int64_t stop_deadline_ns;	/* exit by then (monotonic; 0: none) */
	struct event_base *base;
	struct evhttp *http;
	struct spool *spool;		/* NULL: no spool directory */
	struct evdns_base *dns;		/* the one resolver of names */
	struct ch *ch;			/* ClickHouse; NULL: no fleet */
	struct fleet *fleet;		/* NULL: no shipping */
	struct ch_select *chs;		/* fleet=1 views' questions */
	struct fleet_reader *reader;	/* and what they read */
	struct scraper *scraper;
	struct secrets *secrets;	/* secrets.c: files others may read */
	char *listen_path;		/* what the socket is bound to */
	int fd;				/* the listening socket until evhttp has it */
	int activated;			/* systemd's socket: it owns the path */
	struct event *sigs[3], *sweep, *status, *watchdog;
	uint64_t status_done, status_failed;	/* last sent in STATUS= */
};

/* server-tcp.c: the TCP listener of listen-tcp.  Open reads tls-cert and
 * tls-key, binds and listens (before detaching, so that a refusal is
 * seen), -1 after logging why: an address that is not loopback needs a
 * credential, and TLS unless tcp-insecure.  Start serves it on the loop;
 * 0 and nothing done without listen-tcp.  Reload (SIGHUP) reads the
 * certificate and key again: new connections get them, or the old ones
 * if they do not do. */
int server_tcp_open(struct server *);
int server_tcp_start(struct server *);
void server_tcp_reload(struct server *);
/* Its status provider (ctx: the server): null without a listener. */
json_t *server_tcp_status(void *ctx);
void server_tcp_free(struct server *);

/* server-status.c: the status providers of the server's parts
 * registered with the API, once they all exist (before the loop runs). */
void server_status_register(struct server *);

/* server-events.c: signals, timers, systemd notifications. */
void server_events_start(struct server *);
/* Make what runs give up now (imports roll back, queries and streamed
 * replies end), saying why and what; once. */
void server_cut_short(struct server *, const char *why);
/* Tell systemd we serve (READY=1 with a status line). */
void server_events_ready(struct server *);
void server_events_free(struct server *);

#endif
