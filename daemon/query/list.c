/* list.c: pprof's printSource numbers.  Every stack is walked at line
 * granularity; a frame of a matching function adds the stack's value to
 * its line node's cum once per stack, the leaf frame to its flat.  The
 * line of a node is the index's for one of its callsites. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "csindex.h"
#include "hmap.h"
#include "list.h"
#include "query.h"
#include "rx.h"
#include "selection.h"
#include "source.h"
#include "stackwalk.h"

struct lnode {
	int64_t cs;			/* one callsite of the node */
	const char *func, *file;
	int64_t start, line, flat, cum;
	size_t last;			/* the last stack counted + 1 */
};

struct lbuild {
	struct imap at;			/* line name id -> 1 + node */
	struct lnode *n;
	size_t nn, cap;
	int8_t *match;			/* per function name id: -1, 0, 1 */
};

static struct lnode *
lnode_get(struct lbuild *b, const struct csindex *idx, uint32_t name,
    int64_t cs)
{
	int64_t at = imap_get(&b->at, name);
	struct lnode *n;
	const char *mapping;

	if (at != 0)
		return &b->n[at - 1];
	if (b->nn == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		b->n = xreallocarray(b->n, b->cap, sizeof *b->n);
	}
	n = &b->n[b->nn++];
	memset(n, 0, sizeof *n);
	n->cs = cs;
	n->func = csindex_name_str(idx, csindex_name(idx, cs));
	csindex_source(idx, cs, &n->file, &n->start, &mapping);
	imap_put(&b->at, name, (int64_t)b->nn);
	return n;
}

static int
list_stacks(const struct query_walk *q, struct stackwalk *w,
    const struct list_params *p, struct lbuild *b, struct error *err)
{
	size_t i, d;
	int rc;

	for (i = 0; (rc = query_walk_next(q, w, &i, err)) == 1; i++) {
		int64_t v = q->vals[i].value;

		for (d = 0; d < w->n; d++) {
			uint32_t fn = csindex_name(w->idx, w->cs[d]);
			struct lnode *n;

			if (b->match[fn] < 0) {
				const char *s = csindex_name_str(w->idx, fn);

				b->match[fn] = (int8_t)rx_match(p->re, s,
				    strlen(s));
			}
			if (!b->match[fn])
				continue;
			n = lnode_get(b, w->idx, w->name[d], w->cs[d]);
			if (n->last != i + 1) {
				n->last = i + 1;
				n->cum += v;
			}
			if (d + 1 == w->n)
				n->flat += v;
		}
	}
	return rc;
}

static int
lnode_cmp(const void *a, const void *b)
{
	const struct lnode *x = a, *y = b;
	int c;

	if ((c = strcmp(x->func, y->func)) != 0)
		return c;
	if ((c = strcmp(x->file, y->file)) != 0)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The nodes, sorted, into functions and files. */
static void
list_group(struct lbuild *b, struct list_result *r)
{
	struct list_func *f = NULL;
	struct list_file *fl = NULL;
	size_t i;

	if (b->nn > 1)
		qsort(b->n, b->nn, sizeof *b->n, lnode_cmp);
	for (i = 0; i < b->nn; i++) {
		const struct lnode *n = &b->n[i];

		if (n->flat == 0 && n->cum == 0)
			continue;
		if (f == NULL || strcmp(f->name, n->func) != 0) {
			r->funcs = xreallocarray(r->funcs, r->nfuncs + 1,
			    sizeof *r->funcs);
			f = &r->funcs[r->nfuncs++];
			memset(f, 0, sizeof *f);
			f->name = xstrdup(n->func);
			fl = NULL;
		}
		/* A node without a file has no line to show. */
		if (n->file[0] == '\0')
			continue;
		if (fl == NULL || strcmp(fl->file, n->file) != 0) {
			f->files = xreallocarray(f->files, f->nfiles + 1,
			    sizeof *f->files);
			fl = &f->files[f->nfiles++];
			memset(fl, 0, sizeof *fl);
			fl->file = xstrdup(n->file);
			fl->start_line = n->start;
		}
		fl->lines = xreallocarray(fl->lines, fl->nlines + 1,
		    sizeof *fl->lines);
		fl->lines[fl->nlines].line = n->line;
		fl->lines[fl->nlines].flat = n->flat;
		fl->lines[fl->nlines].cum = n->cum;
		fl->nlines++;
		fl->flat += n->flat;
		fl->cum += n->cum;
	}
}

int
list_query(struct stack_source *src, const struct list_params *p,
    struct list_result *r, struct error *err)
{
	struct query_walk q;
	struct stackwalk w;
	struct lbuild b;
	const struct csindex *idx;
	size_t i;
	int rc = -1;

	memset(r, 0, sizeof *r);
	memset(&b, 0, sizeof b);
	if (query_walk_open(src, p->sel, GRAN_LINE, &r->metric,
	    &r->nprofiles, &q, &w, err) == -1)
		goto out;
	idx = src->index;
	for (i = 0; i < q.nvals; i++)
		r->total += q.vals[i].value < 0 ? -q.vals[i].value :
		    q.vals[i].value;
	b.match = xmalloc(csindex_nnames(idx) + 1);
	memset(b.match, -1, csindex_nnames(idx) + 1);
	if (list_stacks(&q, &w, p, &b, err) == -1)
		goto out;
	/* The line of each node, from one of its callsites' frame. */
	for (i = 0; i < b.nn; i++)
		b.n[i].line = csindex_line(idx, b.n[i].cs);
	list_group(&b, r);
	if (r->nfuncs == 0) {
		error_set(err, ERR_NOT_FOUND, "no matches found for regexp: "
		    "%s", p->re_src);
		goto out;
	}
	rc = 0;
out:
	query_walk_close(&q, &w);
	if (rc == -1)
		list_result_clear(r);
	imap_clear(&b.at);
	free(b.n);
	free(b.match);
	return rc;
}

void
list_result_clear(struct list_result *r)
{
	size_t i, j;

	store_metric_clear(&r->metric);
	for (i = 0; i < r->nfuncs; i++) {
		for (j = 0; j < r->funcs[i].nfiles; j++) {
			free(r->funcs[i].files[j].file);
			free(r->funcs[i].files[j].lines);
		}
		free(r->funcs[i].files);
		free(r->funcs[i].name);
	}
	free(r->funcs);
	memset(r, 0, sizeof *r);
}
