/* activity.h: what the daemon has been doing, for GET /v1/status: imports
 * done and failed since start by where they came from, the import in
 * flight, and the last errors.  Written by the import thread, read by the
 * loop: everything behind one mutex. */
#ifndef PROFD_ACTIVITY_H
#define PROFD_ACTIVITY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum activity_source {
	ACT_PUSH,		/* a request body */
	ACT_UPLOAD,		/* a chunked upload */
	ACT_SPOOL,		/* a file of the spool directory */
	ACT_SCRAPE,		/* a body fetched from a /debug/pprof */
	ACT_NSOURCES
};

#define ACTIVITY_ERRORS		10	/* the last errors kept */

struct activity_error {
	int64_t time_ns;		/* CLOCK_REALTIME */
	enum activity_source source;
	char what[320];			/* the file or source name */
	char scope[129];
	char msg[512];
};

/* Where the import in flight is: taking its input in, handing samples
 * to the store, or writing what they add up to and committing. */
enum activity_phase {
	ACT_READING,
	ACT_SAMPLES,
	ACT_STORING
};

/* How far the import in flight has come.  The import thread writes it as
 * it goes with relaxed atomic stores, never a lock (a sample costs one
 * store to a line the loop reads a few times a second); activity_snapshot
 * reads it.  Counts are of this import only; -1: not known. */
struct activity_progress {
	_Atomic int64_t bytes_done;	/* of the input, inflated if known */
	_Atomic int64_t bytes_total;
	_Atomic int64_t samples_done;	/* handed to the store */
	_Atomic int64_t samples_total;	/* as the decoder announced them */
	atomic_int phase;		/* enum activity_phase */
};

struct activity_current {
	int active;
	enum activity_source source;
	char what[320];
	char scope[129];
	int64_t bytes;			/* the size of the input, -1 unknown */
	int64_t bytes_read;		/* read so far, -1 unknown */
	int64_t started_ns;		/* CLOCK_MONOTONIC */
	/* struct activity_progress, as read. */
	int64_t bytes_done, bytes_total, samples_done, samples_total;
	enum activity_phase phase;
};

struct activity_snapshot {
	uint64_t done[ACT_NSOURCES], failed[ACT_NSOURCES];
	struct activity_current current;
	struct activity_error errors[ACTIVITY_ERRORS];	/* newest first */
	size_t nerrors;
	uint64_t nerrors_total;		/* every error since start */
};

struct activity;

struct activity *activity_new(void);
void activity_free(struct activity *);
/* The updates below do nothing on a NULL activity (unit tests). */
/* An import starts; fd (or -1) is the file it reads, whose offset says
 * how far it got; bytes < 0: the size of that file. */
void activity_begin(struct activity *, enum activity_source,
    const char *what, const char *scope, int fd, int64_t bytes);
/* The progress the import begun writes (reset by activity_begin), NULL
 * for a NULL activity. */
struct activity_progress *activity_progress(struct activity *);
/* The progress updates, each one relaxed store; all do nothing on NULL. */
void activity_phase(struct activity_progress *, enum activity_phase);
void activity_bytes_total(struct activity_progress *, int64_t);
void activity_samples_total(struct activity_progress *, int64_t);
static inline void
activity_samples_done(struct activity_progress *p, int64_t n)
{
	if (p != NULL)
		atomic_store_explicit(&p->samples_done, n,
		    memory_order_relaxed);
}
/* A phase's name: "reading", "samples", "storing". */
const char *activity_phase_name(enum activity_phase);
/* It ended: done if err is NULL, else failed and err is kept. */
void activity_end(struct activity *, enum activity_source, const char *what,
    const char *scope, const struct error *err);
/* It stopped without an outcome (the file was still being written). */
void activity_abandon(struct activity *);
/* An error that is not an import's failure (a file that cannot be moved). */
void activity_error(struct activity *, enum activity_source,
    const char *what, const char *scope, const char *msg);
void activity_snapshot(struct activity *, struct activity_snapshot *);
const char *activity_source_name(enum activity_source);

#endif
