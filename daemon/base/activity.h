/* activity.h: what the daemon has been doing, for GET /v1/status: imports
 * done and failed since start by where they came from, the import in
 * flight, and the last errors.  Written by the import thread, read by the
 * loop: everything behind one mutex. */
#ifndef PROFD_ACTIVITY_H
#define PROFD_ACTIVITY_H

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

struct activity_current {
	int active;
	enum activity_source source;
	char what[320];
	char scope[129];
	int64_t bytes;			/* the size of the input, -1 unknown */
	int64_t bytes_read;		/* read so far, -1 unknown */
	int64_t started_ns;		/* CLOCK_MONOTONIC */
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
