/* store-labelrx.c: the label sets and profiles a regex label filter
 * (k=~v, k!~v) matches, for the selection reads (store-select.c).  The
 * pattern is matched whole, as Prometheus' selectors match it, against
 * every stored value of the key: a sample's own labels (interned, numbers
 * read as their decimal text) and its profile's push labels.  A sample
 * without the key reads as "": when the pattern matches "", the sets and
 * profiles that have the key without matching are marked too, so the
 * caller can tell "has k, no match" from "no k". */
#include <sqlite3.h>
#include <string.h>

#include "hmap.h"
#include "rx.h"
#include "store-int.h"

/* Marks: 1 (has the key, the value matches), 2 (has it, no match; only
 * when *empty_ok, the pattern matching "").  -1 with ERR_INPUT if the
 * pattern is not one. */
int
store_label_rx(struct store *s, const struct label_filter *lf,
    struct imap *sets, struct imap *profiles, int *empty_ok,
    struct error *err)
{
	sqlite3_stmt *st;
	struct rx *rx;
	const char *v;
	char why[256];
	int rc, m;

	if ((rx = rx_new(lf->value, strlen(lf->value), 1, why,
	    sizeof why)) == NULL)
		return error_set(err, ERR_INPUT, "label %s: \"%.200s\" is "
		    "not a regular expression (RE2 syntax): %s", lf->key,
		    lf->value, why);
	*empty_ok = rx_match(rx, "", 0);
	/* Interned strings are blobs, push labels text. */
	st = s->sb[SB_LABEL_VALUES];
	sqlite3_bind_blob(st, 1, lf->key, (int)strlen(lf->key), SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int col = sqlite3_column_type(st, 1) != SQLITE_NULL ? 1 : 2;

		v = (const char *)sqlite3_column_text(st, col);
		m = rx_match(rx, v ? v : "", v ? (size_t)
		    sqlite3_column_bytes(st, col) : 0);
		/* A set has a key once, so no mark is overwritten. */
		if (m || *empty_ok)
			imap_put(sets, (uint64_t)sqlite3_column_int64(st, 0),
			    m ? 1 : 2);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		goto fail;
	st = s->sb[SB_PUSH_LABEL_VALUES];
	sqlite3_bind_text(st, 1, lf->key, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		v = (const char *)sqlite3_column_text(st, 1);
		m = rx_match(rx, v ? v : "", v ? (size_t)
		    sqlite3_column_bytes(st, 1) : 0);
		if (m || *empty_ok)
			imap_put(profiles, (uint64_t)sqlite3_column_int64(st,
			    0), m ? 1 : 2);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		goto fail;
	rx_free(rx);
	return 0;
fail:
	rx_free(rx);
	return store_fail(s, err, "reading labels");
}
