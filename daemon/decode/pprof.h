/* pprof.h: decoder for perftools.profiles.Profile (already inflated). */
#ifndef PROFD_PPROF_H
#define PROFD_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "bounds.h"
#include "model.h"
#include "stream.h"

/* Decode and validate a whole serialized Profile message and emit it on the
 * sink: metrics, then mappings/functions/frames/stacks/labelsets/samples,
 * then meta.  drop_frames/keep_frames are applied as pprof applies them.
 * Returns 0, or -1 with err naming the field and byte offset. */
int pprof_decode(const uint8_t *data, size_t len, const struct limits *,
    const struct sink *, struct error *err);

/* The format table's entry: pprof is one message whose string table
 * comes last, so the stream is read whole (bounded by max_inflated) and
 * decoded as above; opts say nothing to pprof. */
int pprof_decode_stream(struct stream *, const struct decode_opts *,
    const struct limits *, const struct sink *, struct error *);

/* 1 if the bytes look like a serialized Profile (first field a valid
 * Profile tag), for format detection. */
int pprof_sniff(const uint8_t *data, size_t len);

#endif
