/* retainer.h: dropping what the retention settings no longer keep.  A
 * pass runs on the import thread as a chain of short jobs (one
 * transaction each), so pushes queued meanwhile run between them. */
#ifndef PROFD_RETAINER_H
#define PROFD_RETAINER_H

#include <stdint.h>

#include "config.h"

struct jobq;
struct retainer;

struct retainer *retainer_new(void);
void retainer_free(struct retainer *);
/* On the loop: start a pass over the import queue unless one is running
 * (policy is copied). */
void retainer_start(struct retainer *, struct jobq *,
    const struct retention *);
/* Rows deleted some other way (DELETE /v1/profiles): the next pass
 * collects what they leave unused, even if it drops nothing.  Any
 * thread. */
void retainer_want_gc(struct retainer *);
/* Counters for /v1/health (on the loop). */
struct retainer_stats {
	int running;
	uint64_t passes, dropped, collected;
	int64_t last_pass_ns;		/* 0: none yet */
	int64_t last_dropped, last_collected;
	char last_error[512];		/* "": none */
};
void retainer_stats(const struct retainer *, struct retainer_stats *);

#endif
