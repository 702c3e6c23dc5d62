/* sinkpipe.h: a decoder run on a thread of its own, its calls on the sink
 * made on the caller's thread (sinkpipe.c): the import as a pipeline on
 * two cores, the bytes decoded on one, stored on the other. */
#ifndef PROFD_SINKPIPE_H
#define PROFD_SINKPIPE_H

#include "bounds.h"
#include "error.h"
#include "format.h"
#include "model.h"
#include "stream.h"

/* As fmt->decode(in, opts, lim, sink, err), with the same calls on sink
 * in the same order, on the calling thread; in is read on another one.
 * The sink's first error is err; else the decoder's.  Decoded on the
 * calling thread when no thread can be made. */
int sinkpipe_decode(const struct format *fmt, struct stream *in,
    const struct decode_opts *opts, const struct limits *lim,
    const struct sink *sink, struct error *err);

#endif
