/* spool-look.c: the spool's looks, one at a time on the I/O queue: the
 * listings a new watch, a rescan or an overflow asks for, and the lstats
 * of the names inotify gave.  What they find goes into the backlog. */
#include <sys/stat.h>

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "clock.h"
#include "jobq.h"
#include "log.h"
#include "spool-file.h"
#include "spool-int.h"

/* Arm a timer of the spool unless it is pending or the spool stops. */
void
spool_look_later(struct spool *sp, struct event *ev, int seconds)
{
	struct timeval tv = { seconds, 0 };

	if (!sp->stopping && !evtimer_pending(ev, NULL))
		evtimer_add(ev, &tv);
}

static void
spool_look_run(struct job *j, void *worker)
{
	struct spool_look *lk = (struct spool_look *)j;
	size_t i;

	if (lk->all && spool_prepare(lk->dir, &lk->err) == 0)
		spool_list(lk->dir, "", (int64_t)SPOOL_SETTLE_S * 1000000000,
		    &lk->found, &lk->err);
	for (i = 0; i < lk->ndirs; i++)
		spool_list(lk->dir, lk->dirs[i],
		    (int64_t)SPOOL_SETTLE_S * 1000000000, &lk->found, &lk->err);
	for (i = 0; i < lk->ncands; i++)
		lk->cerrno[i] = spool_stat(lk->dir, lk->cands[i],
		    &lk->cstat[i]) == -1 ? errno : 0;
}

static void
spool_look_free(struct spool_look *lk)
{
	size_t i;

	for (i = 0; i < lk->ndirs; i++)
		free(lk->dirs[i]);
	free(lk->dirs);
	for (i = 0; i < lk->ncands; i++)
		free(lk->cands[i]);
	free(lk->cands);
	free(lk->cstat);
	free(lk->cerrno);
	spool_listing_clear(&lk->found);
	free(lk);
}

/* What an lstat said about a candidate. */
static void
spool_look_cand(struct spool *sp, const char *rel, int err,
    const struct spool_found *st)
{
	struct spool_entry *e = spool_entry_find(sp, rel);

	if (e == NULL || e->state != E_LOOKING)
		return;
	if (err != 0 || (S_ISREG(st->type) && e->created_only)) {
		/* Gone, or still being written. */
		spool_entry_drop(sp, e);
		return;
	}
	TAILQ_REMOVE(&sp->cands, e, link);
	spool_entry_wait(sp, e, st->size);
}

static void
spool_look_done(struct job *j)
{
	struct spool_look *lk = (struct spool_look *)j;
	struct spool *sp = lk->sp;
	struct spool_entry *e;
	size_t i;

	sp->look = NULL;
	if (j->run == NULL || sp->stopping) {
		spool_look_free(lk);
		return;
	}
	if (lk->all) {
		sp->last_scan_ns = now_ns();
		spool_watch(sp, "");
	}
	if (lk->err.kind != ERR_NONE) {
		if (sp->last_scan_err == NULL ||
		    strcmp(sp->last_scan_err, lk->err.msg) != 0)
			log_err("%s", lk->err.msg);
		free(sp->last_scan_err);
		sp->last_scan_err = xstrdup(lk->err.msg);
	} else if (lk->all && sp->last_scan_err != NULL) {
		log_info("spool: %s is usable again", sp->dir);
		free(sp->last_scan_err);
		sp->last_scan_err = NULL;
	}
	for (i = 0; i < lk->found.n; i++) {
		const struct spool_found *f = &lk->found.v[i];

		if (f->is_dir)
			spool_watch(sp, f->rel);
		else if ((e = spool_entry_find(sp, f->rel)) != NULL) {
			/* Settled, says the listing: not being written. */
			if (e->state == E_LOOKING)
				e->created_only = 0;
		} else if ((e = spool_entry_new(sp, f->rel,
		    E_WAITING)) != NULL)
			spool_entry_wait(sp, e, f->size);
	}
	for (i = 0; i < lk->ncands; i++)
		spool_look_cand(sp, lk->cands[i], lk->cerrno[i],
		    &lk->cstat[i]);
	if (lk->found.young)
		spool_look_later(sp, sp->settle, SPOOL_SETTLE_S + 1);
	if (lk->found.truncated)
		sp->truncated = 1;
	spool_look_free(lk);
	sp->looked(sp);
	spool_look_kick(sp);
}

void
spool_look_kick(struct spool *sp)
{
	struct spool_look *lk;
	struct spool_entry *e;
	size_t i, n = 0;

	if (sp->stopping || sp->look != NULL)
		return;
	TAILQ_FOREACH(e, &sp->cands, link)
		n += e->state == E_CAND;
	if (!sp->want_all && sp->nwant_dirs == 0 && n == 0)
		return;
	lk = xcalloc(1, sizeof *lk);
	lk->job.run = spool_look_run;
	lk->job.done = spool_look_done;
	lk->sp = sp;
	lk->dir = sp->dir;
	lk->all = sp->want_all;
	lk->found.max = SPOOL_MAX_FILES - sp->nindex;
	lk->cands = xcalloc(n, sizeof *lk->cands);
	lk->cstat = xcalloc(n, sizeof *lk->cstat);
	lk->cerrno = xcalloc(n, sizeof *lk->cerrno);
	TAILQ_FOREACH(e, &sp->cands, link)
		if (e->state == E_CAND)
			lk->cands[lk->ncands++] = xstrdup(e->rel);
	if (!lk->all) {
		lk->dirs = sp->want_dirs;
		lk->ndirs = sp->nwant_dirs;
	}
	if (jobq_push(sp->host->queues[API_IO], &lk->job) == -1) {
		if (!lk->all) {
			lk->dirs = NULL;
			lk->ndirs = 0;
		}
		spool_look_free(lk);
		spool_look_later(sp, sp->retry, SPOOL_RETRY_S);
		return;
	}
	/* Taken: what it covers is no longer wanted. */
	sp->look = lk;
	TAILQ_FOREACH(e, &sp->cands, link)
		if (e->state == E_CAND)
			e->state = E_LOOKING;
	if (lk->all) {
		/* The full listing covers the single directories. */
		for (i = 0; i < sp->nwant_dirs; i++)
			free(sp->want_dirs[i]);
		free(sp->want_dirs);
	}
	sp->want_dirs = NULL;
	sp->nwant_dirs = 0;
	sp->want_all = 0;
}
