/* xmalloc.c: allocators that abort instead of returning NULL, so callers
 * never carry an out-of-memory path they cannot test. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

static void __attribute__((noreturn))
xmalloc_fatal(const char *what, size_t n)
{
	fprintf(stderr, "profctl: %s: out of memory (%zu bytes)\n", what, n);
	abort();
}

void *
xmalloc(size_t n)
{
	void	*p;

	if (n == 0)
		n = 1;
	if ((p = malloc(n)) == NULL)
		xmalloc_fatal("xmalloc", n);
	return (p);
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void	*p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if ((p = calloc(nmemb, size)) == NULL)
		xmalloc_fatal("xcalloc", nmemb * size);
	return (p);
}

void *
xreallocarray(void *old, size_t nmemb, size_t size)
{
	void	*p;

	if (size != 0 && nmemb > SIZE_MAX / size)
		xmalloc_fatal("xreallocarray", SIZE_MAX);
	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	if ((p = realloc(old, nmemb * size)) == NULL)
		xmalloc_fatal("xreallocarray", nmemb * size);
	return (p);
}

char *
xstrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		xmalloc_fatal("xstrdup", strlen(s) + 1);
	return (p);
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vasprintf(ret, fmt, ap);
	va_end(ap);
	if (n == -1)
		xmalloc_fatal("xasprintf", 0);
	return (n);
}
