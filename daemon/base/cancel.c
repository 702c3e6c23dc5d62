/* cancel.c: a call's reasons to stop, looked at by the thread that runs
 * its work (cancel.h). */
#include <stddef.h>

#include "cancel.h"
#include "clock.h"

/* The cancel of the call whose work runs on this thread, and the calls
 * of cancel_poll since it last looked. */
static _Thread_local struct cancel *cancel_self;
static _Thread_local unsigned cancel_polls;

void
cancel_init(struct cancel *c, int64_t start_ns, int64_t timeout_s,
    const atomic_int *abort)
{
	atomic_init(&c->gone, 0);
	atomic_init(&c->why, CANCEL_NONE);
	c->timeout_s = timeout_s;
	c->deadline_ns = timeout_s > 0 ? start_ns + timeout_s * 1000000000 : 0;
	c->abort = abort;
}

enum cancel_why
cancel_due(struct cancel *c)
{
	int why = atomic_load(&c->why);

	if (why != CANCEL_NONE)
		return why;
	if (c->abort != NULL && atomic_load(c->abort))
		why = CANCEL_ABORT;
	else if (atomic_load(&c->gone))
		why = CANCEL_GONE;
	else if (c->deadline_ns != 0 && mono_ns() >= c->deadline_ns)
		why = CANCEL_TIMEOUT;
	else
		return CANCEL_NONE;
	atomic_store(&c->why, why);
	return why;
}

enum cancel_why
cancel_fired(const struct cancel *c)
{
	return atomic_load(&c->why);
}

int
cancel_error(const struct cancel *c, struct error *err)
{
	switch (cancel_fired(c)) {
	case CANCEL_TIMEOUT:
		return error_set(err, ERR_DEADLINE, "the request ran past "
		    "query-timeout (%lld s) and was stopped: ask for a "
		    "shorter window or fewer series, or raise query-timeout",
		    (long long)c->timeout_s);
	case CANCEL_GONE:
		return error_set(err, ERR_INPUT, "the client closed the "
		    "connection: the request was stopped");
	case CANCEL_ABORT:
		return error_set(err, ERR_BUSY, "profd is stopping: the "
		    "request was interrupted");
	case CANCEL_NONE:
		break;
	}
	return error_set(err, ERR_INTERNAL, "cancelled for no reason");
}

int
cancel_check(struct cancel *c, struct error *err)
{
	if (c == NULL || cancel_due(c) == CANCEL_NONE)
		return 0;
	return cancel_error(c, err);
}

void
cancel_enter(struct cancel *c)
{
	cancel_self = c;
	cancel_polls = 0;
}

void
cancel_leave(void)
{
	cancel_self = NULL;
}

struct cancel *
cancel_current(void)
{
	return cancel_self;
}

int
cancel_poll(struct error *err)
{
	if ((++cancel_polls % CANCEL_POLL_EVERY) != 0 || cancel_self == NULL)
		return 0;
	return cancel_check(cancel_self, err);
}
