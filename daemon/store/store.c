/* store.c: the SQLite store: opening it (the file, the schema brought up
 * to date, the statements prepared once, into an array indexed by enum
 * stmt, with their SQL beside them), the writer's transactions, the
 * interning inserts (callsites: store-cs.c; frames: store-frames.c) and
 * the profile rows.  The reads of them are in store-read.c, sample values
 * in store-samples.c (the writer), store-rollup.c and store-select.c. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "alloc.h"
#include "clock.h"
#include "schema.h"
#include "store-fsum.h"
#include "store-int.h"

static const struct store_sql stmt_sql[S_COUNT] = {
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
	/* When the writer's map of frames has none of these columns
	 * (store-frames.c): no index finds a frame (schema 17). */
	[S_FRAME_ADD] = { 1, "INSERT INTO frame (function_id, mapping_id, "
	    "address, line, col, flags) VALUES (nullif(?1, 0), nullif(?2, 0), "
	    "?3, ?4, ?5, ?6)" },
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
	    "idx, metric_id, total, kind, counted) VALUES (?1, ?2, ?3, ?4, ?5, "
	    "?6)" },
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
	/* A page of store-plist.c: profile_scope_time, (scope_id, time_ns)
	 * and the rowid, read from ?2, the cursor's time or since. */
	[S_PROFILES] = { 0, "SELECT id, time_ns FROM profile WHERE "
	    "scope_id = ?1 AND time_ns BETWEEN ?2 AND ?3 AND "
	    "(time_ns, id) > (?4, ?5) ORDER BY time_ns, id LIMIT ?6" },
	[S_PROFILE_ONE] = { 0, "SELECT name, format, doc_url, time_ns, "
	    "duration_ns, imported_ns, samples, dropped_samples, period, bytes, "
	    "ifnull(default_metric_id, 0), ifnull(period_metric_id, 0) "
	    "FROM profile WHERE id = ?1" },
	[S_PROFILE_METRICS] = { 0, "SELECT m.id, m.type, m.unit, pm.kind, "
	    "pm.counted, pm.total FROM "
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
	/* The metrics of the type first (its units: one or a few), each
	 * with whether a profile of the scope has it: the scope's profiles
	 * are read until one does, not all of them to prove that no
	 * second metric has a row (DISTINCT ... LIMIT 2 read every
	 * profile's metrics, half of a gauge's answer over a day). */
	[S_SCOPE_METRIC_FIND] = { 0, "SELECT m.id FROM metric m "
	    "WHERE m.type = ?2 AND (?3 IS NULL OR m.unit = ?3) AND EXISTS "
	    "(SELECT 1 FROM profile p JOIN profile_metric pm "
	    "ON pm.profile_id = p.id WHERE p.scope_id = ?1 AND "
	    "pm.metric_id = m.id) LIMIT 2" },
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
	int flags;

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
		    store_exec(s, "PRAGMA cache_size = -4096", err) == -1)
			goto fail;
	}
	if (readonly)
		store_select_tune(s);
	if (!readonly && store_migrate(s, err) == -1)
		goto fail;
	if (store_exec(s, "PRAGMA foreign_keys = ON", err) == -1)
		goto fail;
	if (readonly && store_version(s) !=
	    schema_steps[schema_nsteps - 1].version) {
		error_set(err, ERR_INTERNAL, "store: %s has schema version %d, "
		    "expected %d", path, store_version(s),
		    schema_steps[schema_nsteps - 1].version);
		goto fail;
	}
	if (store_prepare_table(s, stmt_sql, S_COUNT, s->st, "statement",
	    err) == -1 || store_samples_prepare(s, err) == -1)
		goto fail;
	if (!readonly && store_ckpt_open(s, path, err) == -1)
		goto fail;
	return s;
fail:
	store_close(s);
	return NULL;
}

void
store_interrupt(struct store *s)
{
	if (s != NULL)
		sqlite3_interrupt(s->db);
}

void
store_close(struct store *s)
{
	if (s == NULL)
		return;
	store_ckpt_stop(s);
	store_cs_free(s);
	store_frames_free(s);
	store_fsum_free(s);
	store_samples_finalize(s);
	store_counts_finalize(s);
	store_series_finalize(s);
	store_finalize_table(s->st, S_COUNT);
	free(s->st);
	sqlite3_close(s->db);
	free(s);
}

int
store_begin(struct store *s, struct error *err)
{
	if (store_step_id(s, s->st[S_BEGIN], err, "begin") == -1)
		return -1;
	if (store_cs_begin(s, err) == -1) {
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
	int rc = store_cs_commit(s, err);

	if (rc == 0)
		rc = store_step_done(s, s->st[S_COMMIT], err, "commit");
	/* Not committed: the transaction's callsites and frames are not
	 * stored. */
	if (rc == -1)
		store_cs_forget(s);
	else
		store_cs_committed(s);
	store_frames_end(s, rc == 0);
	store_ship_end(s, rc == 0);
	store_fk_on(s);
	return rc;
}

void
store_rollback(struct store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		store_step_id(s, s->st[S_ROLLBACK], NULL, "rollback");
	store_cs_forget(s);
	store_frames_end(s, 0);
	store_ship_end(s, 0);
	store_fk_on(s);
}

/* One kind of interned row: get finds it by the parameters bind() gives,
 * add inserts it with the same. */
struct intern {
	enum stmt get, add;
	const char *lookup, *insert;
	void (*bind)(sqlite3_stmt *, const void *key);
};

struct intern_texts {
	const char *p[2];
	size_t n[2];
};

struct intern_ints {
	int64_t v[6];
	int n;
};

static void
bind_blob(sqlite3_stmt *st, const void *key)
{
	const struct store_str *k = key;

	sqlite3_bind_blob64(st, 1, k->n ? k->p : "", k->n, SQLITE_STATIC);
}

static void
bind_texts(sqlite3_stmt *st, const void *key)
{
	const struct intern_texts *k = key;

	sqlite3_bind_text64(st, 1, k->p[0], k->n[0], SQLITE_STATIC,
	    SQLITE_UTF8);
	sqlite3_bind_text64(st, 2, k->p[1], k->n[1], SQLITE_STATIC,
	    SQLITE_UTF8);
}

static void
bind_ints(sqlite3_stmt *st, const void *key)
{
	const struct intern_ints *k = key;
	int i;

	for (i = 0; i < k->n; i++)
		sqlite3_bind_int64(st, i + 1, k->v[i]);
}

static const struct intern intern_string = { S_STRING_GET, S_STRING_ADD,
	"string lookup", "string insert", bind_blob };
static const struct intern intern_metric = { S_METRIC_GET, S_METRIC_ADD,
	"metric lookup", "metric insert", bind_texts };
static const struct intern intern_mapping = { S_MAPPING_GET, S_MAPPING_ADD,
	"mapping lookup", "mapping insert", bind_ints };
static const struct intern intern_function = { S_FUNCTION_GET,
	S_FUNCTION_ADD, "function lookup", "function insert", bind_ints };
static const struct intern intern_labelset = { S_LABELSET_GET,
	S_LABELSET_ADD, "labelset lookup", "labelset insert", bind_blob };

/* The id of the row of that key, inserted if there is none (*created,
 * when not NULL, says whether it was). */
static int64_t
store_intern(struct store *s, const struct intern *in, const void *key,
    int *created, struct error *err)
{
	sqlite3_stmt *st = s->st[in->get];
	int64_t id;

	if (created != NULL)
		*created = 0;
	in->bind(st, key);
	if ((id = store_step_id(s, st, err, in->lookup)) != 0)
		return id;
	st = s->st[in->add];
	in->bind(st, key);
	if (created != NULL)
		*created = 1;
	return store_step_insert(s, st, err, in->insert);
}

int64_t
store_string(struct store *s, const void *p, size_t n, struct error *err)
{
	struct store_str k = { p, n };

	return store_intern(s, &intern_string, &k, NULL, err);
}

int64_t
store_metric(struct store *s, const char *type, size_t typelen,
    const char *unit, size_t unitlen, struct error *err)
{
	struct intern_texts k = { { type, unit }, { typelen, unitlen } };

	return store_intern(s, &intern_metric, &k, NULL, err);
}

int64_t
store_mapping(struct store *s, uint64_t start, uint64_t limit,
    uint64_t offset, int64_t file_id, int64_t build_id_id, unsigned flags,
    struct error *err)
{
	struct intern_ints k = { { (int64_t)start, (int64_t)limit,
	    (int64_t)offset, file_id, build_id_id, flags }, 6 };

	return store_intern(s, &intern_mapping, &k, NULL, err);
}

int64_t
store_function(struct store *s, int64_t name_id, int64_t sysname_id,
    int64_t file_id, int64_t start_line, struct error *err)
{
	struct intern_ints k = { { name_id, sysname_id, file_id, start_line },
	    4 };

	return store_intern(s, &intern_function, &k, NULL, err);
}

int64_t
store_frame(struct store *s, int64_t function_id, int64_t mapping_id,
    uint64_t address, int64_t line, int64_t column, unsigned flags,
    struct error *err)
{
	struct store_frame_key k = { function_id, mapping_id, address, line,
	    column, flags };

	return store_frames_intern(s, &k, err);
}

int64_t
store_labelset(struct store *s, const void *canon, size_t len, int *created,
    struct error *err)
{
	struct store_str k = { canon, len };

	return store_intern(s, &intern_labelset, &k, created, err);
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
	return store_step_done(s, st, err, "label insert");
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
	return store_step_done(s, st, err, "profile update");
}

int
store_profile_set_hash(struct store *s, int64_t id, const uint8_t hash[32],
    int64_t bytes, struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_HASH];

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_blob(st, 2, hash, 32, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, bytes);
	return store_step_done(s, st, err, "profile hash");
}

int
store_profile_metric_add(struct store *s, int64_t profile_id, int idx,
    int64_t metric_id, int64_t total, enum metric_kind kind,
    enum store_counted counted, struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_METRIC_ADD];

	sqlite3_bind_int64(st, 1, profile_id);
	sqlite3_bind_int(st, 2, idx);
	sqlite3_bind_int64(st, 3, metric_id);
	sqlite3_bind_int64(st, 4, total);
	sqlite3_bind_int(st, 5, (int)kind);
	sqlite3_bind_int(st, 6, (int)counted);
	return store_step_done(s, st, err, "profile metric insert");
}

int
store_profile_label_add(struct store *s, int64_t profile_id, const char *key,
    const char *value, struct error *err)
{
	sqlite3_stmt *st = s->st[S_PROFILE_LABEL_ADD];

	sqlite3_bind_int64(st, 1, profile_id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, value, -1, SQLITE_STATIC);
	return store_step_done(s, st, err, "profile label insert");
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
	return store_step_done(s, st, err, "profile comment insert");
}
