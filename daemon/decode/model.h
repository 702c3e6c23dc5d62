/* model.h: the profile model that decoders produce, as calls on a sink.
 *
 * A decoder knows bytes of one format; it turns them into calls on a
 * struct sink.  The importer implements the sink on top of the store; tests
 * implement it in memory.  Every id a sink returns is opaque to the decoder
 * (> 0 on success, -1 on error with the error filled in).  Strings are
 * counted (struct mstr) and only valid for the duration of the call.
 *
 * Order of calls: any mix of metric/mapping/function/frame/stack/labelset/
 * sample, and meta() exactly once at the end.  Metrics are numbered in the
 * order of their metric() calls; a sample's values are for metrics 0..n-1
 * of those declared so far (a streaming decoder may find a new counter
 * mid-way: earlier samples simply have no value for it). */
#ifndef PROFD_MODEL_H
#define PROFD_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "mstr.h"

#define MAPPING_HAS_FUNCTIONS		0x1
#define MAPPING_HAS_FILENAMES		0x2
#define MAPPING_HAS_LINE_NUMBERS	0x4
#define MAPPING_HAS_INLINE_FRAMES	0x8

struct model_mapping {
	uint64_t start, limit, offset;
	struct mstr file;
	struct mstr build_id;
	unsigned flags;			/* MAPPING_* */
};

struct model_function {
	struct mstr name;
	struct mstr system_name;
	struct mstr file;
	int64_t start_line;
};

/* Set on every frame of a location but its outermost: this frame was inlined
 * into the next one toward the root (same address and mapping). */
#define FRAME_INLINED	0x1
/* Location.is_folded of pprof. */
#define FRAME_FOLDED	0x2

struct model_frame {
	int64_t function;		/* sink id, 0 = none (unsymbolized) */
	int64_t mapping;		/* sink id, 0 = none */
	uint64_t address;
	int64_t line;
	int64_t column;
	unsigned flags;			/* FRAME_* */
};

struct model_label {
	struct mstr key;
	struct mstr str;		/* string label when is_num == 0 */
	int64_t num;			/* numeric label when is_num == 1 */
	struct mstr num_unit;
	int is_num;
};

struct model_sample {
	int64_t stack;			/* from sink->stack(), 0 = empty stack */
	int64_t labelset;		/* from sink->labelset(), 0 = no labels */
	const int64_t *values;		/* one per metric, in metric() order */
	size_t nvalues;
	int64_t time_ns;		/* 0 = the profile's time */
};

/* A named count the decoder reports (e.g. samples it could not resolve). */
struct model_count {
	const char *name;
	uint64_t n;
};

struct model_meta {
	int64_t time_ns;		/* 0 = unknown (import time is used) */
	int64_t duration_ns;
	int64_t period;
	struct mstr period_type, period_unit;
	const struct mstr *comments;
	size_t ncomments;
	int default_metric;		/* index into metric() order, -1 = none */
	struct mstr doc_url;
	uint64_t samples;		/* samples read from the input */
	uint64_t dropped_samples;	/* counted but not stored (with a reason) */
	const struct model_count *counts;	/* why samples were dropped */
	size_t ncounts;
};

/* What a push may say about how to read its blob. */
struct otlp_req;

struct decode_opts {
	struct mstr metric_type;	/* folded: the metric of the counts */
	struct mstr metric_unit;
	/* folded: each count is multiplied by this (0: 1), e.g. the
	 * nanoseconds of one sample at a sampling rate. */
	int64_t scale;
	int64_t bucket_ns;		/* time bucket of timed samples */
	/* otlp: which Profile of the request is this profile (1 the
	 * first; 0: the request must hold exactly one), and the request
	 * when its caller has decoded it already (POST
	 * /v1development/profiles, one import a Profile): the blob is then
	 * not read, nor decoded again for each of its Profiles. */
	int64_t part;
	struct otlp_req *otlp;
};

/* Bytes a format's sniffer is shown (fewer at the end of a short input):
 * the decoders' sniffers are written against it, the table applies it. */
#define FORMAT_SNIFF_BYTES	4096

/* What a decoder knows of a profile's size before its samples, for a
 * sink to make room at once (counts, 0 = unknown). */
struct model_sizes {
	size_t strings, mappings, functions, frames, samples;
	/* time_known: meta will give this time_ns (0 there too: unknown),
	 * so that untimed samples know their time bucket up front. */
	int64_t time_ns;
	int time_known;
};

struct sink {
	void *ctx;
	int (*metric)(void *ctx, struct mstr type, struct mstr unit,
	    struct error *);
	int64_t (*mapping)(void *ctx, const struct model_mapping *,
	    struct error *);
	int64_t (*function)(void *ctx, const struct model_function *,
	    struct error *);
	int64_t (*frame)(void *ctx, const struct model_frame *,
	    struct error *);
	/* frames are sink frame ids, leaf (innermost) first. */
	int64_t (*stack)(void *ctx, const int64_t *frames, size_t nframes,
	    struct error *);
	int64_t (*labelset)(void *ctx, const struct model_label *,
	    size_t nlabels, struct error *);
	int (*sample)(void *ctx, const struct model_sample *,
	    struct error *);
	int (*meta)(void *ctx, const struct model_meta *, struct error *);
	/* Optional (NULL: not called), before anything else. */
	void (*sizes)(void *ctx, const struct model_sizes *);
	/* Optional: stack(), told what the stack after it will be: its
	 * outer next_keep frames are this one's, then frame next_frame
	 * (next_keep SIZE_MAX: not known).  A sink that looks stacks up
	 * fetches the next one's memory while it does this one; a decoder
	 * that reads ahead (sinkpipe.c) calls it. */
	int64_t (*stack_ahead)(void *ctx, const int64_t *frames,
	    size_t nframes, size_t next_keep, int64_t next_frame,
	    struct error *);
};

#endif
