/* otlp-emit.c: one checked Profile of a request onto the sink: its
 * sample type the metric, mappings, functions and frames as its samples
 * first use them (a location's lines are its frames, the innermost
 * first, as pprof's), each stack once, each sample's attributes and link
 * its labels, and each of its values (or timestamps) a sample at its
 * time. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "hmap.h"
#include "otlp-int.h"

struct em {
	struct otlp_req *r;
	const struct sink *sink;
	struct error *err;
	/* Sink ids by table index, absent until emitted (stacks: the id
	 * + 1, an empty stack's 0 being 1).  Maps, not arrays the size of
	 * the dictionary: a request's Profiles share one dictionary and are
	 * emitted one by one, each costing what it uses. */
	struct imap maps, funcs, stacks;
	/* A location's frames: first in frames + 1, and how many. */
	struct imap loc_first, loc_n;
	int64_t *frames;
	size_t nframes, capframes;
	int64_t *stack;			/* one stack's frames */
	size_t capstack;
	struct model_label *labels;
	char (*texts)[OTLP_TEXT_MAX];
	size_t caplabels;
};

static int
em_failed(struct em *e, const char *what)
{
	return error_set(e->err, ERR_INTERNAL, "OTLP: sink %s failed", what);
}

static int64_t
em_mapping(struct em *e, int64_t i)
{
	const struct otlp_mapping *m = OTLP_AT(&e->r->mappings,
	    struct otlp_mapping, i);
	struct model_mapping mm;
	int64_t id;

	if (i == 0 || (id = imap_get(&e->maps, (uint64_t)i)) != 0)
		return i == 0 ? 0 : id;
	memset(&mm, 0, sizeof mm);
	mm.start = m->start;
	mm.limit = m->limit;
	mm.offset = m->offset;
	mm.file = otlp_str(e->r, m->file);
	if ((id = e->sink->mapping(e->sink->ctx, &mm, e->err)) <= 0)
		return em_failed(e, "mapping");
	imap_put(&e->maps, (uint64_t)i, id);
	return id;
}

static int64_t
em_function(struct em *e, int64_t i)
{
	const struct otlp_function *f = OTLP_AT(&e->r->functions,
	    struct otlp_function, i);
	struct model_function mf;
	int64_t id;

	if (i == 0 || (id = imap_get(&e->funcs, (uint64_t)i)) != 0)
		return i == 0 ? 0 : id;
	memset(&mf, 0, sizeof mf);
	mf.name = otlp_str(e->r, f->name);
	mf.system_name = otlp_str(e->r, f->system_name);
	mf.file = otlp_str(e->r, f->file);
	mf.start_line = f->start_line;
	if ((id = e->sink->function(e->sink->ctx, &mf, e->err)) <= 0)
		return em_failed(e, "function");
	imap_put(&e->funcs, (uint64_t)i, id);
	return id;
}

static int
em_frame(struct em *e, const struct model_frame *fr)
{
	int64_t id;

	if ((id = e->sink->frame(e->sink->ctx, fr, e->err)) <= 0)
		return em_failed(e, "frame");
	if (e->nframes == e->capframes) {
		e->capframes = e->capframes ? e->capframes * 2 : 256;
		e->frames = xreallocarray(e->frames, e->capframes,
		    sizeof *e->frames);
	}
	e->frames[e->nframes++] = id;
	return 0;
}

/* Location i's frames, innermost first, emitted once. */
static int
em_location(struct em *e, int64_t i)
{
	const struct otlp_location *l = OTLP_AT(&e->r->locations,
	    struct otlp_location, i);
	struct model_frame fr;
	size_t k, first = e->nframes;

	if (imap_get(&e->loc_n, (uint64_t)i) != 0)
		return 0;
	memset(&fr, 0, sizeof fr);
	if ((fr.mapping = em_mapping(e, l->mapping)) < 0)
		return -1;
	fr.address = l->address;
	/* Unsymbolized: the address is all there is. */
	if (l->nline == 0 && em_frame(e, &fr) == -1)
		return -1;
	for (k = 0; k < l->nline; k++) {
		const struct otlp_line *ln = OTLP_AT(&e->r->lines,
		    struct otlp_line, l->line + k);

		if ((fr.function = em_function(e, ln->function)) < 0)
			return -1;
		fr.line = ln->line;
		fr.column = ln->column;
		fr.flags = k + 1 < l->nline ? FRAME_INLINED : 0;
		if (em_frame(e, &fr) == -1)
			return -1;
	}
	/* At least one frame: an unsymbolized location is its address. */
	imap_put(&e->loc_first, (uint64_t)i, (int64_t)first + 1);
	imap_put(&e->loc_n, (uint64_t)i, (int64_t)(e->nframes - first));
	return 0;
}

/* Stack i's sink id (0: empty), emitted once. */
static int64_t
em_stack(struct em *e, int64_t i)
{
	const struct otlp_run *st = OTLP_AT(&e->r->stacks, struct otlp_run,
	    i);
	size_t k, j, n = 0, first, nf;
	int64_t loc, id = imap_get(&e->stacks, (uint64_t)i);

	if (id != 0)
		return id - 1;
	for (k = 0; k < st->n; k++) {
		loc = e->r->idx.v[st->first + k];
		if (em_location(e, loc) == -1)
			return -1;
		first = (size_t)imap_get(&e->loc_first, (uint64_t)loc) - 1;
		nf = (size_t)imap_get(&e->loc_n, (uint64_t)loc);
		if (e->capstack < n + nf) {
			e->capstack = (n + nf) * 2;
			e->stack = xreallocarray(e->stack, e->capstack,
			    sizeof *e->stack);
		}
		for (j = 0; j < nf; j++)
			e->stack[n++] = e->frames[first + j];
	}
	if (n > 0 && (id = e->sink->stack(e->sink->ctx, e->stack, n,
	    e->err)) <= 0)
		return em_failed(e, "stack");
	imap_put(&e->stacks, (uint64_t)i, id + 1);
	return id;
}

/* A sample's labels: its attributes (an integer one numeric, with its
 * unit, as pprof's numeric labels) and its link's ids in hex. */
static int64_t
em_labels(struct em *e, const struct otlp_sample *s)
{
	struct model_label *ml;
	const struct otlp_link *lk = OTLP_AT(&e->r->links, struct otlp_link,
	    s->link);
	struct otlp_value id;
	size_t k, n = 0;
	int64_t ls;

	if (e->caplabels < s->attrs.n + 2) {
		e->caplabels = s->attrs.n + 2;
		e->labels = xreallocarray(e->labels, e->caplabels,
		    sizeof *e->labels);
		e->texts = xreallocarray(e->texts, e->caplabels,
		    sizeof *e->texts);
	}
	for (k = 0; k < s->attrs.n; k++) {
		const struct otlp_attr *a = OTLP_AT(&e->r->attrs,
		    struct otlp_attr, e->r->idx.v[s->attrs.first + k]);

		ml = &e->labels[n];
		memset(ml, 0, sizeof *ml);
		ml->key = otlp_str(e->r, a->key);
		if (ml->key.n == 0)
			continue;
		if (a->v.kind == OTLP_V_INT) {
			ml->is_num = 1;
			ml->num = a->v.i;
			ml->num_unit = otlp_str(e->r, a->unit);
		} else if (otlp_value_text(e->r, &a->v, e->texts[n],
		    &ml->str) == -1)
			continue;
		n++;
	}
	for (k = 0; s->link != 0 && k < 2; k++) {
		memset(&id, 0, sizeof id);
		id.kind = OTLP_V_BYTES;
		id.s = k == 0 ? lk->trace_id : lk->span_id;
		ml = &e->labels[n];
		memset(ml, 0, sizeof *ml);
		ml->key = k == 0 ? MSTR_LIT("trace_id") : MSTR_LIT("span_id");
		if (id.s.n > 0 && otlp_value_text(e->r, &id, e->texts[n],
		    &ml->str) == 0)
			n++;
	}
	if (n == 0)
		return 0;
	if ((ls = e->sink->labelset(e->sink->ctx, e->labels, n, e->err)) <= 0)
		return em_failed(e, "labelset");
	return ls;
}

/* Each value a sample (1 for a timestamp without one), at its
 * timestamp if it has one, else at the profile's time. */
static int
em_sample(struct em *e, const struct otlp_sample *s)
{
	struct model_sample ms;
	size_t k, n = s->values.n > s->times.n ? s->values.n : s->times.n;
	int64_t v;

	memset(&ms, 0, sizeof ms);
	if ((ms.stack = em_stack(e, s->stack)) < 0 ||
	    (ms.labelset = em_labels(e, s)) < 0)
		return -1;
	ms.values = &v;
	ms.nvalues = 1;
	for (k = 0; k < n; k++) {
		v = s->values.n > 0 ? e->r->vals.v[s->values.first + k] : 1;
		ms.time_ns = s->times.n > 0 ?
		    e->r->times.v[s->times.first + k] : 0;
		if (e->sink->sample(e->sink->ctx, &ms, e->err) == -1)
			return em_failed(e, "sample");
	}
	return 0;
}

static void
em_free(struct em *e)
{
	imap_clear(&e->maps);
	imap_clear(&e->funcs);
	imap_clear(&e->stacks);
	imap_clear(&e->loc_first);
	imap_clear(&e->loc_n);
	free(e->frames);
	free(e->stack);
	free(e->labels);
	free(e->texts);
}

int
otlp_emit(struct otlp_req *r, size_t i, const struct sink *sink,
    struct error *err)
{
	const struct otlp_profile *p = OTLP_AT(&r->profiles,
	    struct otlp_profile, i);
	struct em e;
	struct model_sizes sz;
	struct model_meta mm;
	size_t k;
	int rc = -1;

	memset(&e, 0, sizeof e);
	e.r = r;
	e.sink = sink;
	e.err = err;
	if (sink->sizes != NULL) {
		memset(&sz, 0, sizeof sz);
		sz.strings = r->strings.n;
		sz.mappings = r->mappings.n;
		sz.functions = r->functions.n;
		sz.frames = r->lines.n + r->locations.n;
		sz.samples = p->nsample;
		sz.time_ns = (int64_t)p->time_ns;
		sz.time_known = 1;
		sink->sizes(sink->ctx, &sz);
	}
	if (sink->metric(sink->ctx, otlp_str(r, p->sample_type.type),
	    otlp_str(r, p->sample_type.unit), err) == -1) {
		em_failed(&e, "metric");
		goto out;
	}
	for (k = 0; k < p->nsample; k++)
		if (em_sample(&e, OTLP_AT(&r->samples, struct otlp_sample,
		    p->sample + k)) == -1)
			goto out;
	memset(&mm, 0, sizeof mm);
	mm.time_ns = (int64_t)p->time_ns;
	mm.duration_ns = (int64_t)p->duration_ns;
	mm.period = p->period;
	mm.period_type = otlp_str(r, p->period_type.type);
	mm.period_unit = otlp_str(r, p->period_type.unit);
	mm.default_metric = 0;
	mm.samples = p->nsample;
	if (sink->meta(sink->ctx, &mm, err) == -1) {
		em_failed(&e, "meta");
		goto out;
	}
	rc = 0;
out:
	em_free(&e);
	return rc;
}
