/* api-host.c: the counters kept for /v1/health and /v1/status: imports
 * done and failed (counted by the pushes and the spool, on any thread)
 * and calls per route (on the loop); and the status providers the
 * server registers. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "api.h"
#include "clock.h"
#include "push.h"
#include "routes.h"

struct route_stats {
	uint64_t calls, errors;
	int64_t ns_total;
};
struct api_counters {
	atomic_uint_fast64_t imports_done, imports_failed;
	pthread_mutex_t mu;		/* the routes' */
	struct route_stats *routes;
};

void
api_host_init(struct api_host *h)
{
	struct api_counters *c = xcalloc(1, sizeof *c);

	pthread_mutex_init(&c->mu, NULL);
	c->routes = xcalloc((size_t)nroutes, sizeof *c->routes);
	h->counters = c;
	h->started_ns = mono_ns();
	atomic_init(&h->abort, 0);
}

void
api_host_clear(struct api_host *h)
{
	int i;

	for (i = 0; i < API_NREPORTS; i++) {
		free(h->reports[i].v);
		h->reports[i].v = NULL;
		h->reports[i].n = 0;
	}
	if (h->counters == NULL)
		return;
	pthread_mutex_destroy(&h->counters->mu);
	free(h->counters->routes);
	free(h->counters);
	h->counters = NULL;
}

double
api_host_uptime(const struct api_host *h)
{
	return (double)(mono_ns() - h->started_ns) / 1e9;
}

void
api_host_import_count(struct api_host *h, int ok)
{
	atomic_fetch_add(ok ? &h->counters->imports_done :
	    &h->counters->imports_failed, 1);
}

void
api_host_import_counts(const struct api_host *h, uint64_t *done,
    uint64_t *failed)
{
	*done = atomic_load(&h->counters->imports_done);
	*failed = atomic_load(&h->counters->imports_failed);
}

void
api_host_push_env(struct api_host *h, struct push_env *env)
{
	env->uploads = h->uploads;
	env->activity = h->activity;
	env->done = &h->counters->imports_done;
	env->failed = &h->counters->imports_failed;
}

void
api_host_provide(struct api_host *h, enum api_report r,
    const struct status_provider *p)
{
	struct api_providers *l = &h->reports[r];

	l->v = xappendarray(l->v, l->n, sizeof *l->v);
	l->v[l->n++] = *p;
}

void
api_host_report(struct api_host *h, enum api_report r, json_t *into)
{
	const struct api_providers *l = &h->reports[r];
	size_t i;

	for (i = 0; i < l->n; i++)
		json_object_set_new(into, l->v[i].name,
		    l->v[i].report(l->v[i].ctx));
}

void
api_host_route_done(struct api_host *h, const struct route *r, int status,
    int64_t ns)
{
	struct route_stats *st = &h->counters->routes[r - routes];

	pthread_mutex_lock(&h->counters->mu);
	st->calls++;
	if (status >= 400)
		st->errors++;
	st->ns_total += ns;
	pthread_mutex_unlock(&h->counters->mu);
}

json_t *
api_host_route_json(struct api_host *h)
{
	const struct route_stats *st = h->counters->routes;
	json_t *o = json_object();
	char key[64];
	int i;

	pthread_mutex_lock(&h->counters->mu);
	for (i = 0; i < nroutes; i++) {
		snprintf(key, sizeof key, "%s %s", routes[i].method,
		    routes[i].path);
		json_object_set_new(o, key, json_pack("{s:I, s:I, s:f}",
		    "calls", (json_int_t)st[i].calls,
		    "errors", (json_int_t)st[i].errors,
		    "ms_total", (double)st[i].ns_total / 1e6));
	}
	pthread_mutex_unlock(&h->counters->mu);
	return o;
}
