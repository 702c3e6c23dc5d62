/* store-select.c: the reads of sample values behind top, tree, timeline
 * and export.  A read uses the rollups (store-rollup.c) of the windows
 * wholly inside its time range, unless it selects profiles or labels, and
 * the blocks for the rest; the blocks the rollups cover are only counted
 * (for "how many profiles"), never decoded. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cancel.h"
#include "store-sel.h"

/* The ids a bound statement returns, into a set. */
static int
sel_ids(struct store *s, sqlite3_stmt *st, struct imap *set,
    struct error *err)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		imap_put(set, (uint64_t)sqlite3_column_int64(st, 0), 1);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : store_fail(s, err, "reading labels");
}

static int
sel_label_sets(struct sel *q, struct error *err)
{
	sqlite3_stmt *st;
	size_t i;

	q->lsmatch = xcalloc(q->f->nlabels, sizeof *q->lsmatch);
	q->pmatch = xcalloc(q->f->nlabels, sizeof *q->pmatch);
	q->pbits = xcalloc(q->f->nlabels, 1);
	q->empty_ok = xcalloc(q->f->nlabels, 1);
	for (i = 0; i < q->f->nlabels; i++) {
		const char *key = q->f->labels[i].key;
		const char *v = q->f->labels[i].value;
		int empty_ok;

		if (q->f->labels[i].regex) {
			if (store_label_rx(q->s, &q->f->labels[i],
			    &q->lsmatch[i], &q->pmatch[i], &empty_ok,
			    err) == -1)
				return -1;
			q->empty_ok[i] = (uint8_t)empty_ok;
			continue;
		}

		/* Interned strings are blobs, push labels text. */
		st = q->s->sb[SB_LABEL_MATCH];
		sqlite3_bind_blob(st, 1, key, (int)strlen(key), SQLITE_STATIC);
		sqlite3_bind_blob(st, 2, v, (int)strlen(v), SQLITE_STATIC);
		sqlite3_bind_text(st, 3, v, -1, SQLITE_STATIC);
		if (sel_ids(q->s, st, &q->lsmatch[i], err) == -1)
			return -1;
		st = q->s->sb[SB_PUSH_LABEL_MATCH];
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, v, -1, SQLITE_STATIC);
		if (sel_ids(q->s, st, &q->pmatch[i], err) == -1)
			return -1;
	}
	return 0;
}

static int
sel_init(struct sel *q, struct store *s, const struct store_filter *f,
    enum sel_mode mode, struct error *err)
{
	size_t i;

	memset(q, 0, sizeof *q);
	q->s = s;
	q->f = f;
	q->mode = mode;
	q->err = err;
	q->metric = mode == SEL_ALL ? 0 : f->metric_id;
	q->lo = store_clamp_bucket(f->since_s);
	q->hi = store_clamp_bucket(f->until_s);
	q->limit = READ_MERGE_ROWS;
	q->scopes = xcalloc(f->nscopes ? f->nscopes : 1, sizeof *q->scopes);
	for (i = 0; i < f->nscopes; i++) {
		if (imap_get(&q->scopeset, (uint64_t)f->scopes[i]))
			continue;
		imap_put(&q->scopeset, (uint64_t)f->scopes[i], 1);
		q->scopes[q->nscopes++] = f->scopes[i];
	}
	if (mode != SEL_VALUES)
		srows_col(&q->acc, 0);
	/* Timelines need buckets, which the rollups do not keep. */
	q->rollups = !s->raw_only && mode != SEL_BUCKETS &&
	    mode != SEL_GROUPS && f->nprofiles == 0 && f->nlabels == 0 &&
	    !f->raw;
	if (q->rollups) {
		q->hlo = store_ceil_to(q->lo, store_spans[0]);
		q->hhi = store_floor_div(q->hi + 1, store_spans[0]) * store_spans[0] - 1;
		q->dlo = store_ceil_to(q->hlo, store_spans[STORE_NSPANS - 1]);
		q->dhi = store_floor_div(q->hhi + 1, store_spans[STORE_NSPANS - 1]) *
		    store_spans[STORE_NSPANS - 1] - 1;
		if (q->hlo > q->hhi)
			q->rollups = 0;
	}
	q->last_ls = -1;
	if (f->nlabels > 0 && sel_label_sets(q, err) == -1)
		return -1;
	return 0;
}

void
sel_clear(struct sel *q)
{
	size_t i;

	for (i = 0; q->lsmatch != NULL && i < q->f->nlabels; i++) {
		imap_clear(&q->lsmatch[i]);
		imap_clear(&q->pmatch[i]);
	}
	free(q->lsmatch);
	free(q->pmatch);
	free(q->pbits);
	free(q->empty_ok);
	free(q->scopes);
	free(q->holes);
	imap_clear(&q->scopeset);
	imap_clear(&q->profiles);
	imap_clear(&q->counted);
	hmap_clear(&q->rawm);
	free(q->colm);
	sblock_dec_free(&q->dec);
	kvsum_free(&q->sums);
	srows_free(&q->acc);
}

static void
sel_value(struct sel *q, int64_t metric, int64_t ls, int64_t cs,
    int64_t bucket, int64_t v)
{
	int64_t k[1];

	switch (q->mode) {
	case SEL_VALUES:
		/* Summed as the rows come (kv.h's kvsum says why). */
		kvsum_add(&q->sums, (uint64_t)cs, v);
		return;
	case SEL_BUCKETS:
		/* Sorted by (bucket, callsite). */
		k[0] = v;
		srows_push(&q->acc, bucket, cs, 0, k);
		break;
	case SEL_ALL:
		/* Sorted by (callsite, label set, metric). */
		k[0] = v;
		srows_push(&q->acc, cs, ls, metric, k);
		break;
	case SEL_GROUPS:
		/* Sorted by (bucket, profile, label set); the values of no
		 * stack count in no view. */
		if (cs == 0)
			return;
		k[0] = v;
		srows_push(&q->acc, bucket, q->profile, ls, k);
		break;
	}
	if (q->acc.n >= q->limit) {
		srows_sort_merge(&q->acc);
		if (q->acc.n > q->limit / 2)
			q->limit *= 2;
	}
}

static void
sel_profile(struct sel *q, int64_t profile)
{
	imap_put(&q->profiles, (uint64_t)profile, 1);
}

static int
sel_label_ok(struct sel *q, int64_t ls)
{
	size_t i;
	int64_t l;
	int m;

	if (ls == q->last_ls)
		return q->last_ok;
	q->last_ls = ls;
	q->last_ok = 1;
	for (i = 0; i < q->f->nlabels; i++) {
		l = ls != 0 ? imap_get(&q->lsmatch[i], (uint64_t)ls) : 0;
		/* Either of the sample's labels and its profile's; neither
		 * having the key reads as "". */
		m = q->pbits[i] == 1 || l == 1 ||
		    (q->empty_ok[i] && q->pbits[i] == 0 && l == 0);
		if (m == q->f->labels[i].negate) {
			q->last_ok = 0;
			break;
		}
	}
	return q->last_ok;
}

/* Whether the rollups answer bucket b, or all of [lo, hi], of a scope. */
static int
sel_rolled(const struct sel *q, int64_t scope, int64_t lo, int64_t hi)
{
	size_t i;

	if (!q->rollups || lo < q->hlo || hi > q->hhi)
		return 0;
	for (i = 0; i < q->nholes; i++)
		if (q->holes[i].scope == scope && lo <= q->holes[i].hi &&
		    hi >= q->holes[i].lo)
			return 0;
	return 1;
}

/* Whether a profile's values of a metric are under its raw tag
 * (store-series.c): 1, 0, -1 on error.  Looked up once per profile. */
static int
sel_raw(struct sel *q, int64_t profile, int64_t metric)
{
	sqlite3_stmt *st = q->s->sb[SB_PROFILE_RAW];
	int64_t key[2] = { profile, 0 };
	int rc;

	if (!imap_get(&q->counted, (uint64_t)profile)) {
		imap_put(&q->counted, (uint64_t)profile, 1);
		sqlite3_bind_int64(st, 1, profile);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			key[1] = sqlite3_column_int64(st, 0);
			hmap_put(&q->rawm, key, sizeof key, 1);
		}
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return store_fail(q->s, q->err, "reading metrics");
	}
	key[1] = metric;
	return hmap_get(&q->rawm, key, sizeof key) != 0;
}

/* The metric each column of a block counts for (SEL_ALL): a raw tag
 * only when the read asks for the values as given, then in place of
 * the metric's differences. */
static int
sel_colm(struct sel *q, int64_t profile)
{
	struct sblock_dec *d = &q->dec;
	uint64_t tag;
	size_t c;
	int r;

	if (d->ncols > q->ncolm) {
		q->colm = xreallocarray(q->colm, d->ncols, sizeof *q->colm);
		q->ncolm = d->ncols;
	}
	for (c = 0; c < d->ncols; c++) {
		tag = d->cols[c].tag;
		q->colm[c] = (int64_t)(tag & ~STORE_RAW_BIT);
		if ((tag & STORE_RAW_BIT) != 0) {
			if (!q->f->raw)
				q->colm[c] = 0;
		} else if (q->f->raw) {
			if ((r = sel_raw(q, profile, (int64_t)tag)) == -1)
				return -1;
			if (r)
				q->colm[c] = 0;
		}
	}
	return 0;
}

/* The current row of a block statement: (id, profile, bucket_min,
 * bucket_max, metrics, data), of a scope (0: rollups are not used). */
static int
sel_block(struct sel *q, sqlite3_stmt *st, int64_t scope)
{
	struct sblock_dec *d = &q->dec;
	int64_t id = sqlite3_column_int64(st, 0);
	int64_t profile = sqlite3_column_int64(st, 1);
	int64_t bmin = sqlite3_column_int64(st, 2);
	int64_t bmax = sqlite3_column_int64(st, 3);
	int64_t b, v;
	uint64_t tag = (uint64_t)q->metric;
	size_t i, c;
	int col = -1, rc, marked;

	if (bmax < q->lo || bmin > q->hi)
		return 0;
	if (q->metric != 0 && q->f->raw) {
		if ((rc = sel_raw(q, profile, q->metric)) == -1)
			return -1;
		if (rc)
			tag = STORE_RAW_TAG(q->metric);
	}
	if (q->metric != 0 && !sblock_varints_have(sqlite3_column_blob(st, 4),
	    (size_t)sqlite3_column_bytes(st, 4), tag))
		return 0;
	/* Rows the rollups answer, and count the profiles of. */
	if (sel_rolled(q, scope, bmin, bmax))
		return 0;
	/* A block wholly in the window and outside the rollups' hours. */
	if (q->block != NULL && q->metric != 0 && bmin >= q->lo &&
	    bmax <= q->hi && (!q->rollups || bmax < q->hlo || bmin > q->hhi) &&
	    (rc = q->block(q->run_arg, id, bmin, sqlite3_column_blob(st, 5),
	    (size_t)sqlite3_column_bytes(st, 5), q->err)) != 0) {
		if (rc == 1)
			sel_profile(q, profile);
		return rc == -1 ? -1 : 0;
	}
	if (sblock_dec_open(d, sqlite3_column_blob(st, 5),
	    (size_t)sqlite3_column_bytes(st, 5), bmin, "sample block", id,
	    q->err) == -1)
		return -1;
	if (q->metric != 0) {
		if ((col = sblock_dec_col(d, tag)) < 0)
			return 0;
		sblock_dec_want(d, col);
	} else {
		sblock_dec_want_all(d);
		if (sel_colm(q, profile) == -1)
			return -1;
	}
	for (i = 0; i < q->f->nlabels; i++)
		q->pbits[i] = (uint8_t)imap_get(&q->pmatch[i],
		    (uint64_t)profile);
	q->last_ls = -1;
	q->profile = profile;
	marked = imap_get(&q->profiles, (uint64_t)profile) != 0;
	while ((rc = sblock_dec_next(d, q->err)) == 1) {
		/* A block holds many rows between two of SQLite's steps,
		 * which its progress handler watches (store-watch.c). */
		if (cancel_poll(q->err) == -1)
			return -1;
		b = d->bucket;
		if (b < q->lo || b > q->hi)
			continue;
		if (col >= 0 && d->v[col] == 0)
			continue;
		if (q->f->nlabels > 0 && !sel_label_ok(q, d->ls))
			continue;
		if (!marked) {
			sel_profile(q, profile);
			marked = 1;
		}
		if (sel_rolled(q, scope, b, b))
			continue;
		if (col >= 0) {
			sel_value(q, q->metric, d->ls, d->cs, b, d->v[col]);
			continue;
		}
		for (c = 0; c < d->ncols; c++)
			if ((v = d->v[c]) != 0 && q->colm[c] != 0)
				sel_value(q, q->colm[c], d->ls, d->cs, b, v);
	}
	return rc;
}

/* A block by id, read as sel_block. */
static int
sel_block_id(struct sel *q, int64_t id, int64_t scope)
{
	sqlite3_stmt *st = q->s->sb[SB_BLOCK_ROW];
	int rc, r;

	sqlite3_bind_int64(st, 1, id);
	q->s->blocks_read++;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		r = sel_block(q, st, scope);
	else
		r = rc == SQLITE_DONE ? 0 : store_fail(q->s, q->err,
		    "reading sample values");
	sqlite3_reset(st);
	return r;
}

static int
sel_blocks(struct sel *q)
{
	struct imap seen = { 0 };
	sqlite3_stmt *st;
	size_t i;
	int rc = SQLITE_DONE, r = 0;

	if (q->f->nprofiles > 0) {
		st = q->s->sb[SB_BLOCKS_PROFILE];
		for (i = 0; i < q->f->nprofiles && r == 0; i++) {
			int64_t p = q->f->profiles[i];

			if (imap_get(&seen, (uint64_t)p))
				continue;
			imap_put(&seen, (uint64_t)p, 1);
			sqlite3_bind_int64(st, 1, p);
			while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
				int64_t scope = sqlite3_column_int64(st, 6);

				if (imap_get(&q->scopeset, (uint64_t)scope))
					r = sel_block(q, st, 0);
			}
			sqlite3_reset(st);
			if (r == 0 && rc != SQLITE_DONE)
				break;
		}
		imap_clear(&seen);
	} else {
		/* From the time index alone; only the blocks that reach past
		 * the rollups are read. */
		st = q->s->sb[SB_BLOCKS_TIME];
		for (i = 0; i < q->nscopes && r == 0; i++) {
			sqlite3_bind_int64(st, 1, q->scopes[i]);
			sqlite3_bind_int64(st, 2, q->lo);
			sqlite3_bind_int64(st, 3, q->hi);
			while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
				if (sel_rolled(q, q->scopes[i],
				    sqlite3_column_int64(st, 1),
				    sqlite3_column_int64(st, 2)))
					continue;
				r = sel_block_id(q, sqlite3_column_int64(st, 0),
				    q->scopes[i]);
			}
			sqlite3_reset(st);
			if (r == 0 && rc != SQLITE_DONE)
				break;
		}
	}
	if (r == -1)
		return -1;
	return rc == SQLITE_DONE ? 0 : store_fail(q->s, q->err,
	    "reading sample values");
}

/* A run's bytes by id (sel_windows, with known): 1 and the bytes, valid
 * until SB_ROLLUP_DATA is reset; 0 when the run is gone (not in this
 * read transaction's snapshot: never, as it was just listed). */
static int
sel_run_data(struct sel *q, int64_t id, const void **data, size_t *len)
{
	sqlite3_stmt *st = q->s->sb[SB_ROLLUP_DATA];
	int rc;

	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*data = sqlite3_column_blob(st, 0);
		*len = (size_t)sqlite3_column_bytes(st, 0);
		return 1;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : store_fail(q->s, q->err,
	    "reading a rollup's data");
}

/* The rollup windows of a span with start in [from, to]; the starts of
 * those without a rollup are added to marked.  With known the runs
 * are listed without their bytes, each offered by id (known) and read
 * by id only when not taken. */
static int
sel_windows(struct sel *q, int64_t scope, int64_t span, int64_t from,
    int64_t to, int64_t **marked, size_t *nmarked)
{
	sqlite3_stmt *st = q->s->sb[q->known != NULL ? SB_ROLLUP_IDS :
	    SB_ROLLUPS];
	struct sblock_dec *d = &q->dec;
	size_t c, np, len = 0, *cc = NULL, *vc = NULL;
	int64_t start, id, *metric = NULL;
	const void *data = NULL;
	int rc, r = 0, k, held = 0;

	if (from > to)
		return 0;
	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, span);
	sqlite3_bind_int64(st, 3, from);
	sqlite3_bind_int64(st, 4, to);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (held) {
			sqlite3_reset(q->s->sb[SB_ROLLUP_DATA]);
			held = 0;
		}
		id = sqlite3_column_int64(st, 0);
		start = sqlite3_column_int64(st, 1);
		if (sqlite3_column_int64(st, 3) < 0) {
			*marked = xappendarray(*marked, *nmarked,
			    sizeof **marked);
			(*marked)[(*nmarked)++] = start;
			continue;
		}
		/* The profiles it counts. */
		if ((r = plist_decode(sqlite3_column_blob(st, 4),
		    (size_t)sqlite3_column_bytes(st, 4), q->metric, NULL,
		    &q->profiles, id, q->err)) == -1)
			break;
		if (q->known != NULL) {
			/* Its sums held: its bytes not even read. */
			if (q->known(q->run_arg, id, start)) {
				q->s->rollups_read++;
				continue;
			}
			if ((r = sel_run_data(q, id, &data, &len)) == -1)
				break;
			if (r == 0)
				continue;
			held = 1;
			r = 0;
		} else {
			data = sqlite3_column_blob(st, 2);
			len = (size_t)sqlite3_column_bytes(st, 2);
		}
		if ((r = sblock_dec_open(d, data, len, start, "rollup", id,
		    q->err)) == -1)
			break;
		/* The (count, value) column pairs wanted. */
		cc = xreallocarray(cc, d->ncols ? d->ncols : 1, sizeof *cc);
		vc = xreallocarray(vc, d->ncols ? d->ncols : 1, sizeof *vc);
		metric = xreallocarray(metric, d->ncols ? d->ncols : 1,
		    sizeof *metric);
		np = 0;
		for (c = 0; c < d->ncols; c++) {
			uint64_t tag = d->cols[c].tag;

			/* A raw tag's (store.h) are no metric's sums. */
			if ((tag & 1) != 0 || (q->metric != 0 &&
			    tag != store_count_tag((uint64_t)q->metric)) ||
			    ((tag / 2) & STORE_RAW_BIT) != 0)
				continue;
			if ((k = sblock_dec_col(d, tag + 1)) < 0)
				continue;
			cc[np] = c;
			vc[np] = (size_t)k;
			metric[np++] = (int64_t)(tag / 2);
			sblock_dec_want(d, (int)c);
			sblock_dec_want(d, k);
		}
		if (np == 0)
			continue;
		q->s->rollups_read++;
		if (q->run != NULL && np == 1 && (k = q->run(q->run_arg, id,
		    start, data, len, q->err)) != 0) {
			if ((r = k) == -1)
				break;
			r = 0;
			continue;
		}
		while ((r = sblock_dec_next(d, q->err)) == 1) {
			if (cancel_poll(q->err) == -1) {
				r = -1;
				break;
			}
			for (c = 0; c < np; c++)
				if (d->v[cc[c]] != 0)
					sel_value(q, metric[c], d->ls, d->cs,
					    start, d->v[vc[c]]);
		}
	}
	if (held)
		sqlite3_reset(q->s->sb[SB_ROLLUP_DATA]);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	free(cc);
	free(vc);
	free(metric);
	if (r == -1)
		return -1;
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 :
	    store_fail(q->s, q->err, "reading rollups");
}

static int
sel_rollups(struct sel *q)
{
	int64_t hour = store_spans[0], day = store_spans[STORE_NSPANS - 1];
	int64_t *days = NULL, *hours = NULL, sc;
	size_t i, k, nd, nh;
	int rc = 0;

	if (!q->rollups)
		return 0;
	for (i = 0; i < q->nscopes && rc == 0; i++) {
		sc = q->scopes[i];
		nd = nh = 0;
		if (q->dlo > q->dhi)
			rc = sel_windows(q, sc, hour, q->hlo, q->hhi - hour + 1,
			    &hours, &nh);
		else if ((rc = sel_windows(q, sc, day, q->dlo,
		    q->dhi - day + 1, &days, &nd)) == 0 &&
		    (rc = sel_windows(q, sc, hour, q->hlo, q->dlo - hour,
		    &hours, &nh)) == 0)
			rc = sel_windows(q, sc, hour, q->dhi + 1,
			    q->hhi - hour + 1, &hours, &nh);
		/* Days without a rollup, and open days (store-runs.c,
		 * "days"): their hours. */
		if (rc == 0 && q->dlo <= q->dhi)
			rc = store_runs_open(q->s, sc, q->dlo, q->dhi, &days,
			    &nd, q->err);
		for (k = 0; k < nd && rc == 0; k++)
			rc = sel_windows(q, sc, hour, days[k],
			    days[k] + day - hour, &hours, &nh);
		/* Hours without one: the blocks. */
		for (k = 0; k < nh; k++) {
			q->holes = xreallocarray(q->holes, q->nholes + 1,
			    sizeof *q->holes);
			q->holes[q->nholes].scope = sc;
			q->holes[q->nholes].lo = hours[k];
			q->holes[q->nholes++].hi = hours[k] + hour - 1;
		}
	}
	free(days);
	free(hours);
	return rc;
}

/* Rollups and blocks are read in one read transaction, so that they
 * come from the same commit of the store. */
static int
sel_run(struct sel *q)
{
	int own, rc;

	if (q->lo > q->hi)
		return 0;
	if ((own = sqlite3_get_autocommit(q->s->db)) &&
	    store_step_done(q->s, q->s->sb[SB_READ_BEGIN], q->err, "begin") == -1)
		return -1;
	rc = sel_rollups(q) == -1 || sel_blocks(q) == -1 ? -1 : 0;
	if (own && store_step_done(q->s, q->s->sb[SB_READ_END], q->err, "end") == -1)
		rc = -1;
	return rc;
}

int
sel_collect_offers(struct sel *q, struct store *s,
    const struct store_filter *f, enum sel_mode mode,
    const struct sel_offers *o, struct error *err)
{
	if (sel_init(q, s, f, mode, err) == -1) {
		sel_clear(q);
		return -1;
	}
	if (o != NULL) {
		q->run = o->run;
		q->block = o->block;
		q->run_arg = o->arg;
		q->known = o->known;
	}
	if (sel_run(q) == -1) {
		sel_clear(q);
		return -1;
	}
	return 0;
}

int
sel_collect(struct sel *q, struct store *s, const struct store_filter *f,
    enum sel_mode mode, sel_offer_fn *run, sel_offer_fn *block,
    void *run_arg, struct error *err)
{
	struct sel_offers o = { run, block, NULL, run_arg };

	return sel_collect_offers(q, s, f, mode, &o, err);
}

void
sel_pairs_out(struct kvsum *t, struct store_cs_value **out, size_t *n)
{
	struct store_cs_value *v;
	size_t i;

	kv_sort(t->kv, t->n);
	v = xcalloc(t->n ? t->n : 1, sizeof *v);
	for (i = 0; i < t->n; i++) {
		v[i].callsite = (int64_t)t->kv[i].k;
		v[i].value = t->kv[i].v;
	}
	*out = v;
	*n = t->n;
}

void
sel_values_out(struct sel *q, struct store_cs_value **out, size_t *n,
    int64_t *nprofiles)
{
	sel_pairs_out(&q->sums, out, n);
	*nprofiles = (int64_t)q->profiles.n;
	sel_clear(q);
}

int
sel_select_plain(struct store *s, const struct store_filter *f,
    struct store_cs_value **out, size_t *n, int64_t *nprofiles,
    struct error *err)
{
	struct sel q;

	*out = NULL;
	*n = 0;
	*nprofiles = 0;
	if (sel_collect(&q, s, f, SEL_VALUES, NULL, NULL, NULL, err) == -1)
		return -1;
	sel_values_out(&q, out, n, nprofiles);
	return 0;
}
