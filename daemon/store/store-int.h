/* store-int.h: what the files of the store module share; nothing
 * outside the store includes it.
 *
 * Calls between the store's files go one way, each file calling only
 * those below it:
 *	store-plist.c		a page of profiles (store-read's rows)
 *	store-read.c, store-gc.c, csindex.c	(csindex reads store-read's)
 *	store.c			open/close, interning, profile rows
 *	store-fleet.c		the shipping cursor, the backlog counted
 *	store-migrate.c		schema steps, the version 2 conversion
 *	store-series.c		series, a cumulative metric's differences
 *	store-samples.c		the sample writer, the sample statements
 *	store-select-out.c	a window's pairs (kept or read), other answers
 *	store-gauge.c store-gauge-sums.c	a gauge window: its read held, its sums kept
 *	store-select.c		sample reads
 *	store-labelrx.c		the regex label filters' matches
 *	store-rollup.c		rollups, a profile's delete, what is referenced
 *	store-runs.c store-totals.c	a window's runs; per-bucket totals
 *	store-bdata.c		a block's data stored once
 *	store-cs.c		callsites: the writer's map, chunks
 *	store-frames.c		frames: the writer's map (schema 17)
 *	store-counts.c store-ckpt.c store-vacuum.c store-file.c store-vtab.c
 *	store-csvt.c cschunk.c csmap.c store-watch.c
 *	store-db.c		errors, exec, stepping, statement tables
 *	store-space.c sblock.c
 *	srows.c			sample rows: sorted, merged
 *	kv.c			(key, value) pairs sorted
 * (store-sql.c, the read-only SQL endpoint, uses only store-vtab.c.) */
#ifndef PROFD_STORE_INT_H
#define PROFD_STORE_INT_H

#include <sqlite3.h>
#include <stdatomic.h>

#include "error.h"
#include "store.h"

/* Statements of store.c (interning, profile rows), store-read.c and
 * store-plist.c, by the table in store.c. */
enum stmt {
	S_BEGIN, S_COMMIT, S_ROLLBACK,
	S_STRING_GET, S_STRING_ADD,
	S_METRIC_GET, S_METRIC_ADD,
	S_MAPPING_GET, S_MAPPING_ADD,
	S_FUNCTION_GET, S_FUNCTION_ADD,
	S_FRAME_ADD,
	S_LABELSET_GET, S_LABELSET_ADD, S_LABEL_ADD,
	S_SCOPE_GET, S_SCOPE_ADD,
	S_PROFILE_FIND, S_PROFILE_ADD, S_PROFILE_FINISH, S_PROFILE_HASH,
	S_PROFILE_METRIC_ADD, S_PROFILE_LABEL_ADD, S_PROFILE_COMMENT_ADD,
	S_SCOPES, S_SCOPE_METRICS,
	S_PROFILES, S_PROFILE_ONE, S_PROFILE_METRICS, S_PROFILE_LABELS,
	S_PROFILE_COMMENTS, S_METRIC_ONE,
	S_SCOPE_DEFAULT_METRIC, S_SCOPE_METRIC_FIND, S_FRAMES,
	S_COUNT
};

/* Statements of the sample files (store-samples.c, store-rollup.c,
 * store-select.c), by the table in store-samples.c. */
enum sb_stmt {
	SB_BLOCK_ADD, SB_BLOCK_FIX, SB_BLOCK_DATA, SB_BLOCKS_SCOPE,
	SB_BLOCKS_PROFILE, SB_ROLLUP_RUNS, SB_ROLLUP_GET, SB_ROLLUP_PUT,
	SB_ROLLUP_DEL, SB_ROLLUPS, SB_ROLLUP_IDS, SB_ROLLUP_DATA,
	SB_ROLLUPS_SPAN, SB_ROLLUP_RANGE, SB_ROLLUP_BEFORE, SB_ROLLUP_HOURS,
	SB_ROLLUP_OPEN,
	SB_ROLLUP_ORPHANS, SB_BLOCKS_TIME,
	SB_BLOCK_ROW, SB_TOTAL_ADD, SB_TOTAL_DEL, SB_TOTALS,
	SB_PROFILE_TIME, SB_PROFILE_DELETE, SB_PROFILE_RAW, SB_TOTALS_PROFILES,
	SB_LABEL_MATCH, SB_PUSH_LABEL_MATCH, SB_LABEL_VALUES,
	SB_PUSH_LABEL_VALUES, SB_READ_BEGIN, SB_READ_END,
	SB_BDATA_FIND, SB_BDATA_REF, SB_BDATA_ADD,
	SB_GAUGE_AFTER, SB_GAUGE_BEFORE, SB_FIRST_SCOPE,
	SB_COUNT
};

/* Statements of store-counts.c, prepared on first use. */
enum sc_stmt {
	SC_ADD, SC_GET,
	SC_COUNT
};

/* Statements of store-series.c, prepared on first use. */
enum ss_stmt {
	SS_LABELS, SS_SET, SS_PREV, SS_NEWER, SS_ALL, SS_KIND, SS_WINDOW,
	SS_COUNT
};

struct store_ckpt;
struct store_cs;
struct store_frames;
struct cschunk;

/* Callsites per chunk at most (store-cs.c): a lookup by id decodes one. */
#define CS_CHUNK_MAX	65536

struct store {
	sqlite3 *db;
	struct store_ckpt *ckpt;	/* the writer's checkpoint thread */
	int readonly;
	int raw_only;			/* reads ignore the rollups */
	int64_t rollups_read;		/* windows, for tests */
	int64_t blocks_read;		/* blocks past the rollups, for tests */
	int64_t runs_written;		/* bytes of rollup runs, for bench */
	size_t sample_rows;		/* writer's buffer, 0: default */
	size_t rollup_max;		/* keys of a window, 0: default */
	/* The open days store-runs.c asked whether a run would halve
	 * their hours' keys, and at how many hours (asked once each). */
	struct {
		int64_t scope, day, hours;
	} days_asked[8];
	size_t days_next;
	struct store_cs *cs;		/* store-cs.c's */
	struct store_frames *frames;	/* store-frames.c's, the writer's */
	struct store_fsum *fsum;	/* store-fsum.c's, a reader's */
	int fk_off;			/* store_begin_import turned them off */
	int keep_unshipped;		/* retention passes over them (fleet) */
	int64_t backlog_max;		/* ...unless they pass this; 0: never */
	int64_t backlog_over;		/* the backlog's bytes when last over */
	/* store-fleet.c: the backlog as the writer's commits leave it,
	 * counted by TEMP triggers once keep_unshipped is first set. */
	int ship_tracked;
	int64_t ship_pend[3];		/* the open transaction's changes */
	_Atomic int64_t ship_live[3];	/* committed: any thread reads */
	sqlite3_stmt **st;		/* store.c's, by its enum stmt */
	sqlite3_stmt *sb[SB_COUNT];
	sqlite3_stmt *sc[SC_COUNT];
	sqlite3_stmt *ss[SS_COUNT];
};

/* store-db.c */
/* The connection's last error as a struct error: ERR_NO_SPACE on a full
 * disk, ERR_BUSY when locked, else ERR_INTERNAL.  Returns -1. */
int store_fail(struct store *, struct error *, const char *what);
int store_exec(struct store *, const char *sql, struct error *);
/* The first column of the first row of a statement run once (a PRAGMA),
 * or -1. */
int64_t store_get_int(struct store *, const char *sql);
/* Step a statement that returns no row or one row whose first column is
 * an id; resets it on every path.  Returns the id (0 for no row), -1. */
int64_t store_step_id(struct store *, sqlite3_stmt *, struct error *,
    const char *what);
/* An INSERT stepped: the new row's id, or -1. */
int64_t store_step_insert(struct store *, sqlite3_stmt *, struct error *,
    const char *what);
/* A statement run for what it does, not for a row: 0 or -1. */
int store_step_done(struct store *, sqlite3_stmt *, struct error *,
    const char *what);
/* A table of statements, each prepared once into st[] (its index); a
 * read-only connection skips the writer's. */
struct store_sql {
	int writer;		/* prepared on the writer connection only */
	const char *sql;
};
int store_prepare_table(struct store *, const struct store_sql *, int n,
    sqlite3_stmt **st, const char *what, struct error *);
void store_finalize_table(sqlite3_stmt **st, int n);
/* A statement prepared on first use into *st (what names it in the
 * error), for the files whose statements most connections never run. */
sqlite3_stmt *store_stmt_lazy(struct store *, sqlite3_stmt **st,
    const char *sql, const char *what, struct error *);
/* A virtual table of the columns of decl, size bytes (zeroed), read
 * only and innocuous: an xConnect's work. */
int store_vtab_new(sqlite3 *, const char *decl, size_t size,
    sqlite3_vtab **);

/* store-migrate.c: the schema steps past the store's version, in one
 * transaction (the writer, on open). */
int store_migrate(struct store *, struct error *);

/* Buckets are seconds: no row is ever this far from 1970. */
#define BUCKET_LIMIT		((int64_t)1 << 40)

static inline int64_t
store_clamp_bucket(int64_t b)
{
	return b < -BUCKET_LIMIT ? -BUCKET_LIMIT : b > BUCKET_LIMIT ?
	    BUCKET_LIMIT : b;
}

/* store-series.c */
void store_series_finalize(struct store *);
/* Schema 10: every stored profile's series. */
int store_series_set_all(struct store *, struct error *);

/* store-bdata.c: a block's data stored once (schema 13).  The id of the
 * row of block_data with these bytes, counted once more, or of a new
 * one. */
int store_bdata_put(struct store *, const void *, size_t, int64_t *id,
    struct error *);
/* Schema 13: the data moved into block_data hashed, equal ones merged. */
int store_bdata_migrate(struct store *, struct error *);

/* store-samples.c */
int store_samples_prepare(struct store *, struct error *);
void store_samples_finalize(struct store *);
struct srows;
/* A writer's buffered values of one column (the writer has written no
 * block), per (label set, callsite) over their buckets, sorted. */
void store_samples_values(struct store_samples *, uint64_t tag,
    struct srows *);
/* An untimed value of one column (its bucket the profile's). */
void store_samples_put(struct store_samples *, int64_t labelset,
    int64_t callsite, uint64_t tag, int64_t v);

struct imap;
/* store-labelrx.c: the label sets and profiles whose values of
 * lf->key match its pattern (1), or not (2, only when *empty_ok: the
 * pattern matches "", the value of an absent label). */
int store_label_rx(struct store *, const struct label_filter *lf,
    struct imap *sets, struct imap *profiles, int *empty_ok,
    struct error *);
/* store-select.c: the reader connections' cache and mmap. */
void store_select_tune(struct store *);
/* Export's read, for store-read.c's store_select_all: its rows sorted
 * by (callsite, label set, metric) and summed, and the profiles that
 * have one. */
struct srows;
int store_select_export(struct store *, const struct store_filter *,
    struct srows *rows, struct imap *profiles, struct error *);

/* store-fleet.c: the writer's transaction ended (store_commit,
 * store_rollback): its changes to the backlog stand, or not. */
void store_ship_end(struct store *, int committed);

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

/* store-ckpt.c: the writer's checkpoint thread and WAL bound; the
 * connection at open, the thread by store_start_threads (store.h). */
int store_ckpt_open(struct store *, const char *path, struct error *);
/* Stops the thread and truncates the WAL. */
void store_ckpt_stop(struct store *);

/* store-vtab.c: the sample and callsite virtual tables, on every
 * connection. */
int store_vtab_register(sqlite3 *);
/* store-csvt.c: the callsite virtual table. */
int store_csvt_register(sqlite3 *);

/* store-cs.c: callsites as chunks, the writer's map of them. */
/* At store_begin: ids go on from the last chunk's. */
int store_cs_begin(struct store *, struct error *);
/* At store_commit: the transaction's new callsites written as a chunk. */
int store_cs_commit(struct store *, struct error *);
/* After the COMMIT: they are stored. */
void store_cs_committed(struct store *);
/* At a rollback: the transaction's new callsites forgotten. */
void store_cs_forget(struct store *);
void store_cs_free(struct store *);
/* The largest callsite id, 0 if none, -1 on error. */
int64_t store_cs_max(struct store *, struct error *);
/* Each chunk with a callsite above after, decoded, in id order (desc:
 * every chunk, largest ids first); cb returns 0 or -1 (stops). */
int store_cs_each(struct store *, int64_t after, int desc,
    int (*cb)(void *, const struct cschunk *), void *, struct error *);
/* The frame of each callsite, frames[i] of ids[i] (0: no such callsite). */
int store_cs_frames(struct store *, const int64_t *ids, size_t n,
    int64_t *frames, struct error *);
/* Callsites in chunks of CS_CHUNK_MAX (a conversion's). */
int store_cs_put_chunks(struct store *, const struct cschunk *,
    struct error *);
/* Collection: the callsites keep() says no to removed, largest ids first,
 * at most batch of them (the chunks that held them rewritten); ids stay. */
int store_cs_collect(struct store *, int (*keep)(void *, int64_t id),
    void *, size_t batch, int64_t *removed, struct error *);
/* Schema 7: the rows of the old table (callsite_v6) as chunks, the
 * table dropped. */
int store_cs_convert(struct store *, struct error *);
/* Memory of the writer's map. */
size_t store_cs_bytes(const struct store *);

/* store-frames.c: frames found in the writer's map of them, no index
 * (schema 17).  A frame's columns; function and mapping 0 for NULL. */
struct store_frame_key {
	int64_t function, mapping;
	uint64_t address;
	int64_t line, col, flags;
};
/* The id of the frame of k, inserted (S_FRAME_ADD) if there is none. */
int64_t store_frames_intern(struct store *, const struct store_frame_key *k,
    struct error *);
/* The writer's transaction ended (store_commit, store_rollback): rolled
 * back, its new frames are forgotten. */
void store_frames_end(struct store *, int committed);
/* The collection deleted frame id in the open transaction. */
void store_frames_del(struct store *, int64_t id);
/* For tests: the frames' hash (NULL: the map's own), the map read again
 * at the next lookup.  A constant one makes every frame a collision. */
void store_frames_hash(struct store *,
    uint64_t (*)(const struct store_frame_key *));
void store_frames_free(struct store *);
/* Memory of the map, allocated. */
size_t store_frames_bytes(const struct store *);

#endif
