/* test_jobs.c: the job queue: jobs run on its worker threads with their
 * worker's state, done callbacks run on the thread of the event loop; a
 * queue holds at most max_depth waiting jobs and refuses more; draining
 * drops the waiting ones through done with run unset and refuses new
 * ones while the running ones finish; freeing lets the running job end
 * and drops the waiting.  Jobs hold on a gate the test opens, so what is
 * running and what is waiting is known, not timed. */
#include <event2/event.h>
#include <event2/thread.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "testlib.h"

struct tjob {
	struct job j;
	void *worker;
	pthread_t ran_on, done_on;
	int ran, done, dropped;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int gate_open, started;
static int ndone;
static pthread_t loop_thread;
static int w0, w1;

static void
gate(int open)
{
	pthread_mutex_lock(&mu);
	gate_open = open;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

/* Until n jobs have started running. */
static void
wait_started(int n)
{
	pthread_mutex_lock(&mu);
	while (started < n)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void
tjob_run(struct job *j, void *worker)
{
	struct tjob *t = (struct tjob *)j;

	pthread_mutex_lock(&mu);
	started++;
	pthread_cond_broadcast(&cv);
	while (!gate_open)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	t->worker = worker;
	t->ran_on = pthread_self();
	t->ran++;
}

static void
tjob_done(struct job *j)
{
	struct tjob *t = (struct tjob *)j;

	t->done_on = pthread_self();
	t->dropped = j->run == NULL;
	t->done++;
	ndone++;
}

/* A queue of nworkers (state &w0, &w1) and n fresh jobs, the gate shut. */
static struct jobq *
start(struct event_base *base, int nworkers, size_t max_depth,
    struct tjob *t, size_t n)
{
	static void *workers[] = { &w0, &w1 };
	size_t i;

	memset(t, 0, n * sizeof *t);
	for (i = 0; i < n; i++) {
		t[i].j.run = tjob_run;
		t[i].j.done = tjob_done;
	}
	started = ndone = 0;
	gate(0);
	return jobq_new(base, "test", workers, nworkers, max_depth);
}

/* The loop until n done callbacks have run. */
static void
loop_until(struct event_base *base, int n)
{
	while (ndone < n) {
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		sched_yield();
	}
}

static void
check_ran(const struct tjob *t)
{
	CHECK(t->ran == 1 && t->done == 1 && !t->dropped);
	CHECK(t->worker == &w0 || t->worker == &w1);
	CHECK(!pthread_equal(t->ran_on, loop_thread));
	CHECK(pthread_equal(t->done_on, loop_thread));
}

static void
check_dropped(const struct tjob *t)
{
	CHECK(t->ran == 0 && t->done == 1 && t->dropped);
	CHECK(pthread_equal(t->done_on, loop_thread));
}

static void
test_depth(struct event_base *base)
{
	struct tjob t[5];
	struct jobq *q = start(base, 2, 2, t, 5);
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
	loop_until(base, 4);
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
test_drain(struct event_base *base)
{
	struct tjob t[5];
	struct jobq *q = start(base, 2, 8, t, 5);
	size_t i;

	for (i = 0; i < 4; i++)
		CHECK(jobq_push(q, &t[i].j) == 0);
	wait_started(2);
	jobq_drain(q);
	/* The two waiting dropped at once, on the caller's thread. */
	CHECK(ndone == 2 && jobq_depth(q) == 0 && jobq_running(q) == 2);
	CHECK(jobq_push(q, &t[4].j) == -1);
	gate(1);
	loop_until(base, 4);
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
test_free(struct event_base *base)
{
	struct tjob t[3];
	struct jobq *q = start(base, 1, 8, t, 3);
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

int
main(void)
{
	struct event_base *base;

	CHECK(evthread_use_pthreads() == 0);
	CHECK((base = event_base_new()) != NULL);
	loop_thread = pthread_self();
	test_depth(base);
	test_drain(base);
	test_free(base);
	event_base_free(base);
	printf("test_jobs: %u checks passed\n", checks);
	return 0;
}
