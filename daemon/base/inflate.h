/* inflate.h: streaming gunzip with bounds, and gzip of a reply; the only
 * user of zlib. */
#ifndef PROFD_INFLATE_H
#define PROFD_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "bounds.h"
#include "stream.h"

/* 1 if the bytes start with the gzip magic. */
int inflate_is_gzip(const uint8_t *, size_t);
/* A stream of the inflated bytes of a gzip stream (several members are
 * concatenated, as gzip(1) writes them), bounded by max_inflated and by
 * max_inflate_ratio times the compressed bytes read so far (past a first
 * 1 MiB).  Takes ownership of the compressed stream. */
struct stream *inflate_stream(struct stream *gz, const struct limits *);

#endif
