/* testlib.h: what every unit test shares: the CHECK macros and a
 * reproducible random number generator.
 *
 * Header-only (static inline, so a test that uses part of it gets no
 * unused-function warnings), since each tests/unit/test_*.c is built as an
 * executable of its own.  The decoder tests' recording sink is in
 * testrec.h. */
#ifndef PROFD_TESTLIB_H
#define PROFD_TESTLIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

static unsigned checks;

#define CHECK(c) do {							\
	checks++;							\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,	\
		    __LINE__, #c);					\
		exit(1);						\
	}								\
} while (0)

#define STREQ(a, b) ((a) != NULL && strcmp((a), (b)) == 0)
#define HAS(s, sub) (strstr((s), (sub)) != NULL)

/* xorshift64: reproducible pseudo-random numbers from a seed. */
static inline uint64_t
xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

#endif
