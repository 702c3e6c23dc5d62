/* reqbody.c: where a request's body ends (reqbody.h).
 *
 * Content-Length bytes, or chunks as evhttp_handle_chunked_read reads
 * them: lines (LF, or CR LF) of a hexadecimal size, empty lines between
 * skipped (the CR LF after a chunk's data), the size 0 last, then trailer
 * lines up to an empty one.  libevent reads a size with strtoll, which
 * takes blanks, a sign and "0x" before the digits and stops at a space;
 * only plain digits are taken here: a head read two ways is refused, as
 * reqhead.c refuses one. */
#include <string.h>

#include "hex.h"
#include "reqbody.h"

enum { RB_DONE, RB_LENGTH, RB_SIZE, RB_DATA, RB_TRAILER };

#define LINE_MAX_BYTES	1024

void
reqbody_start(struct reqbody *b, const struct reqhead *h)
{
	memset(b, 0, sizeof *b);
	switch (reqhead_body(h)) {
	case REQHEAD_NO_BODY:
		b->state = RB_DONE;
		break;
	case REQHEAD_LENGTH:
		b->state = RB_LENGTH;
		b->left = (uint64_t)h->content_length;
		break;
	case REQHEAD_CHUNKED:
		b->state = RB_SIZE;
		break;
	}
}

/* A chunk size line has ended (its first bytes in b->line, CR dropped):
 * the next state, or -1 if it is not one. */
static int
reqbody_size(struct reqbody *b, size_t n)
{
	size_t i;
	int d;

	if (n == 0)
		return RB_SIZE;		/* the end of the last chunk's data */
	b->left = 0;
	for (i = 0; i < n && i < sizeof b->line &&
	    (d = hex_digit((unsigned char)b->line[i])) >= 0; i++)
		b->left = b->left << 4 | (uint64_t)d;
	/* libevent ignores what follows a space. */
	if (i == 0 || i > 15 || (i < n && (i >= sizeof b->line ||
	    b->line[i] != ' ')))
		return -1;
	return b->left == 0 ? RB_TRAILER : RB_DATA;
}

size_t
reqbody_feed(struct reqbody *b, const unsigned char *p, size_t n, int *end,
    const char **why)
{
	size_t i = 0, k, len;
	int next;

	*why = NULL;
	while (i < n && b->state != RB_DONE) {
		switch (b->state) {
		case RB_LENGTH:
		case RB_DATA:
			k = n - i < b->left ? n - i : (size_t)b->left;
			b->left -= k;
			i += k;
			if (b->left == 0)
				b->state = b->state == RB_DATA ? RB_SIZE :
				    RB_DONE;
			break;
		case RB_SIZE:
		case RB_TRAILER:
			/* libevent's C strings would end the line there (a
			 * trailer line beginning with one ends the body). */
			if (p[i] == '\0') {
				*why = "a NUL byte in the chunked framing";
				*end = 0;
				return i;
			}
			if (p[i] != '\n') {
				if (b->linelen < sizeof b->line)
					b->line[b->linelen] = (char)p[i];
				if (++b->linelen > LINE_MAX_BYTES &&
				    b->state == RB_SIZE) {
					*why = "a chunk size line is longer "
					    "than 1 kB";
					*end = 0;
					return i;
				}
				i++;
				break;
			}
			i++;
			len = b->linelen;
			if (len > 0 && len <= sizeof b->line &&
			    b->line[len - 1] == '\r')
				len--;
			b->linelen = 0;
			if (b->state == RB_TRAILER) {
				if (len == 0)
					b->state = RB_DONE;
				break;
			}
			if ((next = reqbody_size(b, len)) == -1) {
				*why = "a chunk size is not a hexadecimal "
				    "number (of at most 15 digits, without "
				    "an extension)";
				*end = 0;
				return i;
			}
			b->state = next;
			break;
		}
	}
	*end = b->state == RB_DONE;
	return i;
}
