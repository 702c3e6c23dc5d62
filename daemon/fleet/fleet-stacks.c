/* fleet-stacks.c: a stack's frames, leaf first in ClickHouse's arrays,
 * are put root first into the index, each under the one before; the
 * value goes to the leaf's pair.  Two of ClickHouse's stacks may be one
 * callsite here (shipped before and after the stack hash took in every
 * frame field): their values add up. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "csindex.h"
#include "fleet-cache.h"
#include "fleet-stacks.h"
#include "model.h"
#include "nitems.h"

void
fleet_stacks_init(struct fleet_stacks *x, struct csindex *idx)
{
	memset(x, 0, sizeof *x);
	x->idx = idx;
}

void
fleet_stacks_reset(struct fleet_stacks *x, int by_bucket, int sums)
{
	x->nvals = 0;
	x->by_bucket = by_bucket;
	x->sums = sums;
	imap_reset(&x->at);
}

/* A pair for the leaf (-1: a bucket's sum over its stacks), summed with
 * the bucket's pair of that leaf: two stacks of ClickHouse may be one
 * callsite here (shipped before and after the stack hash took in every
 * frame field).  Buckets come in order, so the map is the bucket's. */
static void
stacks_pair(struct fleet_stacks *x, int64_t bucket, int64_t leaf, int64_t value)
{
	int64_t at;

	if (x->nvals > 0 && x->vals[x->nvals - 1].bucket != bucket)
		imap_reset(&x->at);
	if ((at = imap_get(&x->at, (uint64_t)leaf)) == 0) {
		if (x->nvals == x->cap) {
			x->cap = x->cap ? x->cap * 2 : 1024;
			x->vals = xreallocarray(x->vals, x->cap,
			    sizeof *x->vals);
		}
		x->vals[x->nvals].bucket = bucket;
		x->vals[x->nvals].callsite = leaf;
		x->vals[x->nvals].value = 0;
		at = (int64_t)++x->nvals;
		imap_put(&x->at, (uint64_t)leaf, at);
	}
	x->vals[at - 1].value += value;
}

/* The six arrays at v (functions, files, lines, inline flags, start
 * lines, mappings; the last three empty for a stack shipped before
 * stack_frames, or for a bucket's sum) as one allocation of the hash. */
static int
stacks_frames_of(struct fleet_stacks *x, uint64_t hash,
    struct fleet_tsv_field *v, struct fleet_frames **f, struct error *err)
{
	struct fleet_tsv_array *a = x->a;
	struct fleet_frame *fr;
	size_t i, k, nf, sb = 0;
	char *t, *end;

	*f = NULL;
	for (i = 0; i < 6; i++)
		if (fleet_tsv_array(&v[i], &a[i], err) == -1)
			return -1;
	nf = a[0].n;
	if (a[1].n != nf || a[2].n != nf)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: a "
		    "stack of %zu functions and %zu files or %zu lines", nf,
		    a[1].n, a[2].n);
	for (k = 0; k < nf; k++)
		sb += strlen(a[0].v[k]) + strlen(a[1].v[k]) + 2 +
		    (a[5].n == nf ? strlen(a[5].v[k]) : 0) + 1;
	*f = fleet_frames_new(hash, nf, sb);
	(*f)->whole = a[3].n == nf;
	t = fleet_frames_text(*f);
	for (k = 0; k < nf; k++) {
		fr = &(*f)->f[k];
		fr->function = t;
		t = stpcpy(t, a[0].v[k]) + 1;
		fr->file = t;
		t = stpcpy(t, a[1].v[k]) + 1;
		fr->mapping = t;
		t = stpcpy(t, a[5].n == nf ? a[5].v[k] : "") + 1;
		fr->line = strtoll(a[2].v[k], &end, 10);
		fr->flags = a[3].n == nf && strcmp(a[3].v[k], "0") != 0 ?
		    FRAME_INLINED : 0;
		fr->start_line = a[4].n == nf ? strtoll(a[4].v[k], &end, 10) :
		    0;
	}
	return 0;
}

/* The stack's frames put root first into the index, each under the one
 * before: its leaf callsite; a stack of no frames: -1 for a bucket's
 * sum (x->sums), else 0, a sample without a stack (which the views pass
 * over, as the store's). */
static int64_t
stacks_leaf(struct fleet_stacks *x, const struct fleet_frames *f)
{
	struct store_frame_info fi;
	int64_t parent = 0;
	size_t k;

	if (f->nf == 0)
		return x->sums ? -1 : 0;
	memset(&fi, 0, sizeof fi);
	for (k = f->nf; k-- > 0;) {
		fi.function = f->f[k].function;
		fi.file = f->f[k].file;
		fi.line = f->f[k].line;
		fi.flags = f->f[k].flags;
		fi.start_line = f->f[k].start_line;
		fi.mapping_file = f->f[k].mapping;
		parent = csindex_put(x->idx, parent, &fi);
	}
	return parent;
}

/* [bucket,] value, then the frames leaf first (stacks_frames_of). */
int
fleet_stacks_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fleet_stacks *x = arg;
	struct fleet_frames *f;
	int64_t bucket = 0, value;

	if (x->by_bucket) {
		if (n == 0 || fleet_tsv_int(&v[0], &bucket, err) == -1)
			return error_set(err, ERR_INTERNAL, "ClickHouse's "
			    "reply: a row without its time bucket");
		v++;
		n--;
	}
	if (n != 7)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 7 (value and 6 arrays)", n);
	if (fleet_tsv_int(&v[0], &value, err) == -1 ||
	    stacks_frames_of(x, 0, v + 1, &f, err) == -1)
		return -1;
	stacks_pair(x, bucket, stacks_leaf(x, f), value);
	free(f);
	return 0;
}

/* A row of fleet_sql_frames (the hash, then the arrays as above) as
 * one allocation. */
int
fleet_stacks_frames(struct fleet_stacks *x, struct fleet_tsv_field *v,
    size_t n, struct fleet_frames **f, struct error *err)
{
	size_t len;
	uint64_t hash;
	char *s, *end;

	*f = NULL;
	if (n != 7)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 7 (hash and 6 arrays)", n);
	s = fleet_tsv_str(&v[0], &len);
	hash = strtoull(s, &end, 10);
	if (len == 0 || *end != '\0')
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "stack hash \"%.30s\" is not a number", s);
	return stacks_frames_of(x, hash, v + 1, f, err);
}

int64_t
fleet_stacks_leaf(struct fleet_stacks *x, const struct fleet_frames *f)
{
	return stacks_leaf(x, f);
}

void
fleet_stacks_add(struct fleet_stacks *x, int64_t leaf, int64_t value)
{
	stacks_pair(x, 0, leaf, value);
}

void
fleet_stacks_take(struct fleet_stacks *x, struct store_bucket_value **v,
    size_t *n)
{
	*v = x->vals;
	*n = x->nvals;
	x->vals = NULL;
	x->nvals = x->cap = 0;
}

void
fleet_stacks_clear(struct fleet_stacks *x)
{
	size_t i;

	for (i = 0; i < NITEMS(x->a); i++)
		fleet_tsv_array_clear(&x->a[i]);
	imap_clear(&x->at);
	free(x->vals);
	memset(x, 0, sizeof *x);
}
