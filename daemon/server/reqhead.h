/* reqhead.h: the header lines of a request head, checked as they arrive
 * for what lets two HTTP parsers disagree about where a body ends. */
#ifndef PROFD_REQHEAD_H
#define PROFD_REQHEAD_H

#include <stddef.h>

struct reqhead {
	int lines;			/* lines ended so far (1: request line) */
	int ended;			/* the empty line came */
	int content_lengths, transfer_encodings;
	size_t len;			/* bytes of the current line */
	char start[40];			/* its first bytes */
};

void reqhead_init(struct reqhead *);
/* n bytes of the head, in order, up to its end at most.  NULL, or why
 * the head is refused (400): a second Content-Length, one that is not a
 * plain decimal number (a sign, a leading zero, padding, a list), one
 * beside Transfer-Encoding, an obsolete folded line. */
const char *reqhead_feed(struct reqhead *, const unsigned char *p, size_t n);

#endif
