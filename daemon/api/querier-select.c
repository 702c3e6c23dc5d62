/* querier-select.c: what Grafana draws (SelectMergeStacktraces: the
 * flame graph; SelectMergeProfile: the merged profile as pprof; and
 * querier-series.c's SelectSeries, the time series), each the view
 * profctl's tree, export and timeline compute on the same selection: the
 * selector's scopes that have a metric the profile type ID selects
 * (pyrotype_selects), that metric as TYPE/UNIT, the window, the other
 * matchers as label filters.  The aggregate is the metric kind's, as
 * profctl's without --aggregate. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "export.h"
#include "flame.h"
#include "query.h"
#include "querier-int.h"
#include "tree.h"

/* Pyroscope's default when a call names no max_nodes. */
#define QUERIER_MAX_NODES	8192

int
querier_select_prepare(struct qenv *e, struct labelsel *ls,
    struct selection *sel, struct pyrotype *want, struct error *err)
{
	const struct querier_req *r = &e->qc->req;
	struct error pe = { 0 };

	memset(sel, 0, sizeof *sel);
	memset(ls, 0, sizeof *ls);
	if (r->profile_type == NULL || *r->profile_type == '\0')
		return error_set(err, ERR_INPUT, "profile_typeID: empty (a "
		    "profile type ID, as ProfileTypes lists them)");
	if (pyrotype_parse(r->profile_type, want, &pe) == -1)
		return error_set(err, ERR_INPUT, "profile_typeID: %.440s",
		    pe.msg);
	if (querier_labelsel(r->label_selector ? r->label_selector : "",
	    "label_selector", ls, err) == -1 || querier_scopes(e, err) == -1)
		return -1;
	if (pyrotype_select(want, ls, NULL, e->qc->scopes, e->qc->nscopes,
	    sel) == 0)
		return 1;
	return querier_window(r, sel, err);
}

void
querier_select_clear(struct labelsel *ls, struct selection *sel)
{
	labelsel_clear(ls);
	selection_clear(sel);
}

/* A scope gone, or without profiles, since it was listed: no answer,
 * not an error. */
static int
select_gone(struct error *err)
{
	if (err->kind != ERR_NOT_FOUND)
		return 0;
	error_clear(err);
	return 1;
}

static void
select_empty_flame(struct qenv *e)
{
	static char total[] = "total";
	char *names[] = { total };
	int64_t v[4] = { 0, 0, 0, 0 };
	struct flame_level level = { v, 4 };
	struct flame f;

	memset(&f, 0, sizeof f);
	f.names = names;
	f.nnames = 1;
	f.levels = &level;
	f.nlevels = 1;
	querier_reply_flame(&e->qc->reply, &f);
}

int
querier_select_stacks(struct qenv *e, struct error *err)
{
	const struct querier_req *r = &e->qc->req;
	struct tree_params p;
	struct tree_result tr;
	struct labelsel ls;
	struct selection sel;
	struct pyrotype want;
	struct flame f;
	int64_t max = QUERIER_MAX_NODES;
	int rc;

	if (r->format != QF_UNSPECIFIED && r->format != QF_FLAMEGRAPH)
		return error_set(err, ERR_UNSUPPORTED, "format %d: profd serves "
		    "the flame graph (PROFILE_FORMAT_FLAMEGRAPH) only",
		    r->format);
	if (r->has_max_nodes && r->max_nodes < 0)
		return error_set(err, ERR_INPUT, "max_nodes: %lld is "
		    "negative", (long long)r->max_nodes);
	if (r->has_max_nodes && r->max_nodes > 0)
		max = r->max_nodes;
	if ((rc = querier_select_prepare(e, &ls, &sel, &want, err)) == 0) {
		memset(&p, 0, sizeof p);
		p.sel = &sel;
		if ((rc = tree_query(e->src, &p, &tr, err)) == 0) {
			flame_of_tree(&tr, max, &f);
			querier_reply_flame(&e->qc->reply, &f);
			flame_clear(&f);
			tree_result_clear(&tr);
		} else if (select_gone(err))
			rc = 1;
	}
	querier_select_clear(&ls, &sel);
	if (rc == 1)
		select_empty_flame(e);
	return rc == -1 ? -1 : 0;
}

int
querier_select_profile(struct qenv *e, struct error *err)
{
	struct labelsel ls;
	struct selection sel;
	struct pyrotype want;
	int rc;

	if (e->qc->json)
		return error_set(err, ERR_UNSUPPORTED, "SelectMergeProfile in "
		    "JSON: profd answers it in protobuf only (Content-Type "
		    "application/proto)");
	if (!querier_local(e))
		return error_set(err, ERR_UNSUPPORTED, "SelectMergeProfile reads "
		    "this host's store, not the fleet (grafana-source)");
	/* max_nodes is not applied: the profile is whole. */
	if ((rc = querier_select_prepare(e, &ls, &sel, &want, err)) == 0 &&
	    (rc = export_pprof(e->w->store, e->w->index, &sel,
	    &e->qc->profile, &e->qc->profile_len, err)) == -1 &&
	    select_gone(err))
		rc = 1;
	querier_select_clear(&ls, &sel);
	if (rc == 1) {
		/* An empty Profile: no bytes. */
		e->qc->profile = xcalloc(1, 1);
		e->qc->profile_len = 0;
	}
	return rc == -1 ? -1 : 0;
}
