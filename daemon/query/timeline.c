/* timeline.c: the totals of a selection per time step, the stacks the
 * frame filters drop left out. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "csindex.h"
#include "hmap.h"
#include "selection.h"
#include "source.h"
#include "stackwalk.h"
#include "timeline.h"

int64_t
timeline_step(int64_t first, int64_t last, int64_t step_s)
{
	int64_t step = step_s > 0 ? step_s : 1;

	/* At most TIMELINE_MAX_POINTS points: a coarser step if need be. */
	if ((last - first) / step + 1 > TIMELINE_MAX_POINTS)
		step = (last - first) / TIMELINE_MAX_POINTS + 1;
	return step;
}

void
timeline_points(struct timeline_result *r, int64_t first, int64_t last,
    int64_t step_s)
{
	int64_t step = timeline_step(first, last, step_s);

	first = first / step * step;
	r->step_s = step;
	r->npoints = (size_t)((last - first) / step + 1);
	r->start_s = first;
	r->values = xcalloc(r->npoints, sizeof *r->values);
}

int
timeline_query(struct stack_source *src, const struct timeline_params *p,
    struct timeline_result *r, struct error *err)
{
	struct store_bucket_value *v = NULL;
	struct stackwalk w;
	struct imap kept = { 0 };	/* callsite -> 1 kept, 2 dropped */
	int64_t first, step, k, step_s = p->step_s;
	size_t n = 0, i, at;
	int rc = -1, walked, filters = selection_frame_filters(p->sel);

	memset(r, 0, sizeof *r);
	memset(&w, 0, sizeof w);
	/* Without frame filters every stack counts: the source may sum the
	 * buckets' stacks. */
	if (src->ops->buckets(src, p->sel, filters, &step_s, &r->metric, &v,
	    &n, err) == -1)
		goto out;
	if (filters)
		stackwalk_init(&w, src->index, p->sel, GRAN_FUNCTION);
	if (n == 0) {
		r->step_s = step_s > 0 ? step_s : 1;
		rc = 0;
		goto out;
	}
	timeline_points(r, v[0].bucket, v[n - 1].bucket, step_s);
	first = r->start_s;
	step = r->step_s;
	for (i = 0; i < n; i++) {
		if (v[i].callsite == 0 || v[i].value == 0)
			continue;
		if (!filters)
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
	src->ops->release(src);
	if (rc == -1)
		timeline_result_clear(r);
	stackwalk_clear(&w);
	imap_clear(&kept);
	free(v);
	return rc;
}

void
timeline_result_clear(struct timeline_result *r)
{
	store_metric_clear(&r->metric);
	free(r->values);
	memset(r, 0, sizeof *r);
}
