/* deflate.h: gzip of a reply, whole or as it is written (zlib's deflate
 * in gzip mode); inflate.c is the other direction. */
#ifndef PROFD_DEFLATE_H
#define PROFD_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "error.h"

/* The level replies are compressed at, measured on a 14.3 MB tree reply
 * (docs/PERFORMANCE.md): 1 gives 905 kB in 28-43 ms, 3 668 kB in 35-38
 * ms, 6 461 kB in 66-78 ms.  Level 3 costs what 1 costs for a quarter
 * fewer bytes; 6 doubles the time for what only a slow link repays. */
#define DEFLATE_REPLY_LEVEL	3

/* The level a file is compressed at (an export's .pb.gz): gzip's and
 * pprof's default, the size a user saves it at. */
#define DEFLATE_FILE_LEVEL	6

/* The gzip of len bytes at data, in one member, at level (1-9): *out
 * (to free) and *outlen.  -1 with err when zlib fails or len is over
 * what one call takes. */
int deflate_gzip(const void *data, size_t len, int level, uint8_t **out,
    size_t *outlen, struct error *);

/* A gzip member written a piece at a time: each write appends what zlib
 * has to give to out. */
struct deflate_stream;
struct deflate_stream *deflate_stream_new(int level);
enum deflate_flush {
	DEFLATE_HOLD,		/* zlib may keep some of it for later */
	DEFLATE_SYNC,		/* all of it out, inflatable at once */
	DEFLATE_END		/* all of it, then the member's trailer */
};
/* n bytes at p, then what flush says; -1 on a zlib error or bytes after
 * the end (out grows as buf does: aborting when memory is out). */
int deflate_stream_write(struct deflate_stream *, const void *p, size_t n,
    enum deflate_flush, struct buf *out);
void deflate_stream_free(struct deflate_stream *);

#endif
