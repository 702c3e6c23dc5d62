/* store-int.h: what the files of the store module share (store.c,
 * store-samples.c, store-vtab.c, store-sql.c, store-ckpt.c, store-file.c,
 * store-space.c, store-vacuum.c, ...); nothing outside the store includes
 * it. */
#ifndef PROFD_STORE_INT_H
#define PROFD_STORE_INT_H

#include <sqlite3.h>

#include "error.h"
#include "store.h"

/* Statements of store-samples.c, prepared with the others. */
enum sb_stmt {
	SB_BLOCK_ADD, SB_BLOCK_FIX, SB_BLOCK_DATA, SB_BLOCKS_SCOPE,
	SB_BLOCKS_PROFILE, SB_ROLLUP_GET, SB_ROLLUP_PUT, SB_ROLLUP_DEL,
	SB_ROLLUPS, SB_ROLLUPS_SPAN, SB_PROFILE_TIME, SB_PROFILE_DELETE,
	SB_LABEL_MATCH, SB_PUSH_LABEL_MATCH, SB_READ_BEGIN, SB_READ_END,
	SB_COUNT
};

/* Statements of store-counts.c, prepared on first use. */
enum sc_stmt {
	SC_ADD, SC_GET,
	SC_COUNT
};

struct store_ckpt;

struct store {
	sqlite3 *db;
	struct store_ckpt *ckpt;	/* the writer's checkpoint thread */
	int readonly;
	int raw_only;			/* reads ignore the rollups */
	int64_t rollups_read;		/* windows, for tests */
	size_t sample_rows;		/* writer's buffer, 0: default */
	size_t rollup_max;		/* keys of a window, 0: default */
	int64_t cs_fresh;		/* callsites above: this transaction's */
	int fk_off;			/* store_begin_import turned them off */
	sqlite3_stmt **st;		/* store.c's, by its enum stmt */
	sqlite3_stmt *sb[SB_COUNT];
	sqlite3_stmt *sc[SC_COUNT];
};

int store_fail(struct store *, struct error *, const char *what);
/* Step a statement that returns no row or one row whose first column is
 * an id; resets it on every path.  Returns the id (0 for no row), -1. */
int64_t store_step_id(struct store *, sqlite3_stmt *, struct error *,
    const char *what);

/* store-samples.c */
int store_samples_prepare(struct store *, struct error *);
void store_samples_finalize(struct store *);
/* Schema 3: the rows of the old sample table (renamed sample_v2) into
 * blocks and rollups, then the table dropped. */
int store_samples_migrate_v3(struct store *, struct error *);

/* store-counts.c */
void store_counts_finalize(struct store *);

/* store-space.c: whether the connection's last error is a full disk, and
 * the ERR_NO_SPACE that names the store file (store_fail uses both). */
int store_space_full(struct store *);
int store_space_fail(struct store *, struct error *, const char *what);

/* store-file.c: the database file made (mode 0600) before SQLite opens
 * it, and an existing one's mode, -wal's and -shm's brought to 0600. */
int store_file_prepare(const char *path, struct error *);

/* store-vacuum.c: auto_vacuum = INCREMENTAL set on a new store, an older
 * one rebuilt once (before the schema is migrated). */
int store_vacuum_setup(struct store *, struct error *);

/* store-ckpt.c: the writer's checkpoint thread and WAL bound. */
int store_ckpt_start(struct store *, const char *path, struct error *);
/* Stops the thread and truncates the WAL. */
void store_ckpt_stop(struct store *);

/* store-vtab.c: the sample virtual table, on every connection. */
int store_vtab_register(sqlite3 *);

#endif
