/* fleet-view.c: top, tree and timeline over the fleet's stacks, one
 * stack at a time, as the local views walk theirs with frame filters (top.c's
 * top_stacks, tree.c's tree_stacks): the same builders, the same order
 * of nodes and rows, so the same answers. */
#include <stdlib.h>
#include <string.h>

#include "fleet-view.h"
#include "model.h"
#include "selection.h"
#include "util.h"

void
fleet_view_init(struct fleet_view *v, enum fleet_view_kind kind,
    const struct selection *sel)
{
	memset(v, 0, sizeof *v);
	v->kind = kind;
	fleet_frames_init(&v->w, sel);
	if (kind & FV_TREE)
		tree_build_init(&v->trb, &v->tree);
}

void
fleet_view_clear(struct fleet_view *v)
{
	size_t i;

	fleet_frames_clear(&v->w);
	top_result_clear(&v->top);
	top_build_clear(&v->tb);
	tree_result_clear(&v->tree);
	tree_build_clear(&v->trb);
	hmap_clear(&v->ids);
	for (i = 0; i < v->nstrs; i++)
		free(v->strs[i]);
	free(v->strs);
	free(v->row);
	free(v->rows);
	imap_clear(&v->bucket);
	free(v->bucket_s);
	free(v->bucket_v);
	memset(v, 0, sizeof *v);
}

/* The id of a string, copied the first time. */
static uint32_t
fv_id(struct fleet_view *v, const char *s);

/* The string kept of s.  (Not v->strs[fv_id(v, s)]: fv_id may move
 * v->strs after the compiler read it.) */
static const char *
fv_str(struct fleet_view *v, const char *s)
{
	uint32_t id = fv_id(v, s);

	return v->strs[id];
}

static uint32_t
fv_id(struct fleet_view *v, const char *s)
{
	size_t n = strlen(s);
	int64_t id = hmap_get(&v->ids, s, n);

	if (id == 0) {
		v->strs = xreallocarray(v->strs, v->nstrs + 1,
		    sizeof *v->strs);
		v->row = xreallocarray(v->row, v->nstrs + 1, sizeof *v->row);
		v->strs[v->nstrs] = xstrdup(s);
		v->row[v->nstrs] = 0;
		id = (int64_t)++v->nstrs;
		hmap_put(&v->ids, s, n, id);
	}
	return (uint32_t)(id - 1);
}

static void
fv_top(struct fleet_view *v, const struct fleet_stack *s)
{
	struct fleet_frames *w = &v->w;
	uint32_t id;
	size_t i;

	if (w->n > v->cap) {
		v->cap = w->n;
		v->rows = xreallocarray(v->rows, v->cap, sizeof *v->rows);
	}
	for (i = 0; i < w->n; i++) {
		id = fv_id(v, s->fn[w->at[i]]);
		if (v->row[id] == 0)
			v->row[id] = 1 + top_build_row(&v->tb, &v->top,
			    v->strs[id]);
		v->rows[i] = v->row[id] - 1;
	}
	top_build_stack(&v->tb, &v->top, v->rows, w->flags, w->n, s->value,
	    v->nstacks++);
}

static void
fv_tree(struct fleet_view *v, const struct fleet_stack *s)
{
	struct fleet_frames *w = &v->w;
	struct tree_result *r = &v->tree;
	struct tree_frame f;
	size_t i, at = 0, k;
	char *end;

	r->nodes[0].total += s->value;
	for (i = 0; i < w->n; i++) {
		k = w->at[i];
		f.name_id = fv_id(v, s->fn[k]);
		f.name = v->strs[f.name_id];
		f.file = fv_str(v, s->file[k]);
		f.mapping = fv_str(v, s->mapping != NULL ? s->mapping[k] : "");
		f.line = s->start != NULL ? strtoll(s->start[k], &end, 10) : 0;
		f.frame_line = strtoll(s->line[k], &end, 10);
		f.flags = w->flags[i];
		at = tree_build_child(&v->trb, at, &f);
		r->nodes[at].total += s->value;
	}
	r->nodes[at].self += s->value;
}

/* timeline.c's points: every bucket seen sets the range, the stacks the
 * frame filters keep add up. */
static void
fv_bucket(struct fleet_view *v, const struct fleet_stack *s, int64_t bucket)
{
	uint64_t key = (uint64_t)bucket + 1;
	int64_t at;

	if (v->nstacks == 0)
		v->first = v->last = bucket;
	if (bucket < v->first)
		v->first = bucket;
	if (bucket > v->last)
		v->last = bucket;
	if (s->value == 0 || (selection_frame_filters(v->w.sel) &&
	    fleet_frames_walk(&v->w, s) == 0))
		return;
	if ((at = imap_get(&v->bucket, key)) == 0) {
		v->bucket_s = xreallocarray(v->bucket_s, v->nbuckets + 1,
		    sizeof *v->bucket_s);
		v->bucket_v = xreallocarray(v->bucket_v, v->nbuckets + 1,
		    sizeof *v->bucket_v);
		v->bucket_s[v->nbuckets] = bucket;
		v->bucket_v[v->nbuckets] = 0;
		at = (int64_t)++v->nbuckets;
		imap_put(&v->bucket, key, at);
	}
	v->bucket_v[at - 1] += s->value;
}

int
fleet_view_stack(struct fleet_view *v, const struct fleet_stack *s,
    int64_t bucket)
{
	if (v->kind == FV_TIMELINE) {
		fv_bucket(v, s, bucket);
		v->nstacks++;
		return 0;
	}
	/* pprof's total is taken before its frame filters. */
	v->total += s->value < 0 ? -s->value : s->value;
	if (s->value == 0 || fleet_frames_walk(&v->w, s) == 0)
		return 0;
	if (v->kind & FV_TOP)
		fv_top(v, s);
	if (v->kind & FV_TREE)
		fv_tree(v, s);
	return 0;
}

void
fleet_view_top(struct fleet_view *v, struct top_result *out)
{
	top_build_finish(&v->tb, &v->top, v->sort_cum, v->edges);
	*out = v->top;
	out->total = v->total;
	memset(&v->top, 0, sizeof v->top);
}

void
fleet_view_tree(struct fleet_view *v, struct tree_result *out)
{
	tree_build_finish(&v->trb, v->min_fraction);
	*out = v->tree;
	out->total = v->total;
	memset(&v->tree, 0, sizeof v->tree);
	/* The build points at the result it made. */
	v->trb.r = NULL;
}

void
fleet_view_timeline(struct fleet_view *v, struct timeline_result *out)
{
	size_t i, at;

	memset(out, 0, sizeof *out);
	if (v->nstacks == 0) {
		out->step_s = v->step_s > 0 ? v->step_s : 1;
		return;
	}
	timeline_points(out, v->first, v->last, v->step_s);
	for (i = 0; i < v->nbuckets; i++) {
		at = (size_t)((v->bucket_s[i] - out->start_s) / out->step_s);
		out->values[at] += v->bucket_v[i];
		out->total += v->bucket_v[i];
	}
}
