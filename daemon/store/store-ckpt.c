/* store-ckpt.c: keeps the writer's WAL small.
 *
 * Checkpoints run on a thread of their own, on a connection of their own,
 * so that the commit of a large import does not copy its pages into the
 * database before the import can answer: the writer's WAL hook wakes the
 * thread once the WAL passes STORE_CKPT_PAGES.  The thread asks for a
 * TRUNCATE checkpoint without a busy handler: when no reader and no writer
 * is in the way it copies every frame and cuts the WAL to nothing; when
 * one is, SQLite does what a PASSIVE checkpoint would (copy what readers
 * allow, never wait) and the next commit tries again.  If the thread falls
 * behind and the WAL passes STORE_CKPT_HARD pages, the writer waits for a
 * round of it after its commit: imports slow down, the WAL stays bounded.
 * A WAL that restarts from its start is cut back to STORE_WAL_LIMIT bytes
 * (journal_size_limit).  The thread starts with store_start_threads(),
 * not at open: until then SQLite checkpoints after commits itself.  On close the writer truncates the WAL, and the
 * last connection to close (the writer: see server.c) removes it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "alloc.h"
#include "store-int.h"

#define STORE_CKPT_PAGES	1000
#define STORE_CKPT_HARD		4000
#define STORE_WAL_LIMIT		(4 << 20)

struct store_ckpt {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv, done_cv;
	int want, busy, stop;
	int running;			/* the thread was started */
	uint64_t rounds;		/* checkpoint rounds finished */
	sqlite3 *db;
};

static void *
store_ckpt_main(void *arg)
{
	struct store_ckpt *c = arg;

	/* Background work (on Linux the nice value is per thread). */
	setpriority(PRIO_PROCESS, 0, 10);
	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->want && !c->stop)
			pthread_cond_wait(&c->cv, &c->mu);
		if (c->stop)
			break;
		c->want = 0;
		c->busy = 1;
		pthread_mutex_unlock(&c->mu);
		/* Busy (readers, the writer): as far as it could go; the next
		 * commit asks again. */
		sqlite3_wal_checkpoint_v2(c->db, NULL,
		    SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
		pthread_mutex_lock(&c->mu);
		c->busy = 0;
		c->rounds++;
		pthread_cond_broadcast(&c->done_cv);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

static int
store_ckpt_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct store_ckpt *c = arg;
	uint64_t round;

	(void)db;
	(void)name;
	if (pages < STORE_CKPT_PAGES)
		return SQLITE_OK;
	pthread_mutex_lock(&c->mu);
	c->want = 1;
	pthread_cond_signal(&c->cv);
	if (pages >= STORE_CKPT_HARD) {
		/* The round after this signal, not one already under way
		 * (it may have started before this commit). */
		round = c->rounds + (c->busy ? 2 : 1);
		while (c->rounds < round && !c->stop)
			pthread_cond_wait(&c->done_cv, &c->mu);
	}
	pthread_mutex_unlock(&c->mu);
	return SQLITE_OK;
}

/* A connection that has not read the database does not know it is in
 * WAL mode, and a checkpoint on it does nothing: read the schema first. */
static int
store_ckpt_wal_mode(sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st) == SQLITE_ROW && sqlite3_strnicmp(
	    (const char *)sqlite3_column_text(st, 0), "wal", 3) == 0 ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

/* The connection and the WAL settings, with the writer: what can fail on
 * a bad file fails at open, before profd detaches. */
int
store_ckpt_open(struct store *s, const char *path, struct error *err)
{
	struct store_ckpt *c = xcalloc(1, sizeof *c);
	char pragma[64];

	snprintf(pragma, sizeof pragma, "PRAGMA journal_size_limit = %d",
	    STORE_WAL_LIMIT);
	if (sqlite3_exec(s->db, pragma, NULL, NULL, NULL) != SQLITE_OK) {
		free(c);
		return store_fail(s, err, "setting journal_size_limit");
	}
	if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    store_ckpt_wal_mode(c->db) == -1) {
		error_set(err, ERR_INTERNAL, "store: cannot open %s for "
		    "checkpoints: %s", path, c->db ? sqlite3_errmsg(c->db) :
		    "out of memory");
		sqlite3_close(c->db);
		free(c);
		return -1;
	}
	sqlite3_exec(c->db, pragma, NULL, NULL, NULL);
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	pthread_cond_init(&c->done_cv, NULL);
	s->ckpt = c;
	return 0;
}

/* The thread, apart from the open: a process that detaches (fork) after
 * opening its store must start it afterwards, in the child, or the
 * child's commits wait for rounds of a thread it does not have. */
int
store_start_threads(struct store *s, struct error *err)
{
	struct store_ckpt *c = s->ckpt;

	if (c == NULL || c->running)
		return 0;
	if (pthread_create(&c->thread, NULL, store_ckpt_main, c) != 0)
		return error_set(err, ERR_INTERNAL, "store: cannot start the "
		    "checkpoint thread");
	pthread_setname_np(c->thread, "checkpoint");
	c->running = 1;
	/* Replaces SQLite's own checkpoint after a commit. */
	sqlite3_wal_hook(s->db, store_ckpt_hook, c);
	return 0;
}

void
store_ckpt_stop(struct store *s)
{
	struct store_ckpt *c = s->ckpt;

	if (c == NULL)
		return;
	if (c->running) {
		sqlite3_wal_hook(s->db, NULL, NULL);
		pthread_mutex_lock(&c->mu);
		c->stop = 1;
		pthread_cond_signal(&c->cv);
		pthread_cond_broadcast(&c->done_cv);
		pthread_mutex_unlock(&c->mu);
		pthread_join(c->thread, NULL);
	}
	sqlite3_close(c->db);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	pthread_cond_destroy(&c->done_cv);
	free(c);
	s->ckpt = NULL;
	sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE,
	    NULL, NULL);
}
