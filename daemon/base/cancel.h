/* cancel.h: why a read stops before its end.  Its client left (the loop
 * sees the connection close and sets gone), its time ran out (the
 * deadline query-timeout sets), or a shutdown stopped waiting (the host's
 * abort flag).  The work of a call enters its cancel on its thread
 * (cancel_enter); the loops of the views, which know no call, poll the
 * thread's cancel at a cheap granularity (cancel_poll), SQLite through
 * the store's progress handler (store_watch_cancel), and the first that
 * sees a reason fails its work with that reason's error. */
#ifndef PROFD_CANCEL_H
#define PROFD_CANCEL_H

#include <stdatomic.h>
#include <stdint.h>

#include "error.h"

enum cancel_why {
	CANCEL_NONE,
	CANCEL_GONE,		/* the client closed its connection */
	CANCEL_TIMEOUT,		/* past query-timeout */
	CANCEL_ABORT,		/* the shutdown stopped waiting */
};

/* cancel_poll looks at the clock and the flags once in this many calls. */
#define CANCEL_POLL_EVERY	4096

struct cancel {
	atomic_int gone;		/* any thread sets it */
	atomic_int why;			/* the first reason seen */
	int64_t deadline_ns;		/* monotonic; 0: none */
	int64_t timeout_s;		/* the query-timeout it came from */
	const atomic_int *abort;	/* NULL: no shutdown flag */
};

/* A deadline of timeout_s seconds after start_ns (monotonic; 0: none). */
void cancel_init(struct cancel *, int64_t start_ns, int64_t timeout_s,
    const atomic_int *abort);
/* The reason to stop now, remembered as why; CANCEL_NONE: go on. */
enum cancel_why cancel_due(struct cancel *);
/* What cancel_due saw (CANCEL_NONE while nothing did). */
enum cancel_why cancel_fired(const struct cancel *);
/* -1 with err set to the reason's error when the work must stop. */
int cancel_check(struct cancel *, struct error *);
/* The error of c's reason (why must be set): ERR_DEADLINE naming
 * query-timeout, the client gone, the shutdown. */
int cancel_error(const struct cancel *, struct error *);

/* The calling thread's cancel while a call's work runs on it (NULL:
 * none; nothing polled stops then). */
void cancel_enter(struct cancel *);
void cancel_leave(void);
struct cancel *cancel_current(void);
/* In a loop: every CANCEL_POLL_EVERY calls, cancel_check of the
 * thread's cancel. */
int cancel_poll(struct error *);

#endif
