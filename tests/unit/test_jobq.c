/* test_jobq.c: the job queue: jobs run on the workers and end on the loop
 * in order; the workers run at the nice value asked; and a worker never
 * takes a libevent lock (the loop would wait for a preempted worker that
 * holds one), neither to hand a finished job back nor for jobq_activate,
 * whose event still becomes active on the loop.
 *
 * A queue holds at most max_depth waiting jobs and refuses more; draining
 * drops the waiting ones through done with run unset and refuses new
 * ones while the running ones finish; freeing lets the running job end
 * and drops the waiting.
 *
 * Guests' jobs (the TCP listener's readers) never take a queue's last
 * worker, nor more than half its waiting places: another's job pushed
 * after theirs runs at once on the worker they leave.
 *
 * libevent's locks are this test's own (evthread_set_lock_callbacks), so
 * that every lock taken by a worker thread is counted. */
#include <errno.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "jobq.h"
#include "testlib.h"

/* ---- libevent's locks, counted per kind of thread ---- */

static _Thread_local int on_worker;
static atomic_int worker_locks;

struct tlock {
	pthread_mutex_t mu;
};

static void *
tlock_alloc(unsigned locktype)
{
	struct tlock *l = calloc(1, sizeof *l);
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	if (locktype & EVTHREAD_LOCKTYPE_RECURSIVE)
		pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&l->mu, &a);
	pthread_mutexattr_destroy(&a);
	return l;
}

static void
tlock_free(void *p, unsigned locktype)
{
	struct tlock *l = p;

	pthread_mutex_destroy(&l->mu);
	free(l);
}

static int
tlock_lock(unsigned mode, void *p)
{
	struct tlock *l = p;

	if (on_worker)
		atomic_fetch_add(&worker_locks, 1);
	if (mode & EVTHREAD_TRY)
		return pthread_mutex_trylock(&l->mu);
	return pthread_mutex_lock(&l->mu);
}

static int
tlock_unlock(unsigned mode, void *p)
{
	return pthread_mutex_unlock(&((struct tlock *)p)->mu);
}

static void *
tcond_alloc(unsigned condtype)
{
	pthread_cond_t *c = malloc(sizeof *c);

	pthread_cond_init(c, NULL);
	return c;
}

static void
tcond_free(void *c)
{
	pthread_cond_destroy(c);
	free(c);
}

static int
tcond_signal(void *c, int broadcast)
{
	return broadcast ? pthread_cond_broadcast(c) : pthread_cond_signal(c);
}

static int
tcond_wait(void *c, void *lock, const struct timeval *tv)
{
	struct tlock *l = lock;
	struct timespec ts;
	int r;

	if (tv == NULL)
		return pthread_cond_wait(c, &l->mu);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += tv->tv_sec;
	ts.tv_nsec += tv->tv_usec * 1000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	r = pthread_cond_timedwait(c, &l->mu, &ts);
	return r == 0 ? 0 : 1;
}

static unsigned long
tid(void)
{
	return (unsigned long)pthread_self();
}

static void
use_counted_locks(void)
{
	struct evthread_lock_callbacks lk = {
		EVTHREAD_LOCK_API_VERSION, EVTHREAD_LOCKTYPE_RECURSIVE,
		tlock_alloc, tlock_free, tlock_lock, tlock_unlock
	};
	struct evthread_condition_callbacks cd = {
		EVTHREAD_CONDITION_API_VERSION, tcond_alloc, tcond_free,
		tcond_signal, tcond_wait
	};

	CHECK(evthread_set_lock_callbacks(&lk) == 0);
	CHECK(evthread_set_condition_callbacks(&cd) == 0);
	evthread_set_id_callback(tid);
}

/* ---- the jobs ---- */

#define NJOBS 64

struct tjob {
	struct job job;
	int n;
	int nice;		/* seen by run */
	struct event *ev;	/* run asks the loop to make it active */
};

static pthread_t loop_thread;
static int ended[NJOBS], nended, activated, activated_off_loop;
static struct event_base *base;

static void
tjob_run(struct job *j, void *worker)
{
	struct tjob *t = (struct tjob *)j;

	/* From here on every libevent lock this thread takes is counted,
	 * the hand-back after run too. */
	on_worker = 1;
	t->nice = getpriority(PRIO_PROCESS, 0);
	if (t->ev != NULL)
		jobq_activate(t->ev);
}

static void
tjob_done(struct job *j)
{
	struct tjob *t = (struct tjob *)j;

	CHECK(pthread_equal(pthread_self(), loop_thread));
	CHECK(j->run != NULL);		/* it ran */
	ended[nended++] = t->n;
	if (nended == NJOBS)
		event_base_loopbreak(base);
}

static void
activated_cb(evutil_socket_t fd, short what, void *arg)
{
	if (!pthread_equal(pthread_self(), loop_thread))
		activated_off_loop++;
	activated++;
}

/* ---- depth, drain and free: jobs hold on a gate the test opens, so
 * what is running and what is waiting is known, not timed ---- */

struct qjob {
	struct job j;
	void *worker;
	pthread_t ran_on, done_on;
	int ran, done, dropped;
};

static pthread_mutex_t qmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcv = PTHREAD_COND_INITIALIZER;
static int gate_open, started;
static int ndone;
static int w0, w1;

static void
gate(int open)
{
	pthread_mutex_lock(&qmu);
	gate_open = open;
	pthread_cond_broadcast(&qcv);
	pthread_mutex_unlock(&qmu);
}

/* Until n jobs have started running. */
static void
wait_started(int n)
{
	pthread_mutex_lock(&qmu);
	while (started < n)
		pthread_cond_wait(&qcv, &qmu);
	pthread_mutex_unlock(&qmu);
}

static void
qjob_run(struct job *j, void *worker)
{
	struct qjob *t = (struct qjob *)j;

	pthread_mutex_lock(&qmu);
	started++;
	pthread_cond_broadcast(&qcv);
	while (!gate_open)
		pthread_cond_wait(&qcv, &qmu);
	pthread_mutex_unlock(&qmu);
	t->worker = worker;
	t->ran_on = pthread_self();
	t->ran++;
}

static void
qjob_done(struct job *j)
{
	struct qjob *t = (struct qjob *)j;

	t->done_on = pthread_self();
	t->dropped = j->run == NULL;
	t->done++;
	ndone++;
}

/* A queue of nworkers (state &w0, &w1) and n fresh jobs, the gate shut. */
static struct jobq *
qstart(struct event_base *eb, int nworkers, size_t max_depth,
    struct qjob *t, size_t n)
{
	static void *workers[] = { &w0, &w1 };
	size_t i;

	memset(t, 0, n * sizeof *t);
	for (i = 0; i < n; i++) {
		t[i].j.run = qjob_run;
		t[i].j.done = qjob_done;
	}
	started = ndone = 0;
	gate(0);
	return jobq_new(eb, "test", workers, nworkers, max_depth, 0);
}

/* The loop until n done callbacks have run. */
static void
loop_until(struct event_base *eb, int n)
{
	while (ndone < n) {
		event_base_loop(eb, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		sched_yield();
	}
}

static void
check_ran(const struct qjob *t)
{
	CHECK(t->ran == 1 && t->done == 1 && !t->dropped);
	CHECK(t->worker == &w0 || t->worker == &w1);
	CHECK(!pthread_equal(t->ran_on, loop_thread));
	CHECK(pthread_equal(t->done_on, loop_thread));
}

static void
check_dropped(const struct qjob *t)
{
	CHECK(t->ran == 0 && t->done == 1 && t->dropped);
	CHECK(pthread_equal(t->done_on, loop_thread));
}

static void
test_depth(struct event_base *eb)
{
	struct qjob t[5];
	struct jobq *q = qstart(eb, 2, 2, t, 5);
	size_t i;

	CHECK(jobq_idle(q));
	CHECK(jobq_push(q, &t[0].j) == 0 && jobq_push(q, &t[1].j) == 0);
	wait_started(2);
	CHECK(jobq_running(q) == 2 && jobq_depth(q) == 0);
	CHECK(jobq_push(q, &t[2].j) == 0 && jobq_push(q, &t[3].j) == 0);
	CHECK(jobq_depth(q) == 2);
	/* Full: refused, not taken. */
	CHECK(jobq_push(q, &t[4].j) == -1);
	CHECK(jobq_depth(q) == 2 && !jobq_idle(q));
	gate(1);
	loop_until(eb, 4);
	for (i = 0; i < 4; i++)
		check_ran(&t[i]);
	CHECK(t[4].ran == 0 && t[4].done == 0);
	/* Both workers, each with its own state. */
	CHECK(t[0].worker != t[1].worker);
	CHECK(jobq_idle(q) && jobq_running(q) == 0);
	jobq_free(q);
	printf("ok: at most 2 waiting; run on the workers with their state, "
	    "done on the loop\n");
}

static void
test_drain(struct event_base *eb)
{
	struct qjob t[5];
	struct jobq *q = qstart(eb, 2, 8, t, 5);
	size_t i;

	for (i = 0; i < 4; i++)
		CHECK(jobq_push(q, &t[i].j) == 0);
	wait_started(2);
	jobq_drain(q);
	/* The two waiting dropped at once, on the caller's thread. */
	CHECK(ndone == 2 && jobq_depth(q) == 0 && jobq_running(q) == 2);
	CHECK(jobq_push(q, &t[4].j) == -1);
	gate(1);
	loop_until(eb, 4);
	/* First in, first taken. */
	check_ran(&t[0]);
	check_ran(&t[1]);
	check_dropped(&t[2]);
	check_dropped(&t[3]);
	CHECK(t[4].done == 0);
	jobq_free(q);
	printf("ok: drain drops the waiting, refuses new jobs, lets the "
	    "running finish\n");
}

/* Opens the gate once jobq_free has taken the waiting jobs away. */
static void *
opener(void *arg)
{
	struct jobq *q = arg;

	while (jobq_depth(q) != 0)
		sched_yield();
	gate(1);
	return NULL;
}

static void
test_free(struct event_base *eb)
{
	struct qjob t[3];
	struct jobq *q = qstart(eb, 1, 8, t, 3);
	pthread_t th;

	CHECK(jobq_push(q, &t[0].j) == 0);
	wait_started(1);
	CHECK(jobq_push(q, &t[1].j) == 0 && jobq_push(q, &t[2].j) == 0);
	CHECK(jobq_depth(q) == 2);
	CHECK(pthread_create(&th, NULL, opener, q) == 0);
	jobq_free(q);
	CHECK(pthread_join(th, NULL) == 0);
	CHECK(ndone == 3);
	check_ran(&t[0]);
	check_dropped(&t[1]);
	check_dropped(&t[2]);
	printf("ok: free lets the running job finish, drops the waiting\n");
}

static int64_t
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Opens the gate after 200 ms, from a thread of its own. */
static void *
late_opener(void *arg)
{
	(void)arg;
	nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
	gate(1);
	return NULL;
}

/* The shutdown's bounded wait: -1 at the deadline while a job runs (and
 * the job is left running), 0 as soon as it ends; never waits with none
 * running. */
static void
test_wait_running(struct event_base *eb)
{
	struct qjob t[1];
	struct jobq *q = qstart(eb, 1, 8, t, 1);
	pthread_t th;
	int64_t t0;

	CHECK(jobq_wait_running(q, mono_now() - 1) == 0);
	CHECK(jobq_wait_running(NULL, 0) == 0);
	CHECK(jobq_push(q, &t[0].j) == 0);
	wait_started(1);
	t0 = mono_now();
	CHECK(jobq_wait_running(q, t0 + 50000000) == -1);
	CHECK(mono_now() - t0 >= 50000000);
	CHECK(jobq_running(q) == 1);
	CHECK(pthread_create(&th, NULL, late_opener, NULL) == 0);
	CHECK(jobq_wait_running(q, mono_now() + 60 * INT64_C(1000000000)) ==
	    0);
	CHECK(jobq_running(q) == 0);
	CHECK(pthread_join(th, NULL) == 0);
	loop_until(eb, 1);
	check_ran(&t[0]);
	jobq_free(q);
	printf("ok: waiting for the running job stops at its deadline, or "
	    "when it ends\n");
}

/* Two workers: guests run on one at most, the other stays for the rest;
 * one worker: guests run on it (nothing to keep). */
static void
test_guests(struct event_base *eb)
{
	struct qjob t[5];
	struct jobq *q = qstart(eb, 2, 4, t, 5);
	size_t i;

	for (i = 0; i < 4; i++)
		t[i].j.guest = 1;
	CHECK(jobq_push(q, &t[0].j) == 0);
	wait_started(1);
	CHECK(jobq_push(q, &t[1].j) == 0 && jobq_push(q, &t[2].j) == 0);
	/* Two guests wait: half the places. */
	CHECK(jobq_push(q, &t[3].j) == -1);
	CHECK(jobq_depth(q) == 2 && jobq_running(q) == 1);
	/* The host's job, pushed last, starts while both guests wait. */
	CHECK(jobq_push(q, &t[4].j) == 0);
	wait_started(2);
	CHECK(jobq_running(q) == 2 && jobq_depth(q) == 2);
	gate(1);
	loop_until(eb, 4);
	check_ran(&t[0]);
	check_ran(&t[1]);
	check_ran(&t[2]);
	check_ran(&t[4]);
	CHECK(t[3].done == 0);
	CHECK(jobq_idle(q));
	jobq_free(q);

	q = qstart(eb, 1, 4, t, 2);
	t[0].j.guest = t[1].j.guest = 1;
	CHECK(jobq_push(q, &t[0].j) == 0 && jobq_push(q, &t[1].j) == 0);
	gate(1);
	loop_until(eb, 2);
	check_ran(&t[0]);
	check_ran(&t[1]);
	jobq_free(q);
	printf("ok: guests leave a worker and half the places to the others; "
	    "alone on one worker they run\n");
}

int
main(void)
{
	static struct tjob jobs[NJOBS];
	struct event *ev;
	struct jobq *q;
	void *states[2] = { NULL, NULL };
	int base_nice, want, i;

	use_counted_locks();
	loop_thread = pthread_self();
	base = event_base_new();
	CHECK(base != NULL);
	ev = event_new(base, -1, 0, activated_cb, NULL);
	errno = 0;
	base_nice = getpriority(PRIO_PROCESS, 0);
	want = base_nice + 3 > 19 ? 19 : base_nice + 3;

	/* One worker: jobs end in the order they were pushed. */
	q = jobq_new(base, "t", states, 1, NJOBS, 3);
	for (i = 0; i < NJOBS; i++) {
		jobs[i].job.run = tjob_run;
		jobs[i].job.done = tjob_done;
		jobs[i].n = i;
		jobs[i].ev = i % 4 == 0 ? ev : NULL;
		CHECK(jobq_push(q, &jobs[i].job) == 0);
	}
	event_base_dispatch(base);
	/* Whatever is left active (an activation after the last end). */
	event_base_loop(base, EVLOOP_NONBLOCK);

	CHECK(nended == NJOBS);
	for (i = 0; i < NJOBS; i++) {
		CHECK(ended[i] == i);
		CHECK(jobs[i].nice == want);
	}
	CHECK(activated >= 1);
	CHECK(activated_off_loop == 0);
	CHECK(atomic_load(&worker_locks) == 0);
	/* The loop's own thread keeps its priority. */
	errno = 0;
	CHECK(getpriority(PRIO_PROCESS, 0) == base_nice);

	/* A full queue says so; nothing is taken. */
	CHECK(jobq_idle(q));
	jobq_free(q);
	q = jobq_new(base, "t", states, 1, 0, 0);
	CHECK(jobq_push(q, &jobs[0].job) == -1);
	jobq_free(q);

	test_depth(base);
	test_drain(base);
	test_free(base);
	test_wait_running(base);
	test_guests(base);

	event_free(ev);
	event_base_free(base);
	printf("test_jobq: %u checks passed\n", checks);
	return 0;
}
