/* mstr.h: counted byte strings that point into someone else's buffer. */
#ifndef PROFD_MSTR_H
#define PROFD_MSTR_H

#include <stddef.h>

struct mstr {
	const char *p;
	size_t n;
};

#define MSTR_LIT(s) ((struct mstr){ (s), sizeof(s) - 1 })

int mstr_eq(struct mstr, struct mstr);
int mstr_eqs(struct mstr, const char *);
struct mstr mstr_from(const char *);
/* A NUL-terminated copy (aborts on out of memory, as alloc.h's do). */
char *xmstrdup(struct mstr);

#endif
