/* alloc.h: allocators that abort instead of returning NULL, so callers
 * never carry an out-of-memory path they cannot test.  Shared by profd and
 * profctl (which compiles alloc.c in). */
#ifndef PROFD_ALLOC_H
#define PROFD_ALLOC_H

#include <stddef.h>

void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xrealloc(void *, size_t);
void *xreallocarray(void *, size_t, size_t);
void *xappendarray(void *, size_t, size_t);
char *xstrdup(const char *);
char *xstrndup(const char *, size_t);
int xasprintf(char **, const char *, ...) __attribute__((format(printf, 2, 3)));
/* The whole pages inside [p, p + n) given back to the kernel: memory the
 * caller allocated and will not read again before it frees it (it would
 * read zeros). */
void alloc_release(void *p, size_t n);

#endif
