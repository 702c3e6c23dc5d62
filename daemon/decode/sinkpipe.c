/* sinkpipe.c: the decoder on a thread of its own (sinkpipe.h).
 *
 * Why: an import was one thread doing everything in turn, inflating,
 * decoding each sample, interning its stack; a 40 MB pprof took 0.66 s
 * where gzip -dc takes 0.16 (issue 41).  The decoder (no SQL, no store)
 * now runs on a thread of its own and writes its sink calls as records
 * into a queue; the caller's thread reads them and makes the same calls
 * on the real sink, which stays on the thread that holds the store's
 * transaction.
 *
 * No call waits for the other thread: the decoder is given ids of its
 * own (1, 2, 3... per kind: mappings, functions, frames, stacks, label
 * sets), which the reading side maps to the sink's as it makes the calls
 * (the sink's ids are opaque to a decoder, model.h).  A stack is written
 * as the part below what it shares with the stack before it (samples in
 * a row mostly share their outer frames), so that a sample costs tens of
 * bytes of queue.  Strings are copied into the record: a decoder's
 * strings are only valid during the call.
 *
 * The queue is bounded (SP_QUEUED chunks of SP_WORDS words; a record
 * larger than a chunk gets one of its own size): a decoder faster than
 * the store waits.  When the sink fails, the decoder's next call fails
 * and it stops; the records it had queued are dropped unread.  The
 * sink's error wins; a decoder's own error (bad input) is returned once
 * every record before it has been handed over, as when the decoder ran
 * on the caller's thread. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "sinkpipe.h"

/* Words (8 bytes) of a chunk, chunks queued at most: 4 MiB in flight.
 * A chunk is a few thousand samples, so that the threads wake each
 * other a few hundred times in a large profile, not thousands; sixteen
 * let the decoder run on while the store's side stalls (its map made,
 * a block written): the 40 MB import 0.498 -> 0.456 s against four
 * (0.477 -> 0.462 s in a second run; 64 no faster, 8 MiB more RSS). */
#define SP_WORDS	32768u
#define SP_QUEUED	16u

enum sp_rec {
	SP_METRIC = 1, SP_MAPPING, SP_FUNCTION, SP_FRAME, SP_STACK,
	SP_LABELSET, SP_SAMPLE, SP_META, SP_SIZES,
};

/* The kinds of ids handed to the decoder in place of the sink's. */
enum sp_kind { K_MAPPING, K_FUNCTION, K_FRAME, K_STACK, K_LABELSET, K_N };

struct sp_chunk {
	struct sp_chunk *next;
	size_t n, cap;			/* words used, words */
	uint64_t w[];
};

struct sp_ids {
	int64_t *v;			/* the decoder's id i + 1 is v[i] */
	uint64_t given;			/* ids mapped so far */
	int64_t last;			/* the last, when v is not kept */
};

struct sinkpipe {
	pthread_mutex_t mu;
	pthread_cond_t data, room;
	struct sp_chunk *head, *tail;	/* queued, oldest first */
	struct sp_chunk *spare;		/* chunks of SP_WORDS to reuse */
	size_t queued;
	int done;			/* the decoder has returned */
	atomic_int failed;		/* the sink failed: stop decoding */

	/* The decoder's thread. */
	const struct format *fmt;
	struct stream *in;
	const struct decode_opts *opts;
	const struct limits *lim;
	struct sink sink;		/* this pipe's */
	int drc;
	struct error derr;
	struct sp_chunk *cur;		/* being written */
	int64_t next[K_N];
	int64_t *prev;			/* the last stack, root first */
	size_t nprev, capprev;

	/* The caller's thread. */
	const struct sink *out;
	struct sp_ids ids[K_N];
	int64_t *stack;			/* the last stack, leaf first, at */
	size_t capstack;		/* the end of capstack */
	struct model_label *labels;
	size_t caplabels;
};

/* ---- the queue ---- */

static void
sp_give_back(struct sinkpipe *sp, struct sp_chunk *c)
{
	if (c->cap == SP_WORDS) {
		c->next = sp->spare;
		sp->spare = c;
	} else
		free(c);
}

/* A chunk queued for the reader (or dropped once the sink failed): the
 * writer waits while the queue is full. */
static void
sp_publish(struct sinkpipe *sp, struct sp_chunk *c)
{
	pthread_mutex_lock(&sp->mu);
	while (sp->queued >= SP_QUEUED && !atomic_load(&sp->failed))
		pthread_cond_wait(&sp->room, &sp->mu);
	if (atomic_load(&sp->failed))
		sp_give_back(sp, c);
	else {
		c->next = NULL;
		if (sp->tail != NULL)
			sp->tail->next = c;
		else
			sp->head = c;
		sp->tail = c;
		sp->queued++;
		pthread_cond_signal(&sp->data);
	}
	pthread_mutex_unlock(&sp->mu);
}

/* Room for a record of words words: where to write it. */
static uint64_t *
sp_room(struct sinkpipe *sp, size_t words)
{
	struct sp_chunk *c = sp->cur;
	size_t cap = words > SP_WORDS ? words : SP_WORDS;
	uint64_t *w;

	if (c == NULL || c->cap - c->n < words) {
		if (c != NULL)
			sp_publish(sp, c);
		c = NULL;
		pthread_mutex_lock(&sp->mu);
		if (cap == SP_WORDS && sp->spare != NULL) {
			c = sp->spare;
			sp->spare = c->next;
		}
		pthread_mutex_unlock(&sp->mu);
		if (c == NULL) {
			c = xmalloc(sizeof *c + cap * sizeof c->w[0]);
			c->cap = cap;
		}
		c->n = 0;
		sp->cur = c;
	}
	w = c->w + c->n;
	c->n += words;
	return w;
}

/* ---- records: words; a string is its length then its bytes ---- */

static size_t
sp_strw(struct mstr s)
{
	return 1 + (s.n + 7) / 8;
}

static uint64_t *
sp_put_str(uint64_t *w, struct mstr s)
{
	*w++ = s.n;
	if (s.n > 0)
		memcpy(w, s.p, s.n);
	return w + (s.n + 7) / 8;
}

static struct mstr
sp_get_str(const uint64_t **w)
{
	struct mstr s;

	s.n = (size_t)*(*w)++;
	s.p = (const char *)*w;
	*w += (s.n + 7) / 8;
	return s;
}

static uint64_t
sp_head(enum sp_rec type, size_t words)
{
	return (uint64_t)type | (uint64_t)words << 8;
}

/* ---- the decoder's side: its sink ---- */

static int
sp_stopped(struct sinkpipe *sp, struct error *err)
{
	if (!atomic_load_explicit(&sp->failed, memory_order_relaxed))
		return 0;
	return error_set(err, ERR_INTERNAL, "the import stopped");
}

static int
sp_metric(void *ctx, struct mstr type, struct mstr unit, struct error *err)
{
	struct sinkpipe *sp = ctx;
	size_t words = 1 + sp_strw(type) + sp_strw(unit);
	uint64_t *w;

	if (sp_stopped(sp, err) == -1)
		return -1;
	w = sp_room(sp, words);
	*w++ = sp_head(SP_METRIC, words);
	sp_put_str(sp_put_str(w, type), unit);
	return 0;
}

static int64_t
sp_mapping(void *ctx, const struct model_mapping *m, struct error *err)
{
	struct sinkpipe *sp = ctx;
	size_t words = 5 + sp_strw(m->file) + sp_strw(m->build_id);
	uint64_t *w;

	if (sp_stopped(sp, err) == -1)
		return -1;
	w = sp_room(sp, words);
	*w++ = sp_head(SP_MAPPING, words);
	*w++ = m->start;
	*w++ = m->limit;
	*w++ = m->offset;
	*w++ = m->flags;
	sp_put_str(sp_put_str(w, m->file), m->build_id);
	return ++sp->next[K_MAPPING];
}

static int64_t
sp_function(void *ctx, const struct model_function *f, struct error *err)
{
	struct sinkpipe *sp = ctx;
	size_t words = 2 + sp_strw(f->name) + sp_strw(f->system_name) +
	    sp_strw(f->file);
	uint64_t *w;

	if (sp_stopped(sp, err) == -1)
		return -1;
	w = sp_room(sp, words);
	*w++ = sp_head(SP_FUNCTION, words);
	*w++ = (uint64_t)f->start_line;
	sp_put_str(sp_put_str(sp_put_str(w, f->name), f->system_name),
	    f->file);
	return ++sp->next[K_FUNCTION];
}

static int64_t
sp_frame(void *ctx, const struct model_frame *fr, struct error *err)
{
	struct sinkpipe *sp = ctx;
	uint64_t *w;

	if (sp_stopped(sp, err) == -1)
		return -1;
	w = sp_room(sp, 7);
	w[0] = sp_head(SP_FRAME, 7);
	w[1] = (uint64_t)fr->function;
	w[2] = (uint64_t)fr->mapping;
	w[3] = fr->address;
	w[4] = (uint64_t)fr->line;
	w[5] = (uint64_t)fr->column;
	w[6] = fr->flags;
	return ++sp->next[K_FRAME];
}

/* n frames, the first `keep` from the root those of the stack before. */
static int64_t
sp_stack(void *ctx, const int64_t *frames, size_t n, struct error *err)
{
	struct sinkpipe *sp = ctx;
	size_t keep, d;
	uint64_t *w;

	if (sp_stopped(sp, err) == -1)
		return -1;
	for (keep = 0; keep < n && keep < sp->nprev &&
	    sp->prev[keep] == frames[n - 1 - keep]; keep++)
		;
	if (n > sp->capprev) {
		sp->capprev = n;
		sp->prev = xreallocarray(sp->prev, n, sizeof *sp->prev);
	}
	w = sp_room(sp, 3 + n - keep);
	*w++ = sp_head(SP_STACK, 3 + n - keep);
	*w++ = n;
	*w++ = keep;
	for (d = keep; d < n; d++)
		*w++ = (uint64_t)(sp->prev[d] = frames[n - 1 - d]);
	sp->nprev = n;
	return ++sp->next[K_STACK];
}

static int64_t
sp_labelset(void *ctx, const struct model_label *l, size_t n,
    struct error *err)
{
	struct sinkpipe *sp = ctx;
	size_t i, words = 2;
	uint64_t *w;

	if (sp_stopped(sp, err) == -1)
		return -1;
	for (i = 0; i < n; i++)
		words += 2 + sp_strw(l[i].key) + sp_strw(l[i].str) +
		    sp_strw(l[i].num_unit);
	w = sp_room(sp, words);
	*w++ = sp_head(SP_LABELSET, words);
	*w++ = n;
	for (i = 0; i < n; i++) {
		*w++ = (uint64_t)l[i].is_num;
		*w++ = (uint64_t)l[i].num;
		w = sp_put_str(sp_put_str(sp_put_str(w, l[i].key), l[i].str),
		    l[i].num_unit);
	}
	return ++sp->next[K_LABELSET];
}

static int
sp_sample(void *ctx, const struct model_sample *s, struct error *err)
{
	struct sinkpipe *sp = ctx;
	size_t words = 5 + s->nvalues;
	uint64_t *w;

	if (sp_stopped(sp, err) == -1)
		return -1;
	w = sp_room(sp, words);
	w[0] = sp_head(SP_SAMPLE, words);
	w[1] = (uint64_t)s->stack;
	w[2] = (uint64_t)s->labelset;
	w[3] = (uint64_t)s->time_ns;
	w[4] = s->nvalues;
	if (s->nvalues > 0)
		memcpy(w + 5, s->values, s->nvalues * sizeof *s->values);
	return 0;
}

static int
sp_meta(void *ctx, const struct model_meta *m, struct error *err)
{
	struct sinkpipe *sp = ctx;
	size_t i, words = 9 + sp_strw(m->period_type) +
	    sp_strw(m->period_unit) + sp_strw(m->doc_url);
	uint64_t *w;

	if (sp_stopped(sp, err) == -1)
		return -1;
	for (i = 0; i < m->ncomments; i++)
		words += sp_strw(m->comments[i]);
	for (i = 0; i < m->ncounts; i++)
		words += 1 + sp_strw(mstr_from(m->counts[i].name));
	w = sp_room(sp, words);
	*w++ = sp_head(SP_META, words);
	*w++ = (uint64_t)m->time_ns;
	*w++ = (uint64_t)m->duration_ns;
	*w++ = (uint64_t)m->period;
	*w++ = (uint64_t)(int64_t)m->default_metric;
	*w++ = m->samples;
	*w++ = m->dropped_samples;
	w = sp_put_str(sp_put_str(sp_put_str(w, m->period_type),
	    m->period_unit), m->doc_url);
	*w++ = m->ncomments;
	for (i = 0; i < m->ncomments; i++)
		w = sp_put_str(w, m->comments[i]);
	*w++ = m->ncounts;
	for (i = 0; i < m->ncounts; i++) {
		*w++ = m->counts[i].n;
		w = sp_put_str(w, mstr_from(m->counts[i].name));
	}
	return 0;
}

static void
sp_sizes(void *ctx, const struct model_sizes *sz)
{
	struct sinkpipe *sp = ctx;
	uint64_t *w;

	if (atomic_load(&sp->failed))
		return;
	w = sp_room(sp, 8);
	w[0] = sp_head(SP_SIZES, 8);
	w[1] = sz->strings;
	w[2] = sz->mappings;
	w[3] = sz->functions;
	w[4] = sz->frames;
	w[5] = sz->samples;
	w[6] = (uint64_t)sz->time_ns;
	w[7] = (uint64_t)sz->time_known;
}

static void *
sp_main(void *arg)
{
	struct sinkpipe *sp = arg;
	struct sp_chunk *c;

	sp->drc = sp->fmt->decode(sp->in, sp->opts, sp->lim, &sp->sink,
	    &sp->derr);
	if ((c = sp->cur) != NULL) {
		sp->cur = NULL;
		if (c->n > 0)
			sp_publish(sp, c);
		else {
			pthread_mutex_lock(&sp->mu);
			sp_give_back(sp, c);
			pthread_mutex_unlock(&sp->mu);
		}
	}
	pthread_mutex_lock(&sp->mu);
	sp->done = 1;
	pthread_cond_signal(&sp->data);
	pthread_mutex_unlock(&sp->mu);
	return NULL;
}

/* ---- the caller's side: the same calls on its sink ---- */

/* The sink's id for the decoder's id w of kind k (0: none). */
static int64_t
sp_id(const struct sinkpipe *sp, enum sp_kind k, uint64_t w,
    struct error *err)
{
	if (w == 0)
		return 0;
	if (w > sp->ids[k].given)
		return error_set(err, ERR_INTERNAL, "decoder: a sink id %llu "
		    "it was not given", (unsigned long long)w);
	if (k == K_STACK && sp->fmt->stacks_once) {
		if (w != sp->ids[k].given)
			return error_set(err, ERR_INTERNAL, "%s decoder: "
			    "stack %llu used after the next one",
			    sp->fmt->name, (unsigned long long)w);
		return sp->ids[k].last;
	}
	return sp->ids[k].v[w - 1];
}

/* The sink's id for the decoder's next id of kind k: every one kept but
 * a stack of a format whose stacks are used once (the last kept only:
 * a pprof's are one a sample, folded's one a line, a table of them as
 * large as the input, growing with it). */
static int
sp_keep(struct sinkpipe *sp, enum sp_kind k, int64_t id)
{
	struct sp_ids *ids = &sp->ids[k];

	if (id <= 0)
		return -1;
	if (k == K_STACK && sp->fmt->stacks_once)
		ids->last = id;
	else {
		ids->v = xappendarray(ids->v, (size_t)ids->given,
		    sizeof *ids->v);
		ids->v[ids->given] = id;
	}
	ids->given++;
	return 0;
}

/* What the stack after the one at w will share with it and its first
 * frame below that, when its record is in this chunk a few records on
 * (samples, label sets and new frames between) and that frame is known
 * already: for the sink's stack_ahead. */
static size_t
sp_next_keep(const struct sinkpipe *sp, const uint64_t *w,
    const uint64_t *end, int64_t *frame)
{
	enum sp_rec type;
	int i;

	for (i = 0; i < 8 && (w += *w >> 8) < end; i++) {
		type = (enum sp_rec)(*w & 0xff);
		if (type == SP_STACK) {
			if (w[2] >= w[1] || w[3] == 0 ||
			    w[3] > sp->ids[K_FRAME].given)
				return SIZE_MAX;
			*frame = sp->ids[K_FRAME].v[w[3] - 1];
			return (size_t)w[2];
		}
		if (type == SP_METRIC || type == SP_META || type == SP_SIZES)
			break;
	}
	return SIZE_MAX;
}

static int
sp_run_stack(struct sinkpipe *sp, const uint64_t *w, const uint64_t *end,
    struct error *err)
{
	size_t n = (size_t)w[1], keep = (size_t)w[2], d, cap = sp->capstack;
	size_t next_keep;
	int64_t *grown, id, next_frame = 0;
	const uint64_t *f = w + 3;

	if (n > cap || sp->stack == NULL) {
		/* The part kept moves to the end of the larger buffer. */
		cap = n > 32 ? n * 2 : 64;
		grown = xreallocarray(NULL, cap, sizeof *grown);
		if (keep > 0)
			memcpy(grown + cap - keep, sp->stack + sp->capstack -
			    keep, keep * sizeof *grown);
		free(sp->stack);
		sp->stack = grown;
		sp->capstack = cap;
	}
	for (d = keep; d < n; d++)
		if ((sp->stack[cap - 1 - d] = sp_id(sp, K_FRAME, *f++,
		    err)) < 0)
			return -1;
	if (sp->out->stack_ahead != NULL &&
	    (next_keep = sp_next_keep(sp, w, end, &next_frame)) != SIZE_MAX)
		id = sp->out->stack_ahead(sp->out->ctx, sp->stack + cap - n,
		    n, next_keep, next_frame, err);
	else
		id = sp->out->stack(sp->out->ctx, sp->stack + cap - n, n, err);
	return sp_keep(sp, K_STACK, id);
}

static int
sp_run_labelset(struct sinkpipe *sp, const uint64_t *w, struct error *err)
{
	size_t i, n = (size_t)*w++;
	struct model_label *l;

	if (n > sp->caplabels) {
		sp->caplabels = n;
		sp->labels = xreallocarray(sp->labels, n, sizeof *sp->labels);
	}
	for (i = 0; i < n; i++) {
		l = &sp->labels[i];
		l->is_num = (int)*w++;
		l->num = (int64_t)*w++;
		l->key = sp_get_str(&w);
		l->str = sp_get_str(&w);
		l->num_unit = sp_get_str(&w);
	}
	return sp_keep(sp, K_LABELSET, sp->out->labelset(sp->out->ctx,
	    sp->labels, n, err));
}

static int
sp_run_sample(struct sinkpipe *sp, const uint64_t *w, struct error *err)
{
	struct model_sample s;

	if ((s.stack = sp_id(sp, K_STACK, w[0], err)) < 0 ||
	    (s.labelset = sp_id(sp, K_LABELSET, w[1], err)) < 0)
		return -1;
	s.time_ns = (int64_t)w[2];
	s.nvalues = (size_t)w[3];
	/* int64_t may alias uint64_t. */
	s.values = (const int64_t *)(w + 4);
	return sp->out->sample(sp->out->ctx, &s, err);
}

static int
sp_run_meta(struct sinkpipe *sp, const uint64_t *w, struct error *err)
{
	struct model_meta m;
	struct mstr *comments;
	struct model_count *counts;
	char **names;
	size_t i;
	int rc;

	memset(&m, 0, sizeof m);
	m.time_ns = (int64_t)*w++;
	m.duration_ns = (int64_t)*w++;
	m.period = (int64_t)*w++;
	m.default_metric = (int)(int64_t)*w++;
	m.samples = *w++;
	m.dropped_samples = *w++;
	m.period_type = sp_get_str(&w);
	m.period_unit = sp_get_str(&w);
	m.doc_url = sp_get_str(&w);
	m.ncomments = (size_t)*w++;
	comments = xcalloc(m.ncomments + 1, sizeof *comments);
	for (i = 0; i < m.ncomments; i++)
		comments[i] = sp_get_str(&w);
	m.comments = comments;
	m.ncounts = (size_t)*w++;
	counts = xcalloc(m.ncounts + 1, sizeof *counts);
	names = xcalloc(m.ncounts + 1, sizeof *names);
	for (i = 0; i < m.ncounts; i++) {
		counts[i].n = *w++;
		counts[i].name = names[i] = xmstrdup(sp_get_str(&w));
	}
	m.counts = counts;
	rc = sp->out->meta(sp->out->ctx, &m, err);
	for (i = 0; i < m.ncounts; i++)
		free(names[i]);
	free(names);
	free(counts);
	free(comments);
	return rc;
}

static int
sp_run_other(struct sinkpipe *sp, enum sp_rec type, const uint64_t *w,
    struct error *err)
{
	const struct sink *o = sp->out;
	struct model_mapping mm;
	struct model_function mf;
	struct model_frame fr;
	struct model_sizes sz;
	struct mstr type_s;

	switch (type) {
	case SP_METRIC:
		type_s = sp_get_str(&w);
		return o->metric(o->ctx, type_s, sp_get_str(&w), err);
	case SP_MAPPING:
		memset(&mm, 0, sizeof mm);
		mm.start = w[0];
		mm.limit = w[1];
		mm.offset = w[2];
		mm.flags = (unsigned)w[3];
		w += 4;
		mm.file = sp_get_str(&w);
		mm.build_id = sp_get_str(&w);
		return sp_keep(sp, K_MAPPING, o->mapping(o->ctx, &mm, err));
	case SP_FUNCTION:
		memset(&mf, 0, sizeof mf);
		mf.start_line = (int64_t)*w++;
		mf.name = sp_get_str(&w);
		mf.system_name = sp_get_str(&w);
		mf.file = sp_get_str(&w);
		return sp_keep(sp, K_FUNCTION, o->function(o->ctx, &mf, err));
	case SP_FRAME:
		memset(&fr, 0, sizeof fr);
		if ((fr.function = sp_id(sp, K_FUNCTION, w[0], err)) < 0 ||
		    (fr.mapping = sp_id(sp, K_MAPPING, w[1], err)) < 0)
			return -1;
		fr.address = w[2];
		fr.line = (int64_t)w[3];
		fr.column = (int64_t)w[4];
		fr.flags = (unsigned)w[5];
		return sp_keep(sp, K_FRAME, o->frame(o->ctx, &fr, err));
	case SP_SIZES:
		memset(&sz, 0, sizeof sz);
		sz.strings = (size_t)w[0];
		sz.mappings = (size_t)w[1];
		sz.functions = (size_t)w[2];
		sz.frames = (size_t)w[3];
		sz.samples = (size_t)w[4];
		sz.time_ns = (int64_t)w[5];
		sz.time_known = (int)w[6];
		o->sizes(o->ctx, &sz);
		return 0;
	default:
		return error_set(err, ERR_INTERNAL, "sinkpipe: record %d",
		    (int)type);
	}
}

/* The records of a chunk onto the sink. */
static int
sp_run(struct sinkpipe *sp, const struct sp_chunk *c, struct error *err)
{
	const uint64_t *w = c->w, *end = c->w + c->n;
	enum sp_rec type;
	int rc;

	while (w < end) {
		type = (enum sp_rec)(*w & 0xff);
		if (type == SP_STACK)
			rc = sp_run_stack(sp, w, end, err);
		else if (type == SP_SAMPLE)
			rc = sp_run_sample(sp, w + 1, err);
		else if (type == SP_LABELSET)
			rc = sp_run_labelset(sp, w + 1, err);
		else if (type == SP_META)
			rc = sp_run_meta(sp, w + 1, err);
		else
			rc = sp_run_other(sp, type, w + 1, err);
		if (rc == -1)
			return error_set(err, ERR_INTERNAL, "the sink failed");
		w += *w >> 8;
	}
	return 0;
}

/* Records read and handed over until the decoder is done; once the sink
 * has failed, the rest only taken off the queue. */
static int
sp_read(struct sinkpipe *sp, struct error *err)
{
	struct sp_chunk *c = NULL;
	int rc = 0;

	for (;;) {
		pthread_mutex_lock(&sp->mu);
		if (c != NULL)
			sp_give_back(sp, c);
		while (sp->head == NULL && !sp->done)
			pthread_cond_wait(&sp->data, &sp->mu);
		if ((c = sp->head) != NULL) {
			if ((sp->head = c->next) == NULL)
				sp->tail = NULL;
			sp->queued--;
			pthread_cond_signal(&sp->room);
		}
		pthread_mutex_unlock(&sp->mu);
		if (c == NULL)
			return rc;
		if (rc == 0 && sp_run(sp, c, err) == -1) {
			rc = -1;
			atomic_store(&sp->failed, 1);
			pthread_mutex_lock(&sp->mu);
			pthread_cond_broadcast(&sp->room);
			pthread_mutex_unlock(&sp->mu);
		}
	}
}

static void
sp_free(struct sinkpipe *sp)
{
	struct sp_chunk *c;
	size_t k;

	while ((c = sp->spare) != NULL) {
		sp->spare = c->next;
		free(c);
	}
	for (k = 0; k < K_N; k++)
		free(sp->ids[k].v);
	free(sp->prev);
	free(sp->stack);
	free(sp->labels);
	pthread_cond_destroy(&sp->data);
	pthread_cond_destroy(&sp->room);
	pthread_mutex_destroy(&sp->mu);
	free(sp);
}

int
sinkpipe_decode(const struct format *fmt, struct stream *in,
    const struct decode_opts *opts, const struct limits *lim,
    const struct sink *sink, struct error *err)
{
	struct sinkpipe *sp = xcalloc(1, sizeof *sp);
	pthread_t t;
	int rc;

	pthread_mutex_init(&sp->mu, NULL);
	pthread_cond_init(&sp->data, NULL);
	pthread_cond_init(&sp->room, NULL);
	atomic_init(&sp->failed, 0);
	sp->fmt = fmt;
	sp->in = in;
	sp->opts = opts;
	sp->lim = lim;
	sp->out = sink;
	sp->sink = (struct sink){ sp, sp_metric, sp_mapping, sp_function,
	    sp_frame, sp_stack, sp_labelset, sp_sample, sp_meta,
	    sink->sizes != NULL ? sp_sizes : NULL, NULL };
	if (pthread_create(&t, NULL, sp_main, sp) != 0) {
		sp_free(sp);
		return fmt->decode(in, opts, lim, sink, err);
	}
	rc = sp_read(sp, err);
	pthread_join(t, NULL);
	if (rc == 0 && sp->drc == -1) {
		*err = sp->derr;
		rc = -1;
	}
	sp_free(sp);
	return rc;
}
