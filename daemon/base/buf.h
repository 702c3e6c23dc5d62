/* buf.h: a growable byte buffer (aborts on out of memory). */
#ifndef PROFD_BUF_H
#define PROFD_BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	uint8_t *p;
	size_t n, cap;
};
void buf_reserve(struct buf *, size_t);
void buf_add(struct buf *, const void *, size_t);
void buf_printf(struct buf *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
void buf_free(struct buf *);

#endif
