/* fuzz.h: what the decoder harnesses share.
 *
 * A checking sink: every id a decoder hands back must be one this sink
 * gave out (or 0 where the model allows it), every string is read byte by
 * byte (so ASan sees a view past its buffer), meta comes exactly once and
 * last, and a decode that returns 0 has called meta.  Everything that
 * reaches the sink is folded into a digest, so two decodes of the same
 * bytes (plain and gzipped) can be compared.  A broken rule aborts, which
 * libFuzzer reports as a crash with the input saved.
 *
 * fuzz_decode() opens the bytes through format_open(), the importer's own
 * entry (gunzip on the magic, then the named format or detection). */
#ifndef PROFD_FUZZ_H
#define PROFD_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "deflate.h"
#include "error.h"
#include "format.h"
#include "inflate.h"
#include "model.h"
#include "mstr.h"
#include "sinkpipe.h"
#include "stream.h"

#define FZ_CHECK(c) do {						\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: fuzz check failed: %s\n",	\
		    __FILE__, __LINE__, #c);				\
		abort();						\
	}								\
} while (0)

/* The checking sink is not what is fuzzed, and through sinkpipe.c it
 * runs on one thread while the decoder runs on another: uninstrumented,
 * its compares cannot race the decoder's into libFuzzer's tables, whose
 * contents would then depend on which thread ran first (fuzz.pipe's
 * fixed pass must be the same from run to run). */
#if defined(__has_attribute)
#if __has_attribute(no_sanitize_coverage)
#define FZ_SINK __attribute__((no_sanitize_coverage))
#endif
#endif
#ifndef FZ_SINK
#define FZ_SINK
#endif

struct fz_sink {
	uint64_t digest;
	size_t nmetrics, nmaps, nfuncs, nframes, nstacks, nlabelsets;
	size_t nsamples;
	int meta;
	uint32_t max_depth;
	/* The call numbered fail_at fails (0: none), and none may follow. */
	size_t calls, fail_at;
	int failed;
	/* What stack_ahead said of the next stack (keep SIZE_MAX: nothing),
	 * checked when it comes against the stack it was said with. */
	int64_t *last, frame;
	size_t nlast, keep, hints;
};

static inline FZ_SINK void
fz_mix(struct fz_sink *s, uint64_t v)
{
	s->digest = (s->digest ^ v) * 0x100000001b3ull;
}

static inline FZ_SINK void
fz_str(struct fz_sink *s, struct mstr m)
{
	size_t i;

	FZ_CHECK(m.p != NULL || m.n == 0);
	fz_mix(s, m.n);
	for (i = 0; i < m.n; i++)
		fz_mix(s, (uint8_t)m.p[i]);
}

static inline FZ_SINK int
fz_call(struct fz_sink *s, char c, struct error *err)
{
	FZ_CHECK(!s->meta);
	FZ_CHECK(!s->failed);
	fz_mix(s, (uint8_t)c);
	if (++s->calls != s->fail_at)
		return 0;
	s->failed = 1;
	return error_set(err, ERR_NO_SPACE, "fuzz sink: call %zu failed",
	    s->calls);
}

static inline FZ_SINK int
fz_metric(void *ctx, struct mstr type, struct mstr unit, struct error *err)
{
	struct fz_sink *s = ctx;

	if (fz_call(s, 'T', err) == -1)
		return -1;
	fz_str(s, type);
	fz_str(s, unit);
	s->nmetrics++;
	return 0;
}

static inline FZ_SINK int64_t
fz_mapping(void *ctx, const struct model_mapping *m, struct error *err)
{
	struct fz_sink *s = ctx;

	if (fz_call(s, 'M', err) == -1)
		return -1;
	fz_mix(s, m->start);
	fz_mix(s, m->limit);
	fz_mix(s, m->offset);
	fz_mix(s, m->flags);
	fz_str(s, m->file);
	fz_str(s, m->build_id);
	return (int64_t)++s->nmaps;
}

static inline FZ_SINK int64_t
fz_function(void *ctx, const struct model_function *f, struct error *err)
{
	struct fz_sink *s = ctx;

	if (fz_call(s, 'F', err) == -1)
		return -1;
	fz_str(s, f->name);
	fz_str(s, f->system_name);
	fz_str(s, f->file);
	fz_mix(s, (uint64_t)f->start_line);
	return (int64_t)++s->nfuncs;
}

static inline FZ_SINK int64_t
fz_frame(void *ctx, const struct model_frame *f, struct error *err)
{
	struct fz_sink *s = ctx;

	if (fz_call(s, 'R', err) == -1)
		return -1;
	FZ_CHECK(f->function >= 0 && (size_t)f->function <= s->nfuncs);
	FZ_CHECK(f->mapping >= 0 && (size_t)f->mapping <= s->nmaps);
	fz_mix(s, (uint64_t)f->function);
	fz_mix(s, (uint64_t)f->mapping);
	fz_mix(s, f->address);
	fz_mix(s, (uint64_t)f->line);
	fz_mix(s, (uint64_t)f->column);
	fz_mix(s, f->flags);
	return (int64_t)++s->nframes;
}

/* A stack, and what the next one will be (next_keep SIZE_MAX: not
 * said): its outer next_keep frames this one's, then next_frame. */
static inline FZ_SINK int64_t
fz_stack_ahead(void *ctx, const int64_t *ids, size_t n, size_t next_keep,
    int64_t next_frame, struct error *err)
{
	struct fz_sink *s = ctx;
	size_t i;

	if (fz_call(s, 'K', err) == -1)
		return -1;
	FZ_CHECK(n > 0 && n <= s->max_depth);
	for (i = 0; i < n; i++) {
		FZ_CHECK(ids[i] > 0 && (size_t)ids[i] <= s->nframes);
		fz_mix(s, (uint64_t)ids[i]);
	}
	if (s->keep != SIZE_MAX) {
		FZ_CHECK(s->keep < n && s->keep <= s->nlast);
		for (i = 0; i < s->keep; i++)
			FZ_CHECK(ids[n - 1 - i] == s->last[s->nlast - 1 - i]);
		FZ_CHECK(ids[n - 1 - s->keep] == s->frame);
		s->hints++;
	}
	s->keep = next_keep;
	s->frame = next_frame;
	if (next_keep != SIZE_MAX) {
		s->last = realloc(s->last, n * sizeof *s->last);
		FZ_CHECK(s->last != NULL);
		memcpy(s->last, ids, n * sizeof *ids);
		s->nlast = n;
	}
	return (int64_t)++s->nstacks;
}

static inline FZ_SINK int64_t
fz_stack(void *ctx, const int64_t *ids, size_t n, struct error *err)
{
	return fz_stack_ahead(ctx, ids, n, SIZE_MAX, 0, err);
}

static inline FZ_SINK int64_t
fz_labelset(void *ctx, const struct model_label *l, size_t n,
    struct error *err)
{
	struct fz_sink *s = ctx;
	size_t i;

	if (fz_call(s, 'L', err) == -1)
		return -1;
	FZ_CHECK(n > 0);
	for (i = 0; i < n; i++) {
		fz_str(s, l[i].key);
		FZ_CHECK(l[i].is_num == 0 || l[i].is_num == 1);
		if (l[i].is_num) {
			fz_mix(s, (uint64_t)l[i].num);
			fz_str(s, l[i].num_unit);
		} else
			fz_str(s, l[i].str);
	}
	return (int64_t)++s->nlabelsets;
}

static inline FZ_SINK int
fz_sample(void *ctx, const struct model_sample *m, struct error *err)
{
	struct fz_sink *s = ctx;
	size_t i;

	if (fz_call(s, 'S', err) == -1)
		return -1;
	FZ_CHECK(m->stack >= 0 && (size_t)m->stack <= s->nstacks);
	FZ_CHECK(m->labelset >= 0 && (size_t)m->labelset <= s->nlabelsets);
	FZ_CHECK(m->nvalues <= s->nmetrics);
	FZ_CHECK(m->values != NULL || m->nvalues == 0);
	fz_mix(s, (uint64_t)m->stack);
	fz_mix(s, (uint64_t)m->labelset);
	fz_mix(s, (uint64_t)m->time_ns);
	for (i = 0; i < m->nvalues; i++)
		fz_mix(s, (uint64_t)m->values[i]);
	s->nsamples++;
	return 0;
}

static inline FZ_SINK int
fz_meta(void *ctx, const struct model_meta *m, struct error *err)
{
	struct fz_sink *s = ctx;
	size_t i;

	if (fz_call(s, 'X', err) == -1)
		return -1;
	s->meta = 1;
	fz_mix(s, (uint64_t)m->time_ns);
	fz_mix(s, (uint64_t)m->duration_ns);
	fz_mix(s, (uint64_t)m->period);
	fz_str(s, m->period_type);
	fz_str(s, m->period_unit);
	fz_str(s, m->doc_url);
	FZ_CHECK(m->comments != NULL || m->ncomments == 0);
	for (i = 0; i < m->ncomments; i++)
		fz_str(s, m->comments[i]);
	FZ_CHECK(m->default_metric >= -1 &&
	    m->default_metric < (int64_t)s->nmetrics);
	FZ_CHECK(m->dropped_samples <= m->samples);
	FZ_CHECK(m->counts != NULL || m->ncounts == 0);
	for (i = 0; i < m->ncounts; i++) {
		FZ_CHECK(m->counts[i].name != NULL);
		fz_str(s, mstr_from(m->counts[i].name));
		fz_mix(s, m->counts[i].n);
	}
	fz_mix(s, m->samples);
	fz_mix(s, m->dropped_samples);
	return 0;
}

static inline struct sink
fz_sink_init(struct fz_sink *s, const struct limits *lim)
{
	struct sink k = {
		s, fz_metric, fz_mapping, fz_function, fz_frame, fz_stack,
		fz_labelset, fz_sample, fz_meta, NULL, fz_stack_ahead,
	};

	memset(s, 0, sizeof *s);
	s->digest = 0xcbf29ce484222325ull;
	s->max_depth = lim->max_stack_depth;
	s->keep = SIZE_MAX;
	return k;
}

/* Limits small enough that a fuzzer's input cannot make a decode take
 * gigabytes, large enough that every check is reachable. */
static inline void
fz_limits(struct limits *lim)
{
	bounds_default(lim);
	lim->max_body = 16u << 20;
	lim->max_inflated = 64u << 20;
	lim->max_stack_depth = 512;
	lim->max_strings = 1u << 20;
	lim->max_string_len = 1u << 16;
}

struct fz_result {
	int rc;
	enum error_kind kind;
	uint64_t digest;
	const char *format;
	char msg[sizeof ((struct error *)0)->msg];
	size_t calls, stacks, hints;
	int meta;
};

/* Opens the bytes as the importer does and decodes them into the
 * checking sink, failing its call fail_at (0: none), through sinkpipe.c
 * (as the importer does a large input) when piped; checks what holds
 * for every decode. */
static inline struct fz_result
fz_decode_via(struct stream *in, const char *format,
    const struct limits *lim, int piped, size_t fail_at)
{
	const struct format *fmt = NULL;
	struct decode_opts opts;
	struct fz_result r;
	struct fz_sink s;
	struct sink k = fz_sink_init(&s, lim);
	struct error err = { 0 };

	memset(&r, 0, sizeof r);
	memset(&opts, 0, sizeof opts);
	s.fail_at = fail_at;
	r.rc = format_open(&in, format, lim, &fmt, &err);
	if (r.rc == 0) {
		FZ_CHECK(fmt != NULL);
		r.format = fmt->name;
		r.rc = piped ? sinkpipe_decode(fmt, in, &opts, lim, &k, &err) :
		    fmt->decode(in, &opts, lim, &k, &err);
	}
	stream_free(in);
	free(s.last);
	FZ_CHECK(r.rc == 0 || r.rc == -1);
	if (r.rc == 0) {
		FZ_CHECK(err.kind == ERR_NONE);
		FZ_CHECK(s.meta);
	} else {
		/* A failed decode says what went wrong, as text. */
		FZ_CHECK(err.kind != ERR_NONE);
		FZ_CHECK(err.msg[0] != '\0');
		FZ_CHECK(memchr(err.msg, '\0', sizeof err.msg) != NULL);
	}
	r.kind = err.kind;
	r.digest = s.digest;
	snprintf(r.msg, sizeof r.msg, "%s", err.msg);
	r.calls = s.calls;
	r.stacks = s.nstacks;
	r.hints = s.hints;
	r.meta = s.meta;
	return r;
}

static inline struct fz_result
fz_decode_stream(struct stream *in, const char *format,
    const struct limits *lim)
{
	return fz_decode_via(in, format, lim, 0, 0);
}

/* The same bytes decoded on the caller's thread and through sinkpipe.c
 * (format "auto"), the sink failing at call fail_at (0: never): the same
 * result, error and calls, in the same order. */
static inline struct fz_result
fz_decode_piped(const uint8_t *data, size_t size, const struct limits *lim,
    size_t fail_at)
{
	struct fz_result a, b;

	a = fz_decode_via(stream_mem(data, size), "auto", lim, 0, fail_at);
	b = fz_decode_via(stream_mem(data, size), "auto", lim, 1, fail_at);
	FZ_CHECK(a.rc == b.rc);
	FZ_CHECK(a.kind == b.kind);
	FZ_CHECK(strcmp(a.msg, b.msg) == 0);
	FZ_CHECK(a.digest == b.digest);
	FZ_CHECK(a.calls == b.calls);
	FZ_CHECK(a.meta == b.meta);
	FZ_CHECK(a.format == b.format);
	return b;
}

/* Decodes the bytes as pushed, then (for inputs that are not gzip
 * already) gzipped: the inflating stream must hand the decoder the same
 * bytes, so both decodes must agree call for call. */
static inline int
fz_decode_both(const uint8_t *data, size_t size, const char *format)
{
	struct limits lim;
	struct fz_result a, b;
	uint8_t *gz;
	size_t gzlen;
	struct error err = { 0 };

	fz_limits(&lim);
	a = fz_decode_stream(stream_mem(data, size), format, &lim);
	if (inflate_is_gzip(data, size) || size > (64u << 10))
		return 0;
	FZ_CHECK(deflate_gzip(data, size, DEFLATE_FILE_LEVEL, &gz, &gzlen,
	    &err) == 0);
	b = fz_decode_stream(stream_mem(gz, gzlen), format, &lim);
	free(gz);
	FZ_CHECK(a.rc == b.rc);
	FZ_CHECK(a.kind == b.kind);
	FZ_CHECK(a.digest == b.digest);
	FZ_CHECK(a.format == b.format);
	return 0;
}

#endif
