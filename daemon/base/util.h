/* util.h: aborting allocators, counted strings and small helpers shared by
 * every module of profd and its tests. */
#ifndef PROFD_UTIL_H
#define PROFD_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define NITEMS(a) (sizeof(a) / sizeof((a)[0]))

/* A counted byte string that points into someone else's buffer. */
struct mstr {
	const char *p;
	size_t n;
};

#define MSTR_LIT(s) ((struct mstr){ (s), sizeof(s) - 1 })

void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xrealloc(void *, size_t);
void *xreallocarray(void *, size_t, size_t);
char *xstrdup(const char *);
char *xstrndup(const char *, size_t);
char *xmstrdup(struct mstr);
int xasprintf(char **, const char *, ...) __attribute__((format(printf, 2, 3)));

int mstr_eq(struct mstr, struct mstr);
int mstr_eqs(struct mstr, const char *);
struct mstr mstr_from(const char *);

/* Growable byte buffer. */
struct buf {
	uint8_t *p;
	size_t n, cap;
};
void buf_reserve(struct buf *, size_t);
void buf_add(struct buf *, const void *, size_t);
void buf_printf(struct buf *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
void buf_free(struct buf *);

int64_t now_ns(void);		/* CLOCK_REALTIME */
int64_t mono_ns(void);		/* CLOCK_MONOTONIC */
/* The wait after one more failure: 1 after none (cur 0), else twice
 * cur, at most max (the spool's disk-full retries, the shipper's and the
 * scraper's). */
int64_t backoff_next(int64_t cur, int64_t max);
/* RFC 3339 in UTC with nanoseconds trimmed to what is non-zero. */
void format_rfc3339(int64_t ns, char *out, size_t outlen);

/* Scope names: [A-Za-z0-9._-]{1,128}, neither "." nor "..". */
int scope_name_valid(const char *);

#endif
