/* store-totals.c: the per-bucket totals of the sample values
 * (sample_total, DESIGN-STORAGE.md "Per-bucket totals"): per profile,
 * metric and bucket with a row of the metric, the sum of its rows with a
 * callsite, added up while the writer makes blocks and written at the end
 * of an import; made from the blocks on the upgrade to schema 6; deleted
 * with a profile; read for timelines (store_select_totals, the sums of
 * the scopes per bucket; store_select_profile_totals, each profile's). */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "kv.h"
#include "sblock.h"
#include "srows.h"
#include "store-rollup.h"

/* Buckets are seconds of int64 nanoseconds: well inside 2^35. */
static uint64_t
tot_key(uint64_t metric, int64_t bucket)
{
	return metric << 36 | ((uint64_t)bucket + ((uint64_t)1 << 35));
}

/* A block's buckets counted in an array when they span at most this
 * many; else in pairs summed as they come. */
#define TOT_SPAN_MAX	4096

static void
tot_push(struct totals *t, uint64_t key, int64_t v)
{
	if (t->n == t->cap) {
		if (t->n >= (1u << 20))
			t->n = kv_sort_merge(t->kv, t->n);
		if (t->cap == 0 || t->n > t->cap / 2) {
			t->cap = t->cap ? t->cap * 2 : 256;
			t->kv = xreallocarray(t->kv, t->cap, sizeof *t->kv);
		}
	}
	t->kv[t->n].k = key;
	t->kv[t->n++].v = v;
}

/* The rows of columns cols[] of r into the totals: every (metric,
 * bucket) with a row gets a total, of the rows with a callsite.  A raw
 * tag's values (store.h) are not what a window sums: none.  A column's
 * rows are summed per bucket here (a block has few buckets), so that the
 * pairs kept are about as many as the buckets, not as the rows. */
void
store_totals_add(struct totals *t, const struct srows *r, const size_t *cols,
    size_t ncols)
{
	size_t i, k, b, nc = r->ncols, span;
	int64_t v, bmin, bmax, *sum;
	uint8_t *has;

	if (r->n == 0)
		return;
	bmin = bmax = r->bucket[0];
	for (i = 1; i < r->n; i++) {
		if (r->bucket[i] < bmin)
			bmin = r->bucket[i];
		if (r->bucket[i] > bmax)
			bmax = r->bucket[i];
	}
	span = (uint64_t)bmax - (uint64_t)bmin < TOT_SPAN_MAX ?
	    (size_t)((uint64_t)bmax - (uint64_t)bmin) + 1 : 0;
	sum = xcalloc(span ? span : 1, sizeof *sum);
	has = xcalloc(span ? span : 1, 1);
	for (k = 0; k < ncols; k++) {
		if ((r->tags[cols[k]] & STORE_RAW_BIT) != 0)
			continue;
		for (i = 0; i < r->n; i++) {
			if ((v = r->v[i * nc + cols[k]]) == 0)
				continue;
			if (r->cs[i] == 0)
				v = 0;
			if (span == 0) {
				tot_push(t, tot_key(r->tags[cols[k]],
				    r->bucket[i]), v);
				continue;
			}
			b = (size_t)((uint64_t)r->bucket[i] - (uint64_t)bmin);
			sum[b] = (int64_t)((uint64_t)sum[b] + (uint64_t)v);
			has[b] = 1;
		}
		for (b = 0; b < span; b++) {
			if (!has[b])
				continue;
			tot_push(t, tot_key(r->tags[cols[k]], bmin +
			    (int64_t)b), sum[b]);
			sum[b] = 0;
			has[b] = 0;
		}
	}
	free(sum);
	free(has);
}

void
store_totals_add_all(struct totals *t, const struct srows *r)
{
	size_t c, *cols = xcalloc(r->ncols ? r->ncols : 1, sizeof *cols);

	for (c = 0; c < r->ncols; c++)
		cols[c] = c;
	store_totals_add(t, r, cols, r->ncols);
	free(cols);
}

int
store_totals_write(struct store *s, int64_t scope, int64_t profile,
    struct totals *t, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_TOTAL_ADD];
	struct kv *tot = t->kv;
	size_t i, n;

	n = t->n = kv_sort_merge(t->kv, t->n);
	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, scope);
		sqlite3_bind_int64(st, 2, (int64_t)(tot[i].k >> 36));
		sqlite3_bind_int64(st, 3, (int64_t)((tot[i].k &
		    (((uint64_t)1 << 36) - 1)) - ((uint64_t)1 << 35)));
		sqlite3_bind_int64(st, 4, profile);
		sqlite3_bind_int64(st, 5, tot[i].v);
		if (store_step_done(s, st, err, "writing sample totals") == -1)
			return -1;
	}
	return 0;
}

/* A profile's totals deleted: per metric of its blocks, over their
 * buckets (the table's key). */
int
store_totals_delete(struct store *s, int64_t profile, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_BLOCKS_PROFILE];
	const uint8_t *p, *end;
	struct imap metrics = { 0 };
	int64_t scope = 0, lo = INT64_MAX, hi = INT64_MIN;
	uint64_t m;
	size_t i;
	int rc, ret = 0;

	sqlite3_bind_int64(st, 1, profile);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		scope = sqlite3_column_int64(st, 6);
		if (sqlite3_column_int64(st, 2) < lo)
			lo = sqlite3_column_int64(st, 2);
		if (sqlite3_column_int64(st, 3) > hi)
			hi = sqlite3_column_int64(st, 3);
		p = sqlite3_column_blob(st, 4);
		end = p + sqlite3_column_bytes(st, 4);
		while (p != NULL && p < end &&
		    sblock_get_varint(&p, end, &m) == 0)
			imap_put(&metrics, m, 1);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, "reading sample values");
	st = s->sb[SB_TOTAL_DEL];
	for (i = 0; ret == 0 && i < metrics.cap; i++) {
		if (metrics.slots[i].value == 0)
			continue;
		sqlite3_bind_int64(st, 1, scope);
		sqlite3_bind_int64(st, 2, (int64_t)metrics.slots[i].key);
		sqlite3_bind_int64(st, 3, lo);
		sqlite3_bind_int64(st, 4, hi);
		sqlite3_bind_int64(st, 5, profile);
		ret = store_step_done(s, st, err, "deleting sample totals");
	}
	imap_clear(&metrics);
	return ret;
}

/* A stored profile's totals made from its blocks (the upgrade to
 * schema 6). */
int
store_totals_profile(struct store *s, int64_t profile, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_BLOCKS_PROFILE];
	struct srows r = { 0 };
	struct totals t = { 0 };
	int64_t scope = 0;
	int rc, ret = -1;

	sqlite3_bind_int64(st, 1, profile);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		scope = sqlite3_column_int64(st, 6);
		if (sblock_decode(sqlite3_column_blob(st, 5),
		    (size_t)sqlite3_column_bytes(st, 5),
		    sqlite3_column_int64(st, 2), "sample block",
		    sqlite3_column_int64(st, 0), &r, err) == -1)
			goto out;
		store_totals_add_all(&t, &r);
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, err, "reading sample values");
		goto out;
	}
	sqlite3_reset(st);
	ret = store_totals_write(s, scope, profile, &t, err);
out:
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	srows_free(&r);
	free(t.kv);
	return ret;
}

/* Timelines without filters: the per-bucket totals of each scope, from
 * the table's primary key alone. */
int
store_select_totals(struct store *s, const struct store_filter *f,
    struct store_bucket_value **out, size_t *n, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_TOTALS];
	struct imap seen = { 0 };
	struct kv *kv = NULL;
	size_t nkv = 0, cap = 0, i;
	int64_t lo = store_clamp_bucket(f->since_s), hi = store_clamp_bucket(f->until_s);
	int own, rc = SQLITE_DONE, ret = -1;

	*out = NULL;
	*n = 0;
	if (s->raw_only || f->nprofiles > 0 || f->nlabels > 0 || f->raw)
		return 1;
	if ((own = sqlite3_get_autocommit(s->db)) &&
	    store_step_done(s, s->sb[SB_READ_BEGIN], err, "begin") == -1)
		return -1;
	for (i = 0; i < f->nscopes && lo <= hi; i++) {
		if (imap_get(&seen, (uint64_t)f->scopes[i]))
			continue;
		imap_put(&seen, (uint64_t)f->scopes[i], 1);
		sqlite3_bind_int64(st, 1, f->scopes[i]);
		sqlite3_bind_int64(st, 2, f->metric_id);
		sqlite3_bind_int64(st, 3, lo);
		sqlite3_bind_int64(st, 4, hi);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (nkv == cap) {
				cap = cap ? cap * 2 : 1024;
				kv = xreallocarray(kv, cap, sizeof *kv);
			}
			/* Order-preserving as unsigned. */
			kv[nkv].k = (uint64_t)sqlite3_column_int64(st, 0) ^
			    ((uint64_t)1 << 63);
			kv[nkv++].v = sqlite3_column_int64(st, 1);
		}
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		if (rc != SQLITE_DONE)
			break;
	}
	if (rc != SQLITE_DONE)
		store_fail(s, err, "reading sample totals");
	else
		ret = 0;
	if (own && store_step_done(s, s->sb[SB_READ_END], err, "end") == -1)
		ret = -1;
	if (ret == 0) {
		nkv = kv_sort_merge(kv, nkv);
		*out = xcalloc(nkv ? nkv : 1, sizeof **out);
		for (i = 0; i < nkv; i++) {
			(*out)[i].bucket = (int64_t)(kv[i].k ^ ((uint64_t)1 << 63));
			(*out)[i].callsite = -1;
			(*out)[i].value = kv[i].v;
		}
		*n = nkv;
	}
	free(kv);
	imap_clear(&seen);
	return ret;
}

int
store_select_profile_totals(struct store *s, const struct store_filter *f,
    void (*cb)(void *, int64_t bucket, int64_t profile, int64_t value),
    void *arg, struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_TOTALS_PROFILES];
	int64_t lo = store_clamp_bucket(f->since_s), hi = store_clamp_bucket(f->until_s);
	size_t i, j;
	int own, rc = SQLITE_DONE, ret = 0;

	if (s->raw_only || f->nlabels > 0)
		return 1;
	if ((own = sqlite3_get_autocommit(s->db)) &&
	    store_step_done(s, s->sb[SB_READ_BEGIN], err, "begin") == -1)
		return -1;
	for (i = 0; i < f->nscopes && lo <= hi && rc == SQLITE_DONE; i++) {
		for (j = 0; j < i && f->scopes[j] != f->scopes[i]; j++)
			;
		if (j < i)
			continue;
		sqlite3_bind_int64(st, 1, f->scopes[i]);
		sqlite3_bind_int64(st, 2, f->metric_id);
		sqlite3_bind_int64(st, 3, lo);
		sqlite3_bind_int64(st, 4, hi);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			cb(arg, sqlite3_column_int64(st, 0),
			    sqlite3_column_int64(st, 1),
			    sqlite3_column_int64(st, 2));
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, err, "reading sample totals");
	if (own && store_step_done(s, s->sb[SB_READ_END], err, "end") == -1)
		ret = -1;
	return ret;
}
