/* util.c: aborting allocators, counted strings, buffers, clocks. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

static void
oom(size_t n)
{
	fprintf(stderr, "profd: out of memory allocating %zu bytes\n", n);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom(n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		oom(nmemb * size);
	return p;
}

void *
xrealloc(void *old, size_t n)
{
	void *p = realloc(old, n ? n : 1);

	if (p == NULL)
		oom(n);
	return p;
}

void *
xreallocarray(void *old, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		oom(SIZE_MAX);
	return xrealloc(old, nmemb * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xmstrdup(struct mstr s)
{
	return xstrndup(s.p ? s.p : "", s.n);
}

int
xasprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(out, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return n;
}

int
mstr_eq(struct mstr a, struct mstr b)
{
	return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

int
mstr_eqs(struct mstr a, const char *s)
{
	return mstr_eq(a, mstr_from(s));
}

struct mstr
mstr_from(const char *s)
{
	return (struct mstr){ s, s ? strlen(s) : 0 };
}

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

static int64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
now_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

int64_t
mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int64_t
backoff_next(int64_t cur, int64_t max)
{
	int64_t next = cur <= 0 ? 1 : cur > max / 2 ? max : cur * 2;

	return next < max ? next : max;
}

void
format_rfc3339(int64_t ns, char *out, size_t outlen)
{
	time_t secs = (time_t)(ns / 1000000000);
	long frac = (long)(ns % 1000000000);
	struct tm tm;
	size_t n;
	int digits = 9;

	if (frac < 0) {
		frac += 1000000000;
		secs--;
	}
	gmtime_r(&secs, &tm);
	n = strftime(out, outlen, "%Y-%m-%dT%H:%M:%S", &tm);
	if (frac != 0 && n < outlen) {
		while (frac % 10 == 0) {
			frac /= 10;
			digits--;
		}
		n += (size_t)snprintf(out + n, outlen - n, ".%0*ld", digits,
		    frac);
	}
	if (n < outlen)
		snprintf(out + n, outlen - n, "Z");
}

int
scope_name_valid(const char *s)
{
	size_t n = 0;

	for (; s[n] != '\0'; n++) {
		if (!isalnum((unsigned char)s[n]) && s[n] != '.' &&
		    s[n] != '_' && s[n] != '-')
			return 0;
		if (n >= 128)
			return 0;
	}
	/* Every scope can be a spool directory: not one of the two that
	 * every directory has. */
	return n >= 1 && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}
