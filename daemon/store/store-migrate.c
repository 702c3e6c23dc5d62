/* store-migrate.c: the schema brought to this profd's version: the SQL
 * steps of schema/NNN.sql in one transaction, and the steps SQL alone cannot
 * do (schema 3: the rows of the version 2 sample table rewritten as
 * blocks and rollups through the sample writer; schema 6: rollups and
 * totals rebuilt; schema 7: callsite rows as chunks, store-cs.c; schema
 * 9: the kinds of stored profiles' metrics, by the importer's rule;
 * schema 10: their series, store-series.c; schema 13: block data hashed
 * and stored once, store-bdata.c). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "kind.h"
#include "schema.h"
#include "store-rollup.h"

int
store_version(struct store *s)
{
	return (int)store_get_int(s, "PRAGMA user_version");
}

/* Schema 3: the rows of the old sample table (renamed sample_v2) into
 * blocks and rollups, then the table dropped. */
static int
store_migrate_v3(struct store *s, struct error *err)
{
	sqlite3_stmt *st = NULL;
	struct store_samples *w = NULL;
	int64_t profile = 0, p, metric, *mids = NULL, *row = NULL;
	size_t nm = 0, i;
	int rc, ret = -1;

	if (store_samples_prepare(s, err) == -1)
		goto out;
	if (sqlite3_prepare_v2(s->db, "SELECT v.profile_id, p.scope_id, "
	    "v.metric_id, v.callsite_id, v.labelset_id, v.bucket, v.value "
	    "FROM sample_v2 v JOIN profile p ON p.id = v.profile_id "
	    "ORDER BY v.profile_id", -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, err, "converting sample rows");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		p = sqlite3_column_int64(st, 0);
		if (p != profile) {
			if (w != NULL && store_samples_finish(w, 0, err) == -1)
				goto out;
			store_samples_free(w);
			w = store_samples_begin(s, p, sqlite3_column_int64(st,
			    1));
			profile = p;
			nm = 0;
		}
		/* Each row has one value: of the profile's metric i. */
		metric = sqlite3_column_int64(st, 2);
		for (i = 0; i < nm && mids[i] != metric; i++)
			;
		if (i == nm) {
			mids = xreallocarray(mids, nm + 1, sizeof *mids);
			row = xreallocarray(row, nm + 1, sizeof *row);
			mids[nm++] = metric;
			store_samples_metric(w, i, metric);
		}
		memset(row, 0, nm * sizeof *row);
		row[i] = sqlite3_column_int64(st, 6);
		if (store_samples_add(w, sqlite3_column_int64(st, 3),
		    sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
		    row, nm, err) == -1)
			goto out;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "converting sample rows");
		goto out;
	}
	if (w != NULL && store_samples_finish(w, 0, err) == -1)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_exec(s->db, "DROP TABLE sample_v2", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		store_fail(s, err, "dropping the old sample table");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	store_samples_free(w);
	free(mids);
	free(row);
	store_samples_finalize(s);
	return ret;
}

/* profd_kind_infer(format, type, duration_ns): kind_infer() for SQL. */
static void
store_kind_infer_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *format = (const char *)sqlite3_value_text(argv[0]);
	const char *type = (const char *)sqlite3_value_text(argv[1]);

	(void)argc;
	sqlite3_result_int(ctx, kind_infer(format ? format : "",
	    type ? type : "", sqlite3_value_int64(argv[2])));
}

/* Schema 9: the kinds of the profiles stored before kinds, by the rule
 * the importer applies (no push said otherwise then), through a function
 * that lives only for this statement. */
static int
store_migrate_v9(struct store *s, struct error *err)
{
	int rc;

	if (sqlite3_create_function(s->db, "profd_kind_infer", 3,
	    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, store_kind_infer_fn,
	    NULL, NULL) != SQLITE_OK)
		return store_fail(s, err, "inferring metric kinds");
	rc = store_exec(s, "UPDATE profile_metric SET kind = (SELECT "
	    "profd_kind_infer(p.format, m.type, p.duration_ns) FROM profile p, "
	    "metric m WHERE p.id = profile_metric.profile_id AND "
	    "m.id = profile_metric.metric_id)", err);
	sqlite3_create_function(s->db, "profd_kind_infer", 3, SQLITE_UTF8,
	    NULL, NULL, NULL, NULL);
	return rc;
}

/* Runs the schema steps past the current version in one transaction. */
int
store_migrate(struct store *s, struct error *err)
{
	int v = store_version(s), i;
	int last = schema_steps[schema_nsteps - 1].version;
	char pragma[64];

	if (v < 0)
		return store_fail(s, err, "reading user_version");
	if (v > last)
		return error_set(err, ERR_INTERNAL, "store: database schema "
		    "version %d is newer than this profd knows (%d)", v, last);
	if (v == last)
		return 0;
	/* Without foreign key checks (a no-op inside a transaction, so
	 * before it): dropping the old callsite table would check each row
	 * against its children, by a column no index has.  The steps only
	 * convert rows; store_open turns the checks back on. */
	if (store_exec(s, "PRAGMA foreign_keys = OFF", err) == -1 ||
	    store_exec(s, "BEGIN IMMEDIATE", err) == -1)
		return -1;
	for (i = 0; i < schema_nsteps; i++) {
		if (schema_steps[i].version <= v)
			continue;
		if (store_exec(s, schema_steps[i].sql, err) == -1)
			goto fail;
	}
	/* Steps that SQL alone cannot do, on the last schema: the rows of
	 * version 2 through the sample writer (blocks, rollups, totals);
	 * else the rollups and totals of schema 6 made from the blocks. */
	if (v < 3 && store_migrate_v3(s, err) == -1)
		goto fail;
	if (v >= 3 && v < 6 && last >= 6 && (store_samples_prepare(s,
	    err) == -1 || store_rollup_rebuild(s, err) == -1)) {
		store_samples_finalize(s);
		goto fail;
	}
	if (v >= 3 && v < 6)
		store_samples_finalize(s);
	if (v < 7 && last >= 7 && store_cs_convert(s, err) == -1)
		goto fail;
	if (v < 9 && last >= 9 && store_migrate_v9(s, err) == -1)
		goto fail;
	if (v < 10 && last >= 10 && store_series_set_all(s, err) == -1)
		goto fail;
	if (v < 13 && last >= 13 && store_bdata_migrate(s, err) == -1)
		goto fail;
	snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", last);
	if (store_exec(s, pragma, err) == -1 ||
	    store_exec(s, "COMMIT", err) == -1)
		goto fail;
	return 0;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}
