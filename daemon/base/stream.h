/* stream.h: a buffered pull stream of bytes, so that decoders can read
 * input of any size (a request body, a spool file, a gzip member) without
 * holding it whole.  A source provides read(); the stream buffers it and
 * hands out contiguous views that stay valid until the next call. */
#ifndef PROFD_STREAM_H
#define PROFD_STREAM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "error.h"

struct stream_source {
	/* Up to n bytes into buf: the count, 0 at the end, -1 (err set). */
	ssize_t (*read)(void *ctx, uint8_t *buf, size_t n, struct error *);
	void (*close)(void *ctx);
	void *ctx;
};

struct stream {
	struct stream_source src;
	uint8_t *buf;
	size_t pos, len, cap;		/* unread bytes: buf[pos..len) */
	size_t chunk;			/* least room for the next read */
	uint64_t offset;		/* stream offset of buf[pos] */
	uint64_t size_hint;		/* bytes in all, if known (0) */
	uint64_t got;			/* bytes its source gave so far */
	_Atomic int64_t *progress;	/* got is stored there (or NULL) */
	int eof;
};

struct stream *stream_new(const struct stream_source *);
/* Over memory the caller keeps alive, read a buffer at a time: one
 * piece, or n pieces in order. */
struct stream *stream_mem(const uint8_t *, size_t);
struct stream *stream_iov(const struct iovec *, size_t n);
/* Over a file descriptor (closed with the stream if owned). */
struct stream *stream_fd(int fd, int owned);
void stream_free(struct stream *);

/* Make up to n bytes available at *p: *got < n only at the end. */
int stream_peek(struct stream *, size_t n, const uint8_t **p, size_t *got,
    struct error *);
/* What is buffered, filled first if empty (one read, sized as the
 * stream's reads grow): *got is 0 only at the end. */
int stream_some(struct stream *, const uint8_t **p, size_t *got,
    struct error *);
/* Exactly n bytes or ERR_INPUT naming what and the offset. */
int stream_take(struct stream *, size_t n, const uint8_t **p,
    const char *what, struct error *);
/* A protobuf varint; *end is set (and 0 returned) at a clean end. */
int stream_varint(struct stream *, uint64_t *, int *end, const char *what,
    struct error *);
/* Read everything left into a malloc'd buffer, at most max bytes. */
int stream_slurp(struct stream *, size_t max, uint8_t **out, size_t *len,
    struct error *);
/* What the stream will give in all, as far as its owner can tell (gzip's
 * ISIZE): stream_slurp's buffer is made that large at once.  Only a
 * hint: a wrong one costs a reallocation. */
void stream_size_hint(struct stream *, uint64_t bytes);
uint64_t stream_offset(const struct stream *);
/* Have the bytes the stream takes from its source stored in *counter as
 * they come (a relaxed atomic store a read, for another thread to show
 * how far an import is); NULL stops it. */
void stream_progress(struct stream *, _Atomic int64_t *counter);

#endif
