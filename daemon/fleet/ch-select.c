/* ch-select.c: a select shared by a query thread and the loop.  The
 * thread queues it and wakes the loop (jobq_activate: no libevent lock
 * on the thread, see jobq.c); the loop posts it (ch.c) and moves the
 * answer's bytes into the select's buffer as they come, stopping its
 * reading past CHS_HIGH bytes waiting; the thread takes them, parses
 * them with its own lock released, and asks the loop to read on once it
 * has taken them all.  The same wake-up carries a thread's giving up
 * (cancel).  Each side drops its reference when done with the select;
 * the last frees it. */
#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "cancel.h"
#include "ch-select.h"
#include "ch.h"
#include "clock.h"
#include "fleet-tsv.h"
#include "jobq.h"
#include "nitems.h"

/* Bytes of an answer waiting for the thread before the loop stops
 * reading. */
#define CHS_HIGH		(1024 * 1024)
/* A line of an answer (a stack's frames) may be this long. */
#define CHS_MAX_LINE		(64u * 1024 * 1024)
/* How often a waiting thread looks at the abort flag. */
#define CHS_POLL_NS		(100 * 1000000LL)

struct chs_q {
	TAILQ_ENTRY(chs_q) entry;	/* the hub's, under its lock */
	struct ch_select *hub;
	char *sql;
	struct ch_req *req;		/* the loop's, in flight */
	/* Under the hub's lock: */
	struct evbuffer *in;		/* come, not yet taken */
	int one_thread;			/* ch_request's */
	int started, done, paused;
	int resume, cancel;		/* asked by the thread */
	int refs;
	struct error err;
};

struct ch_select {
	struct ch *ch;
	const atomic_int *abort;
	struct event *kick;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* a select's news, for threads */
	TAILQ_HEAD(, chs_q) qs;		/* asked or in flight */
	int stopped;
	size_t peak;			/* the most bytes a select held */
	uint64_t pauses;		/* times the loop stopped reading */
};

static void chs_kick_cb(evutil_socket_t, short, void *);

struct ch_select *
ch_select_new(struct ch *c, const atomic_int *abort)
{
	struct ch_select *h = xcalloc(1, sizeof *h);
	pthread_condattr_t ca;

	h->ch = c;
	h->abort = abort;
	h->kick = event_new(ch_base(c), -1, 0, chs_kick_cb, h);
	pthread_mutex_init(&h->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cv, &ca);
	pthread_condattr_destroy(&ca);
	TAILQ_INIT(&h->qs);
	return h;
}

/* Under the hub's lock. */
static void
chs_unref(struct chs_q *q)
{
	if (--q->refs > 0)
		return;
	evbuffer_free(q->in);
	free(q->sql);
	free(q);
}

/* The loop is done with q: off the list, the thread told.  Locked. */
static void
chs_end(struct chs_q *q, const struct error *err)
{
	struct ch_select *h = q->hub;

	q->req = NULL;
	q->done = 1;
	if (err != NULL)
		error_set(&q->err, err->kind, "%s", err->msg);
	TAILQ_REMOVE(&h->qs, q, entry);
	pthread_cond_broadcast(&h->cv);
	chs_unref(q);
}

static void
chs_data(void *arg, struct evbuffer *in)
{
	struct chs_q *q = arg;
	struct ch_select *h = q->hub;

	pthread_mutex_lock(&h->mu);
	evbuffer_add_buffer(q->in, in);
	if (evbuffer_get_length(q->in) > h->peak)
		h->peak = evbuffer_get_length(q->in);
	if (evbuffer_get_length(q->in) > CHS_HIGH && !q->paused) {
		q->paused = 1;
		h->pauses++;
		ch_reading(q->req, 0);
	}
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

static void
chs_done(void *arg, const char *reply, size_t n, const struct error *err)
{
	struct chs_q *q = arg;
	struct ch_select *h = q->hub;

	(void)reply;
	(void)n;
	pthread_mutex_lock(&h->mu);
	chs_end(q, err);
	pthread_mutex_unlock(&h->mu);
}

/* On the loop: what the threads asked. */
static void
chs_kick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ch_select *h = arg;
	struct chs_q *q, *next;
	struct ch_request rq;
	struct error err = { 0 };

	(void)fd;
	(void)what;
	pthread_mutex_lock(&h->mu);
	for (q = TAILQ_FIRST(&h->qs); q != NULL; q = next) {
		next = TAILQ_NEXT(q, entry);
		if (q->cancel) {
			ch_cancel(q->req);
			error_set(&err, ERR_BUSY, "cancelled");
			chs_end(q, &err);
		} else if (!q->started) {
			q->started = 1;
			memset(&rq, 0, sizeof rq);
			rq.sql = q->sql;
			rq.one_thread = q->one_thread;
			rq.data = chs_data;
			rq.done = chs_done;
			rq.arg = q;
			/* Its callbacks run later, from the loop: the lock
			 * is not taken again within. */
			q->req = ch_post(h->ch, &rq);
		} else if (q->resume) {
			q->resume = 0;
			q->paused = 0;
			ch_reading(q->req, 1);
		}
	}
	pthread_mutex_unlock(&h->mu);
}

/* Ask the loop to look at the selects (from a query thread). */
static void
chs_wake(struct ch_select *h)
{
	jobq_activate(h->kick);
}

/* Wait for news of q, at most CHS_POLL_NS.  Locked. */
static void
chs_wait(struct ch_select *h)
{
	struct timespec ts;
	int64_t until = mono_ns() + CHS_POLL_NS;

	ts.tv_sec = (time_t)(until / 1000000000);
	ts.tv_nsec = (long)(until % 1000000000);
	pthread_cond_timedwait(&h->cv, &h->mu, &ts);
}

/* Has a shutdown stopped waiting? */
static int
chs_aborted(const struct ch_select *h)
{
	return h->abort != NULL && atomic_load(h->abort);
}

/* Feed what came to the reader; -1 with err if a line is bad. */
static int
chs_parse(struct fleet_tsv *tsv, struct evbuffer *got, struct error *err)
{
	struct evbuffer_iovec v[8];
	int nv, i, rc = 0;

	while (rc == 0 && evbuffer_get_length(got) > 0) {
		nv = evbuffer_peek(got, -1, NULL, v, NITEMS(v));
		if (nv > (int)NITEMS(v))
			nv = NITEMS(v);
		for (i = 0; i < nv && rc == 0; i++)
			rc = fleet_tsv_feed(tsv, v[i].iov_base, v[i].iov_len,
			    err);
		for (i = 0; i < nv; i++)
			evbuffer_drain(got, v[i].iov_len);
	}
	return rc;
}

struct chs_q *
ch_select_start(struct ch_select *h, const char *sql, int one_thread)
{
	struct chs_q *q = xcalloc(1, sizeof *q);
	int stopped;

	q->hub = h;
	q->sql = xstrdup(sql);
	q->one_thread = one_thread;
	q->in = evbuffer_new();
	q->refs = 2;
	pthread_mutex_lock(&h->mu);
	if ((stopped = h->stopped)) {
		q->refs = 1;
		q->done = 1;
		error_set(&q->err, ERR_BUSY, "profd is shutting down");
	} else
		TAILQ_INSERT_TAIL(&h->qs, q, entry);
	pthread_mutex_unlock(&h->mu);
	if (!stopped)
		chs_wake(h);
	return q;
}

/* q's answer to row (NULL: none wanted, q given up at once), then q
 * freed: a select started is always finished so. */
static int
chs_finish(struct chs_q *q,
    int (*row)(void *, struct fleet_tsv_field *, size_t, struct error *),
    void *arg, struct error *err)
{
	struct ch_select *h = q->hub;
	struct evbuffer *got = evbuffer_new();
	struct fleet_tsv tsv;
	int rc = 0, done = 0, giveup = row == NULL, wake;

	fleet_tsv_init(&tsv, CHS_MAX_LINE, row, arg);
	while (!done) {
		pthread_mutex_lock(&h->mu);
		for (;;) {
			if (!giveup && chs_aborted(h)) {
				giveup = 1;
				rc = error_set(err, ERR_BUSY, "profd is shutting "
				    "down");
			}
			/* The view it works for was cancelled (its client
			 * left, query-timeout): ClickHouse's request too. */
			if (!giveup && cancel_check(cancel_current(),
			    err) == -1) {
				giveup = 1;
				rc = -1;
			}
			if (q->done || (giveup && !q->cancel) || (!giveup &&
			    evbuffer_get_length(q->in) > 0))
				break;
			chs_wait(h);
		}
		if (giveup)
			evbuffer_drain(q->in, evbuffer_get_length(q->in));
		else
			evbuffer_add_buffer(got, q->in);
		done = q->done;
		if (done && rc == 0 && row != NULL &&
		    q->err.kind != ERR_NONE)
			rc = error_set(err, q->err.kind, "%s", q->err.msg);
		wake = 0;
		if (!done && giveup && !q->cancel)
			wake = q->cancel = 1;
		else if (!done && !giveup && q->paused && !q->resume)
			/* All it held is taken: it reads on while this
			 * parses. */
			wake = q->resume = 1;
		pthread_mutex_unlock(&h->mu);
		if (wake)
			chs_wake(h);
		/* Parsed with no lock held. */
		if (!giveup && rc == 0 && chs_parse(&tsv, got, err) == -1) {
			rc = -1;
			giveup = 1;
		}
	}
	if (rc == 0 && row != NULL)
		rc = fleet_tsv_end(&tsv, err);
	fleet_tsv_clear(&tsv);
	evbuffer_free(got);
	pthread_mutex_lock(&h->mu);
	chs_unref(q);
	pthread_mutex_unlock(&h->mu);
	return rc;
}

int
ch_select_read(struct chs_q *q,
    int (*row)(void *, struct fleet_tsv_field *, size_t, struct error *),
    void *arg, struct error *err)
{
	return chs_finish(q, row, arg, err);
}

void
ch_select_drop(struct chs_q *q)
{
	struct error err = { 0 };

	if (q != NULL)
		chs_finish(q, NULL, NULL, &err);
}

int
ch_select(struct ch_select *h, const char *sql,
    int (*row)(void *, struct fleet_tsv_field *, size_t, struct error *),
    void *arg, struct error *err)
{
	return chs_finish(ch_select_start(h, sql, 0), row, arg, err);
}

void
ch_select_counts(struct ch_select *h, size_t *peak, uint64_t *pauses)
{
	pthread_mutex_lock(&h->mu);
	*peak = h->peak;
	*pauses = h->pauses;
	pthread_mutex_unlock(&h->mu);
}

void
ch_select_stop(struct ch_select *h)
{
	struct chs_q *q;
	struct error err = { 0 };

	if (h == NULL)
		return;
	error_set(&err, ERR_BUSY, "profd is shutting down");
	pthread_mutex_lock(&h->mu);
	h->stopped = 1;
	while ((q = TAILQ_FIRST(&h->qs)) != NULL) {
		ch_cancel(q->req);
		chs_end(q, &err);
	}
	pthread_mutex_unlock(&h->mu);
}

void
ch_select_free(struct ch_select *h)
{
	if (h == NULL)
		return;
	ch_select_stop(h);
	if (h->kick != NULL)
		event_free(h->kick);
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	free(h);
}
