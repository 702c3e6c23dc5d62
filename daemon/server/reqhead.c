/* reqhead.c: a request's header lines checked as the guard (conn.c) sees
 * them, before libevent parses them.
 *
 * libevent takes the first of two Content-Length headers, accepts a sign
 * or padding in one (strtoll) and folds continuation lines; a proxy in
 * front that reads the same bytes another way (the last length, the
 * folded line as a header of its own) then disagrees with profd about
 * where a body ends, and the rest of a body becomes a request of its
 * own.  RFC 9112 asks a server to refuse such heads (sections 5.2 and
 * 6.3); so does profd, before any handler sees them, and closes the
 * connection.  Only each line's first bytes are kept: a Content-Length
 * longer than them is padded or too large either way. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "reqhead.h"

void
reqhead_init(struct reqhead *h)
{
	memset(h, 0, sizeof *h);
}

/* "Content-Length:" followed by optional blanks, 1 to 18 digits (no
 * leading zero but in "0"), optional blanks. */
static int
reqhead_length_ok(const char *v, size_t n)
{
	size_t i = 0, d;

	while (i < n && (v[i] == ' ' || v[i] == '\t'))
		i++;
	for (d = 0; i + d < n && isdigit((unsigned char)v[i + d]); d++)
		;
	if (d == 0 || d > 18 || (d > 1 && v[i] == '0'))
		return 0;
	for (i += d; i < n; i++)
		if (v[i] != ' ' && v[i] != '\t')
			return 0;
	return 1;
}

/* A header line has ended (its first bytes in h->start, CR dropped). */
static const char *
reqhead_line(struct reqhead *h)
{
	static const char cl[] = "content-length:", te[] = "transfer-encoding:";
	size_t n = h->len < sizeof h->start ? h->len : sizeof h->start;

	if (n > 0 && h->start[n - 1] == '\r' && h->len <= sizeof h->start)
		n--;
	if (n == 0) {
		h->ended = 1;
		return NULL;
	}
	if (h->start[0] == ' ' || h->start[0] == '\t')
		return "a header line is folded (obsolete line folding)";
	if (n >= sizeof te - 1 && strncasecmp(h->start, te, sizeof te - 1) == 0)
		h->transfer_encodings++;
	if (n >= sizeof cl - 1 && strncasecmp(h->start, cl, sizeof cl - 1) ==
	    0) {
		if (++h->content_lengths > 1)
			return "more than one Content-Length";
		if (h->len > sizeof h->start || !reqhead_length_ok(h->start +
		    sizeof cl - 1, n - (sizeof cl - 1)))
			return "Content-Length is not a plain decimal number";
	}
	if (h->content_lengths > 0 && h->transfer_encodings > 0)
		return "both Content-Length and Transfer-Encoding";
	return NULL;
}

const char *
reqhead_feed(struct reqhead *h, const unsigned char *p, size_t n)
{
	const char *why;
	size_t i;

	for (i = 0; i < n && !h->ended; i++) {
		if (p[i] != '\n') {
			if (h->len < sizeof h->start)
				h->start[h->len] = (char)p[i];
			h->len++;
			continue;
		}
		/* The request line is libevent's and conn.c's to check. */
		if (h->lines++ > 0 && (why = reqhead_line(h)) != NULL)
			return why;
		h->len = 0;
	}
	return NULL;
}
