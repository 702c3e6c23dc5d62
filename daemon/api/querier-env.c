/* querier-env.c: what the querier's methods share on the query thread
 * (querier-int.h): the request's selectors, window and scopes made a
 * selection, the series of a selection from the store or the fleet's
 * scopes.  What profd does not serve is ERR_UNSUPPORTED, which
 * connect_code makes Connect's unimplemented.  The lowest of the querier's
 * files: api-querier.c calls querier-labels.c and querier-select.c,
 * which call this. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "query.h"
#include "querier-int.h"
#include "source.h"

int
querier_labelsel(const char *s, const char *what, struct labelsel *ls,
    struct error *err)
{
	struct error e = { 0 };

	if (labelsel_parse(s, strlen(s), ls, &e) == -1)
		return error_set(err, e.kind, "%s: %.440s", what, e.msg);
	return 0;
}

int
querier_window(const struct querier_req *r, struct selection *sel,
    struct error *err)
{
	/* ns since the epoch fit int64 up to 2262. */
	const int64_t max = INT64_MAX / 1000000;

	if (r->start_ms < 0 || r->start_ms > max)
		return error_set(err, ERR_INPUT, "start: %lld is not a time in "
		    "ms since the epoch (1970 to 2262)",
		    (long long)r->start_ms);
	if (r->end_ms < 0 || r->end_ms > max)
		return error_set(err, ERR_INPUT, "end: %lld is not a time in "
		    "ms since the epoch (1970 to 2262)", (long long)r->end_ms);
	if (r->start_ms > 0 && r->end_ms > 0 && r->end_ms < r->start_ms)
		return error_set(err, ERR_INPUT, "end (%lld) is before start "
		    "(%lld)", (long long)r->end_ms, (long long)r->start_ms);
	if (r->start_ms > 0) {
		sel->has_since = 1;
		sel->since_ns = r->start_ms * 1000000;
	}
	if (r->end_ms > 0) {
		sel->has_until = 1;
		sel->until_ns = r->end_ms * 1000000;
	}
	return 0;
}

int
querier_local(const struct qenv *e)
{
	return !e->qc->src.fleet;
}

int
querier_scopes(struct qenv *e, struct error *err)
{
	struct qcall *qc = e->qc;
	char **hosts = NULL;
	size_t nhosts = 0, i;
	int rc;

	if (qc->scopes != NULL)
		return 0;
	rc = e->src->ops->scopes(e->src, &qc->scopes, &qc->nscopes, &hosts,
	    &nhosts, err);
	for (i = 0; i < nhosts; i++)
		free(hosts[i]);
	free(hosts);
	if (rc == 0 && qc->scopes == NULL)
		qc->scopes = xcalloc(1, sizeof *qc->scopes);
	return rc;
}

int
querier_selection(struct qenv *e, const struct labelsel *ls,
    struct selection *sel, struct error *err)
{
	struct qcall *qc = e->qc;
	const char **names;
	size_t i;

	if (querier_scopes(e, err) == -1)
		return -1;
	names = xcalloc(qc->nscopes ? qc->nscopes : 1, sizeof *names);
	for (i = 0; i < qc->nscopes; i++)
		names[i] = qc->scopes[i].name;
	labelsel_select(ls, names, qc->nscopes, sel);
	free(names);
	return querier_window(&qc->req, sel, err);
}

const struct store_scope_info *
querier_scope(struct qenv *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->qc->nscopes; i++)
		if (strcmp(e->qc->scopes[i].name, name) == 0)
			return &e->qc->scopes[i];
	return NULL;
}

/* The fleet's series: a scope's metrics where its profiles overlap the
 * window (its labels are the fleet's to read: not here). */
static void
querier_series_fleet(struct qenv *e, const struct selection *sel,
    struct series_result *r)
{
	const struct store_scope_info *si;
	struct series *s;
	size_t i, j;

	memset(r, 0, sizeof *r);
	for (i = 0; i < sel->nscopes; i++) {
		if ((si = querier_scope(e, sel->scopes[i])) == NULL ||
		    si->profiles == 0 ||
		    (sel->has_since && si->last_ns < sel->since_ns) ||
		    (sel->has_until && si->first_ns > sel->until_ns))
			continue;
		for (j = 0; j < si->nmetrics; j++) {
			r->v = xappendarray(r->v, r->n, sizeof *r->v);
			s = &r->v[r->n++];
			memset(s, 0, sizeof *s);
			s->scope = xstrdup(si->name);
			s->type = xstrdup(si->metrics[j].type);
			s->unit = xstrdup(si->metrics[j].unit);
			s->labels = xcalloc(1, sizeof *s->labels);
		}
	}
}

int
querier_series(struct qenv *e, const struct selection *sel, int samples,
    struct series_result *r, struct error *err)
{
	memset(r, 0, sizeof *r);
	if (sel->nscopes == 0)
		return 0;
	if (!querier_local(e)) {
		querier_series_fleet(e, sel, r);
		return 0;
	}
	return series_query(e->w->store, sel, samples, r, err);
}

