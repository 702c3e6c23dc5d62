/* retainer.c: a retention pass is a chain of jobs on the import queue:
 * first drop steps (at most RETENTION_DROP_BATCH profiles each, in one
 * transaction: those older than max-age, then the oldest of a scope over
 * its size, then the oldest of the store while it is over its size), then
 * collection steps (at most GC_BATCH unused interned rows each).  Each
 * step's done callback queues the next behind whatever pushes came
 * meanwhile. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "clock.h"
#include "csindex.h"
#include "import.h"
#include "jobq.h"
#include "log.h"
#include "retainer.h"
#include "retention.h"
#include "store.h"

#define GC_BATCH	5000
#define VACUUM_BATCH	4096		/* pages: 16 MiB of 4 KiB pages */

struct retainer {
	atomic_int gc_wanted;
	int running;
	uint64_t passes, dropped, collected;
	int64_t last_pass_ns, last_dropped, last_collected;
	char last_error[512];
};

enum rphase { R_DROP, R_GC, R_VACUUM, R_DONE };

struct rjob {
	struct job job;
	struct retainer *rt;
	struct jobq *q;
	struct retention pol;
	enum rphase phase;
	int gc_phase;
	int64_t dropped, bytes, collected, vacuumed, free_pages;
	int64_t unshipped, backlog, backlog_max;	/* fleet-backlog-max */
	int failed;
	struct error err;
};

struct retainer *
retainer_new(void)
{
	return xcalloc(1, sizeof(struct retainer));
}

void
retainer_free(struct retainer *rt)
{
	free(rt);
}

void
retainer_want_gc(struct retainer *rt)
{
	atomic_store(&rt->gc_wanted, 1);
}

void
retainer_stats(const struct retainer *rt, struct retainer_stats *st)
{
	st->running = rt->running;
	st->passes = rt->passes;
	st->dropped = rt->dropped;
	st->collected = rt->collected;
	st->last_pass_ns = rt->last_pass_ns;
	st->last_dropped = rt->last_dropped;
	st->last_collected = rt->last_collected;
	memcpy(st->last_error, rt->last_error, sizeof st->last_error);
}

/* How many of the oldest (bytes each) make up need bytes; at least 1. */
static size_t
enough(const struct store_old_profile *v, size_t n, int64_t need)
{
	size_t i;
	int64_t got = 0;

	for (i = 0; i < n && got < need; i++)
		got += v[i].bytes;
	return i > 0 ? i : (n > 0 ? 1 : 0);
}

/* The bytes of the first n, and how many of them had not shipped. */
static int64_t
bytes_of(struct rjob *j, const struct store_old_profile *v, size_t n)
{
	int64_t b = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		b += v[i].bytes;
		j->unshipped += v[i].unshipped;
	}
	return b;
}

/* One drop step; *n is the number of profiles dropped (0: nothing left
 * to drop). */
static int
drop_step(struct rjob *j, struct store *s, size_t *n, struct error *err)
{
	struct store_usage *u = NULL;
	struct store_old_profile *v = NULL;
	size_t nu = 0, nv = 0, k, i;
	int64_t age, used, now = now_ns();
	uint64_t size;
	int rc = -1;

	*n = 0;
	if (store_usage(s, &u, &nu, err) == -1)
		return -1;
	for (i = 0; i < nu && *n == 0; i++) {
		config_scope_policy(&j->pol, u[i].name, &age, &size);
		if (age > 0 && u[i].profiles > 0 &&
		    u[i].oldest_ns < now - age * 1000000000) {
			if (store_oldest_profiles(s, u[i].scope_id,
			    now - age * 1000000000, RETENTION_DROP_BATCH, &v, &nv,
			    err) == -1)
				goto out;
			k = nv;
		} else if (size > 0 && u[i].profiles > 0 &&
		    u[i].bytes > (int64_t)size) {
			if (store_oldest_profiles(s, u[i].scope_id, INT64_MAX,
			    RETENTION_DROP_BATCH, &v, &nv, err) == -1)
				goto out;
			k = enough(v, nv, u[i].bytes - (int64_t)size);
		} else
			continue;
		if (k > 0 && retention_drop(s, v, k, NULL, err) == -1)
			goto out;
		*n = k;
		j->bytes += bytes_of(j, v, k);
		if (k > 0)
			log_info("retention: dropped %zu profile(s) of %s (%s)",
			    k, u[i].name, age > 0 && u[i].oldest_ns < now -
			    age * 1000000000 ? "max-age" : "max-size");
		free(v);
		v = NULL;
	}
	if (*n == 0 && j->pol.store_max_size > 0) {
		if (store_used_bytes(s, &used, err) == -1)
			goto out;
		if (used > (int64_t)j->pol.store_max_size) {
			if (store_oldest_profiles(s, 0, INT64_MAX, RETENTION_DROP_BATCH,
			    &v, &nv, err) == -1)
				goto out;
			k = enough(v, nv, used - (int64_t)j->pol.store_max_size);
			if (k > 0 && retention_drop(s, v, k, NULL, err) == -1)
				goto out;
			*n = k;
			j->bytes += bytes_of(j, v, k);
			if (k > 0)
				log_info("retention: dropped %zu profile(s), "
				    "the store takes %lld bytes (store-max-size "
				    "%llu)", k, (long long)used,
				    (unsigned long long)j->pol.store_max_size);
		}
	}
	rc = 0;
out:
	free(v);
	store_usage_free(u, nu);
	return rc;
}

static void
rjob_run(struct job *job, void *worker)
{
	struct rjob *j = (struct rjob *)job;
	struct import_worker *w = worker;
	int64_t removed, before;
	size_t n;

	if (j->phase == R_DROP) {
		if (drop_step(j, w->store, &n, &j->err) == -1) {
			j->failed = 1;
			return;
		}
		j->dropped += (int64_t)n;
		j->backlog = store_backlog_over(w->store, &j->backlog_max);
		if (n > 0)
			return;
		if (j->dropped > 0 || atomic_exchange(&j->rt->gc_wanted, 0))
			j->phase = R_GC;
		else
			j->phase = R_VACUUM;
		return;
	}
	if (j->phase == R_GC) {
		if (retention_gc_step(w->store, w->index, &j->gc_phase,
		    GC_BATCH, &removed, &j->err) == -1) {
			j->failed = 1;
			importer_forget(w->importer);
			return;
		}
		j->collected += removed;
		if (removed > 0)
			importer_forget(w->importer);
		if (j->gc_phase == -1)
			j->phase = R_VACUUM;
		return;
	}
	if (j->phase == R_VACUUM) {
		/* What deletes and collections freed goes back to the file
		 * system, a batch a step, so pushes get in between. */
		before = j->free_pages;
		if (store_vacuum_step(w->store, VACUUM_BATCH, &j->free_pages,
		    &j->err) == -1) {
			j->failed = 1;
			return;
		}
		if (before > j->free_pages)
			j->vacuumed += before - j->free_pages;
		if (j->free_pages == 0 || (before != -1 &&
		    j->free_pages >= before))
			j->phase = R_DONE;
	}
}

static void
rjob_free(struct rjob *j)
{
	j->rt->running = 0;
	config_retention_clear(&j->pol);
	free(j);
}

static void
rjob_done(struct job *job)
{
	struct rjob *j = (struct rjob *)job;
	struct retainer *rt = j->rt;

	if (job->run == NULL) {			/* stopping */
		rjob_free(j);
		return;
	}
	if (j->failed) {
		log_err("retention: %s", j->err.msg);
		snprintf(rt->last_error, sizeof rt->last_error, "%s",
		    j->err.msg);
	} else if (j->phase != R_DONE) {
		error_clear(&j->err);
		if (jobq_push(j->q, &j->job) == 0)
			return;
		/* A full queue: the next pass goes on from here. */
		log_warn("retention: the import queue is full; the pass "
		    "stops until the next one");
	}
	rt->passes++;
	rt->dropped += (uint64_t)j->dropped;
	rt->collected += (uint64_t)j->collected;
	rt->last_pass_ns = now_ns();
	rt->last_dropped = j->dropped;
	rt->last_collected = j->collected;
	if (!j->failed)
		rt->last_error[0] = '\0';
	if (j->unshipped > 0)
		log_warn("fleet: backlog over fleet-backlog-max (%lld bytes > "
		    "%lld): %lld unshipped profiles deleted by retention",
		    (long long)j->backlog, (long long)j->backlog_max,
		    (long long)j->unshipped);
	if (j->dropped > 0 || j->collected > 0 || j->vacuumed > 0)
		log_info("retention: %lld profile(s) dropped (about %lld "
		    "bytes), %lld unused row(s) collected, %lld free page(s) "
		    "given back", (long long)j->dropped, (long long)j->bytes,
		    (long long)j->collected, (long long)j->vacuumed);
	rjob_free(j);
}

void
retainer_start(struct retainer *rt, struct jobq *q,
    const struct retention *pol)
{
	struct rjob *j;

	if (rt->running)
		return;
	j = xcalloc(1, sizeof *j);
	j->job.run = rjob_run;
	j->job.done = rjob_done;
	j->rt = rt;
	j->q = q;
	config_retention_copy(&j->pol, pol);
	j->phase = R_DROP;
	j->free_pages = -1;
	rt->running = 1;
	if (jobq_push(q, &j->job) == -1)
		rjob_free(j);
}
