/* clock.c: the clocks in nanoseconds. */
#include <time.h>

#include "clock.h"

static int64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
now_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

int64_t
mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}
