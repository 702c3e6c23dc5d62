/* activity.c: import counts, the import in flight and a ring of the last
 * errors, shared by the import thread and the loop under a mutex. */
#include <sys/stat.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activity.h"
#include "alloc.h"
#include "clock.h"

struct activity {
	pthread_mutex_t mu;
	uint64_t done[ACT_NSOURCES], failed[ACT_NSOURCES];
	struct activity_current current;
	struct activity_progress progress;
	int fd;				/* of the import in flight, or -1 */
	struct activity_error ring[ACTIVITY_ERRORS];
	size_t next;			/* the slot the next error takes */
	uint64_t nerrors;
};

struct activity *
activity_new(void)
{
	struct activity *a = xcalloc(1, sizeof *a);

	pthread_mutex_init(&a->mu, NULL);
	a->fd = -1;
	return a;
}

void
activity_free(struct activity *a)
{
	if (a == NULL)
		return;
	pthread_mutex_destroy(&a->mu);
	free(a);
}

const char *
activity_source_name(enum activity_source s)
{
	switch (s) {
	case ACT_PUSH:
		return "push";
	case ACT_UPLOAD:
		return "upload";
	case ACT_SPOOL:
		return "spool";
	case ACT_SCRAPE:
		return "scrape";
	case ACT_NSOURCES:
		break;
	}
	return "?";
}

void
activity_begin(struct activity *a, enum activity_source src,
    const char *what, const char *scope, int fd, int64_t bytes)
{
	struct stat sb;

	if (a == NULL)
		return;
	if (bytes < 0 && fd != -1 && fstat(fd, &sb) == 0)
		bytes = (int64_t)sb.st_size;
	pthread_mutex_lock(&a->mu);
	memset(&a->current, 0, sizeof a->current);
	a->current.active = 1;
	a->current.source = src;
	snprintf(a->current.what, sizeof a->current.what, "%s",
	    what ? what : "");
	snprintf(a->current.scope, sizeof a->current.scope, "%s",
	    scope ? scope : "");
	a->current.bytes = bytes;
	a->current.bytes_read = -1;
	a->current.started_ns = mono_ns();
	a->fd = fd;
	atomic_store_explicit(&a->progress.bytes_done, 0, memory_order_relaxed);
	atomic_store_explicit(&a->progress.bytes_total, bytes,
	    memory_order_relaxed);
	atomic_store_explicit(&a->progress.samples_done, 0,
	    memory_order_relaxed);
	atomic_store_explicit(&a->progress.samples_total, -1,
	    memory_order_relaxed);
	atomic_store_explicit(&a->progress.phase, ACT_READING,
	    memory_order_relaxed);
	pthread_mutex_unlock(&a->mu);
}

struct activity_progress *
activity_progress(struct activity *a)
{
	return a != NULL ? &a->progress : NULL;
}

void
activity_phase(struct activity_progress *p, enum activity_phase ph)
{
	if (p != NULL)
		atomic_store_explicit(&p->phase, (int)ph, memory_order_relaxed);
}

void
activity_bytes_total(struct activity_progress *p, int64_t n)
{
	if (p != NULL)
		atomic_store_explicit(&p->bytes_total, n, memory_order_relaxed);
}

void
activity_samples_total(struct activity_progress *p, int64_t n)
{
	if (p != NULL)
		atomic_store_explicit(&p->samples_total, n,
		    memory_order_relaxed);
}

const char *
activity_phase_name(enum activity_phase ph)
{
	switch (ph) {
	case ACT_READING:
		return "reading";
	case ACT_SAMPLES:
		return "samples";
	case ACT_STORING:
		return "storing";
	}
	return "?";
}

/* Under the mutex. */
static void
activity_ring_add(struct activity *a, enum activity_source src,
    const char *what, const char *scope, const char *msg)
{
	struct activity_error *e = &a->ring[a->next];

	e->time_ns = now_ns();
	e->source = src;
	snprintf(e->what, sizeof e->what, "%s", what ? what : "");
	snprintf(e->scope, sizeof e->scope, "%s", scope ? scope : "");
	snprintf(e->msg, sizeof e->msg, "%s", msg);
	a->next = (a->next + 1) % ACTIVITY_ERRORS;
	a->nerrors++;
}

void
activity_end(struct activity *a, enum activity_source src, const char *what,
    const char *scope, const struct error *err)
{
	if (a == NULL)
		return;
	pthread_mutex_lock(&a->mu);
	/* The caller closes the file after this: the fd is forgotten
	 * first. */
	a->current.active = 0;
	a->fd = -1;
	if (err == NULL)
		a->done[src]++;
	else {
		a->failed[src]++;
		activity_ring_add(a, src, what, scope, err->msg);
	}
	pthread_mutex_unlock(&a->mu);
}

void
activity_abandon(struct activity *a)
{
	if (a == NULL)
		return;
	pthread_mutex_lock(&a->mu);
	a->current.active = 0;
	a->fd = -1;
	pthread_mutex_unlock(&a->mu);
}

void
activity_error(struct activity *a, enum activity_source src,
    const char *what, const char *scope, const char *msg)
{
	if (a == NULL)
		return;
	pthread_mutex_lock(&a->mu);
	activity_ring_add(a, src, what, scope, msg);
	pthread_mutex_unlock(&a->mu);
}

void
activity_snapshot(struct activity *a, struct activity_snapshot *s)
{
	size_t i, n;
	off_t off;

	memset(s, 0, sizeof *s);
	pthread_mutex_lock(&a->mu);
	memcpy(s->done, a->done, sizeof s->done);
	memcpy(s->failed, a->failed, sizeof s->failed);
	s->current = a->current;
	/* The file offset of the import's descriptor: how far the decoder
	 * has read (plus what the stream buffers ahead).  The import thread
	 * closes it only after activity_end, under this mutex. */
	if (a->current.active && a->fd != -1 &&
	    (off = lseek(a->fd, 0, SEEK_CUR)) != (off_t)-1)
		s->current.bytes_read = (int64_t)off;
	s->current.bytes_done = atomic_load_explicit(&a->progress.bytes_done,
	    memory_order_relaxed);
	s->current.bytes_total = atomic_load_explicit(&a->progress.bytes_total,
	    memory_order_relaxed);
	s->current.samples_done = atomic_load_explicit(
	    &a->progress.samples_done, memory_order_relaxed);
	s->current.samples_total = atomic_load_explicit(
	    &a->progress.samples_total, memory_order_relaxed);
	s->current.phase = (enum activity_phase)atomic_load_explicit(
	    &a->progress.phase, memory_order_relaxed);
	n = a->nerrors < ACTIVITY_ERRORS ? (size_t)a->nerrors :
	    ACTIVITY_ERRORS;
	for (i = 0; i < n; i++)
		s->errors[i] = a->ring[(a->next + ACTIVITY_ERRORS - 1 - i) %
		    ACTIVITY_ERRORS];
	s->nerrors = n;
	s->nerrors_total = a->nerrors;
	pthread_mutex_unlock(&a->mu);
}
