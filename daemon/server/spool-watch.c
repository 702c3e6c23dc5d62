/* spool-watch.c: the spool's inotify watches, one per directory of the
 * layout (the spool, its scopes, their format directories); a directory
 * whose watch is new is listed once, as files may have come before it. */
#include <sys/inotify.h>
#include <sys/queue.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "log.h"
#include "spool-int.h"

#define SPOOL_WATCH_MASK	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | \
				    IN_ONLYDIR | IN_DONT_FOLLOW | \
				    IN_EXCL_UNLINK)

static void
spool_watch_want_dir(struct spool *sp, const char *rel)
{
	size_t i;

	if (rel[0] == '\0') {
		sp->want_all = 1;
		return;
	}
	for (i = 0; i < sp->nwant_dirs; i++)
		if (strcmp(sp->want_dirs[i], rel) == 0)
			return;
	sp->want_dirs = xreallocarray(sp->want_dirs, sp->nwant_dirs + 1,
	    sizeof *sp->want_dirs);
	sp->want_dirs[sp->nwant_dirs++] = xstrdup(rel);
}

struct spool_watch *
spool_watch_by_wd(struct spool *sp, int wd)
{
	size_t i;

	for (i = 0; i < sp->nwatches; i++)
		if (sp->watches[i].wd == wd)
			return &sp->watches[i];
	return NULL;
}

/* Watch the directory rel; a new watch asks for a listing of it, for the
 * files dropped before the watch was there.  1 new, 0 known or gone, -1
 * (errno) if inotify refuses. */
int
spool_watch(struct spool *sp, const char *rel)
{
	struct spool_watch *w;
	char *path;
	size_t i;
	int wd;

	for (i = 0; i < sp->nwatches; i++)
		if (strcmp(sp->watches[i].rel, rel) == 0)
			return 0;
	if (rel[0] == '\0')
		path = xstrdup(sp->dir);
	else
		xasprintf(&path, "%s/%s", sp->dir, rel);
	wd = inotify_add_watch(sp->ifd, path, SPOOL_WATCH_MASK);
	free(path);
	if (wd == -1) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		if ((errno == ENOSPC || errno == ENOMEM) &&
		    !sp->warned_watches) {
			sp->warned_watches = 1;
			log_warn("spool: no more inotify watches (sysctl "
			    "fs.inotify.max_user_watches): %s/%s and other new "
			    "directories are only seen by the rescans",
			    sp->dir, rel);
		}
		return -1;
	}
	if ((w = spool_watch_by_wd(sp, wd)) != NULL) {
		/* The same directory under a new name (renamed). */
		free(w->rel);
		w->rel = xstrdup(rel);
	} else {
		sp->watches = xreallocarray(sp->watches, sp->nwatches + 1,
		    sizeof *sp->watches);
		w = &sp->watches[sp->nwatches++];
		w->wd = wd;
		w->rel = xstrdup(rel);
	}
	spool_watch_want_dir(sp, rel);
	return 1;
}

void
spool_watch_remove(struct spool *sp, struct spool_watch *w)
{
	size_t i = (size_t)(w - sp->watches);

	if (w->rel[0] == '\0') {
		log_warn("spool: %s was removed; it is made again", sp->dir);
		sp->want_all = 1;
	}
	free(w->rel);
	sp->watches[i] = sp->watches[--sp->nwatches];
}
