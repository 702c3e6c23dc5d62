/* webhead.c: a request head read off a connection without blocking, for
 * profctl web's loop: the bytes up to the blank line that ends the head
 * and not one more (the body stays in the socket, for the worker that
 * forwards it to read), at most WEBHEAD_MAX of them. */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"
#include "webserve.h"

#define WEBHEAD_FIRST	2048	/* bytes held at first; doubled up to MAX */

void
webhead_init(struct webhead *h)
{
	memset(h, 0, sizeof *h);
}

void
webhead_free(struct webhead *h)
{
	free(h->buf);
	webhead_init(h);
}

/* Where the head ends in buf[from..to): just past the LF of an empty line
 * (CRLF or a bare LF, as the parser takes lines), or 0. */
static size_t
webhead_scan(struct webhead *h, size_t from, size_t to)
{
	size_t	 i;

	for (i = from; i < to; i++) {
		if (h->buf[i] != '\n')
			continue;
		if (i == h->bol || (i == h->bol + 1 && h->buf[h->bol] == '\r'))
			return i + 1;
		h->bol = i + 1;
	}
	return 0;
}

/* Read what has come, whatever the descriptor's mode: bytes are looked at
 * (MSG_PEEK) before they are taken, so that those past the head stay. */
enum webhead_state
webhead_read(struct webhead *h, int fd)
{
	ssize_t	 n, got;
	size_t	 end, take;

	for (;;) {
		if (h->len == h->cap) {
			if (h->cap >= WEBHEAD_MAX)
				return WEBHEAD_LONG;
			h->cap = h->cap == 0 ? WEBHEAD_FIRST : h->cap * 2;
			if (h->cap > WEBHEAD_MAX)
				h->cap = WEBHEAD_MAX;
			h->buf = xreallocarray(h->buf, h->cap, 1);
		}
		n = recv(fd, h->buf + h->len, h->cap - h->len,
		    MSG_PEEK | MSG_DONTWAIT);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return WEBHEAD_MORE;
			return WEBHEAD_ERROR;
		}
		if (n == 0)
			return WEBHEAD_EOF;
		end = webhead_scan(h, h->len, h->len + (size_t)n);
		take = end != 0 ? end - h->len : (size_t)n;
		/* The bytes are there: this takes all of them at once. */
		while ((got = recv(fd, h->buf + h->len, take, MSG_DONTWAIT)) ==
		    -1 && errno == EINTR)
			;
		if (got != (ssize_t)take)
			return WEBHEAD_ERROR;
		h->len += take;
		if (end != 0)
			return WEBHEAD_DONE;
	}
}
