/* jobq.h: a bounded queue of jobs served by worker threads.  A job runs on
 * a worker; its done callback runs on the event-loop thread, woken through
 * libevent's thread support.  Pushing never blocks: a full queue says so. */
#ifndef PROFD_JOBQ_H
#define PROFD_JOBQ_H

#include <stddef.h>
#include <stdint.h>

struct event;
struct event_base;
struct jobq;

struct job {
	void (*run)(struct job *, void *worker);	/* on a worker */
	void (*done)(struct job *);			/* on the loop */
	struct job *next;
	/* A guest's job (a reader on the TCP listener): guests never take
	 * the last worker of a queue that has more than one, nor more
	 * than half of its waiting places, so that the others' jobs (the
	 * socket's) always find a worker free soon and a place. */
	int guest;
};

/* workers[i] is the state handed to run() on worker thread i; the workers
 * run at the caller's nice value plus nice (Linux: per thread). */
struct jobq *jobq_new(struct event_base *, const char *name, void **workers,
    int nworkers, size_t max_depth, int nice);
/* 0, or -1 if the queue is full or stopping (the job was not taken). */
int jobq_push(struct jobq *, struct job *);
/* From a job's run (on a worker): have the loop make ev active, without
 * taking libevent's lock on this thread.  Elsewhere: event_active(). */
void jobq_activate(struct event *ev);
size_t jobq_depth(struct jobq *);		/* waiting, not running */
size_t jobq_running(struct jobq *);
/* Stop taking jobs and drop the waiting ones through their done callback
 * with run unset (on the loop, now); the running ones go on. */
void jobq_drain(struct jobq *);
/* Nothing waiting, running, or finished and not yet handed over. */
int jobq_idle(struct jobq *);
/* Wait (off the loop's callbacks: it blocks) until no job runs, at most
 * until deadline_ns (CLOCK_MONOTONIC); -1 if one still runs then. */
int jobq_wait_running(struct jobq *, int64_t deadline_ns);
/* Stop taking jobs, let the running ones finish, join the threads; jobs
 * still waiting are dropped through their done callback with run unset. */
void jobq_free(struct jobq *);

#endif
