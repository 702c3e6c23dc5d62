/* status.h: what a part of profd shows of itself in GET /v1/status (or
 * /v1/health): a name and a callback that builds its JSON.  The layer
 * that owns the part writes the callback beside its stats, which stay
 * its own; the server registers it with the API (api_host_provide),
 * which puts the JSON under the name, in the order registered.  So the
 * API knows no other layer's stats, and those layers know no HTTP. */
#ifndef PROFD_STATUS_H
#define PROFD_STATUS_H

#include <jansson.h>
#include <stdint.h>

struct status_provider {
	const char *name;		/* its member in the reply */
	/* The member's value, a new reference (json_null() or [] for a
	 * part that is not there); on the loop. */
	json_t *(*report)(void *ctx);
	void *ctx;
};

/* status.c: what the reports share.  A time (CLOCK_REALTIME, ns) as an
 * RFC 3339 string, null for 0 (never). */
json_t *status_time(int64_t ns);
/* A count, null when negative (not counted). */
json_t *status_count(int64_t n);
struct rate;
/* A backlog's drain into obj: "drain_bytes_per_s", the recent rate (r,
 * at mono_ns() now), and "eta_s", backlog bytes at that rate; each
 * null when not known (eta_s also when backlog is 0 or negative: not
 * counted). */
void status_drain(json_t *obj, const struct rate *r, int64_t backlog);

#endif
