/* pprof-emit.c: step 3 of the pprof decoder: a profile that passed step 2
 * onto the sink (metrics, then mappings, functions, frames and stacks as
 * samples first use them, label sets, samples, meta), each sample checked
 * as it is read (see pprof.c: a bad one stops the walk before meta). */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bounds.h"
#include "error.h"
#include "hmap.h"
#include "model.h"
#include "mstr.h"
#include "pb.h"
#include "pprof-int.h"
#include "pprof.h"
#include "rx.h"

static int
pprof_sink_failed(struct pprof *p, const char *what)
{
	return error_set(p->err, ERR_INTERNAL, "pprof: sink %s failed", what);
}

static int64_t
pprof_mapping_emit(struct pprof *p, struct pprof_mapping *m)
{
	struct model_mapping mm;

	if (m->sink_id != 0)
		return m->sink_id;
	memset(&mm, 0, sizeof mm);
	mm.start = m->start;
	mm.limit = m->limit;
	mm.offset = m->offset;
	mm.file = pprof_str(p, m->file);
	mm.build_id = pprof_str(p, m->build_id);
	mm.flags = m->flags;
	m->sink_id = p->sink->mapping(p->sink->ctx, &mm, p->err);
	if (m->sink_id <= 0) {
		m->sink_id = 0;
		return pprof_sink_failed(p, "mapping");
	}
	return m->sink_id;
}

static int64_t
pprof_function_emit(struct pprof *p, struct pprof_function *fn)
{
	struct model_function mf;

	if (fn->sink_id != 0)
		return fn->sink_id;
	memset(&mf, 0, sizeof mf);
	mf.name = pprof_str(p, fn->name);
	mf.system_name = pprof_str(p, fn->system_name);
	mf.file = pprof_str(p, fn->file);
	mf.start_line = fn->start_line;
	fn->sink_id = p->sink->function(p->sink->ctx, &mf, p->err);
	if (fn->sink_id <= 0) {
		fn->sink_id = 0;
		return pprof_sink_failed(p, "function");
	}
	return fn->sink_id;
}

/* The frames of a location, innermost first, emitted once. */
static int
pprof_location_emit(struct pprof *p, size_t li)
{
	struct pprof_location *l = &p->locs[li];
	struct pprof_hot *h = &p->hot[li];
	struct model_frame fr;
	struct pprof_line *ln;
	int64_t *ids = p->frame_ids + h->frame;
	unsigned folded = l->folded ? FRAME_FOLDED : 0;
	size_t i;

	if (h->emitted)
		return 0;
	h->emitted = 1;
	memset(&fr, 0, sizeof fr);
	if (l->mapping != 0 &&
	    (fr.mapping = pprof_mapping_emit(p, &p->maps[l->mapping - 1])) < 0)
		return -1;
	fr.address = l->address;
	if (l->nline == 0) {
		/* Unsymbolized: the address is all there is. */
		fr.flags = folded;
		if ((ids[0] = p->sink->frame(p->sink->ctx, &fr, p->err)) <= 0)
			return pprof_sink_failed(p, "frame");
		return 0;
	}
	for (i = l->first; i < l->nline; i++) {
		ln = &p->lines[l->line + i];
		if ((fr.function = pprof_function_emit(p,
		    &p->funcs[ln->function])) < 0)
			return -1;
		fr.line = ln->line;
		fr.column = ln->column;
		fr.flags = folded | (i + 1 < l->nline ? FRAME_INLINED : 0);
		if ((ids[i - l->first] = p->sink->frame(p->sink->ctx, &fr,
		    p->err)) <= 0)
			return pprof_sink_failed(p, "frame");
	}
	return 0;
}

/* The label set of a sample's one label lb (p->mlabels[0] made from
 * it): the sink is asked once per distinct label in this decode.  The
 * same indices are the same strings, and the sink's id for the same
 * labels is the same, so what is stored does not change. */
static int64_t
pprof_lset_emit(struct pprof *p, const struct pprof_label *lb)
{
	struct pprof_lset *e;
	int64_t str = lb->str, num = str != 0 ? 0 : lb->num;
	int64_t unit = str != 0 ? 0 : lb->unit;
	uint64_t h;

	if (p->lsets == NULL)
		p->lsets = xcalloc(PPROF_LSETS, sizeof *p->lsets);
	h = hmap_mix64((uint64_t)lb->key ^ hmap_mix64((uint64_t)str ^
	    hmap_mix64((uint64_t)num ^ hmap_mix64((uint64_t)unit))));
	e = &p->lsets[h & (PPROF_LSETS - 1)];
	if (e->id > 0 && e->key == lb->key && e->str == str &&
	    e->num == num && e->unit == unit)
		return e->id;
	e->id = p->sink->labelset(p->sink->ctx, p->mlabels, 1, p->err);
	e->key = lb->key;
	e->str = str;
	e->num = num;
	e->unit = unit;
	return e->id;
}

/* The sample the walk has just loaded and checked. */
static int
pprof_sample_emit(struct pprof *p)
{
	struct model_sample ms;
	struct model_label *ml;
	const struct pprof_hot *h;
	const int64_t *ids;
	const uint64_t *loc;
	int64_t *frames;
	struct pprof_label *lb;
	size_t i, k, n, nframes = 0, nlabels = 0;

	memset(&ms, 0, sizeof ms);
	p->frames = pprof_grow(p->frames, &p->capframes, p->sdepth,
	    sizeof *p->frames);
	/* Through locals: a store to frames (int64_t) may alias the
	 * location ids (uint64_t), so p's fields would be read again. */
	frames = p->frames;
	loc = p->sloc.v;
	for (i = p->scut, n = p->sloc.n; i < n; i++) {
		h = &p->hot[loc[i]];
		if (!h->emitted && pprof_location_emit(p, loc[i]) == -1)
			return -1;
		/* Mostly one or two: a loop beats a call to memcpy. */
		ids = p->frame_ids + h->frame;
		for (k = 0; k < h->nframes; k++)
			frames[nframes++] = ids[k];
	}
	if (nframes != 0 && (ms.stack = p->sink->stack(p->sink->ctx,
	    frames, nframes, p->err)) <= 0)
		return pprof_sink_failed(p, "stack");

	p->mlabels = pprof_grow(p->mlabels, &p->capmlabels, p->nslab,
	    sizeof *p->mlabels);
	for (i = 0; i < p->nslab; i++) {
		lb = &p->slab[i];
		ml = &p->mlabels[nlabels];
		memset(ml, 0, sizeof *ml);
		ml->key = pprof_str(p, lb->key);
		/* As Go's postDecode: str wins, a label with neither str,
		 * num nor unit says nothing. */
		if (lb->str != 0)
			ml->str = pprof_str(p, lb->str);
		else if (lb->num != 0 || lb->unit != 0) {
			ml->is_num = 1;
			ml->num = lb->num;
			ml->num_unit = pprof_str(p, lb->unit);
		} else
			continue;
		nlabels++;
	}
	if (nlabels == 1 && p->nslab == 1)
		ms.labelset = pprof_lset_emit(p, &p->slab[0]);
	else if (nlabels != 0)
		ms.labelset = p->sink->labelset(p->sink->ctx, p->mlabels,
		    nlabels, p->err);
	if (nlabels != 0 && ms.labelset <= 0)
		return pprof_sink_failed(p, "labelset");

	/* int64_t may alias uint64_t. */
	ms.values = (const int64_t *)p->sval.v;
	ms.nvalues = p->sval.n;
	ms.time_ns = 0;
	if (p->sink->sample(p->sink->ctx, &ms, p->err) == -1)
		return pprof_sink_failed(p, "sample");
	return 0;
}

int
pprof_emit(struct pprof *p)
{
	struct model_meta mm;
	struct model_sizes sz;
	struct mstr *comments;
	size_t i;
	int r;

	if (p->sink->sizes != NULL) {
		sz.strings = p->nstrs;
		sz.mappings = p->nmaps;
		sz.functions = p->nfuncs;
		sz.frames = p->nlines + p->nlocs;
		sz.samples = p->nsamples;
		sz.time_ns = p->time;
		sz.time_known = 1;
		p->sink->sizes(p->sink->ctx, &sz);
	}
	for (i = 0; i < p->ntypes; i++) {
		if (p->sink->metric(p->sink->ctx,
		    pprof_str(p, p->types[i].type),
		    pprof_str(p, p->types[i].unit), p->err) == -1)
			return pprof_sink_failed(p, "metric");
	}
	if (pprof_samples(p, pprof_sample_emit) == -1)
		return -1;

	memset(&mm, 0, sizeof mm);
	mm.time_ns = p->time;
	mm.duration_ns = p->duration;
	mm.period = p->period;
	mm.period_type = pprof_str(p, p->period_type.type);
	mm.period_unit = pprof_str(p, p->period_type.unit);
	comments = xcalloc(p->comments.n, sizeof *comments);
	for (i = 0; i < p->comments.n; i++)
		comments[i] = pprof_str(p, (int64_t)p->comments.v[i]);
	mm.comments = comments;
	mm.ncomments = p->comments.n;
	mm.default_metric = p->default_metric;
	mm.doc_url = pprof_str(p, p->doc_url);
	mm.samples = p->nsamples;
	mm.dropped_samples = 0;
	r = p->sink->meta(p->sink->ctx, &mm, p->err);
	free(comments);
	if (r == -1)
		return pprof_sink_failed(p, "meta");
	return 0;
}
