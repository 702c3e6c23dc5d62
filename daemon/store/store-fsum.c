/* store-fsum.c: top's per-function sums of rollup runs and blocks
 * (store-fsum.h, DESIGN-STORAGE.md "Function sums").  Neither a run nor
 * a block is changed once written (a merge or a delete writes a new
 * run), so their sums, made once from their rows, hold as long as the
 * run is the same: a run's id is never used again (schema 14), so the
 * reading connection keeps a run's sums by its id and a read that meets
 * the id again takes them without reading the run's bytes; a block's
 * (one whose every row the read takes: the partial hours at a window's
 * ends), whose id may be used again, with a copy of its bytes, and only
 * when they are the same.  Sums of parts add up to the window's sums when
 * no value is negative (a callsite's value is zero over the window only
 * when it is zero in each part, and |a + b| = |a| + |b|); a diff
 * profile's windows are read as before. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cancel.h"
#include "csindex.h"
#include "store-fsum.h"
#include "store-sel.h"

/* The sums a connection keeps: past this, those used longest ago go
 * (a month of a program's day runs, both metrics, is a few MiB). */
#define FSUM_CACHE_BYTES	((size_t)64 << 20)
/* Pairs summed after one read at most: a month's runs (~3 million on
 * issue 41's real profiles).  All at once, not a share a read: a read
 * answers the runs it has no sums of the slow way, so spreading the
 * summing over reads (200,000 a read until issue 41) made a week's
 * first 8 tops 0.3-1.2 s each, where summing all makes the first on
 * each query thread ~0.95 s and the next 20 ms (DESIGN-STORAGE.md). */
#define FSUM_PAIRS_PER_READ	((size_t)4 * 1000 * 1000)

/* What is summed: a rollup run (rows counted by their count column) or a
 * block (rows of a value not 0), all of whose rows the read takes. */
enum { FSUM_RUN, FSUM_BLOCK };

struct fsum_run {
	int kind;
	int64_t id, metric, start;
	uint8_t *data;			/* a block's bytes, to know it again */
	size_t len;
	struct store_fsum_fn *fn;
	size_t nfn;
	struct store_fsum_edge *edge;
	size_t nedge;
	int64_t total;
	int neg;			/* a negative value: not summable */
	int any;			/* a row: a block's profile counts */
	uint64_t used;			/* the last call that used it */
};

/* A run decoded by the last select, to be summed (with the index). */
struct fsum_miss {
	int kind;
	int64_t id, metric, start;
	uint8_t *data;
	size_t len;
};

struct store_fsum {
	const struct csindex *idx;	/* whose name ids the sums hold */
	struct fsum_run *run;
	size_t nrun;
	struct hmap at;			/* (id, metric, kind) -> 1 + index */
	size_t bytes;
	uint64_t call;
	int64_t hits;
	int64_t metric;			/* the select's */
	size_t *used;			/* runs the select took */
	size_t nused, capused;
	struct store_fsum_view *views;
	struct fsum_miss *miss;
	size_t nmiss, capmiss;
	/* Kept between calls: a run's pairs, and per name and per stack
	 * what a sum needs. */
	struct kv *kv;
	size_t capkv;
	int64_t *flat, *cum;
	uint64_t *seen;			/* per name: the stack last counted */
	size_t nnames;
	uint32_t *path;
	unsigned *flags;
	size_t cappath;
	struct imap edge_at;		/* caller << 32 | callee -> 1 + edge */
	uint64_t *edge_seen;
	size_t capedge;
	uint32_t *touched;
	size_t ntouched, captouched;
	uint64_t stack;			/* stacks summed, ever */
	uint64_t run_base;		/* ...before this run's */
	/* Every edge summed a number of its own (caller << 32 | callee ->
	 * 1 + gid), for top to add the parts' edges by array. */
	struct imap gid_at;
	uint32_t ngid;
};

static struct store_fsum *
fsum_of(struct store *s)
{
	if (s->fsum == NULL)
		s->fsum = xcalloc(1, sizeof *s->fsum);
	return s->fsum;
}

static size_t
run_bytes(const struct fsum_run *r)
{
	return sizeof *r + r->len + r->nfn * sizeof *r->fn +
	    r->nedge * sizeof *r->edge;
}

static void
run_free(struct fsum_run *r)
{
	free(r->data);
	free(r->fn);
	free(r->edge);
}

static void
misses_clear(struct store_fsum *c)
{
	size_t i;

	for (i = 0; i < c->nmiss; i++)
		free(c->miss[i].data);
	free(c->miss);
	c->miss = NULL;
	c->nmiss = c->capmiss = 0;
}

/* Every run's sums forgotten (another index, or to make room). */
static void
runs_clear(struct store_fsum *c)
{
	size_t i;

	for (i = 0; i < c->nrun; i++)
		run_free(&c->run[i]);
	free(c->run);
	c->run = NULL;
	c->nrun = 0;
	c->bytes = 0;
	hmap_clear(&c->at);
	/* The edges' numbers are of the index's names. */
	imap_clear(&c->gid_at);
	c->ngid = 0;
}

void
store_fsum_free(struct store *s)
{
	struct store_fsum *c = s->fsum;

	if (c == NULL)
		return;
	runs_clear(c);
	misses_clear(c);
	free(c->used);
	free(c->views);
	free(c->kv);
	free(c->flat);
	free(c->cum);
	free(c->seen);
	free(c->path);
	free(c->flags);
	imap_clear(&c->edge_at);
	free(c->edge_seen);
	free(c->touched);
	free(c);
	s->fsum = NULL;
}

int64_t
store_fsum_hits(const struct store *s)
{
	return s->fsum != NULL ? s->fsum->hits : 0;
}

/* The select's look at a run before it is decoded: the sums of the same
 * bytes taken, else the bytes kept to be summed after. */
static int
fsum_offer(struct store_fsum *c, int kind, int64_t id, int64_t start,
    const void *data, size_t len)
{
	int64_t key[3] = { id, c->metric, kind }, at;
	struct fsum_run *r;
	struct fsum_miss *m;

	if ((at = hmap_get(&c->at, key, sizeof key)) != 0) {
		r = &c->run[at - 1];
		/* A run is its id (schema 14); a block, its bytes. */
		if (r->start == start && (kind == FSUM_RUN || (r->len == len &&
		    (len == 0 || memcmp(r->data, data, len) == 0)))) {
			if (c->nused == c->capused) {
				c->capused = c->capused ? c->capused * 2 : 64;
				c->used = xreallocarray(c->used, c->capused,
				    sizeof *c->used);
			}
			c->used[c->nused++] = (size_t)at - 1;
			r->used = c->call;
			return kind == FSUM_RUN || r->any ? 1 : 2;
		}
	}
	if (c->nmiss == c->capmiss) {
		c->capmiss = c->capmiss ? c->capmiss * 2 : 64;
		c->miss = xreallocarray(c->miss, c->capmiss, sizeof *c->miss);
	}
	m = &c->miss[c->nmiss++];
	m->kind = kind;
	m->id = id;
	m->metric = c->metric;
	m->start = start;
	m->len = len;
	m->data = xmalloc(len ? len : 1);
	if (len > 0)
		memcpy(m->data, data, len);
	return 0;
}

/* A run offered by id before its bytes are read: its sums taken, or 0
 * to have it read and offered with its bytes (fsum_offer: kept to be
 * summed). */
static int
offer_known(void *arg, int64_t id, int64_t start)
{
	struct store_fsum *c = arg;
	int64_t key[3] = { id, c->metric, FSUM_RUN }, at;

	if ((at = hmap_get(&c->at, key, sizeof key)) == 0 ||
	    c->run[at - 1].start != start)
		return 0;
	return fsum_offer(c, FSUM_RUN, id, start, NULL, 0);
}

static int
offer_run(void *arg, int64_t id, int64_t start, const void *data,
    size_t len, struct error *err)
{
	(void)err;
	return fsum_offer(arg, FSUM_RUN, id, start, data, len);
}

static int
offer_block(void *arg, int64_t id, int64_t base, const void *data,
    size_t len, struct error *err)
{
	(void)err;
	return fsum_offer(arg, FSUM_BLOCK, id, base, data, len);
}

int
store_select_fsum(struct store *s, const struct csindex *idx,
    const struct store_filter *f, struct store_cs_value **out, size_t *n,
    int64_t *nprofiles, struct error *err)
{
	struct store_fsum *c;
	struct sel_offers o;
	struct sel q;
	size_t i;
	int neg;

	*out = NULL;
	*n = 0;
	*nprofiles = 0;
	/* What the rollups do not answer (store-select.c's sel_init). */
	if (s->raw_only || f->nprofiles > 0 || f->nlabels > 0 || f->raw ||
	    f->metric_id == 0)
		return 1;
	c = fsum_of(s);
	if (c->idx != idx) {
		runs_clear(c);
		c->idx = idx;
	}
	misses_clear(c);
	c->nused = 0;
	c->metric = f->metric_id;
	c->call++;
	o.run = offer_run;
	o.block = offer_block;
	o.known = offer_known;
	o.arg = c;
	if (sel_collect_offers(&q, s, f, SEL_VALUES, &o, err) == -1) {
		misses_clear(c);
		c->nused = 0;
		return -1;
	}
	sel_values_out(&q, out, n, nprofiles);
	neg = 0;
	for (i = 0; i < c->nused; i++)
		neg |= c->run[c->used[i]].neg;
	for (i = 0; i < *n; i++)
		neg |= (*out)[i].value < 0;
	if (neg) {
		free(*out);
		*out = NULL;
		*n = 0;
		c->nused = 0;
		misses_clear(c);
		return 1;
	}
	c->hits += (int64_t)c->nused;
	return 0;
}

/* A run's or block's pairs of the metric: per callsite, the values of
 * the rows that count (a run's of count not 0, a block's of value not 0),
 * as sel_windows and sel_block sum them; whether a row is negative, and
 * whether there is one. */
static int
miss_pairs(struct store_fsum *c, const struct fsum_miss *m, size_t *np,
    struct fsum_run *r, struct error *err)
{
	struct sblock_dec d;
	int cc, vc, rc;
	size_t n = 0;

	*np = 0;
	memset(&d, 0, sizeof d);
	if (sblock_dec_open(&d, m->data, m->len, m->start, m->kind == FSUM_RUN ?
	    "rollup" : "sample block", m->id, err) == -1) {
		sblock_dec_free(&d);
		return -1;
	}
	if (m->kind == FSUM_RUN) {
		cc = sblock_dec_col(&d, store_count_tag((uint64_t)m->metric));
		vc = sblock_dec_col(&d, store_value_tag((uint64_t)m->metric));
	} else
		cc = vc = sblock_dec_col(&d, (uint64_t)m->metric);
	if (cc < 0 || vc < 0) {
		sblock_dec_free(&d);
		return 0;
	}
	sblock_dec_want(&d, cc);
	sblock_dec_want(&d, vc);
	while ((rc = sblock_dec_next(&d, err)) == 1) {
		if (d.v[cc] == 0)
			continue;
		r->any = 1;
		if (d.v[vc] < 0)
			r->neg = 1;
		if (n == c->capkv) {
			c->capkv = c->capkv ? c->capkv * 2 : 4096;
			c->kv = xreallocarray(c->kv, c->capkv, sizeof *c->kv);
		}
		c->kv[n].k = (uint64_t)d.cs;
		c->kv[n++].v = d.v[vc];
	}
	sblock_dec_free(&d);
	if (rc == -1)
		return -1;
	*np = kv_sort_merge(c->kv, n);
	return 0;
}

static void
scratch_names(struct store_fsum *c, size_t nnames)
{
	if (nnames <= c->nnames)
		return;
	c->flat = xreallocarray(c->flat, nnames, sizeof *c->flat);
	c->cum = xreallocarray(c->cum, nnames, sizeof *c->cum);
	c->seen = xreallocarray(c->seen, nnames, sizeof *c->seen);
	memset(c->seen + c->nnames, 0, (nnames - c->nnames) * sizeof *c->seen);
	c->nnames = nnames;
}

/* The name's first count in this run: its sums start at zero. */
static void
touch(struct store_fsum *c, uint32_t name)
{
	if (c->ntouched == c->captouched) {
		c->captouched = c->captouched ? c->captouched * 2 : 1024;
		c->touched = xreallocarray(c->touched, c->captouched,
		    sizeof *c->touched);
	}
	c->touched[c->ntouched++] = name;
	c->flat[name] = 0;
	c->cum[name] = 0;
}

/* The connection's number of an edge (caller << 32 | callee). */
static uint32_t
edge_gid(struct store_fsum *c, uint64_t key)
{
	struct imap_slot *sl = imap_slot(&c->gid_at, key, 1);

	if (sl->value == 0)
		imap_fill(&c->gid_at, sl, key, (int64_t)++c->ngid);
	return (uint32_t)sl->value - 1;
}

/* One stack (a callsite's path, path[0] its root) of value v: flat to
 * its leaf, cum once to each function on it, each edge once, as
 * top.c's top_build_stack does stack by stack. */
static void
sum_stack(struct store_fsum *c, struct fsum_run *r, size_t depth, int64_t v,
    unsigned inlined, size_t *capedge)
{
	uint64_t stack = ++c->stack, key;
	struct store_fsum_edge *e;
	size_t i;
	int64_t at;

	for (i = 0; i < depth; i++) {
		uint32_t me = c->path[i];

		if (c->seen[me] != stack) {
			/* Not met in this run before: its sums start. */
			if (c->seen[me] <= c->run_base)
				touch(c, me);
			c->seen[me] = stack;
			c->cum[me] += v;
		}
		if (i == 0 || c->path[i - 1] == me)
			continue;
		key = (uint64_t)c->path[i - 1] << 32 | me;
		if ((at = imap_get(&c->edge_at, key)) == 0) {
			if (r->nedge == *capedge) {
				*capedge = *capedge ? *capedge * 2 : 256;
				r->edge = xreallocarray(r->edge, *capedge,
				    sizeof *r->edge);
			}
			if (r->nedge == c->capedge) {
				c->capedge = c->capedge ? c->capedge * 2 : 256;
				c->edge_seen = xreallocarray(c->edge_seen,
				    c->capedge, sizeof *c->edge_seen);
			}
			e = &r->edge[r->nedge];
			e->caller = c->path[i - 1];
			e->callee = me;
			e->inl = 1;
			e->weight = 0;
			e->gid = edge_gid(c, key);
			c->edge_seen[r->nedge] = 0;
			at = (int64_t)++r->nedge;
			imap_put(&c->edge_at, key, at);
		}
		if (c->edge_seen[at - 1] == stack)
			continue;
		c->edge_seen[at - 1] = stack;
		e = &r->edge[at - 1];
		e->weight += v;
		if ((c->flags[i] & inlined) == 0)
			e->inl = 0;
	}
	c->flat[c->path[depth - 1]] += v;
}

/* A decoded run's sums made and kept.  0 with nothing kept when the
 * index does not know one of its callsites (not caught up with it). */
static int
miss_sum(struct store_fsum *c, const struct csindex *idx,
    struct fsum_miss *m, unsigned inlined, size_t *pairs, struct error *err)
{
	struct fsum_run r;
	size_t np, i, depth, capedge = 0;
	int64_t cs, v, key[3];

	memset(&r, 0, sizeof r);
	if (miss_pairs(c, m, &np, &r, err) == -1)
		return -1;
	*pairs += np;
	r.kind = m->kind;
	r.id = m->id;
	r.metric = m->metric;
	r.start = m->start;
	scratch_names(c, csindex_nnames(idx));
	c->ntouched = 0;
	c->run_base = c->stack;
	imap_reset(&c->edge_at);
	for (i = 0; i < np; i++) {
		if (cancel_poll(err) == -1) {
			free(r.edge);
			return -1;
		}
		v = c->kv[i].v;
		if (v == 0)
			continue;
		if (v < 0)
			r.neg = 1;
		r.total += v < 0 ? -v : v;
		if (c->kv[i].k == 0)
			continue;
		/* Leaf to root, then turned root first. */
		depth = 0;
		for (cs = (int64_t)c->kv[i].k; cs > 0;
		    cs = csindex_parent(idx, cs)) {
			if (csindex_parent(idx, cs) < 0)
				goto unknown;
			if (depth == c->cappath) {
				c->cappath = c->cappath ? c->cappath * 2 : 64;
				c->path = xreallocarray(c->path, c->cappath,
				    sizeof *c->path);
				c->flags = xreallocarray(c->flags, c->cappath,
				    sizeof *c->flags);
			}
			c->path[depth] = csindex_name(idx, cs);
			c->flags[depth++] = csindex_flags(idx, cs);
		}
		for (size_t a = 0, b = depth; a + 1 < b; a++, b--) {
			uint32_t t = c->path[a];
			unsigned u = c->flags[a];

			c->path[a] = c->path[b - 1];
			c->path[b - 1] = t;
			c->flags[a] = c->flags[b - 1];
			c->flags[b - 1] = u;
		}
		sum_stack(c, &r, depth, v, inlined, &capedge);
	}
	r.fn = xreallocarray(NULL, c->ntouched ? c->ntouched : 1,
	    sizeof *r.fn);
	for (i = 0; i < c->ntouched; i++) {
		r.fn[i].name = c->touched[i];
		r.fn[i].flat = c->flat[c->touched[i]];
		r.fn[i].cum = c->cum[c->touched[i]];
	}
	r.nfn = c->ntouched;
	/* A block is known again by its bytes, a run by its id. */
	if (m->kind == FSUM_BLOCK) {
		r.len = m->len;
		r.data = m->data;
		m->data = NULL;
	}
	r.used = c->call;
	key[0] = r.id;
	key[1] = r.metric;
	key[2] = r.kind;
	if ((i = (size_t)hmap_get(&c->at, key, sizeof key)) != 0) {
		c->bytes -= run_bytes(&c->run[i - 1]);
		run_free(&c->run[i - 1]);
		c->run[i - 1] = r;
	} else {
		c->run = xreallocarray(c->run, c->nrun + 1, sizeof *c->run);
		c->run[c->nrun++] = r;
		hmap_put(&c->at, key, sizeof key, (int64_t)c->nrun);
	}
	c->bytes += run_bytes(&r);
	return 0;
unknown:
	free(r.edge);
	return 0;
}

/* Runs used longest ago forgotten until the sums fit (none of this
 * call's: their views are being handed out). */
static void
fsum_trim(struct store_fsum *c)
{
	size_t i, keep = 0;
	int64_t key[3];
	uint64_t cut;

	if (c->bytes <= FSUM_CACHE_BYTES)
		return;
	/* The median age of the runs kept: half of them go at most. */
	cut = c->call;
	for (i = 0; i < c->nrun; i++)
		if (c->run[i].used < cut)
			cut = c->run[i].used;
	cut += (c->call - cut) / 2;
	if (cut >= c->call)
		cut = c->call - 1;
	hmap_clear(&c->at);
	c->bytes = 0;
	for (i = 0; i < c->nrun; i++) {
		if (c->run[i].used <= cut) {
			run_free(&c->run[i]);
			continue;
		}
		c->run[keep] = c->run[i];
		key[0] = c->run[keep].id;
		key[1] = c->run[keep].metric;
		key[2] = c->run[keep].kind;
		hmap_put(&c->at, key, sizeof key, (int64_t)keep + 1);
		c->bytes += run_bytes(&c->run[keep++]);
	}
	c->nrun = keep;
}

int
store_fsum_views(struct store *s, const struct csindex *idx,
    unsigned inlined, const struct store_fsum_view **views, size_t *n,
    struct error *err)
{
	struct store_fsum *c = fsum_of(s);
	const struct fsum_run *r;
	size_t i, pairs = 0;

	*views = NULL;
	*n = 0;
	/* The runs' sums for the calls after this one. */
	for (i = 0; i < c->nmiss && pairs < FSUM_PAIRS_PER_READ; i++)
		if (miss_sum(c, idx, &c->miss[i], inlined, &pairs, err) == -1) {
			misses_clear(c);
			return -1;
		}
	misses_clear(c);
	c->views = xreallocarray(c->views, c->nused ? c->nused : 1,
	    sizeof *c->views);
	for (i = 0; i < c->nused; i++) {
		r = &c->run[c->used[i]];
		c->views[i].fn = r->fn;
		c->views[i].nfn = r->nfn;
		c->views[i].edge = r->edge;
		c->views[i].nedge = r->nedge;
		c->views[i].total = r->total;
		c->views[i].ngid = c->ngid;
	}
	*views = c->views;
	*n = c->nused;
	/* The views point at the runs' arrays, which a trim moves not. */
	fsum_trim(c);
	c->nused = 0;
	return 0;
}
