/* stream.c: buffering over a pull source. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "buf.h"
#include "stream.h"

/* Reads start small and double up to STREAM_CHUNK: a tiny push then
 * costs a 4 KiB buffer, not a freshly mapped (and zeroed) 512 KiB one,
 * while a large input soon reads in 256 KiB pieces. */
#define STREAM_CHUNK	(256u * 1024)
#define STREAM_FIRST	(4u * 1024)

struct stream *
stream_new(const struct stream_source *src)
{
	struct stream *s = xcalloc(1, sizeof *s);

	s->src = *src;
	s->chunk = STREAM_FIRST / 2;
	return s;
}

void
stream_free(struct stream *s)
{
	if (s == NULL)
		return;
	if (s->src.close != NULL)
		s->src.close(s->src.ctx);
	free(s->buf);
	free(s);
}

/* Memory in pieces; the iovec array is copied, not the bytes. */
struct mem_src {
	struct iovec *iov;
	size_t n, i, off;		/* piece i, off bytes of it read */
};

static ssize_t
mem_read(void *ctx, uint8_t *buf, size_t n, struct error *err)
{
	struct mem_src *m = ctx;
	size_t got = 0, k;

	while (got < n && m->i < m->n) {
		k = m->iov[m->i].iov_len - m->off;
		if (k > n - got)
			k = n - got;
		memcpy(buf + got, (const uint8_t *)m->iov[m->i].iov_base +
		    m->off, k);
		got += k;
		m->off += k;
		if (m->off == m->iov[m->i].iov_len) {
			m->i++;
			m->off = 0;
		}
	}
	return (ssize_t)got;
}

static void
mem_close(void *ctx)
{
	struct mem_src *m = ctx;

	free(m->iov);
	free(m);
}

struct stream *
stream_iov(const struct iovec *iov, size_t n)
{
	struct mem_src *m = xcalloc(1, sizeof *m);
	struct stream_source src = { mem_read, mem_close, m };

	m->iov = xreallocarray(NULL, n ? n : 1, sizeof *m->iov);
	if (n > 0)
		memcpy(m->iov, iov, n * sizeof *iov);
	m->n = n;
	return stream_new(&src);
}

struct stream *
stream_mem(const uint8_t *p, size_t n)
{
	struct iovec one = { (void *)(uintptr_t)p, n };

	return stream_iov(&one, 1);
}

struct fd_src {
	int fd, owned;
};

static ssize_t
fd_read(void *ctx, uint8_t *buf, size_t n, struct error *err)
{
	struct fd_src *f = ctx;
	ssize_t r;

	do
		r = read(f->fd, buf, n);
	while (r == -1 && errno == EINTR);
	if (r == -1)
		return error_set(err, ERR_INTERNAL, "read: %s", strerror(errno));
	return r;
}

static void
fd_close(void *ctx)
{
	struct fd_src *f = ctx;

	if (f->owned)
		close(f->fd);
	free(f);
}

struct stream *
stream_fd(int fd, int owned)
{
	struct fd_src *f = xmalloc(sizeof *f);
	struct stream_source src = { fd_read, fd_close, f };

	f->fd = fd;
	f->owned = owned;
	return stream_new(&src);
}

/* n more bytes came from the source. */
static void
stream_got(struct stream *s, size_t n)
{
	s->got += n;
	if (s->progress != NULL)
		atomic_store_explicit(s->progress, (int64_t)s->got,
		    memory_order_relaxed);
}

/* Have at least n unread bytes buffered, unless the source ends first. */
static int
stream_fill(struct stream *s, size_t n, struct error *err)
{
	ssize_t r;

	while (s->len - s->pos < n && !s->eof) {
		if (s->pos > 0) {
			memmove(s->buf, s->buf + s->pos, s->len - s->pos);
			s->len -= s->pos;
			s->pos = 0;
		}
		if (s->cap - s->len < s->chunk || s->cap < n) {
			size_t cap = s->cap ? s->cap : STREAM_FIRST;

			while (cap < n || cap - s->len < s->chunk)
				cap *= 2;
			s->buf = xrealloc(s->buf, cap);
			s->cap = cap;
		}
		r = s->src.read(s->src.ctx, s->buf + s->len, s->cap - s->len,
		    err);
		if (s->chunk < STREAM_CHUNK)
			s->chunk *= 2;
		if (r < 0)
			return -1;
		if (r == 0)
			s->eof = 1;
		s->len += (size_t)r;
		stream_got(s, (size_t)r);
	}
	return 0;
}

int
stream_peek(struct stream *s, size_t n, const uint8_t **p, size_t *got,
    struct error *err)
{
	if (stream_fill(s, n, err) == -1)
		return -1;
	*p = s->buf ? s->buf + s->pos : (const uint8_t *)"";
	*got = s->len - s->pos < n ? s->len - s->pos : n;
	return 0;
}

int
stream_some(struct stream *s, const uint8_t **p, size_t *got,
    struct error *err)
{
	if (stream_peek(s, 1, p, got, err) == -1)
		return -1;
	*got = s->len - s->pos;
	return 0;
}

int
stream_take(struct stream *s, size_t n, const uint8_t **p, const char *what,
    struct error *err)
{
	size_t got;

	if (stream_peek(s, n, p, &got, err) == -1)
		return -1;
	if (got < n)
		return error_set(err, ERR_INPUT, "%s at byte %llu: %zu bytes "
		    "needed, the input ends after %zu", what,
		    (unsigned long long)s->offset, n, got);
	s->pos += n;
	s->offset += n;
	return 0;
}

int
stream_varint(struct stream *s, uint64_t *v, int *end, const char *what,
    struct error *err)
{
	const uint8_t *p;
	size_t got, i;
	uint64_t x = 0;

	*end = 0;
	if (stream_peek(s, 10, &p, &got, err) == -1)
		return -1;
	if (got == 0) {
		*end = 1;
		return 0;
	}
	for (i = 0; i < got; i++) {
		x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if ((p[i] & 0x80) == 0) {
			*v = x;
			s->pos += i + 1;
			s->offset += i + 1;
			return 0;
		}
	}
	if (got == 10)
		return error_set(err, ERR_INPUT, "%s at byte %llu: varint "
		    "longer than 10 bytes", what, (unsigned long long)s->offset);
	return error_set(err, ERR_INPUT, "%s at byte %llu: the input ends "
	    "inside a varint", what, (unsigned long long)s->offset);
}

#define SLURP_SLICE	((size_t)4 << 20)

/* The inflated profile is read straight into the buffer returned, sized
 * once by the hint when there is one: no copy out of the stream's
 * buffer, no doubling. */
int
stream_slurp(struct stream *s, size_t max, uint8_t **out, size_t *len,
    struct error *err)
{
	uint8_t *b, probe[4096];
	size_t n = s->len - s->pos, cap;
	ssize_t r;

	*out = NULL;
	*len = 0;
	if (n > max)
		return error_set(err, ERR_TOO_LARGE, "the input passes %zu "
		    "bytes (limit)", max);
	cap = s->size_hint > n && s->size_hint <= max ? (size_t)s->size_hint :
	    n + STREAM_CHUNK;
	b = xmalloc(cap);
	if (n > 0)
		memcpy(b, s->buf + s->pos, n);
	s->pos = s->len;
	s->offset += n;
	while (!s->eof) {
		/* A slice at a time, not all the room at once, so that
		 * how far it is shows as it goes; into the probe once
		 * full (the end, or more than the hint said). */
		r = s->src.read(s->src.ctx, n < cap ? b + n : probe,
		    n < cap ? (cap - n < SLURP_SLICE ? cap - n : SLURP_SLICE) :
		    sizeof probe, err);
		if (r < 0) {
			free(b);
			return -1;
		}
		if (r == 0) {
			s->eof = 1;
			break;
		}
		if (n + (size_t)r > max) {
			free(b);
			return error_set(err, ERR_TOO_LARGE, "the input passes "
			    "%zu bytes (limit)", max);
		}
		if (n == cap) {
			cap = cap * 2 < max ? cap * 2 : max;
			if (cap < n + (size_t)r)
				cap = n + (size_t)r;
			b = xrealloc(b, cap);
			memcpy(b + n, probe, (size_t)r);
		}
		n += (size_t)r;
		s->offset += (size_t)r;
		stream_got(s, (size_t)r);
	}
	*out = b;
	*len = n;
	return 0;
}

void
stream_size_hint(struct stream *s, uint64_t bytes)
{
	s->size_hint = bytes;
}

uint64_t
stream_offset(const struct stream *s)
{
	return s->offset;
}

void
stream_progress(struct stream *s, _Atomic int64_t *counter)
{
	s->progress = counter;
	if (counter != NULL)
		atomic_store_explicit(counter, (int64_t)s->got,
		    memory_order_relaxed);
}
