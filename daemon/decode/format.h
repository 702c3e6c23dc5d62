/* format.h: the table of input formats: name, sniffer and decoder.  Adding
 * a format means adding a decoder and a row here. */
#ifndef PROFD_FORMAT_H
#define PROFD_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "bounds.h"
#include "model.h"
#include "stream.h"

struct format {
	const char *name;
	/* 1 if the first (inflated) bytes look like this format. */
	int (*sniff)(const uint8_t *, size_t);
	int (*decode)(struct stream *, const struct decode_opts *,
	    const struct limits *, const struct sink *, struct error *);
	/* 1: every stack id the decoder gets is used only by samples
	 * before its next stack() call (a stack a sample, never kept):
	 * sinkpipe.c then maps only the last one, not one a sample. */
	int stacks_once;
};

/* NULL if the name is not a known format ("auto" is not a format). */
const struct format *format_find(const char *name);
/* Detection for format=auto; ERR_INPUT naming the formats tried. */
const struct format *format_detect(const uint8_t *, size_t, struct error *);
/* How a pushed blob is opened, by the importer and the fuzzers alike:
 * gunzipped when it starts with the gzip magic (*in is then replaced by
 * the inflating stream, which owns the old one), then the format named
 * ("auto": detected on the first FORMAT_SNIFF_BYTES).  ERR_INPUT for an
 * unknown name or an undetected format. */
int format_open(struct stream **in, const char *name, const struct limits *,
    const struct format **, struct error *);
/* "pprof, ..." for messages and --help. */
const char *format_names(void);

#endif
