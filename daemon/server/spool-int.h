/* spool-int.h: the spool's state on the loop, shared by spool.c (events,
 * backlog, imports) and spool-look.c (listings and lstats). */
#ifndef PROFD_SPOOL_INT_H
#define PROFD_SPOOL_INT_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "jobq.h"
#include "rate.h"
#include "spool-file.h"

struct api_host;

struct event;

#define SPOOL_MAX_INFLIGHT	2	/* import jobs queued at once */
#define SPOOL_MAX_FILES		100000	/* entries known at once */
#define SPOOL_SETTLE_S		5	/* a younger file may be written */
#define SPOOL_RETRY_S		1	/* after a full queue */
#define SPOOL_BACKOFF_MAX_S	60	/* the longest wait on a full disk */

enum entry_state { E_CAND, E_LOOKING, E_WAITING, E_RUNNING };

struct spool_entry {
	TAILQ_ENTRY(spool_entry) link;	/* cands or backlog */
	char *rel;
	uint64_t size;
	enum entry_state state;
	int created_only;		/* only IN_CREATE seen: being written? */
	int again;			/* an event came while it ran */
};
TAILQ_HEAD(spool_entries, spool_entry);

struct spool_watch {
	int wd;
	char *rel;			/* "" the spool, "scope", "scope/fmt" */
};

struct spool_look;

struct spool {
	struct api_host *host;
	/* After a look found files: feed the import queue (spool.c's pump,
	 * which starts looks itself: so spool-look.c does not call back). */
	void (*looked)(struct spool *);
	char *dir;
	int ifd;
	struct event *iev, *rescan, *settle, *retry, *backoff;
	/* After a full disk or a busy store: the file is kept, no import
	 * starts for backoff_s (1 s, doubled up to SPOOL_BACKOFF_MAX_S)
	 * and the file is tried again first; 0 when the last import was
	 * stored. */
	int backoff_s, paused;
	struct spool_watch *watches;
	size_t nwatches;
	void *index;			/* tsearch root of entries by rel */
	size_t nindex;
	struct spool_entries cands, backlog;
	size_t nwaiting, inflight;
	uint64_t waiting_bytes, inflight_bytes;
	/* The bytes of files done (imported, duplicate or refused): how
	 * fast the backlog drains. */
	struct rate drained;
	struct spool_look *look;	/* on the I/O queue */
	int want_all;			/* a full listing is asked for */
	char **want_dirs;		/* listings of single directories */
	size_t nwant_dirs;
	int truncated, stopping, warned_watches;
	char *last_scan_err;
	int64_t last_scan_ns;
	uint64_t imported, duplicates, refused, retried;
};

/* A listing and/or lstats, on the I/O thread. */
struct spool_look {
	struct job job;
	struct spool *sp;
	const char *dir;
	int all;
	char **dirs;
	size_t ndirs;
	char **cands;
	size_t ncands;
	struct spool_found *cstat;
	int *cerrno;
	struct spool_listing found;
	struct error err;
};

/* spool-entry.c: the index of known files and their states. */
struct spool_entry *spool_entry_find(struct spool *, const char *rel);
/* A new entry in state, or NULL past SPOOL_MAX_FILES (truncated set). */
struct spool_entry *spool_entry_new(struct spool *, const char *rel,
    enum entry_state);
/* Forget an entry (out of every list). */
void spool_entry_drop(struct spool *, struct spool_entry *);
/* Into the backlog. */
void spool_entry_wait(struct spool *, struct spool_entry *, uint64_t size);
/* For tdestroy. */
void spool_entry_free(void *);
/* Arm a timer unless it is armed or the spool stops. */
void spool_look_later(struct spool *, struct event *, int seconds);
/* spool-watch.c.  Watch a directory: 1 new, 0 known or gone, -1
 * (errno). */
int spool_watch(struct spool *, const char *rel);
struct spool_watch *spool_watch_by_wd(struct spool *, int wd);
/* Its directory is gone. */
void spool_watch_remove(struct spool *, struct spool_watch *);
/* Start a look (listing, lstats) if one is wanted and none runs. */
void spool_look_kick(struct spool *);

#endif
