/* spool-entry.c: the files the spool knows of, by path: an index
 * (tsearch) and the state each is in (a candidate being looked at,
 * waiting in the backlog, importing). */
#include <search.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "spool-int.h"

static int
spool_entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct spool_entry *)a)->rel,
	    ((const struct spool_entry *)b)->rel);
}

struct spool_entry *
spool_entry_find(struct spool *sp, const char *rel)
{
	struct spool_entry key, **found;

	key.rel = (char *)(uintptr_t)rel;
	found = tfind(&key, &sp->index, spool_entry_cmp);
	return found ? *found : NULL;
}

struct spool_entry *
spool_entry_new(struct spool *sp, const char *rel, enum entry_state state)
{
	struct spool_entry *e;

	if (sp->nindex >= SPOOL_MAX_FILES) {
		/* Found again by the listing once the backlog drains. */
		sp->truncated = 1;
		return NULL;
	}
	e = xcalloc(1, sizeof *e);
	e->rel = xstrdup(rel);
	e->state = state;
	if (tsearch(e, &sp->index, spool_entry_cmp) == NULL)
		abort();
	sp->nindex++;
	return e;
}

void
spool_entry_free(void *p)
{
	struct spool_entry *e = p;

	free(e->rel);
	free(e);
}

/* Forget e (out of every list). */
void
spool_entry_drop(struct spool *sp, struct spool_entry *e)
{
	switch (e->state) {
	case E_CAND:
	case E_LOOKING:
		TAILQ_REMOVE(&sp->cands, e, link);
		break;
	case E_WAITING:
		TAILQ_REMOVE(&sp->backlog, e, link);
		sp->nwaiting--;
		sp->waiting_bytes -= e->size;
		break;
	case E_RUNNING:
		break;
	}
	tdelete(e, &sp->index, spool_entry_cmp);
	sp->nindex--;
	spool_entry_free(e);
}

void
spool_entry_wait(struct spool *sp, struct spool_entry *e, uint64_t size)
{
	e->state = E_WAITING;
	e->size = size;
	TAILQ_INSERT_TAIL(&sp->backlog, e, link);
	sp->nwaiting++;
	sp->waiting_bytes += size;
}
