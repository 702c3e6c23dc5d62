/* query.c: what the reports start from: a selection resolved into its
 * metric and a store filter, the (callsite, value) pairs it selects, and
 * the walk over their stacks that top and tree share. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "alloc.h"
#include "csindex.h"
#include "cstree.h"
#include "hmap.h"
#include "model.h"
#include "query.h"
#include "selection.h"
#include "source.h"
#include "stackwalk.h"

int
query_resolve(struct store *s, const struct selection *sel,
    struct store_metric *m, struct store_filter *f, int64_t **idsp,
    struct error *err)
{
	int64_t *ids, id, metric = 0;
	enum metric_kind kind;
	char *type = NULL, *unit;
	size_t i;
	int rc = -1;

	memset(m, 0, sizeof *m);
	*idsp = ids = xcalloc(sel->nscopes, sizeof *ids);
	for (i = 0; i < sel->nscopes; i++) {
		if ((ids[i] = store_scope(s, sel->scopes[i], 0, err)) < 0)
			goto out;
		if (ids[i] == 0) {
			error_set(err, ERR_NOT_FOUND, "unknown scope \"%s\"",
			    sel->scopes[i]);
			goto out;
		}
	}
	if (sel->metric == NULL) {
		if ((metric = store_scope_default_metric(s, ids[0], err)) < 0)
			goto out;
		if (metric == 0) {
			error_set(err, ERR_NOT_FOUND, "scope \"%s\" has no "
			    "profiles", sel->scopes[0]);
			goto out;
		}
	} else {
		type = xstrdup(sel->metric);
		if ((unit = strchr(type, '/')) != NULL)
			*unit++ = '\0';
		for (i = 0; i < sel->nscopes; i++) {
			if ((id = store_scope_metric(s, ids[i], type, unit,
			    err)) < 0)
				goto out;
			/* Different units are never summed silently. */
			if (id != 0 && metric != 0 && id != metric) {
				error_set(err, ERR_INPUT, "metric: \"%s\" has "
				    "several units in the selected scopes: "
				    "name one as %s/UNIT", type, type);
				goto out;
			}
			if (id != 0)
				metric = id;
		}
		if (metric == 0) {
			error_set(err, ERR_INPUT, "metric: no selected scope "
			    "has metric \"%s\" (GET /v1/scopes lists them)",
			    sel->metric);
			goto out;
		}
	}
	if (store_metric_get(s, metric, m, err) == -1)
		goto out;
	memset(f, 0, sizeof *f);
	f->scopes = ids;
	f->nscopes = sel->nscopes;
	f->metric_id = metric;
	selection_window(sel, &f->since_s, &f->until_s);
	f->profiles = sel->profiles;
	f->nprofiles = sel->nprofiles;
	f->labels = sel->labels;
	f->nlabels = sel->nlabels;
	/* How the window combines its profiles: as asked, else by the
	 * metric's kind (named profiles as their files say). */
	m->aggregate = sel->aggregate;
	if (m->aggregate == AGG_DEFAULT) {
		if (store_series_kind(s, f, &kind, err) == -1)
			goto out;
		m->aggregate = kind_aggregate(kind, sel->nprofiles > 0);
	}
	f->raw = m->aggregate != AGG_DELTA;
	rc = 0;
out:
	if (rc == -1)
		store_metric_clear(m);
	free(type);
	return rc;
}

int
query_select(struct store *s, struct csindex *idx, const struct selection *sel,
    struct store_metric *m, struct store_cs_value **vals, size_t *nvals,
    int64_t *nprofiles, struct error *err)
{
	struct store_filter f;
	int64_t *ids;
	int rc = -1;

	if (query_resolve(s, sel, m, &f, &ids, err) == 0 &&
	    (rc = AGGREGATE_PER_SERIES(m->aggregate) ?
	    aggregate_select(s, idx, &f, m->aggregate, vals, nvals,
	    nprofiles, err) : store_select_values(s, &f, vals, nvals, nprofiles,
	    err)) == -1)
		store_metric_clear(m);
	free(ids);
	return rc;
}

int
query_walk_open(struct stack_source *src, const struct selection *sel,
    int granularity, struct store_metric *m, int64_t *nprofiles,
    struct query_walk *q, struct stackwalk *w, struct error *err)
{
	memset(q, 0, sizeof *q);
	memset(w, 0, sizeof *w);
	if (src->ops->select(src, sel, m, &q->vals, &q->nvals, nprofiles,
	    err) == -1)
		return -1;
	q->src = src;
	stackwalk_init(w, src->index, sel, granularity);
	return 0;
}

void
query_walk_close(struct query_walk *q, struct stackwalk *w)
{
	if (q->src != NULL)
		q->src->ops->release(q->src);
	stackwalk_clear(w);
	free(q->vals);
	memset(q, 0, sizeof *q);
}

int
query_walk_next(const struct query_walk *q, struct stackwalk *w, size_t *i,
    struct error *err)
{
	int walked;

	for (; *i < q->nvals; (*i)++) {
		if (q->vals[*i].callsite == 0 || q->vals[*i].value == 0)
			continue;
		if ((walked = stackwalk_run(w, q->vals[*i].callsite,
		    err)) != 0)
			return walked;
	}
	return 0;
}
