/* store-counts.c: a profile's named counts, which say why samples of its
 * input were not stored (schema 4, table profile_count).  Its statements
 * are prepared on first use: most connections never need them. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "store-int.h"

static const char *const sc_sql[SC_COUNT] = {
	[SC_ADD] = "INSERT OR REPLACE INTO profile_count (profile_id, name, n) "
	    "VALUES (?1, ?2, ?3)",
	[SC_GET] = "SELECT name, n FROM profile_count WHERE profile_id = ?1 "
	    "ORDER BY name",
};

static sqlite3_stmt *
sc_stmt(struct store *s, enum sc_stmt which, struct error *err)
{
	return store_stmt_lazy(s, &s->sc[which], sc_sql[which],
	    "preparing a profile count statement", err);
}

void
store_counts_finalize(struct store *s)
{
	store_finalize_table(s->sc, SC_COUNT);
}

int
store_profile_count_add(struct store *s, int64_t profile_id,
    const char *name, int64_t n, struct error *err)
{
	sqlite3_stmt *st;

	if ((st = sc_stmt(s, SC_ADD, err)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, profile_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, n);
	return store_step_done(s, st, err, "profile count insert");
}

int
store_profile_counts(struct store *s, int64_t profile_id,
    struct store_count **out, size_t *n, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	*n = 0;
	if ((st = sc_stmt(s, SC_GET, err)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, profile_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(st, 0);

		*out = xreallocarray(*out, *n + 1, sizeof **out);
		(*out)[*n].name = xstrdup(name ? (const char *)name : "");
		(*out)[*n].n = sqlite3_column_int64(st, 1);
		(*n)++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "reading the profile counts");
		store_counts_free(*out, *n);
		*out = NULL;
		*n = 0;
		return -1;
	}
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
