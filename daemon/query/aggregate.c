/* aggregate.c: a window of a gauge, and aggregate=avg|last|max of any
 * metric, from the store (docs/TIME.md).  Per series (scope, push
 * labels) the profiles of the window are combined (averaged, the newest
 * taken, the one of the largest total taken) and the series' results are
 * added up; a timeline does so per step.  The profiles' values are read
 * as given (store_filter.raw), one series at a time.  An average is
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
 * caught up and held meanwhile: it knows every callsite read before). */
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
	int rc = -1;

	*vals = NULL;
	*nvals = 0;
	*nprofiles = 0;
	if (store_series_window(s, f, &p, &n, err) == -1)
		return -1;
	ids = xcalloc(n ? n : 1, sizeof *ids);
	gf.raw = 1;
	for (i = 0; i < n; i = j) {
		j = agg_series_end(p, n, i);
		gf.profiles = ids;
		gf.nprofiles = agg_pick(a, p + i, j - i, ids);
		if (store_select_values(s, &gf, &v, &nv, &np, err) == -1)
			goto out;
		from = pile.n;
		for (k = 0; k < nv; k++)
			pile_add(&pile, 0, v[k].callsite, v[k].value);
		free(v);
		/* The series' average: over the profiles it read. */
		if (a == AGG_AVG && np > 1 && agg_stacks_map(&st, &pile, from,
		    err) == -1)
			goto out;
		if (a == AGG_AVG && np > 1)
			for (k = from; k < pile.n; k++)
				pile.p[k].v = agg_div(pile.p[k].v, np);
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
	imap_clear(&st.cs);
	imap_clear(&st.hash);
	free(pile.p);
	free(ids);
	free(p);
	return rc;
}

/* A timeline's steps: each series' profiles of a step combined, as a
 * window's (avg, last, max), at the step's start. */
int
aggregate_buckets(struct store *s, struct csindex *idx,
    const struct store_filter *f, enum metric_aggregate a, int stacks,
    int64_t *step_s, struct store_bucket_value **vals, size_t *nvals,
    struct error *err)
{
	struct store_series_profile *p = NULL;
	struct store_bucket_value *v;
	struct store_filter gf = *f;
	struct pile pile = { 0 };
	struct agg_stacks st = { .s = s, .idx = idx };
	int64_t *ids = NULL, *cnt = NULL, first, last, step, at, sec;
	size_t n = 0, i, j, k, e, nv, nid, from, nsteps;
	int rc = -1;

	*vals = NULL;
	*nvals = 0;
	if (store_series_window(s, f, &p, &n, err) == -1)
		return -1;
	if (n == 0) {
		rc = 0;
		goto out;
	}
	/* The steps, as the timeline makes them of the profiles' times. */
	first = last = p[0].time_ns / 1000000000;
	for (i = 1; i < n; i++) {
		sec = p[i].time_ns / 1000000000;
		first = sec < first ? sec : first;
		last = sec > last ? sec : last;
	}
	step = timeline_step(first, last, *step_s);
	first = first / step * step;
	nsteps = (size_t)((last - first) / step + 1);
	*step_s = step;
	ids = xcalloc(n, sizeof *ids);
	cnt = xcalloc(nsteps, sizeof *cnt);
	gf.raw = 1;
	gf.profiles = ids;
	for (i = 0; i < n; i = j) {
		j = agg_series_end(p, n, i);
		/* The profiles each step reads, and how many there are. */
		memset(cnt, 0, nsteps * sizeof *cnt);
		nid = 0;
		for (k = i; k < j; k = e) {
			at = (p[k].time_ns / 1000000000 - first) / step;
			for (e = k + 1; e < j &&
			    (p[e].time_ns / 1000000000 - first) / step == at; e++)
				;
			cnt[at] = (int64_t)(e - k);
			nid += agg_pick(a, p + k, e - k, ids + nid);
		}
		gf.nprofiles = nid;
		if (store_select_buckets(s, &gf, &v, &nv, err) == -1)
			goto out;
		from = pile.n;
		for (k = 0; k < nv; k++) {
			at = (v[k].bucket - first) / step;
			if (at < 0 || (size_t)at >= nsteps)
				continue;
			pile_add(&pile, first + at * step, stacks ?
			    v[k].callsite : -1, v[k].callsite != 0 ?
			    v[k].value : 0);
		}
		free(v);
		if (a == AGG_AVG && stacks) {
			if (agg_stacks_map(&st, &pile, from, err) == -1)
				goto out;
		} else
			pile_merge(&pile, from);
		if (a == AGG_AVG)
			for (k = from; k < pile.n; k++) {
				at = (pile.p[k].k1 - first) / step;
				if (cnt[at] > 1)
					pile.p[k].v = agg_div(pile.p[k].v,
					    cnt[at]);
			}
	}
	pile_merge(&pile, 0);
	*vals = xcalloc(pile.n ? pile.n : 1, sizeof **vals);
	for (k = 0; k < pile.n; k++) {
		(*vals)[k].bucket = pile.p[k].k1;
		(*vals)[k].callsite = pile.p[k].k2;
		(*vals)[k].value = pile.p[k].v;
	}
	*nvals = pile.n;
	rc = 0;
out:
	imap_clear(&st.cs);
	imap_clear(&st.hash);
	free(pile.p);
	free(ids);
	free(cnt);
	free(p);
	return rc;
}
