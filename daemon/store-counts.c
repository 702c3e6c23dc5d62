/* store-counts.c: a profile's named counts, which say why samples of its
 * input were not stored (schema 4, table profile_count).  Few per profile
 * and read one profile at a time, so the statements are prepared per call
 * rather than kept with store.c's. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"
#include "util.h"

int
store_profile_count_add(struct store *s, int64_t profile_id,
    const char *name, int64_t n, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO profile_count "
	    "(profile_id, name, n) VALUES (?1, ?2, ?3)", -1, &st, NULL) !=
	    SQLITE_OK)
		return store_fail(s, err, "preparing a profile count insert");
	sqlite3_bind_int64(st, 1, profile_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, n);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "profile count insert");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

int
store_profile_counts(struct store *s, int64_t profile_id,
    struct store_count **out, size_t *n, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT name, n FROM profile_count "
	    "WHERE profile_id = ?1 ORDER BY name", -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, err, "preparing the profile counts");
	sqlite3_bind_int64(st, 1, profile_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(st, 0);

		*out = xreallocarray(*out, *n + 1, sizeof **out);
		(*out)[*n].name = xstrdup(name ? (const char *)name : "");
		(*out)[*n].n = sqlite3_column_int64(st, 1);
		(*n)++;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "reading the profile counts");
		sqlite3_finalize(st);
		store_counts_free(*out, *n);
		*out = NULL;
		*n = 0;
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

void
store_counts_free(struct store_count *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}
