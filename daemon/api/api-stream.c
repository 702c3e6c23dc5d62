/* api-stream.c: a reply that the work sends as it goes (HTTP/1.1 chunked),
 * paced by the client.  The work (on its thread) hands bytes over with
 * api_stream_write(); the loop sends them.  While more than
 * STREAM_HIGH_WATER bytes wait to be written to the client, the work waits
 * too, until the client has read the connection's output down to
 * STREAM_LOW_WATER: a client that stops reading holds that much of
 * profd's memory, not the whole reply.
 *
 * What waits is counted on every output buffer of the connection's chain
 * of bufferevents (a filter may sit over the socket's), and a drain of the
 * last one (the socket's) wakes the work.
 *
 * The end waits until the whole reply has been written to the socket
 * before it ends the request: the filter's write callbacks are deferred,
 * so one queued when an earlier chunk drained can run after
 * evhttp_send_reply_end, and evhttp, thinking the reply sent, stops
 * writing (or closes the connection) with its end still in the buffers.
 * So the stream outlives its call until then, and the end is checked on a
 * timer, after the callbacks queued before it.
 *
 * A client that takes gzip gets the stream gzipped as it is written, by
 * the work on its thread (one gzip member, ended by api_stream_last),
 * each write flushed (a few bytes on writes of 64 KiB and more) so that
 * what the work wrote reaches the client at once, as plain: the pacing
 * counts the compressed bytes, the ones that wait. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "api.h"
#include "buf.h"
#include "clock.h"
#include "deflate.h"
#include "http-accept.h"
#include "jobq.h"

#define STREAM_HIGH_WATER	(1024 * 1024)
#define STREAM_LOW_WATER	(256 * 1024)
#define STREAM_MAX_OUTS		4	/* bufferevents in a connection's chain */
#define STREAM_ABORT_POLL_NS	(100 * 1000000LL)

struct api_stream {
	struct api_call *call;		/* NULL once the work is done */
	struct evhttp_request *req;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* Under mu. */
	struct evbuffer *pending;	/* written, not yet handed to evhttp */
	size_t unsent;			/* the connection's output, last count */
	int closed;			/* the client is gone */
	int started;			/* the work has written */
	/* The work's own: the gzip of the reply, or NULL. */
	struct deflate_stream *gz;
	struct buf zout;		/* its output of one write */
	int gz_ended;			/* the member's trailer is written */
	/* The loop's own. */
	const char *type;
	struct event *wrote;		/* the work wrote: send it */
	struct evbuffer *chunk;
	int replying;			/* the status line is out */
	int ending;			/* the last chunk is on its way */
	struct event *finish;		/* all written: end the request */
	struct evhttp_connection *evcon;	/* NULL once the client is gone */
	struct evbuffer *outs[STREAM_MAX_OUTS];
	size_t nouts;
	struct evbuffer_cb_entry *drained;	/* on outs[nouts - 1] */
};

/* On the loop: bytes of the reply in the connection's buffers. */
static size_t
stream_unsent(const struct api_stream *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nouts; i++)
		n += evbuffer_get_length(s->outs[i]);
	return n;
}

/* On the loop: what the connection has not written yet, for the work. */
static void
stream_count(struct api_stream *s)
{
	size_t n = stream_unsent(s);

	pthread_mutex_lock(&s->mu);
	s->unsent = n;
	if (s->closed || evbuffer_get_length(s->pending) + n <=
	    STREAM_LOW_WATER)
		pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* Not at once: a drain is seen inside the filter's writes, and the
 * filter's deferred write callbacks queued so far must run first (a
 * timer becomes active after them). */
static void
stream_finish_later(struct api_stream *s)
{
	event_add(s->finish, &(struct timeval){ 0, 0 });
}

static void
stream_drained_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info,
    void *arg)
{
	struct api_stream *s = arg;

	if (info->n_deleted > 0)
		stream_count(s);
	if (s->ending && stream_unsent(s) == 0)
		stream_finish_later(s);
}

/* libevent frees the connection (the client closed it, or it timed out);
 * the request stays ours until evhttp_send_reply_end. */
static void
stream_closed_cb(struct evhttp_connection *evcon, void *arg)
{
	struct api_stream *s = arg;

	s->evcon = NULL;
	s->drained = NULL;		/* freed with the buffer */
	s->nouts = 0;
	pthread_mutex_lock(&s->mu);
	s->closed = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	/* A request libevent has detached is ours to end (which frees
	 * it); one still on the connection goes with it. */
	if (s->ending) {
		if (evhttp_request_get_connection(s->req) == NULL)
			evhttp_send_reply_end(s->req);
		api_stream_free(s);
	}
}

/* A connection freed without its close callback still detaches the
 * request: then its buffers are gone too. */
static void
stream_check(struct api_stream *s)
{
	if (s->evcon != NULL &&
	    evhttp_request_get_connection(s->req) == NULL)
		stream_closed_cb(NULL, s);
}

/* The status line and headers, and the watch over the connection. */
static void
stream_begin(struct api_stream *s)
{
	struct evhttp_request *req = s->req;
	struct bufferevent *bev;

	s->replying = 1;
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", s->type);
	if (s->gz != NULL) {
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Content-Encoding", "gzip");
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Vary", "Accept-Encoding");
	}
	evhttp_send_reply_start(req, 200, NULL);
	if ((s->evcon = evhttp_request_get_connection(req)) == NULL) {
		stream_closed_cb(NULL, s);
		return;
	}
	evhttp_connection_set_closecb(s->evcon, stream_closed_cb, s);
	for (bev = evhttp_connection_get_bufferevent(s->evcon);
	    bev != NULL && s->nouts < STREAM_MAX_OUTS;
	    bev = bufferevent_get_underlying(bev))
		s->outs[s->nouts++] = bufferevent_get_output(bev);
	if (s->nouts > 0)
		s->drained = evbuffer_add_cb(s->outs[s->nouts - 1],
		    stream_drained_cb, s);
}

/* On the loop: send what the work has written. */
static void
stream_send(struct api_stream *s)
{
	pthread_mutex_lock(&s->mu);
	evbuffer_add_buffer(s->chunk, s->pending);
	pthread_mutex_unlock(&s->mu);
	stream_check(s);
	if (!s->replying)
		stream_begin(s);
	/* A no-op once the client is gone. */
	evhttp_send_reply_chunk(s->req, s->chunk);
	evbuffer_drain(s->chunk, evbuffer_get_length(s->chunk));
	stream_count(s);
}

static void
stream_wrote_cb(evutil_socket_t fd, short what, void *arg)
{
	stream_send(arg);
}

static void stream_finish_cb(evutil_socket_t, short, void *);

int
api_stream_open(struct api_call *call, const char *type)
{
	struct evhttp_connection *evcon;
	struct api_stream *s;
	pthread_condattr_t ca;

	if ((evcon = evhttp_request_get_connection(call->req)) == NULL)
		return -1;
	if ((s = calloc(1, sizeof *s)) == NULL)
		return -1;
	s->call = call;
	s->req = call->req;
	s->type = type;
	s->pending = evbuffer_new();
	s->chunk = evbuffer_new();
	s->wrote = event_new(evhttp_connection_get_base(evcon), -1, 0,
	    stream_wrote_cb, s);
	s->finish = event_new(evhttp_connection_get_base(evcon), -1, 0,
	    stream_finish_cb, s);
	if (s->pending == NULL || s->chunk == NULL || s->wrote == NULL ||
	    s->finish == NULL) {
		if (s->pending != NULL)
			evbuffer_free(s->pending);
		if (s->chunk != NULL)
			evbuffer_free(s->chunk);
		if (s->wrote != NULL)
			event_free(s->wrote);
		if (s->finish != NULL)
			event_free(s->finish);
		free(s);
		return -1;
	}
	pthread_mutex_init(&s->mu, NULL);
	/* Waits end at a deadline on the monotonic clock. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);
	/* Without the deflate's state, the stream goes plain. */
	if (http_accept_gzip(evhttp_find_header(evhttp_request_get_input_headers(
	    call->req), "Accept-Encoding")))
		s->gz = deflate_stream_new(DEFLATE_REPLY_LEVEL);
	call->stream = s;
	return 0;
}

int
api_stream_write(struct api_call *call, const void *p, size_t n,
    int64_t deadline_ns, struct error *err)
{
	struct api_stream *s = call->stream;
	struct timespec ts;
	int64_t until;
	int rc = 0;

	if (n == 0)
		return 0;
	if (s->gz != NULL && !s->gz_ended) {
		s->zout.n = 0;
		if (deflate_stream_write(s->gz, p, n, DEFLATE_SYNC,
		    &s->zout) == -1)
			return error_set(err, ERR_INTERNAL, "gzip of the reply "
			    "failed");
		p = s->zout.p;
		n = s->zout.n;
	}
	/* The call's own end (query-timeout) ends the wait too. */
	if (call->cancel.deadline_ns != 0 &&
	    call->cancel.deadline_ns < deadline_ns)
		deadline_ns = call->cancel.deadline_ns;
	pthread_mutex_lock(&s->mu);
	if (evbuffer_get_length(s->pending) + s->unsent >= STREAM_HIGH_WATER) {
		while (!s->closed && evbuffer_get_length(s->pending) +
		    s->unsent > STREAM_LOW_WATER) {
			/* A shutdown that stops waiting sets the host's abort
			 * flag, and the time runs out, with no stream
			 * signalled: look a few times a second. */
			if (cancel_check(&call->cancel, err) == -1) {
				rc = -1;
				break;
			}
			if (mono_ns() >= deadline_ns) {
				rc = error_set(err, ERR_TIMEOUT, "the client "
				    "did not read the reply in time");
				break;
			}
			until = mono_ns() + STREAM_ABORT_POLL_NS;
			if (until > deadline_ns)
				until = deadline_ns;
			ts.tv_sec = (time_t)(until / 1000000000);
			ts.tv_nsec = (long)(until % 1000000000);
			pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		}
	}
	if (rc == 0 && s->closed) {
		/* Counted as any read whose client left. */
		atomic_store(&call->cancel.gone, 1);
		rc = cancel_check(&call->cancel, err);
	}
	if (rc == 0 && evbuffer_add(s->pending, p, n) == -1)
		rc = error_set(err, ERR_BUSY, "out of memory for the reply");
	if (rc == 0)
		s->started = 1;
	pthread_mutex_unlock(&s->mu);
	/* Not event_active(): see jobq.c. */
	if (rc == 0)
		jobq_activate(s->wrote);
	return rc;
}

int
api_stream_last(struct api_call *call, const void *p, size_t n)
{
	struct api_stream *s = call->stream;
	int rc;

	if (s->gz != NULL) {
		/* After the trailer nothing is part of the member. */
		if (s->gz_ended)
			return 0;
		s->zout.n = 0;
		s->gz_ended = 1;
		if (deflate_stream_write(s->gz, p, n, DEFLATE_END,
		    &s->zout) == -1)
			return -1;
		p = s->zout.p;
		n = s->zout.n;
	}
	pthread_mutex_lock(&s->mu);
	rc = n > 0 ? evbuffer_add(s->pending, p, n) : 0;
	s->started = 1;
	pthread_mutex_unlock(&s->mu);
	return rc;
}

int
api_stream_started(const struct api_call *call)
{
	struct api_stream *s = call->stream;
	int started;

	if (s == NULL)
		return 0;
	pthread_mutex_lock(&s->mu);
	started = s->started;
	pthread_mutex_unlock(&s->mu);
	return started;
}

/* On the loop: the reply is whole and out of our hands. */
static void
stream_finish(struct api_stream *s)
{
	if (s->evcon != NULL) {
		evhttp_connection_set_closecb(s->evcon, NULL, NULL);
		if (s->drained != NULL)
			evbuffer_remove_cb_entry(s->outs[s->nouts - 1],
			    s->drained);
	}
	evhttp_send_reply_end(s->req);
	api_stream_free(s);
}

static void
stream_finish_cb(evutil_socket_t fd, short what, void *arg)
{
	struct api_stream *s = arg;

	if (s->evcon == NULL || stream_unsent(s) == 0)
		stream_finish(s);
}

void
api_stream_end(struct api_call *call)
{
	struct api_stream *s = call->stream;

	/* The call is freed now; the stream when the reply is out. */
	call->stream = NULL;
	call->req = NULL;
	s->call = NULL;
	stream_send(s);
	s->ending = 1;
	stream_finish_later(s);
}

void
api_stream_free(struct api_stream *s)
{
	if (s == NULL)
		return;
	deflate_stream_free(s->gz);
	buf_free(&s->zout);
	event_free(s->wrote);
	event_free(s->finish);
	evbuffer_free(s->pending);
	evbuffer_free(s->chunk);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
