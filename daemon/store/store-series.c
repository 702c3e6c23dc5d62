/* store-series.c: cumulative metrics counted as differences (schema 10,
 * docs/TIME.md).  A profile's series is a hash of its push labels; the
 * previous profile of its series, per metric, is found by time; the
 * differences of a profile's values to it are written as the metric's
 * block column, under which every reader sums, while the values as given
 * stay under the metric's raw tag for the readers of single profiles.
 * Statements prepared on first use: only the writer needs them. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "hmap.h"
#include "sblock.h"
#include "srows.h"
#include "store-int.h"

static const char *const ss_sql[SS_COUNT] = {
	[SS_LABELS] = "SELECT key, value FROM profile_label WHERE "
	    "profile_id = ?1 ORDER BY key",
	[SS_SET] = "UPDATE profile SET series = ?2 WHERE id = ?1",
	[SS_PREV] = "SELECT p.id, pm.counted, pm.total FROM profile p "
	    "JOIN profile_metric pm ON pm.profile_id = p.id "
	    "WHERE p.scope_id = ?1 AND p.series = ?2 AND pm.metric_id = ?3 "
	    "AND pm.kind = 1 AND p.id != ?4 AND (p.time_ns < ?5 OR "
	    "(p.time_ns = ?5 AND p.id < ?4)) "
	    "ORDER BY p.time_ns DESC, p.id DESC LIMIT 1",
	[SS_NEWER] = "SELECT 1 FROM profile p "
	    "JOIN profile_metric pm ON pm.profile_id = p.id "
	    "WHERE p.scope_id = ?1 AND p.series = ?2 AND pm.metric_id = ?3 "
	    "AND pm.kind = 1 AND p.id != ?4 AND (p.time_ns > ?5 OR "
	    "(p.time_ns = ?5 AND p.id > ?4)) LIMIT 1",
	[SS_ALL] = "SELECT id FROM profile",
	[SS_KIND] = "SELECT pm.kind FROM profile p JOIN profile_metric pm "
	    "ON pm.profile_id = p.id AND pm.metric_id = ?2 "
	    "WHERE p.scope_id = ?1 ORDER BY p.time_ns DESC LIMIT 1",
	[SS_WINDOW] = "SELECT p.id, p.series, p.time_ns, pm.total, pm.counted "
	    "FROM profile p JOIN profile_metric pm "
	    "ON pm.profile_id = p.id AND pm.metric_id = ?2 "
	    "WHERE p.scope_id = ?1 AND p.time_ns >= ?3 AND p.time_ns <= ?4 "
	    "ORDER BY p.series, p.time_ns, p.id",
};

static sqlite3_stmt *
ss_stmt(struct store *s, enum ss_stmt which, struct error *err)
{
	return store_stmt_lazy(s, &s->ss[which], ss_sql[which],
	    "preparing a series statement", err);
}

void
store_series_finalize(struct store *s)
{
	store_finalize_table(s->ss, SS_COUNT);
}

/* The series of a profile from its push labels, sorted by key: each
 * "key\0value\0".  Set once its labels are stored. */
int
store_series_set(struct store *s, int64_t profile_id, int64_t *series,
    struct error *err)
{
	sqlite3_stmt *st;
	struct buf b = { 0 };
	int rc;

	if ((st = ss_stmt(s, SS_LABELS, err)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, profile_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		buf_add(&b, sqlite3_column_text(st, 0),
		    (size_t)sqlite3_column_bytes(st, 0) + 1);
		buf_add(&b, sqlite3_column_text(st, 1),
		    (size_t)sqlite3_column_bytes(st, 1) + 1);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		buf_free(&b);
		return store_fail(s, err, "reading push labels");
	}
	/* The top bit off: a positive INTEGER in SQL. */
	*series = (int64_t)(hmap_hash(b.p != NULL ? b.p : (const void *)"",
	    b.n) >> 1);
	buf_free(&b);
	if ((st = ss_stmt(s, SS_SET, err)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, profile_id);
	sqlite3_bind_int64(st, 2, *series);
	return store_step_done(s, st, err, "setting a profile's series");
}

/* Schema 10: the series of the profiles stored before it. */
int
store_series_set_all(struct store *s, struct error *err)
{
	sqlite3_stmt *st;
	int64_t *ids = NULL, series;
	size_t n = 0, i;
	int rc;

	if ((st = ss_stmt(s, SS_ALL, err)) == NULL)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids = xreallocarray(ids, n + 1, sizeof *ids);
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	rc = rc == SQLITE_DONE ? 0 : store_fail(s, err, "reading profiles");
	for (i = 0; i < n && rc == 0; i++)
		rc = store_series_set(s, ids[i], &series, err);
	free(ids);
	store_series_finalize(s);
	return rc;
}

int
store_series_prev(struct store *s, const struct store_series_key *k,
    struct store_series_prev *prev, struct error *err)
{
	sqlite3_stmt *st;
	enum ss_stmt which[2] = { SS_PREV, SS_NEWER };
	int rc, i;

	memset(prev, 0, sizeof *prev);
	for (i = 0; i < 2; i++) {
		if ((st = ss_stmt(s, which[i], err)) == NULL)
			return -1;
		sqlite3_bind_int64(st, 1, k->scope_id);
		sqlite3_bind_int64(st, 2, k->series);
		sqlite3_bind_int64(st, 3, k->metric_id);
		sqlite3_bind_int64(st, 4, k->profile_id);
		sqlite3_bind_int64(st, 5, k->time_ns);
		if ((rc = sqlite3_step(st)) == SQLITE_ROW && i == 0) {
			prev->id = sqlite3_column_int64(st, 0);
			prev->raw = sqlite3_column_int(st, 1) != 0;
			prev->total = sqlite3_column_int64(st, 2);
		} else if (rc == SQLITE_ROW)
			prev->newer = 1;
		sqlite3_reset(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return store_fail(s, err, "finding a series' profiles");
	}
	return 0;
}

int
store_series_kind(struct store *s, const struct store_filter *f,
    enum metric_kind *kind, struct error *err)
{
	sqlite3_stmt *st;
	int rc;

	*kind = KIND_DELTA;
	if (f->nscopes == 0)
		return 0;
	if ((st = ss_stmt(s, SS_KIND, err)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, f->scopes[0]);
	sqlite3_bind_int64(st, 2, f->metric_id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*kind = (enum metric_kind)sqlite3_column_int(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 :
	    store_fail(s, err, "reading a metric's kind");
}

/* Seconds to ns, an open end kept open. */
static int64_t
series_ns(int64_t s, int64_t add)
{
	if (s <= INT64_MIN / 1000000000)
		return INT64_MIN;
	if (s >= INT64_MAX / 1000000000)
		return INT64_MAX;
	return s * 1000000000 + add;
}

static int
series_one(const int64_t *ids, size_t n, int64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return n == 0;
}

/* A scope's profiles of the window read in two scans rather than one
 * join: the profiles from their index (profile_series), then the
 * metric's rows of every profile_metric row in their id range, matched
 * in memory.  The join seeks profile_metric once per profile, which was
 * most of a day of 15 s heap snapshots' gauge read (5,760 seeks); a
 * range read costs what the rows cost when the scope's profiles are
 * most of their id range, as a series pushed on its own is.  1 read
 * (appended to *out), 0 when the join must (ids spread among other
 * scopes', a profile with the metric twice), -1 on error. */
static int
series_scan(struct store *s, const struct store_filter *f, int64_t scope,
    struct store_series_profile **out, size_t *n, size_t *cap,
    struct error *err)
{
	static const char *const sql[2] = {
		"SELECT id, series, time_ns FROM profile WHERE scope_id = ?1 "
		"AND time_ns >= ?2 AND time_ns <= ?3 "
		"ORDER BY series, time_ns, id",
		"SELECT profile_id, total, counted FROM profile_metric "
		"WHERE profile_id >= ?1 AND profile_id <= ?2 AND "
		"metric_id = ?3",
	};
	sqlite3_stmt *st[2] = { NULL, NULL };
	struct store_series_profile *p = NULL, *q;
	struct imap at = { 0 };
	uint8_t *has = NULL;
	int64_t lo = INT64_MAX, hi = INT64_MIN, k;
	size_t np = 0, pcap = 0, i;
	int rc, r = -1;

	for (i = 0; i < 2; i++)
		if (sqlite3_prepare_v2(s->db, sql[i], -1, &st[i], NULL) !=
		    SQLITE_OK) {
			store_fail(s, err, "preparing a window's profiles");
			goto out;
		}
	sqlite3_bind_int64(st[0], 1, scope);
	sqlite3_bind_int64(st[0], 2, series_ns(f->since_s, 0));
	sqlite3_bind_int64(st[0], 3, series_ns(f->until_s, 999999999));
	while ((rc = sqlite3_step(st[0])) == SQLITE_ROW) {
		if (np == pcap) {
			pcap = pcap ? 2 * pcap : 256;
			p = xreallocarray(p, pcap, sizeof *p);
		}
		q = &p[np++];
		memset(q, 0, sizeof *q);
		q->id = sqlite3_column_int64(st[0], 0);
		q->scope_id = scope;
		q->series = sqlite3_column_int64(st[0], 1);
		q->time_ns = sqlite3_column_int64(st[0], 2);
		lo = q->id < lo ? q->id : lo;
		hi = q->id > hi ? q->id : hi;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "reading a window's profiles");
		goto out;
	}
	r = 1;
	if (np == 0)
		goto out;
	/* Ids spread among other scopes' profiles: the join's seeks read
	 * fewer rows. */
	if ((uint64_t)(hi - lo) >= 4 * (uint64_t)np) {
		r = 0;
		goto out;
	}
	has = xcalloc(np, 1);
	for (i = 0; i < np; i++)
		imap_put(&at, (uint64_t)p[i].id, (int64_t)i + 1);
	sqlite3_bind_int64(st[1], 1, lo);
	sqlite3_bind_int64(st[1], 2, hi);
	sqlite3_bind_int64(st[1], 3, f->metric_id);
	while ((rc = sqlite3_step(st[1])) == SQLITE_ROW) {
		if ((k = imap_get(&at, (uint64_t)sqlite3_column_int64(st[1],
		    0))) == 0)
			continue;
		/* The join would give the profile twice. */
		if (has[k - 1]) {
			r = 0;
			goto out;
		}
		has[k - 1] = 1;
		p[k - 1].total = sqlite3_column_int64(st[1], 1);
		p[k - 1].counted = (enum store_counted)sqlite3_column_int(
		    st[1], 2);
	}
	if (rc != SQLITE_DONE) {
		r = store_fail(s, err, "reading a window's profiles");
		goto out;
	}
	for (i = 0; i < np; i++) {
		if (!has[i] || !series_one(f->profiles, f->nprofiles, p[i].id))
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			*out = xreallocarray(*out, *cap, sizeof **out);
		}
		(*out)[(*n)++] = p[i];
	}
out:
	sqlite3_finalize(st[0]);
	sqlite3_finalize(st[1]);
	imap_clear(&at);
	free(has);
	free(p);
	return r;
}

int
store_series_window(struct store *s, const struct store_filter *f,
    struct store_series_profile **out, size_t *n, struct error *err)
{
	sqlite3_stmt *st;
	struct store_series_profile *p;
	size_t i, j, cap = 0;
	int rc = SQLITE_DONE, r;

	*out = NULL;
	*n = 0;
	if ((st = ss_stmt(s, SS_WINDOW, err)) == NULL)
		return -1;
	for (i = 0; i < f->nscopes && rc == SQLITE_DONE; i++) {
		for (j = 0; j < i && f->scopes[j] != f->scopes[i]; j++)
			;
		if (j < i)
			continue;
		if ((r = series_scan(s, f, f->scopes[i], out, n, &cap,
		    err)) == -1)
			goto fail;
		if (r == 1)
			continue;
		sqlite3_bind_int64(st, 1, f->scopes[i]);
		sqlite3_bind_int64(st, 2, f->metric_id);
		sqlite3_bind_int64(st, 3, series_ns(f->since_s, 0));
		sqlite3_bind_int64(st, 4, series_ns(f->until_s, 999999999));
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (!series_one(f->profiles, f->nprofiles,
			    sqlite3_column_int64(st, 0)))
				continue;
			/* Doubled: a day of 15 s snapshots is 5,760 rows. */
			if (*n == cap) {
				cap = cap ? 2 * cap : 256;
				*out = xreallocarray(*out, cap, sizeof **out);
			}
			p = &(*out)[(*n)++];
			p->id = sqlite3_column_int64(st, 0);
			p->scope_id = f->scopes[i];
			p->series = sqlite3_column_int64(st, 1);
			p->time_ns = sqlite3_column_int64(st, 2);
			p->total = sqlite3_column_int64(st, 3);
			p->counted = (enum store_counted)sqlite3_column_int(st,
			    4);
		}
		sqlite3_reset(st);
	}
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return store_fail(s, err, "reading a window's profiles");
	}
	return 0;
fail:
	free(*out);
	*out = NULL;
	*n = 0;
	return -1;
}

/* A profile's values of the column tagged tag, summed per (label set,
 * callsite) over its buckets, sorted. */
static int
series_values(struct store *s, int64_t profile, uint64_t tag,
    struct srows *out, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_BLOCKS_PROFILE];
	struct sblock_dec d;
	int64_t v;
	int rc, col, r = 0;

	memset(&d, 0, sizeof d);
	srows_col(out, tag);
	sqlite3_bind_int64(st, 1, profile);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!sblock_varints_have(sqlite3_column_blob(st, 4),
		    (size_t)sqlite3_column_bytes(st, 4), tag))
			continue;
		if ((r = sblock_dec_open(&d, sqlite3_column_blob(st, 5),
		    (size_t)sqlite3_column_bytes(st, 5),
		    sqlite3_column_int64(st, 2), "sample block",
		    sqlite3_column_int64(st, 0), err)) == -1)
			break;
		if ((col = sblock_dec_col(&d, tag)) < 0)
			continue;
		sblock_dec_want(&d, col);
		while ((r = sblock_dec_next(&d, err)) == 1)
			if ((v = d.v[col]) != 0)
				srows_push(out, d.ls, d.cs, 0, &v);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	sblock_dec_free(&d);
	if (r == -1)
		return -1;
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_fail(s, err, "reading sample values");
	srows_sort_merge(out);
	return 0;
}

/* Each stack's difference to the previous profile: what grew.  A stack
 * whose counter went down (without the total doing so, which the caller
 * counts whole) counts its new value, as after a restart. */
static void
series_write(struct store_samples *w, uint64_t tag, const struct srows *cur,
    const struct srows *prev)
{
	size_t i, j = 0;
	int64_t d, p;

	for (i = 0; i < cur->n; i++) {
		while (j < prev->n && (prev->ls[j] < cur->ls[i] ||
		    (prev->ls[j] == cur->ls[i] && prev->cs[j] < cur->cs[i])))
			j++;
		p = j < prev->n && prev->ls[j] == cur->ls[i] &&
		    prev->cs[j] == cur->cs[i] ? prev->v[j] : 0;
		d = (int64_t)((uint64_t)cur->v[i] - (uint64_t)p);
		if (d < 0)
			d = cur->v[i];
		if (d != 0)
			store_samples_put(w, cur->ls[i], cur->cs[i], tag, d);
	}
}

int
store_series_diff(struct store *s, struct store_samples *w,
    const struct store_series_key *k, const struct store_series_prev *prev,
    struct error *err)
{
	struct srows cur = { 0 }, old = { 0 };
	uint64_t tag = (uint64_t)k->metric_id;
	int rc = -1;

	/* The new profile's values are still the writer's: its blocks and
	 * rollups get both columns at once. */
	store_samples_values(w, STORE_RAW_TAG(tag), &cur);
	if (series_values(s, prev->id, prev->raw ? STORE_RAW_TAG(tag) : tag,
	    &old, err) == 0) {
		series_write(w, tag, &cur, &old);
		rc = 0;
	}
	srows_free(&cur);
	srows_free(&old);
	return rc;
}
