/* spool.c: the spool's state on the loop.
 *
 * An entry is one path under the spool, known once (a tsearch index by
 * path) and in one state: a candidate from an event, waiting for its
 * lstat on the I/O thread (CAND, LOOKING); waiting in the backlog
 * (WAITING); or on the import queue (RUNNING).  Listings and lstats are
 * one "look" job at a time on the I/O queue; imports are at most
 * SPOOL_MAX_INFLIGHT jobs on the import queue, which pushes share, so a
 * large backlog never fills it.  A queue that is full only delays: the
 * file stays where it is and a timer tries again.
 *
 * A file is imported once per content: if profd dies between the commit
 * and the removal, the next import of the same bytes is a duplicate and
 * only removes the file.  The looks (listings, lstats) are in
 * spool-look.c. */
#include <sys/inotify.h>
#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <event2/event.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activity.h"
#include "alloc.h"
#include "api.h"
#include "backoff.h"
#include "clock.h"
#include "import.h"
#include "jobq.h"
#include "log.h"
#include "spool-file.h"
#include "spool-int.h"
#include "spool.h"
#include "status.h"

static void spool_pump(struct spool *);


/* One file's import, on the import thread. */
struct spool_import {
	struct job job;
	struct spool *sp;
	char *rel;
	uint64_t size;			/* as listed: of the backlog's bytes */
	struct spool_task task;
};

/* A name an event gave: into the index as a candidate for an lstat. */
static void
spool_candidate(struct spool *sp, const char *rel, int created_only)
{
	struct spool_entry *e;

	if ((e = spool_entry_find(sp, rel)) != NULL) {
		if (e->state == E_RUNNING)
			e->again = 1;
		else if (!created_only)
			e->created_only = 0;
		return;
	}
	if ((e = spool_entry_new(sp, rel, E_CAND)) == NULL)
		return;
	e->created_only = created_only;
	TAILQ_INSERT_TAIL(&sp->cands, e, link);
}

static void
spool_event(struct spool *sp, const struct inotify_event *ev)
{
	struct spool_watch *w;
	char *rel;
	int depth;

	if (ev->mask & IN_Q_OVERFLOW) {
		log_warn("spool: inotify queue overflow; listing %s again",
		    sp->dir);
		sp->want_all = 1;
		return;
	}
	if ((w = spool_watch_by_wd(sp, ev->wd)) == NULL)
		return;
	if (ev->mask & IN_IGNORED) {
		spool_watch_remove(sp, w);
		return;
	}
	if (ev->len == 0 || ev->name[0] == '\0' ||
	    spool_name_in_progress(ev->name))
		return;
	depth = spool_depth(w->rel);
	if (depth == 0 && spool_name_reserved(ev->name))
		return;
	if (depth == 0)
		rel = xstrdup(ev->name);
	else
		xasprintf(&rel, "%s/%s", w->rel, ev->name);
	if ((ev->mask & IN_ISDIR) && spool_layout_dir(depth, ev->name))
		spool_watch(sp, rel);
	else if (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO))
		spool_candidate(sp, rel, 0);
	else if (ev->mask & IN_CREATE)
		/* A link, FIFO or directory has no close; a regular file
		 * is being written and waits for its IN_CLOSE_WRITE. */
		spool_candidate(sp, rel, !(ev->mask & IN_ISDIR));
	free(rel);
}

static void
spool_inotify_cb(evutil_socket_t fd, short what, void *arg)
{
	struct spool *sp = arg;
	char buf[16384]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	char *p;

	for (;;) {
		n = read(sp->ifd, buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (p = buf; p < buf + n;
		    p += sizeof *ev + ev->len) {
			ev = (const struct inotify_event *)(void *)p;
			spool_event(sp, ev);
		}
	}
	spool_look_kick(sp);
}


static void
spool_import_run(struct job *j, void *worker)
{
	struct spool_import *ij = (struct spool_import *)j;
	struct import_worker *w = worker;

	spool_file_import(w->importer, &ij->task);
}

/* Not the file's fault and not for long (the disk holding the store is
 * full, the store is busy): the file is kept and tried again soon, not
 * only at the next rescan. */
static int
spool_held(const struct spool_task *t)
{
	return t->outcome == SPOOL_RETRY &&
	    (t->err.kind == ERR_NO_SPACE || t->err.kind == ERR_BUSY);
}

/* e goes back to the head of the backlog and no import starts until the
 * backoff timer: each file tried while the disk stays full would fail the
 * same way.  Said once per episode, not at every try. */
static void
spool_hold(struct spool *sp, struct spool_entry *e, const struct error *err)
{
	struct timeval tv = { 0, 0 };

	e->state = E_WAITING;
	TAILQ_INSERT_HEAD(&sp->backlog, e, link);
	sp->nwaiting++;
	sp->waiting_bytes += e->size;
	if (evtimer_pending(sp->backoff, NULL))
		return;			/* the other import in flight */
	if (sp->backoff_s == 0) {
		api_host_import_count(sp->host, 0);
		log_err("spool: %s/%s: %s; kept in the spool, imports wait "
		    "and try again (every %d s at most) until it is stored",
		    sp->dir, e->rel, err->msg, SPOOL_BACKOFF_MAX_S);
	}
	sp->backoff_s = (int)backoff_next(sp->backoff_s, SPOOL_BACKOFF_MAX_S);
	if (sp->backoff_s > 1)
		log_debug("spool: %s/%s: %s; tried again in %d s", sp->dir,
		    e->rel, err->msg, sp->backoff_s);
	sp->paused = 1;
	tv.tv_sec = sp->backoff_s;
	evtimer_add(sp->backoff, &tv);
}

static void
spool_backoff_cb(evutil_socket_t fd, short what, void *arg)
{
	struct spool *sp = arg;

	sp->paused = 0;
	spool_pump(sp);
	spool_look_kick(sp);
}

static void
spool_import_log(struct spool *sp, struct spool_import *ij)
{
	struct spool_task *t = &ij->task;
	const char *scope = ij->rel, *slash = strchr(ij->rel, '/');
	int slen = slash ? (int)(slash - scope) : 0;

	switch (t->outcome) {
	case SPOOL_IMPORTED:
		sp->imported++;
		api_host_import_count(sp->host, 1);
		log_info("spool: %s/%s: stored as profile %lld in scope %.*s "
		    "(%s, %lld samples, %s%s%llu bytes)%s%s", sp->dir, ij->rel,
		    (long long)t->profile_id, slen, scope, t->format,
		    (long long)t->samples, t->dropped ? t->dropped : "",
		    t->dropped ? "; " : "", (unsigned long long)t->bytes,
		    t->moved_to ? "; kept as " : "",
		    t->moved_to ? t->moved_to : "");
		break;
	case SPOOL_DUPLICATE:
		sp->duplicates++;
		api_host_import_count(sp->host, 1);
		log_info("spool: %s/%s: already stored as profile %lld in "
		    "scope %.*s%s%s", sp->dir, ij->rel,
		    (long long)t->profile_id, slen, scope,
		    t->moved_to ? "; kept as " : "",
		    t->moved_to ? t->moved_to : "");
		break;
	case SPOOL_REFUSED:
		sp->refused++;
		api_host_import_count(sp->host, 0);
		log_warn("spool: %s/%s: %s; moved to %s", sp->dir, ij->rel,
		    t->err.msg, t->moved_to);
		break;
	case SPOOL_RETRY:
		sp->retried++;
		if (spool_held(t))
			break;		/* said by spool_hold */
		if (t->err.kind != ERR_NONE) {
			api_host_import_count(sp->host, 0);
			log_err("spool: %s/%s: %s; left in the spool for the "
			    "next rescan", sp->dir, ij->rel, t->err.msg);
		}
		break;
	case SPOOL_LEFT:
		log_debug("spool: %s/%s: left alone%s%s", sp->dir, ij->rel,
		    t->err.kind != ERR_NONE ? " (being written?): " : "",
		    t->err.msg);
		break;
	case SPOOL_GONE:
		log_debug("spool: %s/%s: gone before its import", sp->dir,
		    ij->rel);
		break;
	}
	if (t->cleanup != NULL) {
		char *path, *sc;

		log_err("spool: %s/%s: %s", sp->dir, ij->rel, t->cleanup);
		xasprintf(&path, "%s/%s", sp->dir, ij->rel);
		sc = xstrndup(scope, (size_t)slen);
		activity_error(sp->host->activity, ACT_SPOOL, path, sc,
		    t->cleanup);
		free(sc);
		free(path);
	}
}

static void
spool_import_done(struct job *j)
{
	struct spool_import *ij = (struct spool_import *)j;
	struct spool *sp = ij->sp;
	struct spool_entry *e;

	sp->inflight--;
	sp->inflight_bytes -= ij->size;
	if (j->run != NULL)
		spool_import_log(sp, ij);
	if (j->run != NULL && (ij->task.outcome == SPOOL_IMPORTED ||
	    ij->task.outcome == SPOOL_DUPLICATE ||
	    ij->task.outcome == SPOOL_REFUSED))
		rate_add(&sp->drained, mono_ns(), ij->size);
	if (j->run != NULL && sp->backoff_s > 0 &&
	    (ij->task.outcome == SPOOL_IMPORTED ||
	    ij->task.outcome == SPOOL_DUPLICATE)) {
		log_info("spool: imports resume (%s/%s was stored)", sp->dir,
		    ij->rel);
		sp->backoff_s = 0;
	}
	if ((e = spool_entry_find(sp, ij->rel)) != NULL) {
		if (j->run != NULL && !sp->stopping && spool_held(&ij->task)) {
			e->again = 0;
			spool_hold(sp, e, &ij->task.err);
		} else if (e->again && j->run != NULL && !sp->stopping) {
			/* Written again meanwhile: look at it again. */
			e->again = 0;
			e->created_only = 0;
			e->state = E_CAND;
			TAILQ_INSERT_TAIL(&sp->cands, e, link);
		} else
			spool_entry_drop(sp, e);
	}
	spool_task_clear(&ij->task);
	free(ij->rel);
	free(ij);
	if (sp->stopping)
		return;
	if (sp->truncated && sp->nwaiting == 0 && sp->inflight == 0) {
		sp->truncated = 0;
		sp->want_all = 1;
	}
	spool_pump(sp);
	spool_look_kick(sp);
}

/* Feed the import queue from the backlog, SPOOL_MAX_INFLIGHT at most. */
static void
spool_pump(struct spool *sp)
{
	const struct config *cfg;
	struct spool_import *ij;
	struct spool_entry *e;

	while (!sp->stopping && !sp->paused &&
	    sp->inflight < SPOOL_MAX_INFLIGHT &&
	    (e = TAILQ_FIRST(&sp->backlog)) != NULL) {
		/* Read now: SIGHUP may replace the configuration. */
		cfg = sp->host->cfg;
		ij = xcalloc(1, sizeof *ij);
		ij->job.run = spool_import_run;
		ij->job.done = spool_import_done;
		ij->sp = sp;
		ij->rel = xstrdup(e->rel);
		ij->size = e->size;
		ij->task.dir = sp->dir;
		ij->task.rel = ij->rel;
		ij->task.keep = cfg->spool_keep;
		ij->task.max_bytes = cfg->limits.max_upload;
		ij->task.activity = sp->host->activity;
		if (jobq_push(sp->host->queues[API_IMPORT],
		    &ij->job) == -1) {
			/* Full: the file waits, the timer tries again. */
			log_debug("spool: the import queue is full; %s/%s "
			    "waits", sp->dir, ij->rel);
			free(ij->rel);
			free(ij);
			spool_look_later(sp, sp->retry, SPOOL_RETRY_S);
			return;
		}
		TAILQ_REMOVE(&sp->backlog, e, link);
		sp->nwaiting--;
		sp->waiting_bytes -= e->size;
		e->state = E_RUNNING;
		sp->inflight++;
		sp->inflight_bytes += ij->size;
	}
}

static void
spool_retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct spool *sp = arg;

	spool_pump(sp);
	spool_look_kick(sp);
}

static void
spool_arm_rescan(struct spool *sp)
{
	int64_t s = sp->host->cfg->spool_rescan;
	struct timeval tv = { (time_t)(s > 0 ? s : 300), 0 };

	if (!sp->stopping)
		evtimer_add(sp->rescan, &tv);
}

/* The safety net: list everything again. */
static void
spool_rescan_cb(evutil_socket_t fd, short what, void *arg)
{
	struct spool *sp = arg;

	sp->want_all = 1;
	spool_look_kick(sp);
	spool_arm_rescan(sp);
}

static void
spool_settle_cb(evutil_socket_t fd, short what, void *arg)
{
	struct spool *sp = arg;

	sp->want_all = 1;
	spool_look_kick(sp);
}

struct spool *
spool_new(struct api_host *host, struct event_base *base, const char *dir,
    struct error *err)
{
	struct spool *sp = xcalloc(1, sizeof *sp);

	sp->host = host;
	sp->looked = spool_pump;
	sp->dir = xstrdup(dir);
	TAILQ_INIT(&sp->cands);
	TAILQ_INIT(&sp->backlog);
	if ((sp->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1) {
		error_set(err, ERR_INTERNAL, "spool: inotify: %s",
		    strerror(errno));
		spool_free(sp);
		return NULL;
	}
	if (spool_watch(sp, "") != 1) {
		error_set(err, ERR_INTERNAL, "spool: cannot watch %s: %s", dir,
		    strerror(errno));
		spool_free(sp);
		return NULL;
	}
	sp->iev = event_new(base, sp->ifd, EV_READ | EV_PERSIST,
	    spool_inotify_cb, sp);
	event_add(sp->iev, NULL);
	sp->rescan = evtimer_new(base, spool_rescan_cb, sp);
	sp->settle = evtimer_new(base, spool_settle_cb, sp);
	sp->retry = evtimer_new(base, spool_retry_cb, sp);
	sp->backoff = evtimer_new(base, spool_backoff_cb, sp);
	spool_arm_rescan(sp);
	/* The first listing: what waited while profd was not running. */
	sp->want_all = 1;
	spool_look_kick(sp);
	log_info("spool: watching %s", dir);
	return sp;
}

void
spool_stop(struct spool *sp)
{
	if (sp != NULL)
		sp->stopping = 1;
}

void
spool_free(struct spool *sp)
{
	size_t i;

	if (sp == NULL)
		return;
	if (sp->iev != NULL)
		event_free(sp->iev);
	if (sp->rescan != NULL)
		event_free(sp->rescan);
	if (sp->settle != NULL)
		event_free(sp->settle);
	if (sp->retry != NULL)
		event_free(sp->retry);
	if (sp->backoff != NULL)
		event_free(sp->backoff);
	if (sp->ifd != -1)
		close(sp->ifd);
	tdestroy(sp->index, spool_entry_free);
	for (i = 0; i < sp->nwatches; i++)
		free(sp->watches[i].rel);
	free(sp->watches);
	for (i = 0; i < sp->nwant_dirs; i++)
		free(sp->want_dirs[i]);
	free(sp->want_dirs);
	free(sp->last_scan_err);
	free(sp->dir);
	free(sp);
}

json_t *
spool_status(void *ctx)
{
	struct spool *sp = ctx;
	json_t *o;

	if (sp == NULL)
		return json_null();
	o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:b, s:b, s:o, s:I, s:I, "
	    "s:I, s:I, s:I}",
	    "dir", sp->dir,
	    "watched_dirs", (json_int_t)sp->nwatches,
	    "waiting_files", (json_int_t)sp->nwaiting,
	    "waiting_bytes", (json_int_t)sp->waiting_bytes,
	    "in_flight", (json_int_t)sp->inflight,
	    "scanning", sp->look != NULL && sp->look->all,
	    "more", sp->truncated,
	    "last_scan", status_time(sp->last_scan_ns),
	    "last_scan_ns", (json_int_t)sp->last_scan_ns,
	    "imported", (json_int_t)sp->imported,
	    "duplicates", (json_int_t)sp->duplicates,
	    "refused", (json_int_t)sp->refused,
	    "retried", (json_int_t)sp->retried);
	if (o != NULL)
		status_drain(o, &sp->drained, (int64_t)(sp->waiting_bytes +
		    sp->inflight_bytes));
	return o;
}
