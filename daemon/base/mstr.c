/* mstr.c: counted byte strings: compared, made from C strings, copied. */
#include <string.h>

#include "alloc.h"
#include "mstr.h"

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

char *
xmstrdup(struct mstr s)
{
	return xstrndup(s.p ? s.p : "", s.n);
}
