/* ch.h: ClickHouse's HTTP interface, the fleet's one client: its URL
 * (https: TLS with the server's certificate checked, base/tls.c),
 * connections kept alive (made with the resolver the scraper shares),
 * SQL POSTed (with rows in the body for an INSERT), the status and
 * ClickHouse's message made an error naming it and its URL, the answer
 * kept whole (bounded) or handed on as it streams in.  On the loop; the
 * query threads ask through ch-select.c.  Knows no SQL of its own. */
#ifndef PROFD_CH_H
#define PROFD_CH_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct event_base;
struct evdns_base;
struct evbuffer;
struct ch;
struct ch_req;

/* How long after the fleet timeout (ClickHouse's max_execution_time: a
 * query's head comes when its first block is ready) the head of an
 * answer may take, whole, before the request fails. */
#define CH_HEAD_SLACK		5
/* What is kept of an error answer: ClickHouse's message. */
#define CH_MAX_ERROR		400

/* ClickHouse's URL, http[s]://HOST[:PORT][/PATH]: its parts (copies;
 * tls 1 for https), or -1 with err (ERR_INPUT naming fleet-url). */
int ch_url_parse(const char *url, char **host, int *port, char **path,
    int *tls, struct error *);

/* NULL with err if the URL is not http[s]://host[:port][/path], or
 * ca_file (https: the PEM CAs ClickHouse's certificate is checked
 * against; NULL: the system's) cannot be read.  timeout: seconds of
 * silence at most, and ClickHouse's max_execution_time. */
struct ch *ch_new(struct event_base *, struct evdns_base *, const char *url,
    const char *ca_file, int64_t timeout, struct error *);
const char *ch_url(const struct ch *);
struct event_base *ch_base(const struct ch *);

struct ch_request {
	const char *sql;	/* the body, or with body set the query= */
	const void *body;	/* rows of an INSERT */
	size_t n;
	size_t block_rows;	/* INSERT: its rows in one block */
	/* A SELECT of a few rows asked beside others: one thread of
	 * ClickHouse's (max_threads=1), the other cores left to the
	 * larger ones rather than spent starting threads. */
	int one_thread;
	/* The 200 answer's bytes as they come, taken from in; NULL: kept
	 * whole, max_reply bytes at most, for done. */
	void (*data)(void *arg, struct evbuffer *in);
	size_t max_reply;
	/* Once, never within ch_post, unless cancelled: err NULL with the
	 * answer kept ("" when streamed), or the error. */
	void (*done)(void *arg, const char *reply, size_t n,
	    const struct error *err);
	void *arg;
};

/* Send it; the request is the caller's to cancel until done runs. */
struct ch_req *ch_post(struct ch *, const struct ch_request *);
/* Done is not called. */
void ch_cancel(struct ch_req *);
/* Stop or go on reading the answer (a reader that cannot keep up). */
void ch_reading(struct ch_req *, int on);
/* Every request in flight ends with "profd is shutting down". */
void ch_stop(struct ch *);
void ch_free(struct ch *);

#endif
