/* fleet-source.c: a selection asked of ClickHouse: its metric and
 * aggregate resolved (fleet-resolve.c) with its values asked beside;
 * then a timeline's range when it combines per series (its steps made
 * here, as aggregate.c makes them), or the sums per time bucket.  top
 * reads the function sums of the window's whole hours and days
 * (fleet-fsum.c, when every profile there has them) and the stacks of
 * its partial hours.  A window's stacks come as sums per stack hash,
 * their frames from the reader's cache (fleet-cache.c: frames never
 * change) and of ClickHouse only for the hashes it lacks; a timeline's
 * per bucket with their frames joined.  Each stack's frames become
 * callsites of the source's index (csindex_put), its value the pair of
 * its leaf.
 * The index is the reader's (fleet-index.h), the source's while it is
 * open, so the strings of a view's answer live as long as the source;
 * it is kept for the next source with each whole stack's leaf by hash,
 * and a call puts only the stacks none before it put.  A selection
 * asked twice (diff asks a tree and a top of each) is read once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "alloc.h"
#include "ch-select.h"
#include "csindex.h"
#include "fleet-cache.h"
#include "fleet-fsum.h"
#include "fleet-index.h"
#include "fleet-source-int.h"
#include "fleet-source.h"
#include "fleet-stacks.h"
#include "fleet-sql.h"
#include "fleet-tsv.h"
#include "selection.h"
#include "source.h"
#include "timeline.h"

struct fleet_reader *
fleet_reader_new(struct ch_select *chs, const char *database,
    const char *cluster)
{
	struct fleet_reader *r = xcalloc(1, sizeof *r);

	r->chs = chs;
	r->database = xstrdup(database);
	r->cluster = cluster != NULL && *cluster != '\0';
	r->cache = fleet_cache_new(FLEET_CACHE_BYTES);
	r->indexes = fleet_index_pool_new(FLEET_INDEX_BYTES);
	r->fnames = fleet_cache_new(FLEET_FNAMES_BYTES);
	pthread_mutex_init(&r->mu, NULL);
	return r;
}

void
fleet_reader_free(struct fleet_reader *r)
{
	size_t i;

	if (r == NULL)
		return;
	free(r->database);
	fleet_cache_free(r->cache);
	fleet_index_pool_free(r->indexes);
	fleet_cache_free(r->fnames);
	pthread_mutex_destroy(&r->mu);
	for (i = 0; i < FLEET_MEMO; i++) {
		free(r->memo[i].key);
		free(r->memo[i].value);
	}
	free(r);
}

/* A metric as shipped, TYPE/UNIT, as the store's (type, unit). */
static void
fs_metric_of(const char *metric, struct store_metric *m)
{
	size_t n = strcspn(metric, "/");

	memset(m, 0, sizeof *m);
	m->type = xstrndup(metric, n);
	m->unit = xstrdup(metric[n] == '/' ? metric + n + 1 : "");
}

/* ---- the replies' lines ---- */

/* scope, profiles, first and last time, metrics (TYPE/UNIT). */
static int
fs_scopes_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_source *x = arg;
	struct store_scope_info *si;
	size_t len, i;

	if (n != 5)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 5 (scope, profiles, times, metrics)", n);
	x->scopes = xreallocarray(x->scopes, x->nscopes + 1,
	    sizeof *x->scopes);
	si = &x->scopes[x->nscopes++];
	memset(si, 0, sizeof *si);
	si->name = xstrdup(fleet_tsv_str(&v[0], &len));
	if (fleet_tsv_int(&v[1], &si->profiles, err) == -1 ||
	    fleet_tsv_int(&v[2], &si->first_ns, err) == -1 ||
	    fleet_tsv_int(&v[3], &si->last_ns, err) == -1 ||
	    fleet_tsv_array(&v[4], &x->a, err) == -1)
		return -1;
	si->metrics = xcalloc(x->a.n ? x->a.n : 1, sizeof *si->metrics);
	for (i = 0; i < x->a.n; i++)
		fs_metric_of(x->a.v[i], &si->metrics[i]);
	si->nmetrics = x->a.n;
	return 0;
}

static int
fs_hosts_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_source *x = arg;
	size_t len;

	if (n != 1)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 1 (host)", n);
	x->hostnames = xreallocarray(x->hostnames, x->nhostnames + 1,
	    sizeof *x->hostnames);
	x->hostnames[x->nhostnames++] = xstrdup(fleet_tsv_str(&v[0], &len));
	return 0;
}

/* ---- the questions ---- */

static int
fs_ask_stacks(struct fleet_source *x, char *sql, struct error *err)
{
	int rc = ch_select(x->r->chs, sql, fleet_stacks_row, &x->st, err);

	free(sql);
	return rc;
}

static void
fs_sql(const struct fleet_source *x, const struct selection *sel,
    struct fleet_sql *q)
{
	memset(q, 0, sizeof *q);
	q->db = x->r->database;
	q->cluster = x->r->cluster;
	q->sel = sel;
	q->hosts = x->hosts;
	q->nhosts = x->nhosts;
}

/* The pairs of the reply to sql into x->st.vals. */
static int
fs_read(struct fleet_source *x, char *sql, int by_bucket, int sums,
    struct error *err)
{
	fleet_stacks_reset(&x->st, by_bucket, sums);
	return fs_ask_stacks(x, sql, err);
}

/* stack_hash, v: a stack's sum. */
static int
fs_sums_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_source *x = arg;
	struct fs_sum *s;
	uint64_t u;

	if (n != 2)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 2 (stack hash, value)", n);
	if (x->nsums == x->capsums) {
		x->capsums = x->capsums ? x->capsums * 2 : 1024;
		x->sums = xreallocarray(x->sums, x->capsums, sizeof *x->sums);
	}
	s = &x->sums[x->nsums];
	if (fleet_tsv_u64(&v[0], &s->hash, NULL) == -1)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "stack hash \"%.*s\" is not a number",
		    (int)(v[0].n > 30 ? 30 : v[0].n), v[0].p);
	/* A sum: negative only where values are (a diff's). */
	if (v[1].n > 0 && v[1].p[0] != '-' &&
	    fleet_tsv_u64(&v[1], &u, NULL) == 0 &&
	    u <= INT64_MAX)
		s->value = (int64_t)u;
	else if (fleet_tsv_int(&v[1], &s->value, err) == -1)
		return -1;
	x->nsums++;
	return 0;
}

/* A row of fleet_sql_frames: a missing stack into the index (its leaf
 * remembered there when its frames are whole) and the cache; once per
 * hash (stacks' copies not merged yet come again), and none of a hash
 * not missing (asked by the selection). */
static int
fs_frames_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_source *x = arg;
	struct fleet_frames *f;
	int64_t at, leaf;

	if (fleet_stacks_frames(&x->st, v, n, &f, err) == -1)
		return -1;
	if ((at = imap_get(&x->missing, f->hash)) > 0) {
		leaf = fleet_stacks_leaf(&x->st, f);
		if (f->whole)
			fleet_index_remember(x->fi, f->hash, leaf);
		fleet_stacks_add(&x->st, leaf, x->sums[at - 1].value);
		imap_put(&x->missing, f->hash, -1);	/* done */
	}
	/* Frames without their inline flags would be kept wrong once
	 * their row comes: read again each time instead. */
	if (f->whole)
		fleet_cache_add(x->r->cache, f->hash, f, f->bytes);
	else
		free(f);
	return 0;
}

/* The stacks of the selection into x->st: their sums from ClickHouse
 * (the reply to qs, fleet_sql_sums's or _sum_ends's; NULL: none),
 * their leaves from the index when an earlier call put them (whole),
 * else their frames from the reader's cache, and of ClickHouse those it
 * lacks (which it then keeps).  A hash without a row of stacks has no
 * pair, as the joined query (fleet_sql_stacks) leaves it out. */
static int
fs_read_cached(struct fleet_source *x, const struct fleet_sql *q,
    struct chs_q *qs, struct error *err)
{
	struct fleet_cache *c = x->r->cache;
	const struct fleet_frames *f;
	uint64_t *h;
	size_t i, nm = 0;
	int64_t leaf;
	int rc;

	x->nsums = 0;
	if (qs != NULL && ch_select_read(qs, fs_sums_row, x, err) == -1)
		return -1;
	fleet_stacks_reset(&x->st, 0, 0);
	imap_reset(&x->missing);
	fleet_cache_lock(c);
	for (i = 0; i < x->nsums; i++) {
		if ((leaf = fleet_index_leaf(x->fi, x->sums[i].hash)) >= 0) {
			fleet_stacks_add(&x->st, leaf, x->sums[i].value);
		} else if ((f = fleet_cache_get(c, x->sums[i].hash)) != NULL) {
			/* The cache keeps whole frames only. */
			leaf = fleet_stacks_leaf(&x->st, f);
			fleet_index_remember(x->fi, f->hash, leaf);
			fleet_stacks_add(&x->st, leaf, x->sums[i].value);
		} else {
			x->sums[nm++] = x->sums[i];
		}
	}
	fleet_cache_unlock(c);
	if (nm == 0)
		return 0;
	/* Sums are per distinct hash: each missing once. */
	h = xreallocarray(NULL, nm, sizeof *h);
	for (i = 0; i < nm; i++) {
		h[i] = x->sums[i].hash;
		imap_put(&x->missing, h[i], (int64_t)i + 1);
	}
	rc = fleet_resolve_ask(x, fleet_sql_frames(q, h,
	    nm <= FS_ASK_BY_NAME ? nm : 0),
	    fs_frames_row, err);
	free(h);
	return rc;
}

/* The pairs x->st holds, as select gives them. */
static void
fs_pairs_out(struct fleet_source *x, struct store_metric *m,
    struct store_cs_value **vals, size_t *nvals, int64_t *nprofiles)
{
	size_t i;

	fs_metric_of(x->metric, m);
	m->aggregate = x->aggregate;
	*nvals = x->st.nvals;
	*vals = xreallocarray(NULL, *nvals ? *nvals : 1, sizeof **vals);
	for (i = 0; i < *nvals; i++) {
		(*vals)[i].callsite = x->st.vals[i].callsite;
		(*vals)[i].value = x->st.vals[i].value;
	}
	*nprofiles = x->nprofiles;
	x->src.index = x->idx;
}

static int
fs_select(struct stack_source *src, const struct selection *sel,
    struct store_metric *m, struct store_cs_value **vals, size_t *nvals,
    int64_t *nprofiles, struct error *err)
{
	struct fleet_source *x = (struct fleet_source *)src;
	struct fleet_sql q;
	struct fleet_asked a;

	*vals = NULL;
	*nvals = 0;
	if (sel != x->last) {
		x->last = NULL;
		fs_sql(x, sel, &q);
		if (fleet_resolve(x, &q, 1, FLEET_WANT_SUMS, &a, err) == -1 ||
		    fs_read_cached(x, &q, a.sums, err) == -1)
			return -1;
		x->last = sel;
	}
	fs_pairs_out(x, m, vals, nvals, nprofiles);
	return 0;
}

/* The function sums read named: the names of their keys from the
 * reader's, and of ClickHouse those it lacks (which it then keeps).  1
 * when every key has its names, 0 if not (a key whose names are not in
 * yet: the stacks then), -1 with err. */
static int
fs_fsum_named(struct fleet_source *x, const struct fleet_sql *q,
    struct error *err)
{
	uint64_t *miss, *again;
	size_t nm, i, n;
	char *sql;
	int rc = 0;

	if ((nm = fleet_fsum_resolve(&x->fsum, &miss)) == 0)
		return 1;
	for (i = 0; i < nm && rc == 0; i += n) {
		n = nm - i < FS_ASK_BY_NAME ? nm - i : FS_ASK_BY_NAME;
		sql = fleet_sql_fnames(q, miss + i, n);
		rc = ch_select(x->r->chs, sql, fleet_fsum_name_row, &x->fsum,
		    err);
		free(sql);
	}
	free(miss);
	if (rc == -1)
		return -1;
	nm = fleet_fsum_resolve(&x->fsum, &again);
	free(again);
	return nm == 0;
}

/* top's: the function sums of the window's whole hours and days (when
 * every profile there has them: else the stacks of all of it, as
 * select) and the stacks of its partial hours. */
static int
fs_select_fsum(struct stack_source *src, const struct selection *sel,
    struct store_metric *m, struct store_cs_value **vals, size_t *nvals,
    int64_t *nprofiles, const struct store_fsum_view **views,
    size_t *nviews, struct error *err)
{
	struct fleet_source *x = (struct fleet_source *)src;
	struct fleet_sql q;
	struct fleet_asked a;
	struct fleet_fsum *f = &x->fsum;
	int named;

	*vals = NULL;
	*nvals = 0;
	*views = NULL;
	*nviews = 0;
	/* Its pairs are not select's. */
	x->last = NULL;
	fs_sql(x, sel, &q);
	if (fleet_resolve(x, &q, 1, FLEET_WANT_FSUMS, &a, err) == -1)
		return -1;
	if (a.fsums != NULL) {
		fleet_fsum_reset(f);
		if (ch_select_read(a.fsums, fleet_fsum_row, f, err) == -1) {
			a.fsums = NULL;
			goto fail;
		}
		a.fsums = NULL;
		/* Every profile of the whole hours summed, every key
		 * named: else the stacks. */
		named = f->profiles == (f->whole >= 0 ? f->whole :
		    x->nprofiles) ? fs_fsum_named(x, &q, err) : 0;
		if (named == -1)
			goto fail;
		if (named == 1) {
			*views = fleet_fsum_view(f);
			*nviews = 1;
			a.sums = a.ends;
			a.ends = NULL;
		} else {
			/* A profile without sums, or a key without
			 * names: the stacks. */
			fleet_resolve_drop(&a);
			a.sums = fleet_resolve_start(x, fleet_sql_sums(&q));
		}
	}
	if (fs_read_cached(x, &q, a.sums, err) == -1)
		return -1;
	fs_pairs_out(x, m, vals, nvals, nprofiles);
	return 0;
fail:
	fleet_resolve_drop(&a);
	return -1;
}

static int
fs_buckets(struct stack_source *src, const struct selection *sel,
    int stacks, int64_t *step_s, struct store_metric *m,
    struct store_bucket_value **v, size_t *n, struct error *err)
{
	struct fleet_source *x = (struct fleet_source *)src;
	struct fleet_sql q;
	struct fleet_asked a;
	int64_t step;

	*v = NULL;
	*n = 0;
	/* The answers held are this one's now. */
	x->last = NULL;
	fs_sql(x, sel, &q);
	if (fleet_resolve(x, &q, 0, FLEET_WANT_NONE, &a, err) == -1)
		return -1;
	fs_metric_of(x->metric, m);
	m->aggregate = x->aggregate;
	x->src.index = x->idx;
	if (AGGREGATE_PER_SERIES(q.aggregate)) {
		/* The steps, as the timeline makes them of the window's
		 * profiles' times (aggregate_buckets). */
		if (fleet_resolve_ints(x, fleet_sql_range(&q), err) == -1)
			goto fail;
		if (x->nints != 3 || x->range[2] == 0)
			return 0;
		step = timeline_step(x->range[0], x->range[1], *step_s);
		q.first_s = x->range[0] / step * step;
		q.step_s = *step_s = step;
	}
	if (fs_read(x, fleet_sql_buckets(&q, stacks), 1, !stacks, err) == -1)
		goto fail;
	/* In time order, as the store's. */
	fleet_stacks_take(&x->st, v, n);
	return 0;
fail:
	store_metric_clear(m);
	return -1;
}

static int
fs_scopes(struct stack_source *src, struct store_scope_info **v, size_t *n,
    char ***hosts, size_t *nhosts, struct error *err)
{
	/* No selection: every scope of the fleet. */
	static const struct selection all;
	struct fleet_source *x = (struct fleet_source *)src;
	struct fleet_sql q;
	struct chs_q *qh;
	int rc;

	fs_sql(x, &all, &q);
	/* Both asked at once. */
	qh = fleet_resolve_start(x, fleet_sql_hosts(&q));
	if ((rc = fleet_resolve_ask(x, fleet_sql_scopes(&q), fs_scopes_row,
	    err)) == 0)
		rc = ch_select_read(qh, fs_hosts_row, x, err);
	else
		ch_select_drop(qh);
	if (rc == -1)
		return -1;
	*v = x->scopes;
	*n = x->nscopes;
	*hosts = x->hostnames;
	*nhosts = x->nhostnames;
	x->scopes = NULL;
	x->hostnames = NULL;
	x->nscopes = x->nhostnames = 0;
	return 0;
}

static void
fs_release(struct stack_source *src)
{
	/* The index stays: a view's answer points into it. */
	(void)src;
}

static void
fs_free(struct stack_source *src)
{
	struct fleet_source *x = (struct fleet_source *)src;
	size_t i;

	fleet_stacks_clear(&x->st);
	fleet_fsum_clear(&x->fsum);
	free(x->sums);
	imap_clear(&x->missing);
	fleet_index_give(x->r->indexes, x->fi);
	fleet_tsv_array_clear(&x->a);
	free(x->metric);
	store_scope_info_free(x->scopes, x->nscopes);
	for (i = 0; i < x->nhostnames; i++)
		free(x->hostnames[i]);
	free(x->hostnames);
	free(x);
}

static const struct stack_source_ops fleet_source_ops = {
	.select = fs_select,
	.buckets = fs_buckets,
	.select_fsum = fs_select_fsum,
	.scopes = fs_scopes,
	.release = fs_release,
	.free = fs_free,
};

struct stack_source *
fleet_source_open(void *reader, char *const *hosts, size_t nhosts)
{
	struct fleet_source *x = xcalloc(1, sizeof *x);

	x->src.ops = &fleet_source_ops;
	x->r = reader;
	x->hosts = hosts;
	x->nhosts = nhosts;
	x->fi = fleet_index_take(x->r->indexes);
	x->idx = x->fi->idx;
	fleet_fsum_init(&x->fsum, x->idx, x->r->fnames);
	fleet_stacks_init(&x->st, x->idx);
	return &x->src;
}
