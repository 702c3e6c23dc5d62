/* clock.h: the clocks in nanoseconds. */
#ifndef PROFD_CLOCK_H
#define PROFD_CLOCK_H

#include <stdint.h>

int64_t now_ns(void);		/* CLOCK_REALTIME */
int64_t mono_ns(void);		/* CLOCK_MONOTONIC */

#endif
