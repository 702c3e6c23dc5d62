/* aggregate.c: a window of a gauge, and aggregate=avg|last|max of any
 * metric, from the store (docs/TIME.md).  Per series (scope, push
 * labels) the profiles of the window are combined (averaged, the newest
 * taken, the one of the largest total taken) and the series' results are
 * added up; a timeline does so per step.  The profiles' values are read
 * as given (store_filter.raw), one series at a time, but for a scope whose
 * window is one series counted whole: its average is the window's sums
 * (the rollups' runs and the edges' blocks, as a delta read's; edges
 * with no row before a boundary moved to it, and the sums of runs and
 * whole blocks kept between calls: store-gauge.c, store-gauge-sums.c)
 * over its profiles with a row there (agg_avg_sums).  An average is
 * rounded per stack as the views see it (stack_hash: callsites that
 * differ only in their addresses are one), as the fleet's is in
 * ClickHouse (fleet/fleet-sql.c). */
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "alloc.h"
#include "csindex.h"
#include "hmap.h"
#include "stackhash.h"
#include "store-gauge.h"
#include "timeline.h"

/* Pairs piled up, merged by key at the end: k1 the bucket (0 for a
 * window's pairs), k2 the callsite. */
struct pile {
	struct pv {
		int64_t k1, k2, v;
	} *p;
	size_t n, cap;
};

static void
pile_add(struct pile *p, int64_t k1, int64_t k2, int64_t v)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 1024;
		p->p = xreallocarray(p->p, p->cap, sizeof *p->p);
	}
	p->p[p->n].k1 = k1;
	p->p[p->n].k2 = k2;
	p->p[p->n++].v = v;
}

static int
pv_cmp(const void *a, const void *b)
{
	const struct pv *x = a, *y = b;

	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

/* Sorted, equal keys summed, from index from on. */
static void
pile_merge(struct pile *p, size_t from)
{
	size_t i, o = from;

	if (p->n - from > 1)
		qsort(p->p + from, p->n - from, sizeof *p->p, pv_cmp);
	for (i = from; i < p->n; i++) {
		if (o > from && p->p[o - 1].k1 == p->p[i].k1 &&
		    p->p[o - 1].k2 == p->p[i].k2)
			p->p[o - 1].v += p->p[i].v;
		else
			p->p[o++] = p->p[i];
	}
	p->n = o;
}

/* v / n rounded to the nearest, halves away from zero. */
static int64_t
agg_div(int64_t v, int64_t n)
{
	int64_t q = v / n, r = v % n;

	if (2 * (r < 0 ? -r : r) >= n)
		q += v < 0 ? -1 : 1;
	return q;
}

/* The profiles of one series that its aggregate reads: every one for
 * avg, else the newest (last) or the one of the largest total (max). */
static size_t
agg_pick(enum metric_aggregate a, const struct store_series_profile *p,
    size_t n, int64_t *ids)
{
	size_t i, best = 0;

	if (a == AGG_AVG) {
		for (i = 0; i < n; i++)
			ids[i] = p[i].id;
		return n;
	}
	for (i = 1; i < n; i++)
		if (a == AGG_LAST ? p[i].time_ns >= p[best].time_ns :
		    p[i].total > p[best].total)
			best = i;
	ids[0] = p[best].id;
	return 1;
}

/* The callsites of a query made one per stack (stack_hash): each the
 * first met of its stack. */
struct agg_stacks {
	struct store *s;
	struct csindex *idx;
	struct imap cs;			/* callsite -> the stack's one */
	struct imap hash;		/* stack hash -> its callsite */
};

/* The pile's callsites from index from on made their stacks' (index
 * caught up and held meanwhile: it knows every callsite read before),
 * then merged. */
static int
agg_stacks_map(struct agg_stacks *st, struct pile *p, size_t from,
    struct error *err)
{
	int64_t c, one;
	uint64_t h;
	size_t i;

	if (csindex_acquire(st->idx, st->s, err) == -1)
		return -1;
	for (i = from; i < p->n; i++) {
		if ((c = p->p[i].k2) <= 0)
			continue;
		if ((one = imap_get(&st->cs, (uint64_t)c)) == 0) {
			h = stack_hash(st->idx, c);
			if ((one = imap_get(&st->hash, h)) == 0) {
				one = c;
				imap_put(&st->hash, h, one);
			}
			imap_put(&st->cs, (uint64_t)c, one);
		}
		p->p[i].k2 = one;
	}
	csindex_release(st->idx);
	pile_merge(p, from);
	return 0;
}

static void
agg_stacks_clear(struct agg_stacks *st)
{
	imap_clear(&st->cs);
	imap_clear(&st->hash);
}

/* The end of the series that starts at i. */
static size_t
agg_series_end(const struct store_series_profile *p, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && p[j].scope_id == p[i].scope_id &&
	    p[j].series == p[i].series)
		j++;
	return j;
}

/* The end of the scope whose profiles start at i. */
static size_t
agg_scope_end(const struct store_series_profile *p, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && p[j].scope_id == p[i].scope_id)
		j++;
	return j;
}

/* A scope's profiles of the window (in), and those of them met among the
 * per-bucket totals (seen: a row of the metric in the window); stray, a
 * total of another profile. */
struct agg_seen {
	struct imap in, seen;
	int stray;
};

static void
agg_seen_total(void *arg, int64_t bucket, int64_t profile, int64_t v)
{
	struct agg_seen *a = arg;

	(void)bucket;
	(void)v;
	if (imap_get(&a->in, (uint64_t)profile) == 0)
		a->stray = 1;
	else
		imap_put(&a->seen, (uint64_t)profile, 1);
}

/* A scope's window averaged from its sums, read as a delta read reads
 * them (the rollups' runs for whole hours and days, the blocks of the
 * edges), when they are what its series' blocks would sum and count:
 * its profiles in the window (p, n) are one series and count whole (the
 * metric's values are then the values as given), no other profile has a
 * row in the window (the per-bucket totals), and the sums counted as
 * many profiles as the totals name.  The rollups key their rows by the
 * samples' label sets, not by the push labels a series is, so a scope
 * of several series is read from its blocks.  1 answered (pairs piled,
 * *np its profiles), 0 when the blocks must, -1 on error. */
static int
agg_avg_sums(struct store *s, const struct store_filter *f,
    const struct store_series_profile *p, size_t n, struct pile *pile,
    int64_t *np, struct error *err)
{
	struct store_filter sf = *f;
	struct agg_seen seen = { 0 };
	struct store_cs_value *v = NULL;
	int64_t scope = p[0].scope_id, got;
	size_t i, nv;
	int r;

	if (f->nprofiles > 0 || f->nlabels > 0 ||
	    p[0].series != p[n - 1].series)
		return 0;
	for (i = 0; i < n; i++)
		if (p[i].counted != COUNTED_WHOLE)
			return 0;
	for (i = 0; i < n; i++)
		imap_put(&seen.in, (uint64_t)p[i].id, 1);
	sf.scopes = &scope;
	sf.nscopes = 1;
	sf.raw = 0;
	if ((r = store_select_profile_totals(s, &sf, agg_seen_total, &seen,
	    err)) != 0 || seen.stray) {
		r = r == -1 ? -1 : 0;
		goto out;
	}
	/* Edges with nothing between them and an hour's or a day's
	 * boundary read as that whole window's runs, not blocks. */
	if (store_gauge_widen(s, scope, f->metric_id, &sf.since_s,
	    &sf.until_s, err) == -1) {
		r = -1;
		goto out;
	}
	if ((r = store_gauge_select(s, &sf, &v, &nv, &got, err)) == -1)
		goto out;
	r = 0;
	if (got != (int64_t)seen.seen.n)
		goto out;
	for (i = 0; i < nv; i++)
		pile_add(pile, 0, v[i].callsite, v[i].value);
	*np = got;
	r = 1;
out:
	free(v);
	imap_clear(&seen.in);
	imap_clear(&seen.seen);
	return r;
}

int
aggregate_select(struct store *s, struct csindex *idx,
    const struct store_filter *f, enum metric_aggregate a,
    struct store_cs_value **vals, size_t *nvals, int64_t *nprofiles,
    struct error *err)
{
	struct store_series_profile *p = NULL;
	struct store_cs_value *v;
	struct store_filter gf = *f;
	struct pile pile = { 0 };
	struct agg_stacks st = { .s = s, .idx = idx };
	int64_t *ids = NULL, np;
	size_t n = 0, i, j, k, nv, from;
	int rc = -1, held, r;

	*vals = NULL;
	*nvals = 0;
	*nprofiles = 0;
	/* One commit for the profiles, the totals and the sums. */
	if (store_gauge_hold(s, &held, err) == -1)
		return -1;
	if (store_series_window(s, f, &p, &n, err) == -1)
		goto out;
	ids = xcalloc(n ? n : 1, sizeof *ids);
	gf.raw = 1;
	for (i = 0; i < n; i = j) {
		from = pile.n;
		r = a != AGG_AVG ? 0 : agg_avg_sums(s, f, p + i,
		    agg_scope_end(p, n, i) - i, &pile, &np, err);
		if (r == -1)
			goto out;
		if (r == 1)
			j = agg_scope_end(p, n, i);
		else {
			j = agg_series_end(p, n, i);
			gf.profiles = ids;
			gf.nprofiles = agg_pick(a, p + i, j - i, ids);
			if (store_select_values(s, &gf, &v, &nv, &np,
			    err) == -1)
				goto out;
			for (k = 0; k < nv; k++)
				pile_add(&pile, 0, v[k].callsite, v[k].value);
			free(v);
		}
		/* The series' average: over the profiles it read, per stack. */
		if (a == AGG_AVG && np > 1) {
			if (agg_stacks_map(&st, &pile, from, err) == -1)
				goto out;
			for (k = from; k < pile.n; k++)
				pile.p[k].v = agg_div(pile.p[k].v, np);
		}
		*nprofiles += a == AGG_AVG ? np : (int64_t)(j - i);
	}
	pile_merge(&pile, 0);
	*vals = xcalloc(pile.n ? pile.n : 1, sizeof **vals);
	for (k = 0; k < pile.n; k++) {
		(*vals)[k].callsite = pile.p[k].k2;
		(*vals)[k].value = pile.p[k].v;
	}
	*nvals = pile.n;
	rc = 0;
out:
	if (store_gauge_release(s, held, rc == 0 ? err : NULL) == -1 &&
	    rc == 0) {
		free(*vals);
		*vals = NULL;
		*nvals = 0;
		rc = -1;
	}
	agg_stacks_clear(&st);
	free(pile.p);
	free(ids);
	free(p);
	return rc;
}

/* A timeline's read: the steps, and per series and step the profiles
 * read (ids, with their series' index in sidx) and how many there are
 * (cnt, keyed (step start, series index)). */
struct agg_tl {
	const struct store_series_profile *p;
	size_t n;
	int64_t first, step;
	size_t nsteps;
	int64_t *ids, *sidx;
	size_t nids;
	struct pile cnt;
	struct imap at;			/* profile id -> 1 + its index in ids */
	struct pile out;
	int whole;			/* every profile read counts whole */
};

static int64_t
agg_step_of(const struct agg_tl *t, int64_t sec)
{
	return (sec - t->first) / t->step;
}

static void
agg_tl_plan(struct agg_tl *t, enum metric_aggregate a, int64_t *step_s)
{
	const struct store_series_profile *p = t->p;
	int64_t first, last, sec, at, series = 0;
	size_t i, j, k, e, got;

	first = last = p[0].time_ns / 1000000000;
	for (i = 1; i < t->n; i++) {
		sec = p[i].time_ns / 1000000000;
		first = sec < first ? sec : first;
		last = sec > last ? sec : last;
	}
	/* The steps, as the timeline makes them of the profiles' times. */
	t->step = timeline_step(first, last, *step_s);
	t->first = first / t->step * t->step;
	t->nsteps = (size_t)((last - t->first) / t->step + 1);
	*step_s = t->step;
	t->ids = xcalloc(t->n, sizeof *t->ids);
	t->sidx = xcalloc(t->n, sizeof *t->sidx);
	t->whole = 1;
	for (i = 0; i < t->n; i = j, series++) {
		j = agg_series_end(p, t->n, i);
		for (k = i; k < j; k = e) {
			at = agg_step_of(t, p[k].time_ns / 1000000000);
			for (e = k + 1; e < j &&
			    agg_step_of(t, p[e].time_ns / 1000000000) == at; e++)
				;
			pile_add(&t->cnt, t->first + at * t->step, series,
			    (int64_t)(e - k));
			got = agg_pick(a, p + k, e - k, t->ids + t->nids);
			while (got-- > 0) {
				t->sidx[t->nids] = series;
				imap_put(&t->at, (uint64_t)t->ids[t->nids],
				    (int64_t)t->nids + 1);
				t->nids++;
			}
		}
		for (k = i; k < j; k++)
			t->whole &= p[k].counted == COUNTED_WHOLE;
	}
	pile_merge(&t->cnt, 0);
}

/* A profile's total of a bucket, from the per-bucket totals. */
static void
agg_tl_total(void *arg, int64_t bucket, int64_t profile, int64_t v)
{
	struct agg_tl *t = arg;
	int64_t k = imap_get(&t->at, (uint64_t)profile), at;

	if (k == 0)
		return;
	at = agg_step_of(t, bucket);
	if (at >= 0 && (size_t)at < t->nsteps)
		pile_add(&t->out, t->first + at * t->step, t->sidx[k - 1], v);
}

/* out holds (step start, series index) sums: each divided by the
 * series' count of profiles in the step (avg), then summed per step. */
static void
agg_tl_steps(struct agg_tl *t, enum metric_aggregate a)
{
	size_t i, j = 0;

	pile_merge(&t->out, 0);
	for (i = 0; i < t->out.n; i++) {
		while (j < t->cnt.n && pv_cmp(&t->cnt.p[j], &t->out.p[i]) < 0)
			j++;
		if (a == AGG_AVG && j < t->cnt.n &&
		    pv_cmp(&t->cnt.p[j], &t->out.p[i]) == 0 && t->cnt.p[j].v > 1)
			t->out.p[i].v = agg_div(t->out.p[i].v, t->cnt.p[j].v);
		t->out.p[i].k2 = -1;
	}
	pile_merge(&t->out, 0);
}

/* From the blocks, series by series: per callsite with stacks (an
 * average's per stack, st). */
static int
agg_tl_blocks(struct agg_stacks *st, const struct store_filter *f,
    struct agg_tl *t, enum metric_aggregate a, int stacks, struct error *err)
{
	struct store_bucket_value *v;
	struct store_filter gf = *f;
	size_t i = 0, j, k, nv, from, c = 0;
	int64_t at;

	gf.raw = 1;
	while (i < t->nids) {
		for (j = i; j < t->nids && t->sidx[j] == t->sidx[i]; j++)
			;
		gf.profiles = t->ids + i;
		gf.nprofiles = j - i;
		if (store_select_buckets(st->s, &gf, &v, &nv, err) == -1)
			return -1;
		from = t->out.n;
		for (k = 0; k < nv; k++) {
			at = agg_step_of(t, v[k].bucket);
			if (at >= 0 && (size_t)at < t->nsteps)
				pile_add(&t->out, t->first + at * t->step,
				    stacks ? v[k].callsite : -1,
				    v[k].callsite != 0 ? v[k].value : 0);
		}
		free(v);
		if (a == AGG_AVG && stacks) {
			if (agg_stacks_map(st, &t->out, from, err) == -1)
				return -1;
		} else
			pile_merge(&t->out, from);
		/* The series' count of profiles per step (cnt is sorted by
		 * step, then series). */
		for (k = from; k < t->out.n && a == AGG_AVG; k++) {
			struct pv key = { t->out.p[k].k1, t->sidx[i], 0 };

			while (c > 0 && pv_cmp(&t->cnt.p[c - 1], &key) >= 0)
				c--;
			while (c < t->cnt.n && pv_cmp(&t->cnt.p[c], &key) < 0)
				c++;
			if (c < t->cnt.n && pv_cmp(&t->cnt.p[c], &key) == 0 &&
			    t->cnt.p[c].v > 1)
				t->out.p[k].v = agg_div(t->out.p[k].v,
				    t->cnt.p[c].v);
		}
		i = j;
	}
	pile_merge(&t->out, 0);
	return 0;
}

struct aggregate_steps {
	struct agg_tl t;
	struct store_series_profile *p;	/* t.p's, to free */
	enum metric_aggregate a;
};

int
aggregate_steps_new(struct store *s, const struct store_filter *f,
    enum metric_aggregate a, int64_t *step_s, struct aggregate_steps **out,
    struct error *err)
{
	struct aggregate_steps *x = xcalloc(1, sizeof *x);

	*out = NULL;
	x->a = a;
	if (store_series_window(s, f, &x->p, &x->t.n, err) == -1) {
		free(x);
		return -1;
	}
	x->t.p = x->p;
	if (x->t.n > 0)
		agg_tl_plan(&x->t, a, step_s);
	*out = x;
	return 0;
}

int
aggregate_steps_row(const struct aggregate_steps *x, int64_t profile,
    int64_t bucket, int64_t *series, int64_t *step)
{
	const struct agg_tl *t = &x->t;
	int64_t k, at;

	if (t->n == 0 || (k = imap_get(&t->at, (uint64_t)profile)) == 0)
		return 0;
	/* As agg_tl_blocks places a row. */
	at = agg_step_of(t, bucket);
	if (at < 0 || (size_t)at >= t->nsteps)
		return 0;
	*series = t->sidx[k - 1];
	*step = t->first + at * t->step;
	return 1;
}

int64_t
aggregate_steps_value(const struct aggregate_steps *x, int64_t step,
    int64_t series, int64_t sum)
{
	const struct pv key = { step, series, 0 }, *c;

	if (x->a != AGG_AVG || x->t.cnt.n == 0)
		return sum;
	c = bsearch(&key, x->t.cnt.p, x->t.cnt.n, sizeof *c, pv_cmp);
	return c != NULL && c->v > 1 ? agg_div(sum, c->v) : sum;
}

void
aggregate_steps_free(struct aggregate_steps *x)
{
	if (x == NULL)
		return;
	free(x->t.cnt.p);
	free(x->t.ids);
	free(x->t.sidx);
	imap_clear(&x->t.at);
	free(x->p);
	free(x);
}

/* A timeline's steps: each series' profiles of a step combined, as a
 * window's (avg, last, max), at the step's start.  Without stacks, from
 * the per-bucket totals of each profile when every profile counts whole
 * (their values are then the totals'), else from the blocks. */
int
aggregate_buckets(struct store *s, struct csindex *idx,
    const struct store_filter *f, enum metric_aggregate a, int stacks,
    int64_t *step_s, struct store_bucket_value **vals, size_t *nvals,
    struct error *err)
{
	struct store_series_profile *p = NULL;
	struct agg_stacks st = { .s = s, .idx = idx };
	struct agg_tl t;
	size_t k;
	int rc = -1, r = 1;

	*vals = NULL;
	*nvals = 0;
	memset(&t, 0, sizeof t);
	if (store_series_window(s, f, &p, &t.n, err) == -1)
		return -1;
	if (t.n == 0) {
		free(p);
		return 0;
	}
	t.p = p;
	agg_tl_plan(&t, a, step_s);
	if (!stacks && t.whole && (r = store_select_profile_totals(s, f,
	    agg_tl_total, &t, err)) == -1)
		goto out;
	if (r == 0)
		agg_tl_steps(&t, a);
	else if (agg_tl_blocks(&st, f, &t, a, stacks, err) == -1)
		goto out;
	*vals = xcalloc(t.out.n ? t.out.n : 1, sizeof **vals);
	for (k = 0; k < t.out.n; k++) {
		(*vals)[k].bucket = t.out.p[k].k1;
		(*vals)[k].callsite = t.out.p[k].k2;
		(*vals)[k].value = t.out.p[k].v;
	}
	*nvals = t.out.n;
	rc = 0;
out:
	agg_stacks_clear(&st);
	free(t.out.p);
	free(t.cnt.p);
	free(t.ids);
	free(t.sidx);
	imap_clear(&t.at);
	free(p);
	return rc;
}
