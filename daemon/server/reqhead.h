/* reqhead.h: the header lines of a request head, checked as they arrive
 * for what lets two HTTP parsers disagree about where a body ends, and
 * what the guard needs of them: whether a body follows and how it is
 * framed, and, for the TCP listener's decision before any body byte,
 * the request line and the credentials of a whole head. */
#ifndef PROFD_REQHEAD_H
#define PROFD_REQHEAD_H

#include <stddef.h>
#include <stdint.h>

struct reqhead {
	int lines;			/* lines ended so far (1: request line) */
	int ended;			/* the empty line came */
	int content_lengths, transfer_encodings;
	int64_t content_length;		/* its value; -1: none */
	int chunked;			/* "Transfer-Encoding: chunked" */
	char method[8];			/* the request line's first word, if
					 * shorter than this */
	size_t len;			/* bytes of the current line */
	char start[40];			/* its first bytes */
};

void reqhead_init(struct reqhead *);
/* n bytes of the head, in order, up to its end at most.  NULL, or why
 * the head is refused (400): a second Content-Length, one that is not a
 * plain decimal number (a sign, a leading zero, padding, a list), one
 * beside Transfer-Encoding, a Transfer-Encoding that is not "chunked"
 * alone, an obsolete folded line, a NUL byte. */
const char *reqhead_feed(struct reqhead *, const unsigned char *p, size_t n);

/* What follows a whole head, as libevent reads it: no body (HEAD, TRACE,
 * an unknown method, or no Content-Length), Content-Length bytes, or
 * chunks. */
enum reqhead_body { REQHEAD_NO_BODY, REQHEAD_LENGTH, REQHEAD_CHUNKED };
enum reqhead_body reqhead_body(const struct reqhead *);

/* A whole head's request line and Authorization header, read as libevent
 * reads them (the method up to the first space, the target up to the
 * last; the first header of the name, its value trimmed): pointers into
 * head, which is NUL-terminated at n and cut in place.  -1 if the request
 * line is not METHOD TARGET VERSION. */
struct reqhead_req {
	const char *method, *target;
	const char *authorization;	/* NULL: none */
};
int reqhead_parse(char *head, size_t n, struct reqhead_req *);

#endif
