/* reqbody.h: where a request's body ends, as libevent will read it, so
 * that the guard (conn-in.c) knows which bytes of a connection are this
 * request's and which the next one's (pipelined). */
#ifndef PROFD_REQBODY_H
#define PROFD_REQBODY_H

#include <stddef.h>
#include <stdint.h>

#include "reqhead.h"

struct reqbody {
	int state;			/* reqbody.c's RB_* */
	uint64_t left;			/* bytes of the length or chunk left */
	size_t linelen;			/* bytes of the current line */
	char line[20];			/* a chunk size line's first bytes */
};

/* The body that follows a whole head h. */
void reqbody_start(struct reqbody *, const struct reqhead *h);
/* Of the n bytes at p, how many are the body's; *end once it is whole
 * (at once for a request without one).  *why: the chunked framing is
 * one libevent refuses or reads otherwise, or profd does not read (a
 * chunk size that is not a hexadecimal number of at most 15 digits, an
 * extension, a line of more than 1 kB, a NUL byte in a size or trailer
 * line): refused, with the bytes taken so far. */
size_t reqbody_feed(struct reqbody *, const unsigned char *p, size_t n,
    int *end, const char **why);

#endif
