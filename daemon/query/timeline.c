/* timeline.c: the totals of a selection per time step, the stacks the
 * frame filters drop left out. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csindex.h"
#include "hmap.h"
#include "query.h"
#include "selection.h"
#include "stackwalk.h"
#include "timeline.h"
#include "util.h"

void
timeline_points(struct timeline_result *r, int64_t first, int64_t last,
    int64_t step_s)
{
	int64_t step = step_s > 0 ? step_s : 1;

	/* At most TIMELINE_MAX_POINTS points: a coarser step if need be. */
	if ((last - first) / step + 1 > TIMELINE_MAX_POINTS)
		step = (last - first) / TIMELINE_MAX_POINTS + 1;
	first = first / step * step;
	r->step_s = step;
	r->npoints = (size_t)((last - first) / step + 1);
	r->start_s = first;
	r->values = xcalloc(r->npoints, sizeof *r->values);
}

int
timeline_query(struct store *s, struct csindex *idx,
    const struct timeline_params *p, struct timeline_result *r,
    struct error *err)
{
	struct store_filter f;
	struct store_bucket_value *v = NULL;
	struct stackwalk w;
	struct imap kept = { 0 };	/* callsite -> 1 kept, 2 dropped */
	int64_t *ids = NULL, first, step, k;
	size_t n = 0, i, at;
	int rc = -1, locked = 0, walked, totals = 0;

	memset(r, 0, sizeof *r);
	memset(&w, 0, sizeof w);
	if (query_resolve(s, p->sel, &r->metric, &f, &ids, err) == -1)
		goto out;
	/* Without frame filters every stack counts: the per-bucket totals
	 * answer, if the store has them for the selection. */
	if (!selection_frame_filters(p->sel) &&
	    (totals = store_select_totals(s, &f, &v, &n, err)) == -1)
		goto out;
	totals = !selection_frame_filters(p->sel) && totals == 0;
	if (!totals) {
		if (store_select_buckets(s, &f, &v, &n, err) == -1 ||
		    csindex_acquire(idx, s, err) == -1)
			goto out;
		locked = 1;
		stackwalk_init(&w, idx, p->sel, GRAN_FUNCTION);
	}
	if (n == 0) {
		r->step_s = p->step_s > 0 ? p->step_s : 1;
		rc = 0;
		goto out;
	}
	timeline_points(r, v[0].bucket, v[n - 1].bucket, p->step_s);
	first = r->start_s;
	step = r->step_s;
	for (i = 0; i < n; i++) {
		if (v[i].callsite == 0 || v[i].value == 0)
			continue;
		if (totals)
			k = 1;
		else if ((k = imap_get(&kept, (uint64_t)v[i].callsite)) == 0) {
			if ((walked = stackwalk_run(&w, v[i].callsite,
			    err)) == -1)
				goto out;
			k = walked ? 1 : 2;
			imap_put(&kept, (uint64_t)v[i].callsite, k);
		}
		if (k != 1)
			continue;
		at = (size_t)((v[i].bucket - first) / step);
		r->values[at] += v[i].value;
		r->total += v[i].value;
	}
	rc = 0;
out:
	if (locked)
		csindex_release(idx);
	if (rc == -1)
		timeline_result_clear(r);
	stackwalk_clear(&w);
	imap_clear(&kept);
	free(v);
	free(ids);
	return rc;
}

void
timeline_result_clear(struct timeline_result *r)
{
	store_metric_clear(&r->metric);
	free(r->values);
	memset(r, 0, sizeof *r);
}
