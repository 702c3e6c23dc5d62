/* testrec.h: a recording sink for the decoder unit tests, which keeps
 * every call made to it.
 *
 * The sink records the union of what the pprof, Perfetto and folded
 * decoders emit and checks what holds for all of them (ids in range, one
 * meta, call order).  A test adds checks of its own through rec_hooks,
 * called after the common checks and before the call is recorded. */
#ifndef PROFD_TESTREC_H
#define PROFD_TESTREC_H

#include "alloc.h"
#include "model.h"
#include "mstr.h"
#include "nitems.h"
#include "testlib.h"

/* ---- a recording sink ---- */

struct rec;

/* A test's own checks on what reaches the sink; any may be NULL. */
struct rec_hooks {
	void	(*mapping)(const struct rec *, const struct model_mapping *);
	void	(*function)(const struct rec *, const struct model_function *);
	void	(*frame)(const struct rec *, const struct model_frame *);
	void	(*stack)(const struct rec *, const int64_t *, size_t);
	void	(*labelset)(const struct rec *, const struct model_label *,
		    size_t);
	void	(*sample)(const struct rec *, const struct model_sample *);
};

struct rlabel {
	char		*key, *str, *unit;
	int64_t		 num;
	int		 is_num;
};

struct rec {
	const struct rec_hooks *hooks;
	char		 fail_on;	/* make this kind of call fail */

	char		 log[256];	/* a letter per call */
	size_t		 nlog, calls;
	int		 bad_order;	/* late metric, call after meta */
	int		 after_meta;	/* a call after meta */
	int		 seen_data, seen_meta;

	char		*mtype[32], *munit[32];
	size_t		 nmetrics;
	struct rmapping {
		struct model_mapping m;
		char		*file, *build_id;
	}		*maps;
	size_t		 nmaps;
	struct rfunction {
		char		*name, *system_name, *file;
		int64_t		 start_line;
	}		*funcs;
	size_t		 nfuncs;
	struct model_frame *frames;
	size_t		 nframes;
	struct rstack {
		int64_t		*ids;
		size_t		 n;
	}		*stacks;
	size_t		 nstacks;
	struct rlabelset {
		struct rlabel	*l;
		size_t		 n;
	}		*labelsets;
	size_t		 nlabelsets;
	struct rsample {
		int64_t		 stack, labelset, time_ns;
		int64_t		 values[32];
		size_t		 nvalues;
	}		*samples;
	size_t		 nsamples;
	int		 has_meta, nmeta;
	struct model_meta meta;		/* comments, counts: below */
	char		*period_type, *period_unit, *doc_url;
	char		*comments[8];
	char		*cname[8];
	uint64_t	 cn[8];
};

#define REC_HOOK(r, name, ...) do {					\
	if ((r)->hooks != NULL && (r)->hooks->name != NULL)		\
		(r)->hooks->name((r), __VA_ARGS__);			\
} while (0)

static inline char *
dup_mstr(struct mstr s)
{
	CHECK(s.p != NULL || s.n == 0);
	return xmstrdup(s);
}

static inline int
rec_call(struct rec *r, char c, struct error *err)
{
	if (r->nlog + 1 < sizeof r->log)
		r->log[r->nlog++] = c;
	r->calls++;
	if (r->seen_meta)
		r->bad_order = r->after_meta = 1;
	if (c == 'T' && r->seen_data)
		r->bad_order = 1;
	if (c != 'T' && c != 'X')
		r->seen_data = 1;
	if (c == 'X')
		r->seen_meta = 1;
	if (r->fail_on == c)
		return error_set(err, ERR_INTERNAL, "test sink: %c refused", c);
	return 0;
}

static inline int
rec_metric(void *ctx, struct mstr type, struct mstr unit, struct error *err)
{
	struct rec *r = ctx;

	if (rec_call(r, 'T', err) == -1)
		return -1;
	CHECK(r->nmetrics < NITEMS(r->mtype));
	r->mtype[r->nmetrics] = dup_mstr(type);
	r->munit[r->nmetrics++] = dup_mstr(unit);
	return 0;
}

/* Room for element n of an array grown one at a time: doubled when n
 * is 0 or a power of two (the capacity is implied by the count), so a
 * 12 MB profile's million samples do not copy the array each time
 * (ASan's realloc always copies). */
static inline void *
rec_more(void *p, size_t n, size_t size)
{
	if ((n & (n - 1)) != 0)
		return p;
	return xreallocarray(p, n ? n * 2 : 1, size);
}

static inline int64_t
rec_mapping(void *ctx, const struct model_mapping *m, struct error *err)
{
	struct rec *r = ctx;
	struct rmapping *rm;

	if (rec_call(r, 'M', err) == -1)
		return -1;
	REC_HOOK(r, mapping, m);
	r->maps = rec_more(r->maps, r->nmaps, sizeof *r->maps);
	rm = &r->maps[r->nmaps++];
	rm->m = *m;
	rm->file = dup_mstr(m->file);
	rm->build_id = dup_mstr(m->build_id);
	return (int64_t)r->nmaps;
}

static inline int64_t
rec_function(void *ctx, const struct model_function *f, struct error *err)
{
	struct rec *r = ctx;
	struct rfunction *rf;

	if (rec_call(r, 'F', err) == -1)
		return -1;
	REC_HOOK(r, function, f);
	r->funcs = rec_more(r->funcs, r->nfuncs, sizeof *r->funcs);
	rf = &r->funcs[r->nfuncs++];
	rf->name = dup_mstr(f->name);
	rf->system_name = dup_mstr(f->system_name);
	rf->file = dup_mstr(f->file);
	rf->start_line = f->start_line;
	return (int64_t)r->nfuncs;
}

static inline int64_t
rec_frame(void *ctx, const struct model_frame *f, struct error *err)
{
	struct rec *r = ctx;

	if (rec_call(r, 'R', err) == -1)
		return -1;
	CHECK(f->function >= 0 && (size_t)f->function <= r->nfuncs);
	CHECK(f->mapping >= 0 && (size_t)f->mapping <= r->nmaps);
	REC_HOOK(r, frame, f);
	r->frames = rec_more(r->frames, r->nframes, sizeof *r->frames);
	r->frames[r->nframes++] = *f;
	return (int64_t)r->nframes;
}

static inline int64_t
rec_stack(void *ctx, const int64_t *ids, size_t n, struct error *err)
{
	struct rec *r = ctx;
	struct rstack *s;
	size_t i;

	if (rec_call(r, 'K', err) == -1)
		return -1;
	CHECK(n > 0);
	for (i = 0; i < n; i++)
		CHECK(ids[i] > 0 && (size_t)ids[i] <= r->nframes);
	REC_HOOK(r, stack, ids, n);
	r->stacks = rec_more(r->stacks, r->nstacks, sizeof *r->stacks);
	s = &r->stacks[r->nstacks++];
	s->ids = xreallocarray(NULL, n, sizeof *s->ids);
	memcpy(s->ids, ids, n * sizeof *ids);
	s->n = n;
	return (int64_t)r->nstacks;
}

static inline int64_t
rec_labelset(void *ctx, const struct model_label *l, size_t n,
    struct error *err)
{
	struct rec *r = ctx;
	struct rlabelset *ls;
	size_t i;

	if (rec_call(r, 'L', err) == -1)
		return -1;
	REC_HOOK(r, labelset, l, n);
	CHECK(n > 0);
	r->labelsets = rec_more(r->labelsets, r->nlabelsets,
	    sizeof *r->labelsets);
	ls = &r->labelsets[r->nlabelsets++];
	ls->l = xreallocarray(NULL, n, sizeof *ls->l);
	ls->n = n;
	for (i = 0; i < n; i++) {
		ls->l[i].key = dup_mstr(l[i].key);
		ls->l[i].str = dup_mstr(l[i].str);
		ls->l[i].unit = dup_mstr(l[i].num_unit);
		ls->l[i].num = l[i].num;
		ls->l[i].is_num = l[i].is_num;
	}
	return (int64_t)r->nlabelsets;
}

static inline int
rec_sample(void *ctx, const struct model_sample *s, struct error *err)
{
	struct rec *r = ctx;
	struct rsample *rs;

	if (rec_call(r, 'S', err) == -1)
		return -1;
	CHECK(s->nvalues == r->nmetrics);
	CHECK(s->nvalues <= NITEMS(rs->values));
	CHECK(s->stack >= 0 && (size_t)s->stack <= r->nstacks);
	CHECK(s->labelset >= 0 && (size_t)s->labelset <= r->nlabelsets);
	REC_HOOK(r, sample, s);
	r->samples = rec_more(r->samples, r->nsamples, sizeof *r->samples);
	rs = &r->samples[r->nsamples++];
	memset(rs, 0, sizeof *rs);
	rs->stack = s->stack;
	rs->labelset = s->labelset;
	rs->time_ns = s->time_ns;
	rs->nvalues = s->nvalues;
	if (s->nvalues != 0)
		memcpy(rs->values, s->values, s->nvalues * sizeof *s->values);
	return 0;
}

static inline int
rec_meta(void *ctx, const struct model_meta *m, struct error *err)
{
	struct rec *r = ctx;
	size_t i;

	if (rec_call(r, 'X', err) == -1)
		return -1;
	CHECK(!r->has_meta);
	r->has_meta = 1;
	r->nmeta++;
	r->meta = *m;
	r->period_type = dup_mstr(m->period_type);
	r->period_unit = dup_mstr(m->period_unit);
	r->doc_url = dup_mstr(m->doc_url);
	CHECK(m->ncomments <= NITEMS(r->comments));
	for (i = 0; i < m->ncomments; i++)
		r->comments[i] = dup_mstr(m->comments[i]);
	r->meta.comments = NULL;
	CHECK(m->ncounts <= NITEMS(r->cname));
	for (i = 0; i < m->ncounts; i++) {
		r->cname[i] = xstrdup(m->counts[i].name);
		r->cn[i] = m->counts[i].n;
	}
	r->meta.counts = NULL;
	return 0;
}

static inline void
rec_free(struct rec *r)
{
	size_t i, j;

	for (i = 0; i < r->nmetrics; i++) {
		free(r->mtype[i]);
		free(r->munit[i]);
	}
	for (i = 0; i < r->nmaps; i++) {
		free(r->maps[i].file);
		free(r->maps[i].build_id);
	}
	free(r->maps);
	for (i = 0; i < r->nfuncs; i++) {
		free(r->funcs[i].name);
		free(r->funcs[i].system_name);
		free(r->funcs[i].file);
	}
	free(r->funcs);
	free(r->frames);
	for (i = 0; i < r->nstacks; i++)
		free(r->stacks[i].ids);
	free(r->stacks);
	for (i = 0; i < r->nlabelsets; i++) {
		for (j = 0; j < r->labelsets[i].n; j++) {
			free(r->labelsets[i].l[j].key);
			free(r->labelsets[i].l[j].str);
			free(r->labelsets[i].l[j].unit);
		}
		free(r->labelsets[i].l);
	}
	free(r->labelsets);
	free(r->samples);
	free(r->period_type);
	free(r->period_unit);
	free(r->doc_url);
	for (i = 0; i < r->meta.ncomments && i < NITEMS(r->comments); i++)
		free(r->comments[i]);
	for (i = 0; i < r->meta.ncounts && i < NITEMS(r->cname); i++)
		free(r->cname[i]);
	memset(r, 0, sizeof *r);
}

/* A sink that records into r as it is (fail_on and hooks kept). */
static inline struct sink
rec_attach(struct rec *r)
{
	struct sink s;

	memset(&s, 0, sizeof s);
	s.ctx = r;
	s.metric = rec_metric;
	s.mapping = rec_mapping;
	s.function = rec_function;
	s.frame = rec_frame;
	s.stack = rec_stack;
	s.labelset = rec_labelset;
	s.sample = rec_sample;
	s.meta = rec_meta;
	return s;
}

/* A sink that records into r, emptied first. */
static inline struct sink
rec_sink(struct rec *r)
{
	memset(r, 0, sizeof *r);
	return rec_attach(r);
}

/* A source that hands out a few bytes at a time, so that what a text
 * decoder reads straddles reads (folded and perf script tests). */
struct drip {
	const uint8_t	*p;
	size_t		 n, step;
};

static inline ssize_t
drip_read(void *ctx, uint8_t *buf, size_t n, struct error *err)
{
	struct drip *d = ctx;

	if (n > d->n)
		n = d->n;
	if (n > d->step)
		n = d->step;
	memcpy(buf, d->p, n);
	d->p += n;
	d->n -= n;
	d->step = d->step % 7 + 1;
	return (ssize_t)n;
}

#endif /* PROFD_TESTREC_H */
