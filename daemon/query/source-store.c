/* source-store.c: the store as a stack source: its selection resolved
 * by query.c, its pairs read by the store, the query threads' shared
 * index caught up and held for reading while a view walks them. */
#include <stdlib.h>

#include "aggregate.h"
#include "alloc.h"
#include "csindex.h"
#include "model.h"
#include "query.h"
#include "selection.h"
#include "source.h"
#include "store-fsum.h"

struct source_store {
	struct stack_source src;
	struct store *s;
	struct csindex *idx;
	int locked;
};

static int
ss_hold(struct source_store *x, struct error *err)
{
	if (csindex_acquire(x->idx, x->s, err) == -1)
		return -1;
	x->locked = 1;
	x->src.index = x->idx;
	return 0;
}

static void
ss_release(struct stack_source *src)
{
	struct source_store *x = (struct source_store *)src;

	if (x->locked)
		csindex_release(x->idx);
	x->locked = 0;
	x->src.index = NULL;
}

static int
ss_select(struct stack_source *src, const struct selection *sel,
    struct store_metric *m, struct store_cs_value **vals, size_t *nvals,
    int64_t *nprofiles, struct error *err)
{
	struct source_store *x = (struct source_store *)src;

	/* The index is taken after the values, so it knows every callsite
	 * they name. */
	if (query_select(x->s, x->idx, sel, m, vals, nvals, nprofiles,
	    err) == -1)
		return -1;
	if (ss_hold(x, err) == -1) {
		store_metric_clear(m);
		free(*vals);
		*vals = NULL;
		return -1;
	}
	return 0;
}

static int
ss_select_fsum(struct stack_source *src, const struct selection *sel,
    struct store_metric *m, struct store_cs_value **vals, size_t *nvals,
    int64_t *nprofiles, const struct store_fsum_view **views, size_t *nviews,
    struct error *err)
{
	struct source_store *x = (struct source_store *)src;
	struct store_filter f;
	int64_t *ids = NULL;
	int rc = -1;

	*vals = NULL;
	*nvals = 0;
	if (query_resolve(x->s, sel, m, &f, &ids, err) == -1)
		goto out;
	rc = 1;
	if (AGGREGATE_PER_SERIES(m->aggregate) ||
	    (rc = store_select_fsum(x->s, x->idx, &f, vals, nvals, nprofiles,
	    err)) != 0)
		goto out;
	/* As ss_select: the index after the values. */
	if ((rc = ss_hold(x, err)) == 0 && (rc = store_fsum_views(x->s, x->idx,
	    FRAME_INLINED, views, nviews, err)) == -1)
		ss_release(src);
out:
	if (rc != 0) {
		store_metric_clear(m);
		free(*vals);
		*vals = NULL;
		*nvals = 0;
	}
	free(ids);
	return rc;
}

static int
ss_buckets(struct stack_source *src, const struct selection *sel,
    int stacks, int64_t *step_s, struct store_metric *m,
    struct store_bucket_value **v, size_t *n, struct error *err)
{
	struct source_store *x = (struct source_store *)src;
	struct store_filter f;
	int64_t *ids = NULL;
	int rc = -1, totals = 1;

	*v = NULL;
	*n = 0;
	if (query_resolve(x->s, sel, m, &f, &ids, err) == -1)
		goto out;
	if (AGGREGATE_PER_SERIES(m->aggregate)) {
		if (aggregate_buckets(x->s, x->idx, &f, m->aggregate, stacks,
		    step_s, v, n, err) == -1 || (stacks && ss_hold(x,
		    err) == -1))
			goto out;
		rc = 0;
		goto out;
	}
	/* Every stack counts: the per-bucket totals answer, if the store
	 * has them for the selection. */
	if (!stacks && (totals = store_select_totals(x->s, &f, v, n,
	    err)) == -1)
		goto out;
	if ((stacks || totals == 1) && (store_select_buckets(x->s, &f, v, n,
	    err) == -1 || (stacks && ss_hold(x, err) == -1)))
		goto out;
	rc = 0;
out:
	if (rc == -1) {
		store_metric_clear(m);
		free(*v);
		*v = NULL;
	}
	free(ids);
	return rc;
}

static int
ss_scopes(struct stack_source *src, struct store_scope_info **v, size_t *n,
    char ***hosts, size_t *nhosts, struct error *err)
{
	struct source_store *x = (struct source_store *)src;

	*hosts = NULL;
	*nhosts = 0;
	return store_scopes(x->s, v, n, err);
}

static void
ss_free(struct stack_source *src)
{
	ss_release(src);
	free(src);
}

static const struct stack_source_ops source_store_ops = {
	.select = ss_select,
	.select_fsum = ss_select_fsum,
	.buckets = ss_buckets,
	.scopes = ss_scopes,
	.release = ss_release,
	.free = ss_free,
};

struct stack_source *
source_store_new(struct store *s, struct csindex *idx)
{
	struct source_store *x = xcalloc(1, sizeof *x);

	x->src.ops = &source_store_ops;
	x->s = s;
	x->idx = idx;
	return &x->src;
}
