/* fuzz_fleet_tsv.c: ClickHouse's TabSeparated answers to fleet queries
 * (fleet-tsv.c), read as the HTTP client hands them over, into the
 * fleet's stacks (fleet-stacks.c: callsites of an index, pairs) and top's
 * function sums (fleet-fsum.c: rows of 4 fields as the sums' answer, of
 * 3 as their names', named from a small kept cache, made a view), which
 * the views then walk as they walk any source's (top with its graph on
 * odd steps, the tree on even ones): any bytes.  The first byte sets the
 * size of the pieces the rest is fed in.  Beside not crashing: the rows
 * seen, their fields unescaped and their arrays, are the same whether
 * the answer comes in one piece or in many; a string never grows in
 * unescaping; the view's total is the sum of |value| of the pairs it
 * took; a tree's selves add up to its root.  A row of 7 fields is
 * also read as the frames' answer (hash first) into a cached stack. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csindex.h"
#include "fleet-cache.h"
#include "fleet-fsum.h"
#include "fleet-stacks.h"
#include "fleet-tsv.h"
#include "selection.h"
#include "source.h"
#include "top.h"
#include "tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct fz {
	uint64_t digest;
	size_t rows;
	struct fleet_tsv_array a;
	struct fleet_stacks st;
	struct fleet_fsum fs;
	int64_t total;
};

static void
mix(struct fz *z, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		z->digest = (z->digest ^ b[i]) * 0x100000001b3ULL;
	z->digest = (z->digest ^ n) * 0x100000001b3ULL;
}

static int
fz_row(void *arg, struct fleet_tsv_field *f, size_t n, struct error *err)
{
	struct fz *z = arg;
	struct error e = { 0 };
	struct fleet_frames *fr;
	uint64_t u;
	int64_t v = 0;
	size_t i, k, len, before;
	char *s;

	(void)err;
	z->rows++;
	mix(z, &n, sizeof n);
	/* As the stacks' answer: a value and six arrays, into the stacks. */
	if (n == 7 && fleet_tsv_int(&f[0], &v, &e) == 0 && v > INT64_MIN &&
	    v < INT64_MAX / 4096 && v > -INT64_MAX / 4096) {
		if (fleet_stacks_row(&z->st, f, n, &e) == 0) {
			for (k = 0; k < 6; k++)
				for (i = 0; i < z->st.a[k].n; i++)
					mix(z, z->st.a[k].v[i],
					    strlen(z->st.a[k].v[i]));
		} else if (e.kind == ERR_NONE)
			abort();
	}
	error_clear(&e);
	/* As the frames' answer: a hash and six arrays, made one
	 * allocation (fleet-cache.h) and put into the stacks as a cached
	 * stack is. */
	if (n == 7) {
		if (fleet_stacks_frames(&z->st, f, n, &fr, &e) == 0) {
			mix(z, &fr->nf, sizeof fr->nf);
			for (k = 0; k < fr->nf; k++)
				mix(z, fr->f[k].function,
				    strlen(fr->f[k].function));
			fleet_stacks_add(&z->st,
			    fleet_stacks_leaf(&z->st, fr), 1);
			free(fr);
		} else if (e.kind == ERR_NONE)
			abort();
	}
	error_clear(&e);
	/* As the function sums' answer (kind, key, a, b) and their
	 * names' (key, caller, name). */
	if (n == 4 && fleet_fsum_row(&z->fs, f, n, &e) == -1 &&
	    e.kind == ERR_NONE)
		abort();
	error_clear(&e);
	if (n == 3 && fleet_fsum_name_row(&z->fs, f, n, &e) == -1 &&
	    e.kind == ERR_NONE)
		abort();
	error_clear(&e);
	for (i = 0; i < n; i++) {
		if (fleet_tsv_u64(&f[i], &u, NULL) == 0)
			mix(z, &u, sizeof u);
		if (fleet_tsv_array(&f[i], &z->a, &e) == 0) {
			mix(z, &z->a.n, sizeof z->a.n);
			for (k = 0; k < z->a.n; k++)
				mix(z, z->a.v[k], strlen(z->a.v[k]));
		}
		error_clear(&e);
		if (fleet_tsv_int(&f[i], &v, &e) == 0)
			mix(z, &v, sizeof v);
		error_clear(&e);
		before = f[i].n;
		s = fleet_tsv_str(&f[i], &len);
		if (len > before || s[len] != '\0')
			abort();
		mix(z, s, len);
	}
	return 0;
}

/* A stack source of the pairs read: the views over them as over any. */
struct fz_source {
	struct stack_source src;
	struct fz *z;
	struct csindex *idx;
};

static int
fz_select(struct stack_source *src, const struct selection *sel,
    struct store_metric *m, struct store_cs_value **vals, size_t *nvals,
    int64_t *nprofiles, struct error *err)
{
	struct fz_source *x = (struct fz_source *)src;
	const struct fleet_stacks *st = &x->z->st;
	size_t i;

	(void)sel;
	(void)err;
	memset(m, 0, sizeof *m);
	m->type = strdup("cpu");
	m->unit = strdup("nanoseconds");
	*vals = calloc(st->nvals + 1, sizeof **vals);
	for (i = 0; i < st->nvals; i++) {
		(*vals)[i].callsite = st->vals[i].callsite;
		(*vals)[i].value = st->vals[i].value;
	}
	*nvals = st->nvals;
	*nprofiles = 1;
	src->index = x->idx;
	return 0;
}

static void
fz_release(struct stack_source *src)
{
	(void)src;
}

static const struct stack_source_ops fz_ops = {
	.select = fz_select,
	.release = fz_release,
};

/* The answer fed in pieces of step bytes (0: whole): -1 if refused. */
static int
fz_read(const uint8_t *data, size_t size, size_t step, struct fz *z)
{
	static struct selection none;
	struct fz_source src = { .src = { .ops = &fz_ops } };
	struct fleet_cache *names;
	const struct store_fsum_view *view;
	uint64_t *miss;
	size_t missing;
	struct fleet_tsv t;
	struct error err = { 0 };
	size_t off, k;
	int64_t self = 0;
	int rc = 0;

	memset(z, 0, sizeof *z);
	src.z = z;
	src.idx = csindex_new();
	/* A cache of 4 kB: dropped and filled again on most inputs. */
	names = fleet_cache_new(4096);
	fleet_fsum_init(&z->fs, src.idx, names);
	fleet_fsum_reset(&z->fs);
	fleet_stacks_init(&z->st, src.idx);
	fleet_stacks_reset(&z->st, 0, 0);
	fleet_tsv_init(&t, 4096, fz_row, z);
	for (off = 0; off < size && rc == 0; off += k) {
		k = step == 0 || size - off < step ? size - off : step;
		rc = fleet_tsv_feed(&t, data + off, k, &err);
	}
	if (rc == 0)
		rc = fleet_tsv_end(&t, &err);
	if (rc == -1 && err.kind == ERR_NONE)
		abort();
	/* pprof's total: |value| of each stack, those of one callsite
	 * summed first. */
	for (k = 0; k < z->st.nvals; k++)
		z->total += z->st.vals[k].value < 0 ? -z->st.vals[k].value :
		    z->st.vals[k].value;
	if (step % 2) {
		struct top_params p = { .sel = &none };
		struct top_result r;

		if (top_graph(&src.src, &p, &r, &err) == 0 &&
		    r.total != z->total)
			abort();
		top_result_clear(&r);
	} else {
		struct tree_params p = { .sel = &none };
		struct tree_result r;

		if (tree_query(&src.src, &p, &r, &err) == 0) {
			/* Every value kept is some node's self, once. */
			for (k = 0; k < r.nnodes; k++)
				self += r.nodes[k].self;
			if (self != r.nodes[0].total || r.total != z->total)
				abort();
		}
		tree_result_clear(&r);
	}
	/* The sums named from what was kept: each key either named or
	 * missing, once for each row. */
	missing = fleet_fsum_resolve(&z->fs, &miss);
	if (missing + z->fs.nfn + z->fs.nedge != z->fs.nraw)
		abort();
	free(miss);
	view = fleet_fsum_view(&z->fs);
	mix(z, &view->nfn, sizeof view->nfn);
	mix(z, &view->nedge, sizeof view->nedge);
	for (k = 0; k < view->nfn; k++)
		mix(z, csindex_name_str(src.idx, view->fn[k].name),
		    strlen(csindex_name_str(src.idx, view->fn[k].name)));
	fleet_fsum_clear(&z->fs);
	fleet_cache_free(names);
	fleet_tsv_clear(&t);
	fleet_stacks_clear(&z->st);
	fleet_tsv_array_clear(&z->a);
	csindex_free(src.idx);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz whole, pieces;
	int a, b;

	if (size == 0)
		return 0;
	a = fz_read(data + 1, size - 1, 0, &whole);
	b = fz_read(data + 1, size - 1, (size_t)data[0] % 17 + 1, &pieces);
	if (a != b || (a == 0 && (whole.rows != pieces.rows ||
	    whole.digest != pieces.digest)))
		abort();
	return 0;
}
