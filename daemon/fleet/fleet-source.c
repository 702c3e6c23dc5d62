/* fleet-source.c: a selection asked of ClickHouse in a few questions:
 * the default metric when none is named, then together (fs_resolve: each
 * question a round trip, so those that need no other's answer go at
 * once) the metrics the selection matches with its profile count, the
 * metric's kind when no aggregate is named (its default, kind_aggregate,
 * as the store's source resolves it) and the window's sums per stack for
 * the aggregate the metric resolved last (asked again if it resolves
 * otherwise now); then the profile count of an aggregate other than
 * delta, a timeline's range when it combines per series (its steps made
 * here, as aggregate.c makes them), or the sums per time bucket.  A window's stacks come as sums per stack hash,
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
#include "fleet-index.h"
#include "fleet-source.h"
#include "fleet-stacks.h"
#include "fleet-sql.h"
#include "fleet-tsv.h"
#include "selection.h"
#include "source.h"
#include "timeline.h"

struct fleet_reader {
	struct ch_select *chs;
	char *database;
	int cluster;
	/* The schema version seen recorded, until it is FS_VERSION (a
	 * version is never taken back).  Shared by the query threads. */
	atomic_int version;
	/* The aggregate a view of guess_metric resolved last: fs_resolve
	 * asks the sums for it beside the metric's questions. */
	pthread_mutex_t mu;
	char *guess_metric;
	enum metric_aggregate guess;
	struct fleet_cache *cache;	/* stacks' frames by hash */
	struct fleet_index_pool *indexes;	/* built of them */
};

/* A stack's sum, by its hash (fleet_sql_sums). */
struct fs_sum {
	uint64_t hash;
	int64_t value;
};

/* The newest schema version the reads use: 5, samples_hourly; 6,
 * samples_profiles; 7, samples_daily. */
#define FS_VERSION	7

/* Up to this many hashes are asked by name (about 21 bytes each, well
 * under ClickHouse's 256 KiB max_query_size); more, by the selection. */
#define FS_ASK_BY_NAME	2000

struct fleet_source {
	struct stack_source src;
	struct fleet_reader *r;
	char *const *hosts;
	size_t nhosts;
	struct fleet_index *fi;		/* the pool's, while open */
	struct csindex *idx;		/* fi's */
	struct fleet_stacks st;		/* a reply's stacks into idx */
	struct fleet_tsv_array a;	/* scopes' metrics */
	char *metric;			/* TYPE/UNIT */
	int nmetrics;
	int64_t nprofiles;
	enum metric_aggregate aggregate;	/* as resolved */
	int64_t range[3];		/* a reply's numbers (fs_ask_ints) */
	int nints;			/* how many */
	struct store_scope_info *scopes;
	size_t nscopes;
	char **hostnames;
	size_t nhostnames;
	/* The selection whose answer metric, nprofiles and st hold, for a
	 * view asking it again; NULL: none. */
	const struct selection *last;
	struct fs_sum *sums;		/* a reply's, then the missing ones */
	size_t nsums, capsums;
	struct imap missing;		/* hash -> 1 + its index in sums */
};

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
	pthread_mutex_init(&r->mu, NULL);
	return r;
}

void
fleet_reader_free(struct fleet_reader *r)
{
	if (r == NULL)
		return;
	free(r->database);
	fleet_cache_free(r->cache);
	fleet_index_pool_free(r->indexes);
	pthread_mutex_destroy(&r->mu);
	free(r->guess_metric);
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

static int
fs_default_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_source *x = arg;
	size_t len;

	(void)err;
	if (n >= 1 && x->metric == NULL)
		x->metric = xstrdup(fleet_tsv_str(&v[0], &len));
	return 0;
}

static int
fs_metrics_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_source *x = arg;
	size_t len;

	if (n != 2)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 2 (metric, profiles)", n);
	if (x->nmetrics++ == 0) {
		/* A name asked whole stays the string a query built
		 * before this reply points at. */
		if (x->metric == NULL ||
		    strcmp(x->metric, fleet_tsv_str(&v[0], &len)) != 0) {
			free(x->metric);
			x->metric = xstrdup(fleet_tsv_str(&v[0], &len));
		}
		return fleet_tsv_int(&v[1], &x->nprofiles, err);
	}
	return 0;
}

/* A reply of up to 3 numbers on one line into x->range: a kind, a
 * count, or a range's first, last and count. */
static int
fs_ints_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_source *x = arg;
	size_t i;

	if (n == 0 || n > 3 || x->nints > 0)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not one line of up to 3 numbers", n);
	for (i = 0; i < n; i++)
		if (fleet_tsv_int(&v[i], &x->range[i], err) == -1)
			return -1;
	x->nints = (int)n;
	return 0;
}

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
fs_ask(struct fleet_source *x, char *sql,
    int (*row)(void *, struct fleet_tsv_field *, size_t, struct error *),
    struct error *err)
{
	int rc = ch_select(x->r->chs, sql, row, x, err);

	free(sql);
	return rc;
}

/* sql asked, its answer read later (ch_select_read or _drop). */
static struct chs_q *
fs_start(struct fleet_source *x, char *sql)
{
	struct chs_q *q = ch_select_start(x->r->chs, sql);

	free(sql);
	return q;
}

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

/* The selection's metric as named, or the default (the newest profile
 * of the first scope's), into x->metric; fs_metric_check then counts
 * its profiles and checks it, as query_resolve does in a store. */
static int
fs_metric_name(struct fleet_source *x, const struct fleet_sql *q,
    struct error *err)
{
	const struct selection *sel = q->sel;

	free(x->metric);
	x->metric = NULL;
	x->nmetrics = 0;
	x->nprofiles = 0;
	if (sel->metric != NULL)
		x->metric = xstrdup(sel->metric);
	else if (fs_ask(x, fleet_sql_default_metric(q), fs_default_row,
	    err) == -1)
		return -1;
	else if (x->metric == NULL)
		return error_set(err, ERR_NOT_FOUND, "scope \"%s\" has no "
		    "profiles in the fleet", sel->scopes[0]);
	return 0;
}

/* The reply of the metrics query (started by the caller, or asked here
 * when qm is NULL): x->metric made TYPE/UNIT, the profile count. */
static int
fs_metric_check(struct fleet_source *x, const struct fleet_sql *q,
    struct chs_q *qm, struct error *err)
{
	if (qm == NULL)
		qm = fs_start(x, fleet_sql_metrics(q, x->metric));
	if (ch_select_read(qm, fs_metrics_row, x, err) == -1)
		return -1;
	if (x->nmetrics == 0)
		return error_set(err, ERR_INPUT, "metric: no selected scope "
		    "has metric \"%s\" in the fleet", x->metric);
	if (x->nmetrics > 1)
		return error_set(err, ERR_INPUT, "metric: \"%s\" has several "
		    "units in the selected scopes: name one as %s/UNIT",
		    x->metric, x->metric);
	return 0;
}

/* The numbers of one line of ClickHouse's reply to sql in x->range
 * (x->nints of them: 0 for no line). */
static int
fs_ask_ints(struct fleet_source *x, char *sql, struct error *err)
{
	x->nints = 0;
	memset(x->range, 0, sizeof x->range);
	return fs_ask(x, sql, fs_ints_row, err);
}

/* Does the database have samples_hourly (schema version 5 recorded:
 * its rows made whole by the step's backfill), samples_profiles
 * (version 6, the same) and samples_daily (7)?  Asked until it has
 * them all. */
static int
fs_version(struct fleet_source *x, struct fleet_sql *q, struct error *err)
{
	char *sql;
	int v = atomic_load(&x->r->version);

	if (v < FS_VERSION) {
		xasprintf(&sql, "SELECT max(version) FROM %s.schema_version "
		    "FORMAT TabSeparated", x->r->database);
		if (fs_ask_ints(x, sql, err) == -1)
			return -1;
		if (x->nints == 1 && x->range[0] > v) {
			v = x->range[0] > FS_VERSION ? FS_VERSION :
			    (int)x->range[0];
			atomic_store(&x->r->version, v);
		}
	}
	q->hourly = v >= 5;
	q->profile_rows = v >= 6;
	q->daily = v >= 7;
	return 0;
}

/* How the window combines its profiles (q->aggregate, x->aggregate): as
 * asked, else by the metric's kind in the newest profile of the first
 * scope, as the store's source resolves it (query_resolve), of the reply
 * to qk (the kind's query, started by the caller: NULL when one was
 * named); with count, how many profiles that combines, where it is not
 * what fs_metric_check counted (delta). */
static int
fs_aggregate(struct fleet_source *x, struct fleet_sql *q, struct chs_q *qk,
    int count, struct error *err)
{
	q->metric = x->metric;
	q->aggregate = q->sel->aggregate;
	if (q->aggregate == AGG_DEFAULT) {
		x->nints = 0;
		memset(x->range, 0, sizeof x->range);
		if (ch_select_read(qk, fs_ints_row, x, err) == -1)
			return -1;
		if (x->nints == 1 && (x->range[0] < 0 ||
		    x->range[0] >= KIND_COUNT))
			return error_set(err, ERR_INTERNAL, "ClickHouse's "
			    "reply: kind %lld", (long long)x->range[0]);
		/* Profiles shipped before their kinds: as the store read
		 * them before it had kinds. */
		q->aggregate = kind_aggregate(x->nints == 1 ?
		    (enum metric_kind)x->range[0] : KIND_DELTA, 0);
	}
	x->aggregate = q->aggregate;
	if (!count || q->aggregate == AGG_DELTA)
		return 0;
	if (fs_ask_ints(x, fleet_sql_count(q), err) == -1)
		return -1;
	x->nprofiles = x->range[0];
	return 0;
}

/* The aggregate the metric's last view resolved (delta before any). */
static enum metric_aggregate
fs_guess(struct fleet_reader *r, const char *metric)
{
	enum metric_aggregate a = AGG_DELTA;

	pthread_mutex_lock(&r->mu);
	if (r->guess_metric != NULL && strcmp(r->guess_metric, metric) == 0)
		a = r->guess;
	pthread_mutex_unlock(&r->mu);
	return a;
}

static void
fs_guess_set(struct fleet_reader *r, const char *metric,
    enum metric_aggregate a)
{
	pthread_mutex_lock(&r->mu);
	if (r->guess_metric == NULL || strcmp(r->guess_metric, metric) != 0) {
		free(r->guess_metric);
		r->guess_metric = xstrdup(metric);
	}
	r->guess = a;
	pthread_mutex_unlock(&r->mu);
}

/* What a selection's values need asked first: its metric, checked and
 * counted, and how it combines (fs_metric_name, fs_metric_check,
 * fs_aggregate).  The questions that do not wait for each other's
 * answers are asked together, each a round trip to ClickHouse: with
 * sums, the window's sums per stack too (*qs, for fs_read_cached), for
 * the aggregate the metric's last view resolved; *qs is NULL when that
 * guess was wrong, to be asked again. */
static int
fs_resolve(struct fleet_source *x, struct fleet_sql *q, int count,
    int sums, struct chs_q **qs, struct error *err)
{
	struct chs_q *qm = NULL, *qk = NULL;
	enum metric_aggregate guess;
	int rc;

	*qs = NULL;
	if (fs_version(x, q, err) == -1 || fs_metric_name(x, q, err) == -1)
		return -1;
	/* A type alone is made TYPE/UNIT by the metrics' reply first. */
	if (strchr(x->metric, '/') == NULL) {
		if (fs_metric_check(x, q, NULL, err) == -1)
			return -1;
	} else
		qm = fs_start(x, fleet_sql_metrics(q, x->metric));
	q->metric = x->metric;
	guess = q->sel->aggregate;
	if (guess == AGG_DEFAULT) {
		guess = fs_guess(x->r, x->metric);
		qk = fs_start(x, fleet_sql_kind(q));
	}
	if (sums) {
		q->aggregate = guess;
		*qs = fs_start(x, fleet_sql_sums(q));
	}
	rc = qm != NULL ? fs_metric_check(x, q, qm, err) : 0;
	if (rc == 0)
		rc = fs_aggregate(x, q, qk, count, err);
	else
		ch_select_drop(qk);
	if (rc == 0 && q->sel->aggregate == AGG_DEFAULT)
		fs_guess_set(x->r, x->metric, q->aggregate);
	if (rc == -1 || q->aggregate != guess) {
		ch_select_drop(*qs);
		*qs = NULL;
	}
	return rc;
}

/* The pairs of the reply to sql into x->st.vals. */
static int
fs_read(struct fleet_source *x, char *sql, int by_bucket, int sums,
    struct error *err)
{
	fleet_stacks_reset(&x->st, by_bucket, sums);
	return fs_ask_stacks(x, sql, err);
}

/* A field of decimal digits as a 64-bit number: 0 when it is one (as
 * ClickHouse writes UInt64, no sign, no escape), -1 if not.  By hand:
 * a fleet top reads tens of thousands of these, and strtoull on a copy
 * was a tenth of profd's time over a warm call's sums. */
static int
fs_u64(const struct fleet_tsv_field *f, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (f->n == 0 || f->n > 20)
		return -1;
	for (i = 0; i < f->n; i++) {
		if (f->p[i] < '0' || f->p[i] > '9' ||
		    x > (UINT64_MAX - (uint64_t)(f->p[i] - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(f->p[i] - '0');
	}
	*v = x;
	return 0;
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
	if (fs_u64(&v[0], &s->hash) == -1)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "stack hash \"%.*s\" is not a number",
		    (int)(v[0].n > 30 ? 30 : v[0].n), v[0].p);
	/* A sum: negative only where values are (a diff's). */
	if (v[1].n > 0 && v[1].p[0] != '-' && fs_u64(&v[1], &u) == 0 &&
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
	fleet_cache_add(x->r->cache, f);
	return 0;
}

/* The stacks of the selection into x->st: their sums from ClickHouse
 * (the reply to qs, when fs_resolve asked them),
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
	if (qs == NULL)
		qs = fs_start(x, fleet_sql_sums(q));
	if (ch_select_read(qs, fs_sums_row, x, err) == -1)
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
	rc = fs_ask(x, fleet_sql_frames(q, h, nm <= FS_ASK_BY_NAME ? nm : 0),
	    fs_frames_row, err);
	free(h);
	return rc;
}

static int
fs_select(struct stack_source *src, const struct selection *sel,
    struct store_metric *m, struct store_cs_value **vals, size_t *nvals,
    int64_t *nprofiles, struct error *err)
{
	struct fleet_source *x = (struct fleet_source *)src;
	struct fleet_sql q;
	struct chs_q *qs;
	size_t i;

	*vals = NULL;
	*nvals = 0;
	if (sel != x->last) {
		x->last = NULL;
		fs_sql(x, sel, &q);
		if (fs_resolve(x, &q, 1, 1, &qs, err) == -1 ||
		    fs_read_cached(x, &q, qs, err) == -1)
			return -1;
		x->last = sel;
	}
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
	return 0;
}

static int
fs_buckets(struct stack_source *src, const struct selection *sel,
    int stacks, int64_t *step_s, struct store_metric *m,
    struct store_bucket_value **v, size_t *n, struct error *err)
{
	struct fleet_source *x = (struct fleet_source *)src;
	struct fleet_sql q;
	struct chs_q *qs;
	int64_t step;

	*v = NULL;
	*n = 0;
	/* The answers held are this one's now. */
	x->last = NULL;
	fs_sql(x, sel, &q);
	if (fs_resolve(x, &q, 0, 0, &qs, err) == -1)
		return -1;
	fs_metric_of(x->metric, m);
	m->aggregate = x->aggregate;
	x->src.index = x->idx;
	if (AGGREGATE_PER_SERIES(q.aggregate)) {
		/* The steps, as the timeline makes them of the window's
		 * profiles' times (aggregate_buckets). */
		if (fs_ask_ints(x, fleet_sql_range(&q), err) == -1)
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
	qh = fs_start(x, fleet_sql_hosts(&q));
	if ((rc = fs_ask(x, fleet_sql_scopes(&q), fs_scopes_row, err)) == 0)
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
	fleet_stacks_init(&x->st, x->idx);
	return &x->src;
}
