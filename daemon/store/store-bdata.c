/* store-bdata.c: a sample block's data stored once (schema 13,
 * docs/DESIGN-STORAGE.md "Blocks stored once").  The bytes of a block
 * are a row of block_data, found by their hash and compared byte for
 * byte, named by every block with the same bytes (sample_block.data_id)
 * and counted (refs): a profile pushed again, re-timed or to another
 * scope, stores its blocks' rows and not their data.  Blocks go by
 * profile or scope as before; the trigger sample_block_unref
 * (schema/013-block-data.sql) takes a row of data away with the last
 * block naming it, so every delete path keeps the counts exact. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "hmap.h"
#include "store-int.h"

/* hmap_hash is never 0: 0 marks a row of schema 13's upgrade not hashed
 * yet. */
static int64_t
bdata_hash(const void *p, size_t n)
{
	return (int64_t)hmap_hash(p, n);
}

/* The row of `find` (id, data; bound to the hash) whose data are these
 * bytes: its id, 0 if none, -1 on error. */
static int64_t
bdata_match(struct store *s, sqlite3_stmt *find, int64_t h, const void *p,
    size_t n, struct error *err)
{
	int64_t id = 0;
	int rc;

	sqlite3_bind_int64(find, 1, h);
	while ((rc = sqlite3_step(find)) == SQLITE_ROW)
		if ((size_t)sqlite3_column_bytes(find, 1) == n && (n == 0 ||
		    memcmp(sqlite3_column_blob(find, 1), p, n) == 0)) {
			id = sqlite3_column_int64(find, 0);
			break;
		}
	sqlite3_reset(find);
	sqlite3_clear_bindings(find);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(s, err, "looking up sample data");
	return id;
}

int
store_bdata_put(struct store *s, const void *p, size_t n, int64_t *id,
    struct error *err)
{
	int64_t h = bdata_hash(p, n), got;
	sqlite3_stmt *st;

	if ((got = bdata_match(s, s->sb[SB_BDATA_FIND], h, p, n, err)) == -1)
		return -1;
	if (got > 0) {
		st = s->sb[SB_BDATA_REF];
		sqlite3_bind_int64(st, 1, got);
		*id = got;
		return store_step_done(s, st, err, "counting sample data");
	}
	st = s->sb[SB_BDATA_ADD];
	sqlite3_bind_int64(st, 1, h);
	sqlite3_bind_blob64(st, 2, p, n, SQLITE_STATIC);
	return (*id = store_step_insert(s, st, err, "writing sample data")) ==
	    -1 ? -1 : 0;
}

/* Schema 13's upgrade: the statements, in the order of their use. */
enum { M_LIST, M_GET, M_FIND, M_HASH, M_REF, M_DROP, M_MOVE, M_COUNT };

static const char *const mig_sql[M_COUNT] = {
	[M_LIST] = "SELECT id FROM block_data WHERE hash = 0 ORDER BY id",
	[M_GET] = "SELECT data FROM block_data WHERE id = ?1",
	[M_FIND] = "SELECT id, data FROM block_data WHERE hash = ?1",
	[M_HASH] = "UPDATE block_data SET hash = ?2 WHERE id = ?1",
	[M_REF] = "UPDATE block_data SET refs = refs + 1 WHERE id = ?1",
	[M_DROP] = "DELETE FROM block_data WHERE id = ?1",
	/* The upgrade moved block i's data to row i. */
	[M_MOVE] = ("UPDATE sample_block SET data_id = ?2 WHERE id = ?1 AND "
	    "data_id = ?1"),
};

/* One moved row: hashed, or merged into an earlier row with its bytes
 * (the block named it alone). */
static int
mig_one(struct store *s, sqlite3_stmt **m, int64_t id, struct error *err)
{
	sqlite3_stmt *get = m[M_GET];
	int64_t h, same;
	const void *p;
	size_t n;
	int rc = 0;

	sqlite3_bind_int64(get, 1, id);
	if (sqlite3_step(get) != SQLITE_ROW) {
		sqlite3_reset(get);
		return store_fail(s, err, "reading sample data");
	}
	p = sqlite3_column_blob(get, 0);
	n = (size_t)sqlite3_column_bytes(get, 0);
	h = bdata_hash(p, n);
	/* Rows hashed so far are the ones kept: a match is an earlier
	 * row. */
	same = bdata_match(s, m[M_FIND], h, p, n, err);
	sqlite3_reset(get);
	if (same == -1)
		return -1;
	if (same == 0) {
		sqlite3_bind_int64(m[M_HASH], 1, id);
		sqlite3_bind_int64(m[M_HASH], 2, h);
		return store_step_done(s, m[M_HASH], err,
		    "hashing sample data");
	}
	sqlite3_bind_int64(m[M_MOVE], 1, id);
	sqlite3_bind_int64(m[M_MOVE], 2, same);
	sqlite3_bind_int64(m[M_REF], 1, same);
	sqlite3_bind_int64(m[M_DROP], 1, id);
	if (store_step_done(s, m[M_MOVE], err, "sharing sample data") == -1 ||
	    store_step_done(s, m[M_REF], err, "sharing sample data") == -1 ||
	    store_step_done(s, m[M_DROP], err, "sharing sample data") == -1)
		rc = -1;
	return rc;
}

int
store_bdata_migrate(struct store *s, struct error *err)
{
	sqlite3_stmt *m[M_COUNT] = { 0 };
	int64_t *ids = NULL;
	size_t n = 0, cap = 0, i;
	int rc, ret = -1;

	for (i = 0; i < M_COUNT; i++)
		if (sqlite3_prepare_v2(s->db, mig_sql[i], -1, &m[i], NULL) !=
		    SQLITE_OK) {
			store_fail(s, err, "sharing sample data");
			goto out;
		}
	/* The list first: the loop below changes the table. */
	while ((rc = sqlite3_step(m[M_LIST])) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			ids = xreallocarray(ids, cap, sizeof *ids);
		}
		ids[n++] = sqlite3_column_int64(m[M_LIST], 0);
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "listing sample data");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (mig_one(s, m, ids[i], err) == -1)
			goto out;
	ret = 0;
out:
	for (i = 0; i < M_COUNT; i++)
		sqlite3_finalize(m[i]);
	free(ids);
	return ret;
}
