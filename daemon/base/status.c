/* status.c: the values the status providers (status.h) write alike. */
#include "clock.h"
#include "rate.h"
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

void
status_drain(json_t *obj, const struct rate *r, int64_t backlog)
{
	double per_s = rate_per_s(r, mono_ns());
	int64_t eta = rate_eta_s(per_s, backlog);

	/* Whole bytes a second, never 0 for a rate there is. */
	json_object_set_new(obj, "drain_bytes_per_s", per_s > 0 ?
	    json_integer(per_s < 1 ? 1 : (json_int_t)(per_s + 0.5)) :
	    json_null());
	json_object_set_new(obj, "eta_s", status_count(eta));
}
