/* fuzz_fleet_tsv.c: ClickHouse's TabSeparated replies to fleet queries
 * (fleet-tsv.c), read as the HTTP client hands them over, into a view
 * (fleet-view.c: top with its graph, or the tree): any bytes.  The first byte sets the size of the pieces
 * the rest is fed in.  Beside not crashing: the rows seen, their fields
 * unescaped and their arrays, are the same whether the reply comes in
 * one piece or in many; a string never grows in unescaping; the view's
 * total is the sum of |value| of the stacks it took; a tree's selves add
 * up to its root. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fleet-query.h"
#include "fleet-view.h"
#include "fleet-tsv.h"
#include "selection.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct fz {
	uint64_t digest;
	size_t rows;
	struct fleet_tsv_array a[6];
	struct fleet_view view;
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
	int64_t v = 0;
	size_t i, k, len, before;
	char *s;

	(void)err;
	z->rows++;
	mix(z, &n, sizeof n);
	/* As the stacks' reply: a value and six arrays, into a view. */
	if (n == 7 && fleet_tsv_int(&f[0], &v, &e) == 0 && v > INT64_MIN &&
	    v < INT64_MAX / 4096 && v > -INT64_MAX / 4096) {
		if (fleet_query_stack_row(z->a, &z->view, f, n, &e) == 0) {
			z->total += v < 0 ? -v : v;
			for (k = 0; k < 6; k++)
				for (i = 0; i < z->a[k].n; i++)
					mix(z, z->a[k].v[i],
					    strlen(z->a[k].v[i]));
		} else if (e.kind == ERR_NONE)
			abort();
	}
	error_clear(&e);
	for (i = 0; i < n; i++) {
		if (fleet_tsv_array(&f[i], &z->a[0], &e) == 0) {
			mix(z, &z->a[0].n, sizeof z->a[0].n);
			for (k = 0; k < z->a[0].n; k++)
				mix(z, z->a[0].v[k], strlen(z->a[0].v[k]));
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

/* The reply fed in pieces of step bytes (0: whole): -1 if refused. */
static int
fz_read(const uint8_t *data, size_t size, size_t step, struct fz *z)
{
	static struct selection none;
	struct fleet_tsv t;
	struct error err = { 0 };
	size_t off, k;
	int rc = 0;

	memset(z, 0, sizeof *z);
	/* Top with its graph on odd steps, the tree on even ones. */
	fleet_view_init(&z->view, step % 2 ? FV_TOP : FV_TREE, &none);
	z->view.edges = 1;
	fleet_tsv_init(&t, 4096, fz_row, z);
	for (off = 0; off < size && rc == 0; off += k) {
		k = step == 0 || size - off < step ? size - off : step;
		rc = fleet_tsv_feed(&t, data + off, k, &err);
	}
	if (rc == 0)
		rc = fleet_tsv_end(&t, &err);
	if (rc == -1 && err.kind == ERR_NONE)
		abort();
	if (z->view.total != z->total)
		abort();
	if (z->view.kind & FV_TOP) {
		struct top_result r;

		fleet_view_top(&z->view, &r);
		top_result_clear(&r);
	} else {
		struct tree_result r;

		int64_t self = 0;

		fleet_view_tree(&z->view, &r);
		/* Every value kept is some node's self, once. */
		for (k = 0; k < r.nnodes; k++)
			self += r.nodes[k].self;
		if (self != r.nodes[0].total)
			abort();
		tree_result_clear(&r);
	}
	fleet_tsv_clear(&t);
	fleet_view_clear(&z->view);
	for (k = 0; k < 6; k++)
		fleet_tsv_array_clear(&z->a[k]);
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
