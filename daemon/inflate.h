/* inflate.h: gunzip with bounds; the only user of zlib. */
#ifndef PROFD_INFLATE_H
#define PROFD_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "limits.h"

/* 1 if the bytes start with the gzip magic. */
int inflate_is_gzip(const uint8_t *, size_t);
/* Inflate a whole gzip blob (several members are concatenated, as gzip
 * does) into *out (malloc'd), bounded by max_inflated and the ratio. */
int inflate_gzip(const uint8_t *in, size_t inlen, const struct limits *,
    uint8_t **out, size_t *outlen, struct error *);

#endif
