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
 * longer than them is padded or too large either way.
 *
 * The guard also frames the requests of a connection itself (where a
 * body ends is where the next request begins, pipelined or not), so it
 * reads the length and framing of the body as libevent will: which
 * methods have one, its Content-Length, "chunked".  libevent takes the
 * first Transfer-Encoding header and only "chunked" as chunked, where a
 * proxy may read "gzip, chunked" or a second header as chunked: those
 * are refused too, and so is a NUL byte, where libevent's C strings end
 * a line, a value or the head itself before the bytes do. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "reqhead.h"

void
reqhead_init(struct reqhead *h)
{
	memset(h, 0, sizeof *h);
	h->content_length = -1;
}

/* The value of a header line kept whole in start (n bytes), blanks
 * trimmed at both ends, as libevent trims it. */
static const char *
reqhead_value(const char *v, size_t n, size_t *len)
{
	while (n > 0 && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	*len = n;
	return v;
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
	size_t n = h->len < sizeof h->start ? h->len : sizeof h->start, vn;
	const char *v;

	if (n > 0 && h->start[n - 1] == '\r' && h->len <= sizeof h->start)
		n--;
	if (n == 0) {
		h->ended = 1;
		return NULL;
	}
	if (h->start[0] == ' ' || h->start[0] == '\t')
		return "a header line is folded (obsolete line folding)";
	if (n >= sizeof te - 1 && strncasecmp(h->start, te, sizeof te - 1) ==
	    0) {
		if (++h->transfer_encodings > 1)
			return "more than one Transfer-Encoding";
		v = reqhead_value(h->start + sizeof te - 1, n - (sizeof te - 1),
		    &vn);
		if (h->len > sizeof h->start || vn != 7 ||
		    strncasecmp(v, "chunked", 7) != 0)
			return "a Transfer-Encoding other than \"chunked\"";
		h->chunked = 1;
	}
	if (n >= sizeof cl - 1 && strncasecmp(h->start, cl, sizeof cl - 1) ==
	    0) {
		if (++h->content_lengths > 1)
			return "more than one Content-Length";
		if (h->len > sizeof h->start || !reqhead_length_ok(h->start +
		    sizeof cl - 1, n - (sizeof cl - 1)))
			return "Content-Length is not a plain decimal number";
		v = reqhead_value(h->start + sizeof cl - 1, n - (sizeof cl - 1),
		    &vn);
		for (h->content_length = 0; vn > 0; v++, vn--)
			h->content_length = h->content_length * 10 + (*v - '0');
	}
	if (h->content_lengths > 0 && h->transfer_encodings > 0)
		return "both Content-Length and Transfer-Encoding";
	return NULL;
}

/* The request line has ended: its method, the first word, if short. */
static void
reqhead_method(struct reqhead *h)
{
	size_t n = h->len < sizeof h->start ? h->len : sizeof h->start;
	const char *sp = memchr(h->start, ' ', n);

	if (sp != NULL && (size_t)(sp - h->start) < sizeof h->method) {
		memcpy(h->method, h->start, (size_t)(sp - h->start));
		h->method[sp - h->start] = '\0';
	}
}

const char *
reqhead_feed(struct reqhead *h, const unsigned char *p, size_t n)
{
	const char *why;
	size_t i;

	for (i = 0; i < n && !h->ended; i++) {
		/* libevent reads a line as a C string: one that begins with
		 * a NUL is the empty line that ends its head, and a value is
		 * cut at one. */
		if (p[i] == '\0')
			return "a NUL byte in the request head";
		if (p[i] != '\n') {
			if (h->len < sizeof h->start)
				h->start[h->len] = (char)p[i];
			h->len++;
			continue;
		}
		/* The request line is libevent's and conn.c's to check;
		 * its method says whether a body may follow. */
		if (h->lines++ == 0)
			reqhead_method(h);
		else if ((why = reqhead_line(h)) != NULL)
			return why;
		h->len = 0;
	}
	return NULL;
}

enum reqhead_body
reqhead_body(const struct reqhead *h)
{
	/* evhttp_method_may_have_body: HEAD, TRACE and unknown methods
	 * have none, whatever their head says. */
	static const char *const with[] = { "POST", "PUT", "PATCH", "GET",
	    "DELETE", "OPTIONS", "CONNECT" };
	size_t i;

	for (i = 0; i < sizeof with / sizeof with[0]; i++)
		if (strcmp(h->method, with[i]) == 0)
			break;
	if (i == sizeof with / sizeof with[0])
		return REQHEAD_NO_BODY;
	if (h->chunked)
		return REQHEAD_CHUNKED;
	/* No Content-Length: no body, even with "Connection: close". */
	return h->content_length > 0 ? REQHEAD_LENGTH : REQHEAD_NO_BODY;
}

/* Cut the line at p (up to its LF, CR dropped) and return the next. */
static char *
reqhead_cut(char *p, char *end)
{
	char *lf = memchr(p, '\n', (size_t)(end - p));

	if (lf == NULL)
		return end;
	*lf = '\0';
	if (lf > p && lf[-1] == '\r')
		lf[-1] = '\0';
	return lf + 1;
}

int
reqhead_parse(char *head, size_t n, struct reqhead_req *r)
{
	char *end = head + n, *line, *next, *sp, *colon;
	size_t len;

	memset(r, 0, sizeof *r);
	head[n] = '\0';
	next = reqhead_cut(head, end);
	/* evhttp_parse_request_line: trailing spaces dropped, the method
	 * to the first space, the version after the last. */
	len = strlen(head);
	while (len > 0 && head[len - 1] == ' ')
		head[--len] = '\0';
	if ((sp = strchr(head, ' ')) == NULL)
		return -1;
	*sp = '\0';
	r->method = head;
	r->target = sp + 1;
	if ((sp = strrchr(sp + 1, ' ')) == NULL || sp == r->target)
		return -1;
	*sp = '\0';
	for (line = next; line < end && *line != '\0'; line = next) {
		next = reqhead_cut(line, end);
		/* evhttp_parse_headers_: the name to the first colon, as it
		 * is; the value without the blanks around it. */
		if ((colon = strchr(line, ':')) == NULL)
			continue;
		*colon = '\0';
		if (r->authorization != NULL ||
		    strcasecmp(line, "Authorization") != 0)
			continue;
		colon++;
		colon += strspn(colon, " \t");
		len = strlen(colon);
		while (len > 0 && (colon[len - 1] == ' ' ||
		    colon[len - 1] == '\t' || colon[len - 1] == '\r'))
			colon[--len] = '\0';
		r->authorization = colon;
	}
	return 0;
}
