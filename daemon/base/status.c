/* status.c: the values the status providers (status.h) write alike. */
#include "rfc3339.h"
#include "status.h"

json_t *
status_time(int64_t ns)
{
	char buf[64];

	if (ns == 0)
		return json_null();
	format_rfc3339(ns, buf, sizeof buf);
	return json_string(buf);
}

json_t *
status_count(int64_t n)
{
	return n < 0 ? json_null() : json_integer((json_int_t)n);
}
