/* backoff.c: the wait before a retry after failures in a row. */
#include "backoff.h"

int64_t
backoff_next(int64_t cur, int64_t max)
{
	int64_t next = cur <= 0 ? 1 : cur > max / 2 ? max : cur * 2;

	return next < max ? next : max;
}
