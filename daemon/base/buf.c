/* buf.c: a growable byte buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"

void
buf_reserve(struct buf *b, size_t extra)
{
	size_t cap;

	if (b->n + extra <= b->cap)
		return;
	cap = b->cap ? b->cap : 256;
	while (cap < b->n + extra)
		cap *= 2;
	b->p = xrealloc(b->p, cap);
	b->cap = cap;
}

void
buf_add(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

/* Formatted text added, the buffer grown to hold it (no NUL kept):
 * formatted once where it fits, which a line of text does. */
void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;

	buf_reserve(b, 256);
	room = b->cap - b->n;
	va_start(ap, fmt);
	n = vsnprintf((char *)b->p + b->n, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= room) {
		buf_reserve(b, (size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf((char *)b->p + b->n, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->n += (size_t)n;
}

void
buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->n = b->cap = 0;
}
