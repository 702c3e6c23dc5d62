/* backoff.h: the wait before a retry after failures in a row. */
#ifndef PROFD_BACKOFF_H
#define PROFD_BACKOFF_H

#include <stdint.h>

/* The wait after one more failure: 1 after none (cur 0), else twice
 * cur, at most max (the spool's disk-full retries, the shipper's and the
 * scraper's). */
int64_t backoff_next(int64_t cur, int64_t max);

#endif
