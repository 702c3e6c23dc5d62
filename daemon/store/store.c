/* store.c: the SQLite store: schema migration, interning inserts, profile
 * rows and the reads of them.  Statements are prepared once, into an array
 * indexed by enum stmt, with their SQL beside them.  Sample values are in
 * store-samples.c. */
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "store-int.h"
#include "util.h"

enum stmt {
	S_BEGIN, S_COMMIT, S_ROLLBACK,
	S_STRING_GET, S_STRING_ADD,
	S_METRIC_GET, S_METRIC_ADD,
	S_MAPPING_GET, S_MAPPING_ADD,
	S_FUNCTION_GET, S_FUNCTION_ADD,
	S_FRAME_GET, S_FRAME_ADD,
	S_CALLSITE_GET, S_CALLSITE_ADD, S_CALLSITE_TRY, S_CALLSITE_MAX,
	S_LABELSET_GET, S_LABELSET_ADD, S_LABEL_ADD,
	S_SCOPE_GET, S_SCOPE_ADD,
	S_PROFILE_FIND, S_PROFILE_ADD, S_PROFILE_FINISH, S_PROFILE_HASH,
	S_PROFILE_METRIC_ADD, S_PROFILE_LABEL_ADD, S_PROFILE_COMMENT_ADD,
	S_SCOPES, S_SCOPE_METRICS,
	S_PROFILES, S_PROFILE_ONE, S_PROFILE_METRICS, S_PROFILE_LABELS,
	S_PROFILE_COMMENTS, S_METRIC_ONE,
	S_SCOPE_DEFAULT_METRIC, S_SCOPE_METRIC_FIND, S_CALLSITES, S_FRAMES,
	S_COUNT
};

static const struct {
	int writer;		/* prepared on the writer connection only */
	const char *sql;
} stmt_sql[S_COUNT] = {
	[S_BEGIN] = { 1, "BEGIN IMMEDIATE" },
	[S_COMMIT] = { 1, "COMMIT" },
	[S_ROLLBACK] = { 1, "ROLLBACK" },
	[S_STRING_GET] = { 1, "SELECT id FROM string WHERE s = ?1" },
	[S_STRING_ADD] = { 1, "INSERT INTO string (s) VALUES (?1)" },
	[S_METRIC_GET] = { 1,
	    "SELECT id FROM metric WHERE type = ?1 AND unit = ?2" },
	[S_METRIC_ADD] = { 1, "INSERT INTO metric (type, unit) VALUES (?1, ?2)" },
	[S_MAPPING_GET] = { 1, "SELECT id FROM mapping WHERE memory_start = ?1 "
	    "AND memory_limit = ?2 AND file_offset = ?3 AND filename_id = ?4 "
	    "AND build_id_id = ?5 AND flags = ?6" },
	[S_MAPPING_ADD] = { 1, "INSERT INTO mapping (memory_start, memory_limit, "
	    "file_offset, filename_id, build_id_id, flags) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)" },
	[S_FUNCTION_GET] = { 1, "SELECT id FROM function WHERE name_id = ?1 AND "
	    "system_name_id = ?2 AND filename_id = ?3 AND start_line = ?4" },
	[S_FUNCTION_ADD] = { 1, "INSERT INTO function (name_id, system_name_id, "
	    "filename_id, start_line) VALUES (?1, ?2, ?3, ?4)" },
	[S_FRAME_GET] = { 1, "SELECT id FROM frame WHERE ifnull(function_id, 0) "
	    "= ?1 AND ifnull(mapping_id, 0) = ?2 AND address = ?3 AND "
	    "line = ?4 AND col = ?5 AND flags = ?6" },
	[S_FRAME_ADD] = { 1, "INSERT INTO frame (function_id, mapping_id, "
	    "address, line, col, flags) VALUES (nullif(?1, 0), nullif(?2, 0), "
	    "?3, ?4, ?5, ?6)" },
	[S_CALLSITE_GET] = { 1, "SELECT id FROM callsite WHERE "
	    "ifnull(parent_id, 0) = ?1 AND frame_id = ?2" },
	[S_CALLSITE_ADD] = { 1, "INSERT INTO callsite (parent_id, frame_id, "
	    "depth) VALUES (nullif(?1, 0), ?2, ?3)" },
	[S_CALLSITE_TRY] = { 1, "INSERT INTO callsite (parent_id, frame_id, "
	    "depth) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING" },
	[S_CALLSITE_MAX] = { 1, "SELECT ifnull(max(id), 0) FROM callsite" },
	[S_LABELSET_GET] = { 1, "SELECT id FROM labelset WHERE canon = ?1" },
	[S_LABELSET_ADD] = { 1, "INSERT INTO labelset (canon) VALUES (?1)" },
	[S_LABEL_ADD] = { 1, "INSERT INTO label (labelset_id, key_id, str_id, "
	    "num, num_unit_id) VALUES (?1, ?2, ?3, ?4, ?5)" },
	[S_SCOPE_GET] = { 0, "SELECT id FROM scope WHERE name = ?1" },
	[S_SCOPE_ADD] = { 1,
	    "INSERT INTO scope (name, created_ns) VALUES (?1, ?2)" },
	[S_PROFILE_FIND] = { 1,
	    "SELECT id FROM profile WHERE scope_id = ?1 AND hash = ?2" },
	[S_PROFILE_ADD] = { 1, "INSERT INTO profile (scope_id, format, name, "
	    "hash, bytes, imported_ns, time_ns, duration_ns, period, doc_url, "
	    "samples, dropped_samples) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, 0, 0, '', 0, 0)" },
	[S_PROFILE_FINISH] = { 1, "UPDATE profile SET time_ns = ?2, "
	    "duration_ns = ?3, period = ?4, period_metric_id = nullif(?5, 0), "
	    "default_metric_id = nullif(?6, 0), doc_url = ?7, samples = ?8, "
	    "dropped_samples = ?9 WHERE id = ?1" },
	[S_PROFILE_HASH] = { 1, "UPDATE profile SET hash = ?2, bytes = ?3 "
	    "WHERE id = ?1" },
	[S_PROFILE_METRIC_ADD] = { 1, "INSERT INTO profile_metric (profile_id, "
	    "idx, metric_id, total) VALUES (?1, ?2, ?3, ?4)" },
	[S_PROFILE_LABEL_ADD] = { 1, "INSERT OR REPLACE INTO profile_label "
	    "(profile_id, key, value) VALUES (?1, ?2, ?3)" },
	[S_PROFILE_COMMENT_ADD] = { 1, "INSERT INTO profile_comment (profile_id, "
	    "idx, text) VALUES (?1, ?2, ?3)" },
	[S_SCOPES] = { 0, "SELECT s.id, s.name, count(p.id), min(p.time_ns), "
	    "max(p.time_ns) FROM scope s LEFT JOIN profile p ON p.scope_id = s.id "
	    "GROUP BY s.id ORDER BY s.name" },
	[S_SCOPE_METRICS] = { 0, "SELECT m.id, m.type, m.unit FROM metric m "
	    "WHERE m.id IN (SELECT pm.metric_id FROM profile_metric pm "
	    "JOIN profile p ON p.id = pm.profile_id WHERE p.scope_id = ?1) "
	    "ORDER BY m.type, m.unit" },
	[S_PROFILES] = { 0, "SELECT id FROM profile WHERE scope_id = ?1 "
	    "ORDER BY time_ns, id" },
	[S_PROFILE_ONE] = { 0, "SELECT name, format, doc_url, time_ns, "
	    "duration_ns, imported_ns, samples, dropped_samples, period, bytes, "
	    "ifnull(default_metric_id, 0), ifnull(period_metric_id, 0) "
	    "FROM profile WHERE id = ?1" },
	[S_PROFILE_METRICS] = { 0, "SELECT m.id, m.type, m.unit FROM "
	    "profile_metric pm JOIN metric m ON m.id = pm.metric_id "
	    "WHERE pm.profile_id = ?1 ORDER BY pm.idx" },
	[S_PROFILE_LABELS] = { 0, "SELECT key, value FROM profile_label "
	    "WHERE profile_id = ?1 ORDER BY key" },
	[S_PROFILE_COMMENTS] = { 0, "SELECT text FROM profile_comment "
	    "WHERE profile_id = ?1 ORDER BY idx" },
	[S_METRIC_ONE] = { 0, "SELECT id, type, unit FROM metric WHERE id = ?1" },
	[S_SCOPE_DEFAULT_METRIC] = { 0, "SELECT ifnull(p.default_metric_id, "
	    "(SELECT metric_id FROM profile_metric WHERE profile_id = p.id "
	    "ORDER BY idx DESC LIMIT 1)) FROM profile p WHERE p.scope_id = ?1 "
	    "ORDER BY p.time_ns DESC, p.id DESC LIMIT 1" },
	[S_SCOPE_METRIC_FIND] = { 0, "SELECT DISTINCT m.id FROM metric m "
	    "JOIN profile_metric pm ON pm.metric_id = m.id "
	    "JOIN profile p ON p.id = pm.profile_id "
	    "WHERE p.scope_id = ?1 AND m.type = ?2 AND (?3 IS NULL OR "
	    "m.unit = ?3) LIMIT 2" },
	[S_CALLSITES] = { 0, "SELECT id, ifnull(parent_id, 0), frame_id "
	    "FROM callsite WHERE id > ?1 ORDER BY id" },
	[S_FRAMES] = { 0, "SELECT f.id, ifnull(s.s, ''), ifnull(ms.s, ''), "
	    "f.flags, ifnull(fs.s, ''), ifnull(fn.start_line, 0), f.line "
	    "FROM frame f "
	    "LEFT JOIN function fn ON fn.id = f.function_id "
	    "LEFT JOIN string s ON s.id = fn.name_id "
	    "LEFT JOIN string fs ON fs.id = fn.filename_id "
	    "LEFT JOIN mapping m ON m.id = f.mapping_id "
	    "LEFT JOIN string ms ON ms.id = m.filename_id "
	    "WHERE f.id > ?1 ORDER BY f.id" },
};

int
store_fail(struct store *s, struct error *err, const char *what)
{
	int rc = sqlite3_errcode(s->db);

	if (store_space_full(s))
		return store_space_fail(s, err, what);
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return error_set(err, ERR_BUSY, "store: %s: %s", what,
		    sqlite3_errmsg(s->db));
	return error_set(err, ERR_INTERNAL, "store: %s: %s", what,
	    sqlite3_errmsg(s->db));
}

static int
store_exec(struct store *s, const char *sql, struct error *err)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		if (store_space_full(s))
			store_space_fail(s, err, msg ? msg : "exec");
		else
			error_set(err, ERR_INTERNAL, "store: %s",
			    msg ? msg : "exec");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int
store_get_version(struct store *s)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

int
store_version(struct store *s)
{
	return store_get_version(s);
}

/* Runs the schema steps past the current version in one transaction. */
static int
store_migrate(struct store *s, struct error *err)
{
	int v = store_get_version(s), i, last = schema_steps[schema_nsteps - 1].version;
	char pragma[64];

	if (v < 0)
		return store_fail(s, err, "reading user_version");
	if (v > last)
		return error_set(err, ERR_INTERNAL, "store: database schema "
		    "version %d is newer than this profd knows (%d)", v, last);
	if (v == last)
		return 0;
	if (store_exec(s, "BEGIN IMMEDIATE", err) == -1)
		return -1;
	for (i = 0; i < schema_nsteps; i++) {
		if (schema_steps[i].version <= v)
			continue;
		if (store_exec(s, schema_steps[i].sql, err) == -1)
			goto fail;
		/* Steps that SQL alone cannot do. */
		if (schema_steps[i].version == 3 &&
		    store_samples_migrate_v3(s, err) == -1)
			goto fail;
	}
	snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", last);
	if (store_exec(s, pragma, err) == -1 ||
	    store_exec(s, "COMMIT", err) == -1)
		goto fail;
	return 0;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* Before the first connection: no global memory statistics (a mutex on
 * every allocation SQLite makes). */
static void
store_init_once(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

struct store *
store_open(const char *path, int readonly, struct error *err)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct store *s = xcalloc(1, sizeof *s);
	int flags, i;

	pthread_once(&once, store_init_once);
	flags = readonly ? SQLITE_OPEN_READONLY :
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	flags |= SQLITE_OPEN_NOMUTEX;
	s->readonly = readonly;
	s->st = xcalloc(S_COUNT, sizeof *s->st);
	if (!readonly && store_file_prepare(path, err) == -1)
		goto fail;
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		error_set(err, ERR_INTERNAL, "store: cannot open %s: %s", path,
		    s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 0);
	sqlite3_busy_timeout(s->db, 5000);
	if (store_vtab_register(s->db) != SQLITE_OK) {
		error_set(err, ERR_INTERNAL, "store: registering the sample "
		    "table: %s", sqlite3_errmsg(s->db));
		goto fail;
	}
	if (!readonly) {
		if (store_vacuum_setup(s, err) == -1)
			goto fail;
		/* A large import is one transaction; its sample values are
		 * written once, as blobs, so the page cache only needs to hold
		 * the interned rows' working set (16 MiB, bounded). */
		if (store_exec(s, "PRAGMA journal_mode = WAL", err) == -1 ||
		    store_exec(s, "PRAGMA synchronous = NORMAL", err) == -1 ||
		    store_exec(s, "PRAGMA cache_size = -16384", err) == -1)
			goto fail;
	}
	if (store_exec(s, "PRAGMA foreign_keys = ON", err) == -1)
		goto fail;
	if (!readonly && store_migrate(s, err) == -1)
		goto fail;
	if (readonly && store_get_version(s) !=
	    schema_steps[schema_nsteps - 1].version) {
		error_set(err, ERR_INTERNAL, "store: %s has schema version %d, "
		    "expected %d", path, store_get_version(s),
		    schema_steps[schema_nsteps - 1].version);
		goto fail;
	}
	for (i = 0; i < S_COUNT; i++) {
		if (readonly && stmt_sql[i].writer)
			continue;
		if (sqlite3_prepare_v3(s->db, stmt_sql[i].sql, -1,
		    SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL) != SQLITE_OK) {
			error_set(err, ERR_INTERNAL, "store: preparing "
			    "statement %d: %s", i, sqlite3_errmsg(s->db));
			goto fail;
		}
	}
	if (store_samples_prepare(s, err) == -1)
		goto fail;
	if (!readonly && store_ckpt_start(s, path, err) == -1)
		goto fail;
	return s;
fail:
	store_close(s);
	return NULL;
}

void
store_close(struct store *s)
{
	int i;

	if (s == NULL)
		return;
	store_ckpt_stop(s);
	store_samples_finalize(s);
	store_counts_finalize(s);
	for (i = 0; s->st != NULL && i < S_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	free(s->st);
	sqlite3_close(s->db);
	free(s);
}

int64_t
store_step_id(struct store *s, sqlite3_stmt *st, struct error *err,
    const char *what)
{
	int64_t id = 0;
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE) {
		store_fail(s, err, what);
		id = -1;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return id;
}

static int64_t
store_step_insert(struct store *s, sqlite3_stmt *st, struct error *err,
    const char *what)
{
	if (store_step_id(s, st, err, what) == -1)
		return -1;
	return sqlite3_last_insert_rowid(s->db);
}

int
store_begin(struct store *s, struct error *err)
{
	if (store_step_id(s, s->st[S_BEGIN], err, "begin") == -1)
		return -1;
	/* Callsites above this one are new: see store_callsite. */
	if ((s->cs_fresh = store_step_id(s, s->st[S_CALLSITE_MAX], err,
	    "callsite count")) == -1) {
		store_rollback(s);
		return -1;
	}
	return 0;
}

/* After an import's transaction: foreign keys checked again. */
static void
store_fk_on(struct store *s)
{
	if (s->fk_off && sqlite3_get_autocommit(s->db)) {
		store_exec(s, "PRAGMA foreign_keys = ON", NULL);
		s->fk_off = 0;
	}
}

int
store_begin_import(struct store *s, struct error *err)
{
	/* A no-op inside a transaction: it must come before BEGIN. */
	if (store_exec(s, "PRAGMA foreign_keys = OFF", err) == -1)
		return -1;
	s->fk_off = 1;
	if (store_begin(s, err) == -1) {
		store_fk_on(s);
		return -1;
	}
	return 0;
}

int
store_commit(struct store *s, struct error *err)
{
	int rc = store_step_id(s, s->st[S_COMMIT], err, "commit") == -1 ?
	    -1 : 0;

	store_fk_on(s);
	return rc;
}

void
store_rollback(struct store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		store_step_id(s, s->st[S_ROLLBACK], NULL, "rollback");
	store_fk_on(s);
}

int64_t
store_string(struct store *s, const void *p, size_t n, struct error *err)
{
	sqlite3_stmt *st = s->st[S_STRING_GET];
	int64_t id;

	sqlite3_bind_blob64(st, 1, n ? p : "", n, SQLITE_STATIC);
	if ((id = store_step_id(s, st, err, "string lookup")) != 0)
		return id;
	st = s->st[S_STRING_ADD];
	sqlite3_bind_blob64(st, 1, n ? p : "", n, SQLITE_STATIC);
	return store_step_insert(s, st, err, "string insert");
}

int64_t
store_metric(struct store *s, const char *type, size_t typelen,
    const char *unit, size_t unitlen, struct error *err)
{
	int i;
	int64_t id = 0;

	for (i = 0; i < 2 && id == 0; i++) {
		sqlite3_stmt *st = s->st[i == 0 ? S_METRIC_GET : S_METRIC_ADD];

		sqlite3_bind_text64(st, 1, type, typelen, SQLITE_STATIC,
		    SQLITE_UTF8);
		sqlite3_bind_text64(st, 2, unit, unitlen, SQLITE_STATIC,
		    SQLITE_UTF8);
		id = i == 0 ? store_step_id(s, st, err, "metric lookup") :
		    store_step_insert(s, st, err, "metric insert");
	}
	return id;
}

int64_t
store_mapping(struct store *s, uint64_t start, uint64_t limit,
    uint64_t offset, int64_t file_id, int64_t build_id_id, unsigned flags,
    struct error *err)
{
	int i;
	int64_t id = 0;

	for (i = 0; i < 2 && id == 0; i++) {
		sqlite3_stmt *st = s->st[i == 0 ? S_MAPPING_GET : S_MAPPING_ADD];

		sqlite3_bind_int64(st, 1, (int64_t)start);
		sqlite3_bind_int64(st, 2, (int64_t)limit);
		sqlite3_bind_int64(st, 3, (int64_t)offset);
		sqlite3_bind_int64(st, 4, file_id);
		sqlite3_bind_int64(st, 5, build_id_id);
		sqlite3_bind_int64(st, 6, flags);
		id = i == 0 ? store_step_id(s, st, err, "mapping lookup") :
		    store_step_insert(s, st, err, "mapping insert");
	}
	return id;
}

int64_t
store_function(struct store *s, int64_t name_id, int64_t sysname_id,
    int64_t file_id, int64_t start_line, struct error *err)
{
	int i;
	int64_t id = 0;

	for (i = 0; i < 2 && id == 0; i++) {
		sqlite3_stmt *st = s->st[i == 0 ? S_FUNCTION_GET :
		    S_FUNCTION_ADD];

		sqlite3_bind_int64(st, 1, name_id);
		sqlite3_bind_int64(st, 2, sysname_id);
		sqlite3_bind_int64(st, 3, file_id);
		sqlite3_bind_int64(st, 4, start_line);
		id = i == 0 ? store_step_id(s, st, err, "function lookup") :
		    store_step_insert(s, st, err, "function insert");
	}
	return id;
}

int64_t
store_frame(struct store *s, int64_t function_id, int64_t mapping_id,
    uint64_t address, int64_t line, int64_t column, unsigned flags,
    struct error *err)
{
	int i;
	int64_t id = 0;

	for (i = 0; i < 2 && id == 0; i++) {
		sqlite3_stmt *st = s->st[i == 0 ? S_FRAME_GET : S_FRAME_ADD];

		sqlite3_bind_int64(st, 1, function_id);
		sqlite3_bind_int64(st, 2, mapping_id);
		sqlite3_bind_int64(st, 3, (int64_t)address);
		sqlite3_bind_int64(st, 4, line);
		sqlite3_bind_int64(st, 5, column);
		sqlite3_bind_int64(st, 6, flags);
		id = i == 0 ? store_step_id(s, st, err, "frame lookup") :
		    store_step_insert(s, st, err, "frame insert");
	}
	return id;
}

int64_t
store_callsite(struct store *s, int64_t parent_id, int64_t frame_id,
    int64_t depth, struct error *err)
{
	sqlite3_stmt *st;
	int64_t id;

	/* Under a callsite made in this transaction, most callsites asked
	 * for are new (a large profile adds whole subtrees): insert first,
	 * look up only if it was there. */
	if (parent_id > s->cs_fresh) {
		st = s->st[S_CALLSITE_TRY];
		sqlite3_bind_int64(st, 1, parent_id);
		sqlite3_bind_int64(st, 2, frame_id);
		sqlite3_bind_int64(st, 3, depth);
		if (store_step_id(s, st, err, "callsite insert") == -1)
			return -1;
		if (sqlite3_changes(s->db) > 0)
			return sqlite3_last_insert_rowid(s->db);
	}
	st = s->st[S_CALLSITE_GET];
	sqlite3_bind_int64(st, 1, parent_id);
	sqlite3_bind_int64(st, 2, frame_id);
	if ((id = store_step_id(s, st, err, "callsite lookup")) != 0)
		return id;
	st = s->st[S_CALLSITE_ADD];
	sqlite3_bind_int64(st, 1, parent_id);
	sqlite3_bind_int64(st, 2, frame_id);
	sqlite3_bind_int64(st, 3, depth);
	return store_step_insert(s, st, err, "callsite insert");
}

int64_t
store_labelset(struct store *s, const void *canon, size_t len, int *created,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_LABELSET_GET];
	int64_t id;

	*created = 0;
	sqlite3_bind_blob64(st, 1, canon, len, SQLITE_STATIC);
	if ((id = store_step_id(s, st, err, "labelset lookup")) != 0)
		return id;
	st = s->st[S_LABELSET_ADD];
	sqlite3_bind_blob64(st, 1, canon, len, SQLITE_STATIC);
	*created = 1;
	return store_step_insert(s, st, err, "labelset insert");
}

int
store_label_add(struct store *s, int64_t labelset_id, int64_t key_id,
    int64_t str_id, int is_num, int64_t num, int64_t num_unit_id,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_LABEL_ADD];

	sqlite3_bind_int64(st, 1, labelset_id);
	sqlite3_bind_int64(st, 2, key_id);
	if (is_num) {
		sqlite3_bind_int64(st, 4, num);
		if (num_unit_id > 0)
			sqlite3_bind_int64(st, 5, num_unit_id);
	} else
		sqlite3_bind_int64(st, 3, str_id);
	return store_step_id(s, st, err, "label insert") == -1 ? -1 : 0;
}

int64_t
store_scope(struct store *s, const char *name, int create, struct error *err)
{
	sqlite3_stmt *st = s->st[S_SCOPE_GET];
	int64_t id;

	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if ((id = store_step_id(s, st, err, "scope lookup")) != 0 || !create)
		return id;
	st = s->st[S_SCOPE_ADD];
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, now_ns());
	return store_step_insert(s, st, err, "scope insert");
}

int64_t
store_profile_find(struct store *s, int64_t scope_id, const uint8_t hash[32],
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_FIND];

	sqlite3_bind_int64(st, 1, scope_id);
	sqlite3_bind_blob(st, 2, hash, 32, SQLITE_STATIC);
	return store_step_id(s, st, err, "profile lookup");
}

int64_t
store_profile_insert(struct store *s, const struct store_profile_row *r,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_ADD];

	sqlite3_bind_int64(st, 1, r->scope_id);
	sqlite3_bind_text(st, 2, r->format, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->name, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 4, r->hash, 32, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, r->bytes);
	sqlite3_bind_int64(st, 6, r->imported_ns);
	return store_step_insert(s, st, err, "profile insert");
}

int
store_profile_finish(struct store *s, int64_t id,
    const struct store_profile_meta *m, struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_FINISH];

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, m->time_ns);
	sqlite3_bind_int64(st, 3, m->duration_ns);
	sqlite3_bind_int64(st, 4, m->period);
	sqlite3_bind_int64(st, 5, m->period_metric_id);
	sqlite3_bind_int64(st, 6, m->default_metric_id);
	sqlite3_bind_text(st, 7, m->doc_url ? m->doc_url : "", -1,
	    SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, m->samples);
	sqlite3_bind_int64(st, 9, m->dropped_samples);
	return store_step_id(s, st, err, "profile update") == -1 ? -1 : 0;
}

int
store_profile_set_hash(struct store *s, int64_t id, const uint8_t hash[32],
    int64_t bytes, struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_HASH];

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_blob(st, 2, hash, 32, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, bytes);
	return store_step_id(s, st, err, "profile hash") == -1 ? -1 : 0;
}

int
store_profile_metric_add(struct store *s, int64_t profile_id, int idx,
    int64_t metric_id, int64_t total, struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_METRIC_ADD];

	sqlite3_bind_int64(st, 1, profile_id);
	sqlite3_bind_int(st, 2, idx);
	sqlite3_bind_int64(st, 3, metric_id);
	sqlite3_bind_int64(st, 4, total);
	return store_step_id(s, st, err, "profile metric insert") == -1 ?
	    -1 : 0;
}

int
store_profile_label_add(struct store *s, int64_t profile_id, const char *key,
    const char *value, struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_LABEL_ADD];

	sqlite3_bind_int64(st, 1, profile_id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, value, -1, SQLITE_STATIC);
	return store_step_id(s, st, err, "profile label insert") == -1 ?
	    -1 : 0;
}

int
store_profile_comment_add(struct store *s, int64_t profile_id, int idx,
    const char *text, size_t len, struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_COMMENT_ADD];

	sqlite3_bind_int64(st, 1, profile_id);
	sqlite3_bind_int(st, 2, idx);
	sqlite3_bind_text64(st, 3, len ? text : "", len, SQLITE_STATIC,
	    SQLITE_UTF8);
	return store_step_id(s, st, err, "profile comment insert") == -1 ?
	    -1 : 0;
}

/* ---- reading ---- */

static char *
col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *p = sqlite3_column_text(st, i);

	return xstrndup(p ? (const char *)p : "",
	    (size_t)sqlite3_column_bytes(st, i));
}

void
store_metric_clear(struct store_metric *m)
{
	free(m->type);
	free(m->unit);
	memset(m, 0, sizeof *m);
}

static void
metrics_free(struct store_metric *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		store_metric_clear(&m[i]);
	free(m);
}

/* Reads rows of (id, type, unit) from a statement with ?1 bound to id. */
static int
store_metric_rows(struct store *s, enum stmt which, int64_t id,
    struct store_metric **out, size_t *n, struct error *err)
{
	sqlite3_stmt *st = s->st[which];
	int rc;

	*out = NULL;
	*n = 0;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = xreallocarray(*out, *n + 1, sizeof **out);
		(*out)[*n].id = sqlite3_column_int64(st, 0);
		(*out)[*n].type = col_str(st, 1);
		(*out)[*n].unit = col_str(st, 2);
		(*n)++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		metrics_free(*out, *n);
		*out = NULL;
		*n = 0;
		return store_fail(s, err, "reading metrics");
	}
	return 0;
}

int
store_metric_get(struct store *s, int64_t id, struct store_metric *m,
    struct error *err)
{
	struct store_metric *rows;
	size_t n;

	memset(m, 0, sizeof *m);
	if (store_metric_rows(s, S_METRIC_ONE, id, &rows, &n, err) == -1)
		return -1;
	if (n == 1) {
		*m = rows[0];
		free(rows);
		return 0;
	}
	metrics_free(rows, n);
	return error_set(err, ERR_NOT_FOUND, "store: no metric %lld",
	    (long long)id);
}

void
store_scope_info_free(struct store_scope_info *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		metrics_free(v[i].metrics, v[i].nmetrics);
	}
	free(v);
}

int
store_scopes(struct store *s, struct store_scope_info **out, size_t *n,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_SCOPES];
	struct store_scope_info *v = NULL;
	size_t i, count = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = xreallocarray(v, count + 1, sizeof *v);
		memset(&v[count], 0, sizeof *v);
		v[count].id = sqlite3_column_int64(st, 0);
		v[count].name = col_str(st, 1);
		v[count].profiles = sqlite3_column_int64(st, 2);
		v[count].first_ns = sqlite3_column_int64(st, 3);
		v[count].last_ns = sqlite3_column_int64(st, 4);
		count++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		store_scope_info_free(v, count);
		return store_fail(s, err, "listing scopes");
	}
	for (i = 0; i < count; i++) {
		if (store_metric_rows(s, S_SCOPE_METRICS, v[i].id,
		    &v[i].metrics, &v[i].nmetrics, err) == -1) {
			store_scope_info_free(v, count);
			return -1;
		}
	}
	*out = v;
	*n = count;
	return 0;
}

void
store_profile_info_clear(struct store_profile_info *p)
{
	size_t i;

	free(p->name);
	free(p->format);
	free(p->doc_url);
	metrics_free(p->metrics, p->nmetrics);
	store_metric_clear(&p->default_metric);
	store_metric_clear(&p->period_type);
	for (i = 0; i < p->nlabels; i++) {
		free(p->label_keys[i]);
		free(p->label_values[i]);
	}
	free(p->label_keys);
	free(p->label_values);
	for (i = 0; i < p->ncomments; i++)
		free(p->comments[i]);
	free(p->comments);
	store_counts_free(p->counts, p->ncounts);
	memset(p, 0, sizeof *p);
}

void
store_profile_info_free(struct store_profile_info *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		store_profile_info_clear(&v[i]);
	free(v);
}

int
store_profile_get(struct store *s, int64_t id, struct store_profile_info *p,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_ONE];
	int64_t def = 0, per = 0;
	int rc;

	memset(p, 0, sizeof *p);
	p->id = id;
	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p->name = col_str(st, 0);
		p->format = col_str(st, 1);
		p->doc_url = col_str(st, 2);
		p->time_ns = sqlite3_column_int64(st, 3);
		p->duration_ns = sqlite3_column_int64(st, 4);
		p->imported_ns = sqlite3_column_int64(st, 5);
		p->samples = sqlite3_column_int64(st, 6);
		p->dropped_samples = sqlite3_column_int64(st, 7);
		p->period = sqlite3_column_int64(st, 8);
		p->bytes = sqlite3_column_int64(st, 9);
		def = sqlite3_column_int64(st, 10);
		per = sqlite3_column_int64(st, 11);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return error_set(err, ERR_NOT_FOUND, "no profile %lld",
		    (long long)id);
	if (rc != SQLITE_ROW)
		return store_fail(s, err, "reading profile");
	if (store_metric_rows(s, S_PROFILE_METRICS, id, &p->metrics,
	    &p->nmetrics, err) == -1 ||
	    (def && store_metric_get(s, def, &p->default_metric, err) == -1) ||
	    (per && store_metric_get(s, per, &p->period_type, err) == -1))
		goto fail;

	st = s->st[S_PROFILE_LABELS];
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p->label_keys = xreallocarray(p->label_keys, p->nlabels + 1,
		    sizeof *p->label_keys);
		p->label_values = xreallocarray(p->label_values, p->nlabels + 1,
		    sizeof *p->label_values);
		p->label_keys[p->nlabels] = col_str(st, 0);
		p->label_values[p->nlabels] = col_str(st, 1);
		p->nlabels++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "reading profile labels");
		goto fail;
	}
	st = s->st[S_PROFILE_COMMENTS];
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p->comments = xreallocarray(p->comments, p->ncomments + 1,
		    sizeof *p->comments);
		p->comments[p->ncomments++] = col_str(st, 0);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "reading profile comments");
		goto fail;
	}
	if (store_profile_counts(s, id, &p->counts, &p->ncounts, err) == -1)
		goto fail;
	return 0;
fail:
	store_profile_info_clear(p);
	return -1;
}

int
store_profiles(struct store *s, const char *scope,
    struct store_profile_info **out, size_t *n, struct error *err)
{
	sqlite3_stmt *st;
	int64_t scope_id, *ids = NULL;
	size_t i, count = 0;
	struct store_profile_info *v;
	int rc;

	*out = NULL;
	*n = 0;
	if ((scope_id = store_scope(s, scope, 0, err)) == -1)
		return -1;
	if (scope_id == 0)
		return error_set(err, ERR_NOT_FOUND, "unknown scope \"%s\"",
		    scope);
	st = s->st[S_PROFILES];
	sqlite3_bind_int64(st, 1, scope_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids = xreallocarray(ids, count + 1, sizeof *ids);
		ids[count++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		free(ids);
		return store_fail(s, err, "listing profiles");
	}
	v = xcalloc(count ? count : 1, sizeof *v);
	for (i = 0; i < count; i++) {
		if (store_profile_get(s, ids[i], &v[i], err) == -1) {
			store_profile_info_free(v, i);
			free(ids);
			return -1;
		}
	}
	free(ids);
	*out = v;
	*n = count;
	return 0;
}

int64_t
store_scope_default_metric(struct store *s, int64_t scope_id,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_SCOPE_DEFAULT_METRIC];

	sqlite3_bind_int64(st, 1, scope_id);
	return store_step_id(s, st, err, "default metric");
}

int64_t
store_scope_metric(struct store *s, int64_t scope_id, const char *type,
    const char *unit, struct error *err)
{
	sqlite3_stmt *st = s->st[S_SCOPE_METRIC_FIND];
	int64_t id = 0;
	int rc, rows = 0;

	sqlite3_bind_int64(st, 1, scope_id);
	sqlite3_bind_text(st, 2, type, -1, SQLITE_STATIC);
	if (unit != NULL)
		sqlite3_bind_text(st, 3, unit, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		rows++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, err, "metric lookup");
	if (rows > 1)
		return error_set(err, ERR_INPUT, "metric \"%s\" has several "
		    "units in this scope: name one as %s/UNIT", type, type);
	return id;
}

int
store_callsites_after(struct store *s, int64_t after,
    void (*cb)(void *, int64_t id, int64_t parent, int64_t frame), void *arg,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_CALLSITES];
	int rc;

	sqlite3_bind_int64(st, 1, after);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		cb(arg, sqlite3_column_int64(st, 0),
		    sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2));
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : store_fail(s, err, "reading callsites");
}

int
store_frames_after(struct store *s, int64_t after,
    void (*cb)(void *, const struct store_frame_info *), void *arg,
    struct error *err)
{
	sqlite3_stmt *st = s->st[S_FRAMES];
	struct store_frame_info fi;
	int rc;

	sqlite3_bind_int64(st, 1, after);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fi.id = sqlite3_column_int64(st, 0);
		fi.function = (const char *)sqlite3_column_text(st, 1);
		fi.mapping_file = (const char *)sqlite3_column_text(st, 2);
		fi.flags = (unsigned)sqlite3_column_int(st, 3);
		fi.file = (const char *)sqlite3_column_text(st, 4);
		fi.start_line = sqlite3_column_int64(st, 5);
		fi.line = sqlite3_column_int64(st, 6);
		cb(arg, &fi);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : store_fail(s, err, "reading frames");
}

/* ---- export: rows by id ---- */

/* Prepare sql, then bind each id to ?1 and hand every row to row(). */
static int
store_rows_by_id(struct store *s, const char *sql, const int64_t *ids,
    size_t n, void (*row)(sqlite3_stmt *, void *), void *arg,
    const char *what, struct error *err)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc = SQLITE_DONE;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, err, what);
	for (i = 0; i < n && rc == SQLITE_DONE; i++) {
		sqlite3_bind_int64(st, 1, ids[i]);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			row(st, arg);
		sqlite3_reset(st);
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, what);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static struct store_str
col_bytes(sqlite3_stmt *st, int i)
{
	struct store_str r;

	r.p = sqlite3_column_blob(st, i);
	r.n = (size_t)sqlite3_column_bytes(st, i);
	if (r.p == NULL)
		r.p = "";
	return r;
}

struct rows_cb {
	void (*fn)(void *, const struct store_function_row *);
	void (*map)(void *, const struct store_mapping_row *);
	void (*label)(void *, const struct store_label_row *);
	void *arg;
	size_t at;
	struct store_frame_row *frames;
};

static void
frame_row(sqlite3_stmt *st, void *arg)
{
	struct rows_cb *r = arg;
	struct store_frame_row *f = &r->frames[r->at++];

	f->callsite = sqlite3_column_int64(st, 0);
	f->frame = sqlite3_column_int64(st, 1);
	f->function = sqlite3_column_int64(st, 2);
	f->mapping = sqlite3_column_int64(st, 3);
	f->address = (uint64_t)sqlite3_column_int64(st, 4);
	f->line = sqlite3_column_int64(st, 5);
	f->column = sqlite3_column_int64(st, 6);
	f->flags = (unsigned)sqlite3_column_int(st, 7);
}

int
store_callsite_frames(struct store *s, const int64_t *callsites, size_t n,
    struct store_frame_row *out, struct error *err)
{
	struct rows_cb r = { NULL, NULL, NULL, NULL, 0, out };

	if (store_rows_by_id(s, "SELECT c.id, f.id, ifnull(f.function_id, 0), "
	    "ifnull(f.mapping_id, 0), f.address, f.line, f.col, f.flags "
	    "FROM callsite c JOIN frame f ON f.id = c.frame_id WHERE c.id = ?1",
	    callsites, n, frame_row, &r, "reading frames", err) == -1)
		return -1;
	if (r.at != n)
		return error_set(err, ERR_INTERNAL, "store: %zu of %zu "
		    "callsites not found", n - r.at, n);
	return 0;
}

static void
function_row(sqlite3_stmt *st, void *arg)
{
	struct rows_cb *r = arg;
	struct store_function_row f;

	f.id = sqlite3_column_int64(st, 0);
	f.name = col_bytes(st, 1);
	f.system_name = col_bytes(st, 2);
	f.file = col_bytes(st, 3);
	f.start_line = sqlite3_column_int64(st, 4);
	r->fn(r->arg, &f);
}

int
store_functions_by_id(struct store *s, const int64_t *ids, size_t n,
    void (*cb)(void *, const struct store_function_row *), void *arg,
    struct error *err)
{
	struct rows_cb r = { cb, NULL, NULL, arg, 0, NULL };

	return store_rows_by_id(s, "SELECT fn.id, a.s, b.s, c.s, "
	    "fn.start_line FROM function fn "
	    "JOIN string a ON a.id = fn.name_id "
	    "JOIN string b ON b.id = fn.system_name_id "
	    "JOIN string c ON c.id = fn.filename_id WHERE fn.id = ?1",
	    ids, n, function_row, &r, "reading functions", err);
}

static void
mapping_row(sqlite3_stmt *st, void *arg)
{
	struct rows_cb *r = arg;
	struct store_mapping_row m;

	m.id = sqlite3_column_int64(st, 0);
	m.start = (uint64_t)sqlite3_column_int64(st, 1);
	m.limit = (uint64_t)sqlite3_column_int64(st, 2);
	m.offset = (uint64_t)sqlite3_column_int64(st, 3);
	m.file = col_bytes(st, 4);
	m.build_id = col_bytes(st, 5);
	m.flags = (unsigned)sqlite3_column_int(st, 6);
	r->map(r->arg, &m);
}

int
store_mappings_by_id(struct store *s, const int64_t *ids, size_t n,
    void (*cb)(void *, const struct store_mapping_row *), void *arg,
    struct error *err)
{
	struct rows_cb r = { NULL, cb, NULL, arg, 0, NULL };

	return store_rows_by_id(s, "SELECT m.id, m.memory_start, "
	    "m.memory_limit, m.file_offset, a.s, b.s, m.flags FROM mapping m "
	    "JOIN string a ON a.id = m.filename_id "
	    "JOIN string b ON b.id = m.build_id_id WHERE m.id = ?1",
	    ids, n, mapping_row, &r, "reading mappings", err);
}

static void
label_row(sqlite3_stmt *st, void *arg)
{
	struct rows_cb *r = arg;
	struct store_label_row l;

	l.labelset = sqlite3_column_int64(st, 0);
	l.key = col_bytes(st, 1);
	l.is_num = sqlite3_column_type(st, 3) != SQLITE_NULL;
	l.str = col_bytes(st, 2);
	l.num = sqlite3_column_int64(st, 3);
	l.num_unit = col_bytes(st, 4);
	r->label(r->arg, &l);
}

int
store_labels_by_set(struct store *s, const int64_t *labelsets, size_t n,
    void (*cb)(void *, const struct store_label_row *), void *arg,
    struct error *err)
{
	struct rows_cb r = { NULL, NULL, cb, arg, 0, NULL };

	return store_rows_by_id(s, "SELECT l.labelset_id, k.s, v.s, l.num, "
	    "u.s FROM label l JOIN string k ON k.id = l.key_id "
	    "LEFT JOIN string v ON v.id = l.str_id "
	    "LEFT JOIN string u ON u.id = l.num_unit_id "
	    "WHERE l.labelset_id = ?1 ORDER BY l.rowid",
	    labelsets, n, label_row, &r, "reading labels", err);
}
