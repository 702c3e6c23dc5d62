/* store-gauge-sums.c: a gauge window's sums per callsite, as
 * store_select_values reads them, with the sums of each rollup run and
 * of each block that the window takes whole (the blocks of its partial
 * hours) kept between calls (docs/TIME.md "How a gauge window is read").
 * A run or a block is never changed once written (a merge or a delete
 * writes a new run), so the pairs made once from its rows hold as long
 * as its bytes are the same: they are kept by (kind, id, metric) with a
 * copy of the bytes, compared on every use, and a day of heap snapshots
 * read again decodes none of its runs and edges.  A window that is whole
 * days (its other hours and edges without a row of the metric) is read
 * from the days' runs here, as the select would read them, without
 * inflating the runs whose bytes are kept (gs_days).  The pairs
 * depend on nothing but the bytes, so one cache serves every store and
 * connection of the process (under a lock). */
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cancel.h"
#include "hmap.h"
#include "kv.h"
#include "store-gauge.h"
#include "store-sel.h"

/* What the process keeps: past this, the half used longest ago goes (a
 * day run of 5,000 stacks is some 80 kB of pairs and its bytes). */
#define GS_CACHE_BYTES	((size_t)64 << 20)

enum { GS_RUN, GS_BLOCK };

struct gs_entry {
	int kind;
	int64_t id, metric;
	uint8_t *data;			/* its bytes, to know it again */
	size_t len;
	struct kv *pairs;		/* (callsite, sum), by callsite */
	size_t npairs;
	int any;			/* a block: a row of the metric */
	uint64_t used;
};

static struct {
	pthread_mutex_t lock;
	struct gs_entry *e;
	size_t n, bytes;
	struct hmap at;			/* (kind, id, metric) -> 1 + index */
	uint64_t clock;
} gs = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* One read: its metric, its pairs summed by callsite (dense by id as
 * store-select.c sums them, a map past that). */
struct gs_read {
	int64_t metric;
	struct kv *kv;
	size_t nkv, capkv;
	uint32_t *dense;
	size_t ndense;
	struct imap far;
	struct sblock_dec dec;
	struct kv *tmp;
	size_t ntmp, captmp;
};

#define GS_DENSE_MAX	((size_t)1 << 22)

static void
gs_sum(struct gs_read *r, uint64_t cs, int64_t v)
{
	struct imap_slot *sl = NULL;
	size_t at, n;

	if (cs < GS_DENSE_MAX) {
		if (cs >= r->ndense) {
			n = r->ndense ? r->ndense : 4096;
			while (n <= cs)
				n *= 2;
			r->dense = xreallocarray(r->dense, n,
			    sizeof *r->dense);
			memset(r->dense + r->ndense, 0, (n - r->ndense) *
			    sizeof *r->dense);
			r->ndense = n;
		}
		at = r->dense[cs];
	} else {
		sl = imap_slot(&r->far, cs, 1);
		at = (size_t)sl->value;
	}
	if (at != 0) {
		r->kv[at - 1].v = (int64_t)((uint64_t)r->kv[at - 1].v +
		    (uint64_t)v);
		return;
	}
	if (r->nkv == r->capkv) {
		r->capkv = r->capkv ? r->capkv * 2 : 4096;
		r->kv = xreallocarray(r->kv, r->capkv, sizeof *r->kv);
	}
	r->kv[r->nkv].k = cs;
	r->kv[r->nkv++].v = v;
	if (sl != NULL)
		imap_fill(&r->far, sl, cs, (int64_t)r->nkv);
	else
		r->dense[cs] = (uint32_t)r->nkv;
}

static size_t
gs_entry_bytes(const struct gs_entry *e)
{
	return sizeof *e + e->len + e->npairs * sizeof *e->pairs;
}

static void
gs_entry_free(struct gs_entry *e)
{
	free(e->data);
	free(e->pairs);
}

static int
gs_used_cmp(const void *a, const void *b)
{
	const struct gs_entry *x = a, *y = b;

	return x->used < y->used ? 1 : x->used > y->used ? -1 : 0;
}

/* The cache back under half its bound: the entries used last kept.
 * Called with the lock held. */
static void
gs_trim(void)
{
	int64_t key[3];
	size_t i, keep = 0, bytes = 0;

	qsort(gs.e, gs.n, sizeof *gs.e, gs_used_cmp);
	for (i = 0; i < gs.n; i++) {
		if (bytes + gs_entry_bytes(&gs.e[i]) <= GS_CACHE_BYTES / 2) {
			bytes += gs_entry_bytes(&gs.e[i]);
			gs.e[keep++] = gs.e[i];
		} else
			gs_entry_free(&gs.e[i]);
	}
	gs.n = keep;
	gs.bytes = bytes;
	hmap_clear(&gs.at);
	for (i = 0; i < gs.n; i++) {
		key[0] = gs.e[i].kind;
		key[1] = gs.e[i].id;
		key[2] = gs.e[i].metric;
		hmap_put(&gs.at, key, sizeof key, (int64_t)i + 1);
	}
}

/* A kept entry's pairs added to the read: 1, with *any; 0 none kept for
 * these bytes. */
static int
gs_hit(struct gs_read *r, int kind, int64_t id, const void *data,
    size_t len, int *any)
{
	int64_t key[3] = { kind, id, r->metric }, at;
	struct gs_entry *e;
	size_t i;
	int hit = 0;

	pthread_mutex_lock(&gs.lock);
	if ((at = hmap_get(&gs.at, key, sizeof key)) != 0) {
		e = &gs.e[at - 1];
		if (e->len == len && memcmp(e->data, data, len) == 0) {
			e->used = ++gs.clock;
			for (i = 0; i < e->npairs; i++)
				gs_sum(r, e->pairs[i].k, e->pairs[i].v);
			*any = e->any;
			hit = 1;
		}
	}
	pthread_mutex_unlock(&gs.lock);
	return hit;
}

/* Pairs made from bytes kept (an entry of the same key replaced). */
static void
gs_keep(int kind, int64_t id, int64_t metric, const void *data, size_t len,
    const struct kv *pairs, size_t npairs, int any)
{
	int64_t key[3] = { kind, id, metric }, at;
	struct gs_entry e = { kind, id, metric, NULL, len, NULL, npairs, any,
	    0 };

	e.data = xmalloc(len ? len : 1);
	memcpy(e.data, data, len);
	e.pairs = xcalloc(npairs ? npairs : 1, sizeof *e.pairs);
	memcpy(e.pairs, pairs, npairs * sizeof *pairs);
	pthread_mutex_lock(&gs.lock);
	e.used = ++gs.clock;
	if ((at = hmap_get(&gs.at, key, sizeof key)) != 0) {
		gs.bytes -= gs_entry_bytes(&gs.e[at - 1]);
		gs_entry_free(&gs.e[at - 1]);
		gs.e[at - 1] = e;
	} else {
		gs.e = xreallocarray(gs.e, gs.n + 1, sizeof *gs.e);
		gs.e[gs.n++] = e;
		hmap_put(&gs.at, key, sizeof key, (int64_t)gs.n);
	}
	gs.bytes += gs_entry_bytes(&e);
	if (gs.bytes > GS_CACHE_BYTES)
		gs_trim();
	pthread_mutex_unlock(&gs.lock);
}

/* The rows of a run (the metric's count column not 0: its sum, as
 * store-select.c sums a run) or of a block (the metric's value not 0),
 * summed by callsite into r->tmp; *any a row. */
static int
gs_decode(struct gs_read *r, int kind, int64_t id, int64_t base,
    const void *data, size_t len, int *any, struct error *err)
{
	struct sblock_dec *d = &r->dec;
	uint64_t tag = kind == GS_RUN ? store_count_tag((uint64_t)r->metric) :
	    (uint64_t)r->metric;
	int c, vc, rc;

	r->ntmp = 0;
	*any = 0;
	if (sblock_dec_open(d, data, len, base, kind == GS_RUN ? "rollup" :
	    "sample block", id, err) == -1)
		return -1;
	if ((c = sblock_dec_col(d, tag)) < 0)
		return 0;
	vc = c;
	if (kind == GS_RUN && (vc = sblock_dec_col(d, tag + 1)) < 0)
		return 0;
	sblock_dec_want(d, c);
	sblock_dec_want(d, vc);
	while ((rc = sblock_dec_next(d, err)) == 1) {
		if (cancel_poll(err) == -1)
			return -1;
		if (d->v[c] == 0)
			continue;
		if (r->ntmp == r->captmp) {
			r->captmp = r->captmp ? r->captmp * 2 : 4096;
			r->tmp = xreallocarray(r->tmp, r->captmp,
			    sizeof *r->tmp);
		}
		r->tmp[r->ntmp].k = (uint64_t)d->cs;
		r->tmp[r->ntmp++].v = d->v[vc];
		*any = 1;
	}
	if (rc == -1)
		return -1;
	r->ntmp = kv_sort_merge(r->tmp, r->ntmp);
	return 0;
}

static int
gs_offer(struct gs_read *r, int kind, int64_t id, int64_t base,
    const void *data, size_t len, struct error *err)
{
	size_t i;
	int any;

	if (!gs_hit(r, kind, id, data, len, &any)) {
		if (gs_decode(r, kind, id, base, data, len, &any, err) == -1)
			return -1;
		for (i = 0; i < r->ntmp; i++)
			gs_sum(r, r->tmp[i].k, r->tmp[i].v);
		gs_keep(kind, id, r->metric, data, len, r->tmp, r->ntmp, any);
	}
	/* A block none of whose rows has the metric counts no profile. */
	return kind == GS_BLOCK && !any ? 2 : 1;
}

static int
gs_run(void *arg, int64_t id, int64_t start, const void *data, size_t len,
    struct error *err)
{
	return gs_offer(arg, GS_RUN, id, start, data, len, err);
}

static int
gs_block(void *arg, int64_t id, int64_t bmin, const void *data, size_t len,
    struct error *err)
{
	return gs_offer(arg, GS_BLOCK, id, bmin, data, len, err);
}

/* Whether the scope has a row of the metric in [a, b] (its per-bucket
 * totals): 1, 0, -1 on error. */
static int
gs_any(struct store *s, int64_t scope, int64_t metric, int64_t a, int64_t b,
    struct error *err)
{
	sqlite3_stmt *st;
	int rc, r;

	if (a > b)
		return 0;
	if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM sample_total WHERE "
	    "scope_id = ?1 AND metric_id = ?2 AND bucket >= ?3 AND "
	    "bucket <= ?4 LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return store_fail(s, err, "preparing a window's edge read");
	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, metric);
	sqlite3_bind_int64(st, 3, a);
	sqlite3_bind_int64(st, 4, b);
	rc = sqlite3_step(st);
	r = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 :
	    store_fail(s, err, "reading a window's edges");
	sqlite3_finalize(st);
	return r;
}

/* A window that the select would read from whole days' runs alone (its
 * hours and edges outside them hold no row of the metric: its totals),
 * read here from those runs as the select reads them (store-select.c
 * sel_rollups, sel_windows: every run of each day, its profile list
 * and, where its count is not 0, its sum), the runs' bytes compared
 * with those kept and not inflated when they are the same.  1 read, 0
 * when the select must (a day's marker, another plan), -1 on error. */
static int
gs_days(struct store *s, const struct store_filter *f, struct gs_read *r,
    int64_t *nprofiles, struct error *err)
{
	const int64_t hour = store_spans[0], day = store_spans[STORE_NSPANS - 1];
	sqlite3_stmt *st = s->sb[SB_ROLLUPS];
	struct imap profiles = { 0 };
	int64_t lo = store_clamp_bucket(f->since_s);
	int64_t hi = store_clamp_bucket(f->until_s);
	int64_t hlo, hhi, dlo, dhi, scope = f->scopes[0];
	int rc, k, ret = 0;

	if (s->raw_only || f->nscopes != 1)
		return 0;
	hlo = store_ceil_to(lo, hour);
	hhi = store_floor_div(hi + 1, hour) * hour - 1;
	dlo = store_ceil_to(hlo, day);
	dhi = store_floor_div(hhi + 1, day) * day - 1;
	if (hlo > hhi || dlo > dhi)
		return 0;
	if ((k = gs_any(s, scope, f->metric_id, lo, dlo - 1, err)) != 0 ||
	    (k = gs_any(s, scope, f->metric_id, dhi + 1, hi, err)) != 0)
		return k == -1 ? -1 : 0;
	sqlite3_bind_int64(st, 1, scope);
	sqlite3_bind_int64(st, 2, day);
	sqlite3_bind_int64(st, 3, dlo);
	sqlite3_bind_int64(st, 4, dhi - day + 1);
	ret = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* A marker: its hours and blocks, the select's plan. */
		if (sqlite3_column_int64(st, 3) < 0) {
			ret = 0;
			break;
		}
		if (plist_decode(sqlite3_column_blob(st, 4),
		    (size_t)sqlite3_column_bytes(st, 4), f->metric_id, NULL,
		    &profiles, sqlite3_column_int64(st, 0), err) == -1 ||
		    gs_offer(r, GS_RUN, sqlite3_column_int64(st, 0),
		    sqlite3_column_int64(st, 1), sqlite3_column_blob(st, 2),
		    (size_t)sqlite3_column_bytes(st, 2), err) == -1) {
			ret = -1;
			break;
		}
		s->rollups_read++;
	}
	if (ret == 1 && rc != SQLITE_DONE)
		ret = store_fail(s, err, "reading rollups");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	*nprofiles = (int64_t)profiles.n;
	imap_clear(&profiles);
	return ret;
}

int
store_gauge_select(struct store *s, const struct store_filter *f,
    struct store_cs_value **out, size_t *n, int64_t *nprofiles,
    struct error *err)
{
	struct gs_read r;
	struct sel q;
	struct store_cs_value *v;
	size_t i;
	int rc = -1, k;

	*out = NULL;
	*n = 0;
	*nprofiles = 0;
	if (f->metric_id == 0 || f->raw || f->nlabels > 0 || f->nprofiles > 0)
		return store_select_values(s, f, out, n, nprofiles, err);
	memset(&r, 0, sizeof r);
	r.metric = f->metric_id;
	if ((k = gs_days(s, f, &r, nprofiles, err)) == -1)
		goto out;
	if (k == 0) {
		/* Another plan: the select's, the runs and whole blocks it
		 * offers summed here, the rest by the select itself. */
		r.nkv = 0;
		if (r.dense != NULL)
			memset(r.dense, 0, r.ndense * sizeof *r.dense);
		imap_clear(&r.far);
		if (sel_collect(&q, s, f, SEL_VALUES, gs_run, gs_block, &r,
		    err) == -1)
			goto out;
		sel_values_out(&q, &v, n, nprofiles);
		for (i = 0; i < *n; i++)
			gs_sum(&r, (uint64_t)v[i].callsite, v[i].value);
		free(v);
	}
	kv_sort(r.kv, r.nkv);
	*out = xcalloc(r.nkv ? r.nkv : 1, sizeof **out);
	for (i = 0; i < r.nkv; i++) {
		(*out)[i].callsite = (int64_t)r.kv[i].k;
		(*out)[i].value = r.kv[i].v;
	}
	*n = r.nkv;
	rc = 0;
out:
	free(r.kv);
	free(r.dense);
	free(r.tmp);
	imap_clear(&r.far);
	sblock_dec_free(&r.dec);
	return rc;
}
