/* jsonw.h: JSON text written straight into a buf, for replies too large to
 * build as jansson trees (SQL rows, call trees): no node per value, no
 * serialization pass on the event loop. */
#ifndef PROFD_JSONW_H
#define PROFD_JSONW_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Literal JSON text (punctuation, keywords). */
void jsonw_raw(struct buf *, const char *);
/* A string of n bytes, quoted and escaped; bytes that are not UTF-8
 * become U+FFFD. */
void jsonw_strn(struct buf *, const void *, size_t);
void jsonw_str(struct buf *, const char *);
/* The same without the quotes, for a string written in pieces: at most 6
 * bytes out per byte in. */
void jsonw_esc(struct buf *, const void *, size_t);
/* Where to end a piece of the n bytes at p, of want - 3 to want bytes
 * (want is at least 4), so that jsonw_esc writes the pieces as it would
 * the whole. */
size_t jsonw_utf8_cut(const void *p, size_t n, size_t want);
/* "key": */
void jsonw_key(struct buf *, const char *);
/* A member after the first of an object: ,"key":value */
void jsonw_mstr(struct buf *, const char *key, const char *);
void jsonw_mint(struct buf *, const char *key, int64_t);
void jsonw_int(struct buf *, int64_t);
/* The shortest form that reads back as the same double, always with a
 * point or an exponent; null when not finite. */
void jsonw_real(struct buf *, double);
/* Bytes as a string of lowercase hex digits. */
void jsonw_hex(struct buf *, const void *, size_t);

#endif
