/* store-gauge-sums.c: a gauge window's sums per callsite, as
 * store_select_values reads them, with the sums of each rollup run and
 * of each block that the window takes whole (the blocks of its partial
 * hours) kept between calls (docs/TIME.md "How a gauge window is read").
 * A run or a block is never changed once written (a merge or a delete
 * writes a new run), so the pairs made once from its rows hold as long
 * as it is the same.  A run's id is never used again (schema 14), so a
 * run's pairs are kept by (id, metric) alone and the select offers a run
 * by id before reading its bytes (sel_known_fn): a run held is neither
 * read nor inflated.  A block's id may be used again (its profile
 * deleted, another pushed), so a block's pairs are kept with a copy of
 * its bytes and used only when they are the same.  A day of heap
 * snapshots read again decodes none of its runs and edges.  A window
 * that is whole days (its other hours and edges without a row of the
 * metric) is read from the days' runs here, as the select would read
 * them (gs_days).  The pairs depend on nothing but the run or block, and
 * a run's id names it in one store only, so the cache is keyed by the
 * store's origin too (its file and first scope) and serves every
 * connection of the process (under a lock).  The same cache serves a
 * delta metric's reads of pairs (store_select_values: tree and the
 * flame graph over a week, store_pairs_select). */
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
	int64_t id, metric, origin;
	uint8_t *data;			/* a block's bytes, to know it again */
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
	struct hmap at;			/* (kind, id, metric, origin) -> 1 +
					 * index */
	uint64_t clock;
	struct hmap origins;		/* a store's name -> its origin */
	int64_t norigin;
	uint64_t runs_read;		/* runs whose bytes were read */
} gs = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* One read: its metric, its pairs summed by callsite (kv.h's kvsum, as
 * store-select.c sums them). */
struct gs_read {
	int64_t metric, origin;
	struct kvsum sums;
	struct sblock_dec dec;
	struct kv *tmp;
	size_t ntmp, captmp;
};

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
	int64_t key[4];
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
		key[3] = gs.e[i].origin;
		hmap_put(&gs.at, key, sizeof key, (int64_t)i + 1);
	}
}

/* A kept entry's pairs added to the read: 1, with *any; 0 none kept (a
 * run: for its id; a block: for these bytes). */
static int
gs_hit(struct gs_read *r, int kind, int64_t id, const void *data,
    size_t len, int *any)
{
	int64_t key[4] = { kind, id, r->metric, r->origin }, at;
	struct gs_entry *e;
	size_t i;
	int hit = 0;

	pthread_mutex_lock(&gs.lock);
	if ((at = hmap_get(&gs.at, key, sizeof key)) != 0) {
		e = &gs.e[at - 1];
		/* A run is its id (schema 14); a block, its bytes. */
		if (kind == GS_RUN || (e->len == len && (len == 0 ||
		    memcmp(e->data, data, len) == 0))) {
			e->used = ++gs.clock;
			for (i = 0; i < e->npairs; i++)
				kvsum_add(&r->sums, e->pairs[i].k, e->pairs[i].v);
			*any = e->any;
			hit = 1;
		}
	}
	pthread_mutex_unlock(&gs.lock);
	return hit;
}

/* Pairs made from a run or a block kept (an entry of the same key
 * replaced); a block's bytes with them. */
static void
gs_keep(int kind, int64_t id, int64_t metric, int64_t origin,
    const void *data, size_t len, const struct kv *pairs, size_t npairs,
    int any)
{
	int64_t key[4] = { kind, id, metric, origin }, at;
	struct gs_entry e = { kind, id, metric, origin, NULL, 0, NULL, npairs,
	    any, 0 };

	if (kind == GS_BLOCK) {
		e.len = len;
		e.data = xmalloc(len ? len : 1);
		if (len > 0)
			memcpy(e.data, data, len);
	}
	e.pairs = xcalloc(npairs ? npairs : 1, sizeof *e.pairs);
	if (npairs > 0)		/* pairs may be NULL then */
		memcpy(e.pairs, pairs, npairs * sizeof *pairs);
	pthread_mutex_lock(&gs.lock);
	e.used = ++gs.clock;
	if ((at = hmap_get(&gs.at, key, sizeof key)) != 0) {
		gs.bytes -= gs_entry_bytes(&gs.e[at - 1]);
		gs_entry_free(&gs.e[at - 1]);
		gs.e[at - 1] = e;
	} else {
		gs.e = xappendarray(gs.e, gs.n, sizeof *gs.e);
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

	if (kind == GS_RUN) {
		pthread_mutex_lock(&gs.lock);
		gs.runs_read++;
		pthread_mutex_unlock(&gs.lock);
	}
	if (!gs_hit(r, kind, id, data, len, &any)) {
		if (gs_decode(r, kind, id, base, data, len, &any, err) == -1)
			return -1;
		for (i = 0; i < r->ntmp; i++)
			kvsum_add(&r->sums, r->tmp[i].k, r->tmp[i].v);
		gs_keep(kind, id, r->metric, r->origin, data, len, r->tmp,
		    r->ntmp, any);
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

/* A run offered by id before its bytes are read (sel_known_fn): its
 * pairs added when held. */
static int
gs_known(void *arg, int64_t id, int64_t start)
{
	int any;

	(void)start;
	return gs_hit(arg, GS_RUN, id, NULL, 0, &any);
}

static int
gs_block(void *arg, int64_t id, int64_t bmin, const void *data, size_t len,
    struct error *err)
{
	return gs_offer(arg, GS_BLOCK, id, bmin, data, len, err);
}

/* A run's bytes by id, offered (gs_offer): when its pairs are not held. */
static int
gs_run_id(struct store *s, struct gs_read *r, int64_t id, int64_t start,
    struct error *err)
{
	sqlite3_stmt *st = s->sb[SB_ROLLUP_DATA];
	int rc, k = 0;

	sqlite3_bind_int64(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		k = gs_offer(r, GS_RUN, id, start, sqlite3_column_blob(st, 0),
		    (size_t)sqlite3_column_bytes(st, 0), err);
	else if (rc != SQLITE_DONE)
		k = store_fail(s, err, "reading a rollup's data");
	sqlite3_reset(st);
	return k == -1 ? -1 : 0;
}

/* A window that the select would read from whole days' runs alone (its
 * hours and edges outside them hold no row of the metric: its totals),
 * read here from those runs as the select reads them (store-select.c
 * sel_rollups, sel_windows: every run of each day, its profile list
 * and, where its count is not 0, its sum), listed without their bytes
 * and read only when their pairs are not held.  1 read, 0 when the
 * select must (a day's marker, another plan), -1 on error. */
static int
gs_days(struct store *s, const struct store_filter *f, struct gs_read *r,
    int64_t *nprofiles, struct error *err)
{
	const int64_t hour = store_spans[0], day = store_spans[STORE_NSPANS - 1];
	sqlite3_stmt *st = s->sb[SB_ROLLUP_IDS];
	struct imap profiles = { 0 };
	int64_t lo = store_clamp_bucket(f->since_s);
	int64_t hi = store_clamp_bucket(f->until_s);
	int64_t hlo, hhi, dlo, dhi, id, scope = f->scopes[0], *open = NULL;
	size_t nopen = 0;
	int rc, k, ret = 0;

	if (s->raw_only || f->nscopes != 1)
		return 0;
	hlo = store_ceil_to(lo, hour);
	hhi = store_floor_div(hi + 1, hour) * hour - 1;
	dlo = store_ceil_to(hlo, day);
	dhi = store_floor_div(hhi + 1, day) * day - 1;
	if (hlo > hhi || dlo > dhi)
		return 0;
	if ((k = store_gauge_any(s, scope, f->metric_id, lo, dlo - 1,
	    err)) != 0 || (k = store_gauge_any(s, scope, f->metric_id,
	    dhi + 1, hi, err)) != 0)
		return k == -1 ? -1 : 0;
	/* An open day (store-runs.c, "days"): its hours, the select's. */
	if (store_runs_open(s, scope, dlo, dhi, &open, &nopen, err) == -1)
		return -1;
	free(open);
	if (nopen > 0)
		return 0;
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
		id = sqlite3_column_int64(st, 0);
		if (plist_decode(sqlite3_column_blob(st, 4),
		    (size_t)sqlite3_column_bytes(st, 4), f->metric_id, NULL,
		    &profiles, id, err) == -1 || (!gs_known(r, id, 0) &&
		    gs_run_id(s, r, id, sqlite3_column_int64(st, 1),
		    err) == -1)) {
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

/* The store's origin in the cache (its file's name and its first
 * scope's creation time: a store made again at the same path, whose run
 * ids start again, is another origin): > 0, 0 when it has none (a
 * database without a file, or without a scope: read without the cache),
 * -1 on error; 0 too in a write transaction. */
static int64_t
gs_origin(struct store *s, struct error *err)
{
	const char *name = sqlite3_db_filename(s->db, "main");
	sqlite3_stmt *st = s->sb[SB_FIRST_SCOPE];
	char *key;
	int64_t o = 0, made;
	size_t n;
	int rc;

	/* A run read in a write transaction may be rolled back, its id
	 * with it (the sequence too), and used again: not kept. */
	if (name == NULL || *name == '\0' ||
	    sqlite3_txn_state(s->db, "main") == SQLITE_TXN_WRITE)
		return 0;
	rc = sqlite3_step(st);
	made = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : store_fail(s, err,
		    "reading a scope");
	n = strlen(name);
	key = xmalloc(n + sizeof made);
	memcpy(key, &made, sizeof made);
	memcpy(key + sizeof made, name, n);
	pthread_mutex_lock(&gs.lock);
	if ((o = hmap_get(&gs.origins, key, n + sizeof made)) == 0) {
		o = ++gs.norigin;
		hmap_put(&gs.origins, key, n + sizeof made, o);
	}
	pthread_mutex_unlock(&gs.lock);
	free(key);
	return o;
}

uint64_t
store_gauge_runs_read(void)
{
	uint64_t n;

	pthread_mutex_lock(&gs.lock);
	n = gs.runs_read;
	pthread_mutex_unlock(&gs.lock);
	return n;
}

/* The read, the window of whole days read here (gs_days) when days is
 * set and the select's plan otherwise. */
static int
gs_select(struct store *s, const struct store_filter *f,
    struct store_cs_value **out, size_t *n, int64_t *nprofiles, int days,
    struct error *err)
{
	struct gs_read r;
	struct sel q;
	struct sel_offers o;
	size_t i;
	int64_t origin = 0;
	int rc = -1, k;

	*out = NULL;
	*n = 0;
	*nprofiles = 0;
	if (f->metric_id == 0 || f->raw || f->nlabels > 0 ||
	    f->nprofiles > 0 || (origin = gs_origin(s, err)) == 0)
		return sel_select_plain(s, f, out, n, nprofiles, err);
	if (origin == -1)
		return -1;
	memset(&r, 0, sizeof r);
	r.metric = f->metric_id;
	r.origin = origin;
	/* A read answered from kept pairs decodes no row, where the call's
	 * cancel is polled: so it is polled here, once a read at least (a
	 * client gone, or past query-timeout, stops a loop of reads). */
	if (cancel_poll(err) == -1)
		goto out;
	if ((k = days ? gs_days(s, f, &r, nprofiles, err) : 0) == -1)
		goto out;
	if (k == 0) {
		/* Another plan: the select's, the runs and whole blocks it
		 * offers summed here, the rest by the select itself. */
		kvsum_reset(&r.sums);
		o.run = gs_run;
		o.block = gs_block;
		o.known = gs_known;
		o.arg = &r;
		if (sel_collect_offers(&q, s, f, SEL_VALUES, &o, err) == -1)
			goto out;
		/* The select's own sums added as they are: sorted once,
		 * below, with the kept ones. */
		for (i = 0; i < q.sums.n; i++)
			kvsum_add(&r.sums, q.sums.kv[i].k, q.sums.kv[i].v);
		*nprofiles = (int64_t)q.profiles.n;
		sel_clear(&q);
	}
	sel_pairs_out(&r.sums, out, n);
	rc = 0;
out:
	kvsum_free(&r.sums);
	free(r.tmp);
	sblock_dec_free(&r.dec);
	return rc;
}

int
store_gauge_select(struct store *s, const struct store_filter *f,
    struct store_cs_value **out, size_t *n, int64_t *nprofiles,
    struct error *err)
{
	return gs_select(s, f, out, n, nprofiles, 1, err);
}

/* A delta metric's pairs (store_select_values: tree, flame graph): the
 * select's plan always, its runs and whole blocks from the cache.  A
 * window of whole days is not read by gs_days here: its check of the
 * edges (the per-bucket totals) was made for gauges, whose profiles
 * count by their rows, and the select counts a run's profiles from its
 * list. */
int
store_pairs_select(struct store *s, const struct store_filter *f,
    struct store_cs_value **out, size_t *n, int64_t *nprofiles,
    struct error *err)
{
	return gs_select(s, f, out, n, nprofiles, 0, err);
}
