/* fleet-fsum.c: top's per-function sums in ClickHouse (schema 8).  The
 * shipper's side: one profile's sums of a metric, computed by top itself
 * (top_graph over the profile's pairs, so they are what a top of that
 * profile alone counts: flat, cum once per stack, each edge once per
 * stack and whether it was inlined on all of them), as function_rows'
 * TabSeparated rows.  The reader's side: the rows fleet_sql_fsums sums
 * over a window, as one store_fsum_view that top adds to what it walks
 * of the rest (the window's partial hours), as it does the store's. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "csindex.h"
#include "fleet-cache.h"
#include "fleet-fsum.h"
#include "fleet-tsv.h"
#include "hmap.h"
#include "selection.h"
#include "sha256.h"
#include "source.h"
#include "top.h"

/* ---- the shipper's side ---- */

/* One profile's pairs as a stack source for top_graph. */
struct pairs_source {
	struct stack_source src;
	const struct store_cs_value *v;
	size_t n;
};

static int
pairs_select(struct stack_source *src, const struct selection *sel,
    struct store_metric *m, struct store_cs_value **vals, size_t *nvals,
    int64_t *nprofiles, struct error *err)
{
	struct pairs_source *x = (struct pairs_source *)src;

	(void)sel;
	(void)err;
	memset(m, 0, sizeof *m);
	*vals = xreallocarray(NULL, x->n ? x->n : 1, sizeof **vals);
	if (x->n > 0)
		memcpy(*vals, x->v, x->n * sizeof **vals);
	*nvals = x->n;
	*nprofiles = 1;
	return 0;
}

static void
pairs_release(struct stack_source *src)
{
	(void)src;
}

static const struct stack_source_ops pairs_ops = {
	.select = pairs_select,
	.release = pairs_release,
	.free = pairs_release,
};

/* A function's or an edge's key (SHA-256 of kind, caller and name, the
 * first 8 bytes, as stacks are keyed), its function_names row written
 * the first time the batch meets it. */
static uint64_t
fsum_key(struct fleet_fsum_keys *k, int kind, const char *caller,
    const char *name)
{
	struct sha256 h;
	uint8_t d[32];
	uint64_t key = 0;
	int64_t at;
	int i;

	k->scratch.n = 0;
	buf_printf(&k->scratch, "%d%s", kind, caller);
	buf_add(&k->scratch, "", 1);
	buf_add(&k->scratch, name, strlen(name) + 1);
	if ((at = hmap_get(&k->seen, k->scratch.p, k->scratch.n)) != 0)
		return k->keys[at - 1];
	sha256_init(&h);
	sha256_update(&h, k->scratch.p, k->scratch.n);
	sha256_final(&h, d);
	for (i = 0; i < 8; i++)
		key = key << 8 | d[i];
	k->keys = xappendarray(k->keys, k->nkeys, sizeof *k->keys);
	k->keys[k->nkeys++] = key;
	hmap_put(&k->seen, k->scratch.p, k->scratch.n, (int64_t)k->nkeys);
	buf_printf(&k->rows, "%" PRIu64 "\t", key);
	fleet_tsv_puts(&k->rows, caller);
	buf_add(&k->rows, "\t", 1);
	fleet_tsv_puts(&k->rows, name);
	buf_add(&k->rows, "\n", 1);
	return key;
}

void
fleet_fsum_keys_clear(struct fleet_fsum_keys *k)
{
	hmap_clear(&k->seen);
	free(k->keys);
	buf_free(&k->rows);
	buf_free(&k->scratch);
	memset(k, 0, sizeof *k);
}

int
fleet_fsum_rows(struct buf *out, struct fleet_fsum_keys *k,
    const struct csindex *idx, const char *head,
    const struct store_cs_value *v, size_t n, size_t *rows,
    struct error *err)
{
	static const struct selection all;
	struct pairs_source ps;
	struct top_params p;
	struct top_result r;
	const struct top_edge *e;
	size_t i;

	*rows = 0;
	/* Sums of a negative value are not the window's (top's total is
	 * of |value| per stack of the window): none, and the window's
	 * readers read its stacks. */
	for (i = 0; i < n; i++)
		if (v[i].value < 0)
			return 0;
	memset(&ps, 0, sizeof ps);
	ps.src.ops = &pairs_ops;
	ps.src.index = idx;
	ps.v = v;
	ps.n = n;
	memset(&p, 0, sizeof p);
	p.sel = &all;
	p.granularity = GRAN_FUNCTION;
	if (top_graph(&ps.src, &p, &r, err) == -1)
		return -1;
	for (i = 0; i < r.nrows; i++)
		buf_printf(out, "%s0\t%" PRIu64 "\t%" PRId64 "\t%" PRId64 "\n",
		    head, fsum_key(k, 0, "", r.rows[i].function),
		    r.rows[i].flat, r.rows[i].cum);
	for (i = 0; i < r.nedges; i++) {
		e = &r.edges[i];
		buf_printf(out, "%s1\t%" PRIu64 "\t%" PRId64 "\t%d\n", head,
		    fsum_key(k, 1, r.rows[e->caller].function,
		    r.rows[e->callee].function), e->weight, !e->inl);
	}
	buf_printf(out, "%s2\t0\t%" PRId64 "\t0\n", head, r.total);
	*rows = r.nrows + r.nedges + 1;
	top_result_clear(&r);
	return 0;
}

/* ---- the reader's side ---- */

void
fleet_fsum_init(struct fleet_fsum *f, struct csindex *idx,
    struct fleet_cache *names)
{
	memset(f, 0, sizeof *f);
	f->idx = idx;
	f->names = names;
}

/* kind, key, a, b: a function (0) or an edge (1) by its key, the
 * profiles summed (2) or of the whole hours (3). */
int
fleet_fsum_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_fsum *f = arg;
	int64_t kind, a, b;
	uint64_t key;

	if (n != 4)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 4 (kind, key, sums)", n);
	if (fleet_tsv_int(&v[0], &kind, err) == -1 ||
	    fleet_tsv_u64(&v[1], &key, err) == -1 ||
	    fleet_tsv_int(&v[2], &a, err) == -1 ||
	    fleet_tsv_int(&v[3], &b, err) == -1)
		return -1;
	if (kind == 0 || kind == 1) {
		f->raw = xappendarray(f->raw, f->nraw, sizeof *f->raw);
		f->raw[f->nraw].kind = (int)kind;
		f->raw[f->nraw].key = key;
		f->raw[f->nraw].a = a;
		f->raw[f->nraw].b = b;
		f->nraw++;
	} else if (kind == 2) {
		f->profiles = a;
		f->total = b;
	} else if (kind == 3) {
		f->whole = a;
	} else
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "function sums of kind %lld", (long long)kind);
	return 0;
}

/* key, caller, name: a row of function_names, kept. */
int
fleet_fsum_name_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_fsum *f = arg;
	uint64_t key;
	const char *caller, *name;
	size_t nc, nn;
	char *p;

	if (n != 3)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 3 (key, caller, name)", n);
	if (fleet_tsv_u64(&v[0], &key, err) == -1)
		return -1;
	caller = fleet_tsv_str(&v[1], &nc);
	name = fleet_tsv_str(&v[2], &nn);
	/* One allocation: the caller, NUL, the name, NUL. */
	p = xmalloc(nc + nn + 2);
	memcpy(p, caller, nc);
	p[nc] = '\0';
	memcpy(p + nc + 1, name, nn);
	p[nc + 1 + nn] = '\0';
	fleet_cache_add(f->names, key, p, nc + nn + 2);
	return 0;
}

size_t
fleet_fsum_resolve(struct fleet_fsum *f, uint64_t **missing)
{
	struct store_fsum_edge *e;
	const char *caller, *name;
	size_t i, nmiss = 0;

	*missing = NULL;
	f->nfn = f->nedge = 0;
	fleet_cache_lock(f->names);
	for (i = 0; i < f->nraw; i++) {
		if ((caller = fleet_cache_get(f->names,
		    f->raw[i].key)) == NULL) {
			*missing = xappendarray(*missing, nmiss,
			    sizeof **missing);
			(*missing)[nmiss++] = f->raw[i].key;
			continue;
		}
		name = caller + strlen(caller) + 1;
		if (f->raw[i].kind == 0) {
			f->fn = xappendarray(f->fn, f->nfn, sizeof *f->fn);
			f->fn[f->nfn].name = csindex_intern(f->idx, name);
			f->fn[f->nfn].flat = f->raw[i].a;
			f->fn[f->nfn].cum = f->raw[i].b;
			f->nfn++;
			continue;
		}
		f->edge = xappendarray(f->edge, f->nedge, sizeof *f->edge);
		e = &f->edge[f->nedge];
		memset(e, 0, sizeof *e);
		e->caller = csindex_intern(f->idx, caller);
		e->callee = csindex_intern(f->idx, name);
		e->gid = (uint32_t)f->nedge;
		e->inl = f->raw[i].b == 0;
		e->weight = f->raw[i].a;
		f->nedge++;
	}
	fleet_cache_unlock(f->names);
	return nmiss;
}

const struct store_fsum_view *
fleet_fsum_view(struct fleet_fsum *f)
{
	f->view.fn = f->fn;
	f->view.nfn = f->nfn;
	f->view.edge = f->edge;
	f->view.nedge = f->nedge;
	f->view.total = f->total;
	f->view.ngid = f->nedge;
	return &f->view;
}

void
fleet_fsum_reset(struct fleet_fsum *f)
{
	f->nraw = f->nfn = f->nedge = 0;
	f->profiles = f->total = 0;
	f->whole = -1;
}

void
fleet_fsum_clear(struct fleet_fsum *f)
{
	free(f->raw);
	free(f->fn);
	free(f->edge);
	memset(f, 0, sizeof *f);
}
