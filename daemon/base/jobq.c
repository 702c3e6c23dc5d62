/* jobq.c: worker threads fed by a mutex/condvar queue; finished jobs go to
 * a done list and the queue's eventfd wakes the loop.
 *
 * A worker never calls into libevent to wake the loop: event_active()
 * takes the event base's lock and writes to libevent's notify descriptor
 * while holding it, and that write wakes the loop, which may take the core
 * from the worker (the loop runs at a higher priority) only to block on
 * the lock the preempted worker holds; the loop then waits until the
 * worker gets a core again (up to 17 ms seen under load).  The eventfd is
 * written with no lock held, and events a job wants made active
 * (jobq_activate) go through the same wake-up.
 *
 * A guest's job waits, in its order, while guests hold every worker but
 * one: a worker takes the first job it may run, passing over those. */
#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "jobq.h"

struct worker {
	struct jobq *q;
	void *state;
	pthread_t thread;
};

struct jobq {
	char name[16];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_cond_t idle_cv;		/* running fell to 0 (monotonic) */
	struct job *head, *tail;	/* waiting */
	struct job *done;		/* finished, for the loop */
	struct event **activate;	/* for the loop to make active */
	size_t nactivate, aactivate;
	size_t depth, max_depth, running;
	size_t guests_waiting, guests_running, max_guests;
	int stopping;
	int efd;			/* eventfd: wakes the loop */
	struct event *wake;
	struct worker *workers;
	int nworkers;
	int nice;		/* added to the loop's nice value */
};

/* The queue whose worker this thread is, for jobq_activate. */
static _Thread_local struct jobq *jobq_self;

/* With no lock held (see the top). */
static void
jobq_ring(struct jobq *q)
{
	uint64_t one = 1;

	while (write(q->efd, &one, sizeof one) == -1 && errno == EINTR)
		;
}

/* The first waiting job a worker may run now, taken off the list: a
 * guest's only while guests hold fewer than max_guests workers.  Locked. */
static struct job *
jobq_take(struct jobq *q)
{
	struct job *j, *prev = NULL;

	for (j = q->head; j != NULL; prev = j, j = j->next)
		if (!j->guest || q->guests_running < q->max_guests)
			break;
	if (j == NULL)
		return NULL;
	if (prev != NULL)
		prev->next = j->next;
	else
		q->head = j->next;
	if (q->tail == j)
		q->tail = prev;
	q->depth--;
	if (j->guest) {
		q->guests_waiting--;
		q->guests_running++;
	}
	return j;
}

static void *
jobq_worker_main(void *arg)
{
	struct worker *w = arg;
	struct jobq *q = w->q;
	struct job *j;

	/* Below the loop, which must get a core at once when a request
	 * arrives: a busy worker otherwise holds it until its time slice
	 * ends (on Linux the nice value is the thread's, inherited from the
	 * loop's thread that created this one). */
	if (q->nice > 0)
		setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) +
		    q->nice);
	jobq_self = q;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while ((j = jobq_take(q)) == NULL && !q->stopping)
			pthread_cond_wait(&q->cv, &q->mu);
		if (j == NULL)
			break;
		q->running++;
		pthread_mutex_unlock(&q->mu);

		j->run(j, w->state);

		pthread_mutex_lock(&q->mu);
		if (j->guest)
			q->guests_running--;
		if (--q->running == 0)
			pthread_cond_broadcast(&q->idle_cv);
		j->next = q->done;
		q->done = j;
		pthread_mutex_unlock(&q->mu);
		jobq_ring(q);
		pthread_mutex_lock(&q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

void
jobq_activate(struct event *ev)
{
	struct jobq *q = jobq_self;

	if (q == NULL) {
		event_active(ev, EV_READ, 0);
		return;
	}
	pthread_mutex_lock(&q->mu);
	if (q->nactivate == 0 || q->activate[q->nactivate - 1] != ev) {
		if (q->nactivate == q->aactivate) {
			q->aactivate = q->aactivate ? q->aactivate * 2 : 8;
			q->activate = xreallocarray(q->activate, q->aactivate,
			    sizeof *q->activate);
		}
		q->activate[q->nactivate++] = ev;
	}
	pthread_mutex_unlock(&q->mu);
	jobq_ring(q);
}

/* On the loop: make active the events jobs asked for, then hand every
 * finished job to its done callback, in the order they finished.  The
 * eventfd is read first: a wake-up rung after that is seen next time. */
static void
jobq_wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct jobq *q = arg;
	struct job *list, *rev = NULL, *next;
	struct event **act;
	size_t nact, i;
	uint64_t n;

	if (fd >= 0)
		while (read(fd, &n, sizeof n) == -1 && errno == EINTR)
			;
	pthread_mutex_lock(&q->mu);
	list = q->done;
	q->done = NULL;
	act = q->activate;
	nact = q->nactivate;
	q->activate = NULL;
	q->nactivate = q->aactivate = 0;
	pthread_mutex_unlock(&q->mu);
	for (i = 0; i < nact; i++)
		event_active(act[i], EV_READ, 0);
	free(act);
	for (; list != NULL; list = next) {
		next = list->next;
		list->next = rev;
		rev = list;
	}
	for (; rev != NULL; rev = next) {
		next = rev->next;
		rev->done(rev);
	}
}

struct jobq *
jobq_new(struct event_base *base, const char *name, void **workers,
    int nworkers, size_t max_depth, int nice)
{
	struct jobq *q = xcalloc(1, sizeof *q);
	int i;

	pthread_condattr_t ca;

	snprintf(q->name, sizeof q->name, "%s", name);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->idle_cv, &ca);
	pthread_condattr_destroy(&ca);
	q->max_depth = max_depth;
	q->max_guests = nworkers > 1 ? (size_t)nworkers - 1 : 1;
	q->nice = nice;
	if ((q->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1) {
		fprintf(stderr, "profd: eventfd: %s\n", strerror(errno));
		abort();
	}
	q->wake = event_new(base, q->efd, EV_READ | EV_PERSIST, jobq_wake_cb,
	    q);
	event_add(q->wake, NULL);
	q->workers = xcalloc((size_t)nworkers, sizeof *q->workers);
	q->nworkers = nworkers;
	for (i = 0; i < nworkers; i++) {
		char tname[16];

		q->workers[i].q = q;
		q->workers[i].state = workers[i];
		if (pthread_create(&q->workers[i].thread, NULL,
		    jobq_worker_main, &q->workers[i]) != 0) {
			fprintf(stderr, "profd: cannot start a thread\n");
			abort();
		}
		snprintf(tname, sizeof tname, "%s-%d", name, i);
		pthread_setname_np(q->workers[i].thread, tname);
	}
	return q;
}

int
jobq_push(struct jobq *q, struct job *j)
{
	pthread_mutex_lock(&q->mu);
	if (q->stopping || q->depth >= q->max_depth || (j->guest &&
	    q->guests_waiting >= (q->max_depth + 1) / 2)) {
		pthread_mutex_unlock(&q->mu);
		return -1;
	}
	if (j->guest)
		q->guests_waiting++;
	j->next = NULL;
	if (q->tail != NULL)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
	q->depth++;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return 0;
}

size_t
jobq_depth(struct jobq *q)
{
	size_t n;

	pthread_mutex_lock(&q->mu);
	n = q->depth;
	pthread_mutex_unlock(&q->mu);
	return n;
}

size_t
jobq_running(struct jobq *q)
{
	size_t n;

	pthread_mutex_lock(&q->mu);
	n = q->running;
	pthread_mutex_unlock(&q->mu);
	return n;
}

/* Drop the jobs never run through their done callback, run unset. */
static void
jobq_drop(struct job *waiting)
{
	while (waiting != NULL) {
		struct job *next = waiting->next;

		waiting->run = NULL;
		waiting->done(waiting);
		waiting = next;
	}
}

/* Stop taking jobs and wake the workers to end; the waiting jobs are
 * returned, for jobq_drop. */
static struct job *
jobq_stop(struct jobq *q)
{
	struct job *waiting;

	pthread_mutex_lock(&q->mu);
	q->stopping = 1;
	waiting = q->head;
	q->head = q->tail = NULL;
	q->depth = 0;
	q->guests_waiting = 0;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return waiting;
}

void
jobq_drain(struct jobq *q)
{
	jobq_drop(jobq_stop(q));
}

int
jobq_wait_running(struct jobq *q, int64_t deadline_ns)
{
	struct timespec ts = { (time_t)(deadline_ns / 1000000000),
	    (long)(deadline_ns % 1000000000) };
	int rc = 0;

	if (q == NULL)
		return 0;
	pthread_mutex_lock(&q->mu);
	while (q->running > 0 && rc == 0)
		if (pthread_cond_timedwait(&q->idle_cv, &q->mu, &ts) ==
		    ETIMEDOUT && q->running > 0)
			rc = -1;
	pthread_mutex_unlock(&q->mu);
	return rc;
}

int
jobq_idle(struct jobq *q)
{
	int idle;

	pthread_mutex_lock(&q->mu);
	idle = q->head == NULL && q->running == 0 && q->done == NULL;
	pthread_mutex_unlock(&q->mu);
	return idle;
}

void
jobq_free(struct jobq *q)
{
	struct job *waiting;
	int i;

	if (q == NULL)
		return;
	waiting = jobq_stop(q);
	for (i = 0; i < q->nworkers; i++)
		pthread_join(q->workers[i].thread, NULL);
	/* Finished jobs not yet handed over, then the ones never run. */
	jobq_wake_cb(-1, 0, q);
	jobq_drop(waiting);
	event_free(q->wake);
	close(q->efd);
	pthread_cond_destroy(&q->cv);
	pthread_cond_destroy(&q->idle_cv);
	pthread_mutex_destroy(&q->mu);
	free(q->workers);
	free(q);
}
