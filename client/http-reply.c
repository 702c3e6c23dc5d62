/* http-reply.c: profd's reply read off a connection: the status line and
 * headers (1xx replies skipped), then the body in its framing: sized by
 * Content-Length, chunked (evhttp streams large ones so) or delimited by
 * the close of the connection, read whole (http_reply_read) or a piece at
 * a time (http_reply_start, http_reply_body) so that a large reply is
 * handled as it comes, never held; a gzipped one (Content-Encoding:
 * gzip, which profctl asks for) inflated on the way (http-gunzip.c). Strict, since a reply that does not
 * parse is better refused than guessed at; every error says what and
 * where. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "alloc.h"
#include "http-int.h"

/* What the status line and headers of a reply say. */
struct http_head {
	long	 status;
	int	 te;		/* a Transfer-Encoding was given */
	int	 chunked;	/* ... and its last coding is chunked */
	int	 has_length;
	size_t	 length;	/* Content-Length */
	int	 gzip;		/* Content-Encoding: gzip */
	int	 coding;	/* ... or another coding (not identity) */
};

/* The body as it comes. */
struct http_sink {
	char	*p;
	size_t	 n, cap;
};

/* Room for n more bytes and a NUL. */
static void
http_reply_reserve(struct http_sink *s, size_t n)
{
	size_t	 want;

	if (s->cap - s->n > n)
		return;
	if (n >= SIZE_MAX / 2 - s->n)
		want = SIZE_MAX / 2;	/* too much: xreallocarray aborts */
	else
		want = s->n + n + 1;
	s->cap = want * 2;
	s->p = xreallocarray(s->p, s->cap, 1);
}

/* A copy of s fit for a message: safe (termsafe.c), cut to 64 columns. */
static char *
http_reply_quote(const char *s)
{
	char	*safe, *q;
	size_t	 n;

	safe = termsafe(s, 0);
	n = termsafe_fit(safe, 64);
	xasprintf(&q, "%.*s%s", (int)n, safe, safe[n] != '\0' ? "..." : "");
	free(safe);
	return q;
}

/*
 * Read the lines of a header section (or trailer) until the empty line,
 * counting them against *room. Hands each line to fn when it is not NULL.
 * what names the section in errors ("headers", "trailer").
 */
static int
http_reply_fields(struct http_conn *conn, char *line, size_t *room,
    const char *what, int (*fn)(struct http_head *, char *, char **),
    struct http_head *head, char **cause)
{
	size_t	 len;

	for (;;) {
		switch (http_conn_line(conn, line, &len)) {
		case HTTP_LINE_OK:
			break;
		case HTTP_LINE_EOF:
			xasprintf(cause, "the reply ended in its %s", what);
			return -1;
		case HTTP_LINE_ERROR:
			xasprintf(cause, "reading the reply's %s: %s", what,
			    strerror(conn->error));
			return -1;
		case HTTP_LINE_LONG:
			xasprintf(cause, "a line of the reply's %s is longer "
			    "than %d bytes", what, HTTP_LINE_MAX);
			return -1;
		}
		if (len + 2 > *room) {
			xasprintf(cause, "more than %d bytes of %s in the "
			    "reply", HTTP_HEAD_MAX, what);
			return -1;
		}
		*room -= len + 2;
		if (len == 0)
			return 0;
		if (memchr(line, '\0', len) != NULL) {
			xasprintf(cause, "a NUL byte in the reply's %s", what);
			return -1;
		}
		if (fn != NULL && fn(head, line, cause) != 0)
			return -1;
	}
}

/* Content-Length: digits, or a list of the same number repeated. */
static int
http_reply_length_value(const char *v, size_t *out)
{
	size_t	 n;
	int	 first = 1, digits;

	for (;;) {
		while (*v == ' ' || *v == '\t')
			v++;
		n = 0;
		digits = 0;
		for (; *v >= '0' && *v <= '9'; v++, digits++) {
			if (n > (SIZE_MAX - 9) / 10)
				return -1;
			n = n * 10 + (size_t)(*v - '0');
		}
		if (digits == 0 || (!first && n != *out))
			return -1;
		*out = n;
		first = 0;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v == '\0')
			return 0;
		if (*v++ != ',')
			return -1;
	}
}

/* One "Name: value" of the headers; only the framing ones matter. */
static int
http_reply_field(struct http_head *head, char *line, char **cause)
{
	static const char	 sep[] = "()<>@,;:\\\"/[]?={} \t";
	char			*colon, *v, *e, *q, *tok;
	size_t			 n = 0;
	const char		*p;

	if (*line == ' ' || *line == '\t') {
		q = http_reply_quote(line);
		xasprintf(cause, "a folded header line in the reply: \"%s\"",
		    q);
		free(q);
		return -1;
	}
	colon = strchr(line, ':');
	for (p = line; colon != NULL && p < colon; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f ||
		    strchr(sep, *p) != NULL)
			break;
	}
	if (colon == NULL || colon == line || p != colon) {
		q = http_reply_quote(line);
		xasprintf(cause, "a malformed header line in the reply: "
		    "\"%s\"", q);
		free(q);
		return -1;
	}
	*colon = '\0';
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	e = v + strlen(v);
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';

	if (strcasecmp(line, "Content-Length") == 0) {
		if (http_reply_length_value(v, &n) != 0 ||
		    (head->has_length && n != head->length)) {
			q = http_reply_quote(v);
			xasprintf(cause, "a bad Content-Length in the reply: "
			    "\"%s\"", q);
			free(q);
			return -1;
		}
		head->has_length = 1;
		head->length = n;
	} else if (strcasecmp(line, "Content-Encoding") == 0) {
		/* profd sends gzip or nothing; x-gzip is its old name. */
		while ((tok = strsep(&v, ",")) != NULL) {
			while (*tok == ' ' || *tok == '\t')
				tok++;
			n = strcspn(tok, " \t");
			if (n == 0 || (n == 8 && strncasecmp(tok, "identity",
			    8) == 0))
				continue;
			if (head->gzip || !((n == 4 && strncasecmp(tok, "gzip",
			    4) == 0) || (n == 6 && strncasecmp(tok, "x-gzip",
			    6) == 0)))
				head->coding = 1;
			head->gzip = 1;
		}
	} else if (strcasecmp(line, "Transfer-Encoding") == 0) {
		/* The codings add up over the headers; the last decides. */
		head->te = 1;
		while ((tok = strsep(&v, ",")) != NULL) {
			while (*tok == ' ' || *tok == '\t')
				tok++;
			if (*tok == '\0')
				continue;
			n = strcspn(tok, " \t;");
			head->chunked = n == 7 &&
			    strncasecmp(tok, "chunked", 7) == 0;
		}
	}
	return 0;
}

/* "HTTP/1.x NNN[ reason]", NNN a status of the five classes (100-599):
 * anything else is not a reply profd sent. */
static int
http_reply_status(struct http_head *head, const char *line, char **cause)
{
	const char	*p = line;
	char		*q;

	if (strncmp(p, "HTTP/1.", 7) != 0 || p[7] < '0' || p[7] > '9' ||
	    p[8] != ' ' || p[9] < '1' || p[9] > '5' || p[10] < '0' ||
	    p[10] > '9' || p[11] < '0' || p[11] > '9' ||
	    (p[12] != ' ' && p[12] != '\0')) {
		q = http_reply_quote(line);
		xasprintf(cause, "a malformed status line in the reply: "
		    "\"%s\"", q);
		free(q);
		return -1;
	}
	head->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	return 0;
}

/* The status line and headers of the final reply, 1xx ones skipped. */
static int
http_reply_head(struct http_conn *conn, char *line, struct http_head *head,
    char **cause)
{
	size_t	 len, room;
	int	 interim;

	for (interim = 0;; interim++) {
		if (interim > HTTP_INTERIM_MAX) {
			xasprintf(cause, "more than %d interim (1xx) replies",
			    HTTP_INTERIM_MAX);
			return -1;
		}
		memset(head, 0, sizeof *head);
		switch (http_conn_line(conn, line, &len)) {
		case HTTP_LINE_OK:
			break;
		case HTTP_LINE_EOF:
			if (len == 0 && interim == 0)
				xasprintf(cause, "profd closed the connection "
				    "without replying");
			else
				xasprintf(cause, "the reply ended in its "
				    "status line");
			return -1;
		case HTTP_LINE_ERROR:
			xasprintf(cause, "reading the reply: %s",
			    strerror(conn->error));
			return -1;
		case HTTP_LINE_LONG:
			xasprintf(cause, "the reply's status line is longer "
			    "than %d bytes", HTTP_LINE_MAX);
			return -1;
		}
		if (http_reply_status(head, line, cause) != 0)
			return -1;
		room = HTTP_HEAD_MAX - (len + 2);
		if (http_reply_fields(conn, line, &room, "headers",
		    http_reply_field, head, cause) != 0)
			return -1;
		if (head->status == 101) {
			xasprintf(cause, "profd switched protocols (101)");
			return -1;
		}
		if (head->status >= 200)
			return 0;
	}
}

/* A chunk-size line: hex digits, then maybe extensions (ignored). */
static int
http_reply_chunk_size(const char *line, size_t *size)
{
	const char	*p;
	size_t		 n = 0;
	int		 d;

	for (p = line;; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (n > (SIZE_MAX >> 5))
			return -1;
		n = n * 16 + (size_t)d;
	}
	if (p == line)
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '\0' && *p != ';')
		return -1;
	*size = n;
	return 0;
}

/* The end of a chunk's data (its CRLF) unless none was read yet, then the
 * next chunk-size line; after the last chunk (size 0) the trailer, and
 * the body has ended. */
static int
http_reply_chunk_next(struct http_conn *conn, struct http_body *b,
    char **cause)
{
	size_t	 len, room;
	char	*q;

	if (b->size != 0) {
		switch (http_conn_line(conn, b->line, &len)) {
		case HTTP_LINE_OK:
			if (len == 0)
				break;
			/* FALLTHROUGH */
		case HTTP_LINE_LONG:
			xasprintf(cause, "a chunk of the reply is longer than "
			    "its size (%zu bytes)", b->size);
			return -1;
		case HTTP_LINE_EOF:
			xasprintf(cause, "the reply ended after a chunk, "
			    "before its CRLF");
			return -1;
		case HTTP_LINE_ERROR:
			xasprintf(cause, "the reply was cut off after %zu "
			    "bytes: %s", b->n, strerror(conn->error));
			return -1;
		}
	}
	switch (http_conn_line(conn, b->line, &len)) {
	case HTTP_LINE_OK:
		break;
	case HTTP_LINE_EOF:
		xasprintf(cause, "the reply ended before its last chunk "
		    "(after %zu bytes)", b->n);
		return -1;
	case HTTP_LINE_ERROR:
		xasprintf(cause, "the reply was cut off after %zu bytes: %s",
		    b->n, strerror(conn->error));
		return -1;
	case HTTP_LINE_LONG:
		xasprintf(cause, "a chunk-size line of the reply is longer "
		    "than %d bytes", HTTP_LINE_MAX);
		return -1;
	}
	if (http_reply_chunk_size(b->line, &b->size) != 0) {
		q = http_reply_quote(b->line);
		xasprintf(cause, "a bad chunk size in the reply: \"%s\"", q);
		free(q);
		return -1;
	}
	b->left = b->size;
	if (b->size != 0)
		return 0;
	b->framing = HTTP_BODY_NONE;
	room = HTTP_HEAD_MAX;
	return http_reply_fields(conn, b->line, &room, "trailer", NULL, NULL,
	    cause);
}

/*
 * Up to n (more than 0) bytes of the body into p, unframed. Returns how
 * many, 0 once all of it (and a chunked body's trailer) is read, or -1
 * with *cause saying why.
 */
ssize_t
http_reply_raw(struct http_conn *conn, struct http_body *b, char *p,
    size_t n, char **cause)
{
	ssize_t	 r;

	for (;;) {
		switch (b->framing) {
		case HTTP_BODY_NONE:
			return 0;
		case HTTP_BODY_LENGTH:
			if (b->n == b->length)
				return 0;
			if (n > b->length - b->n)
				n = b->length - b->n;
			if ((r = http_conn_read(conn, p, n)) > 0) {
				b->n += (size_t)r;
				return r;
			}
			if (r == 0)
				xasprintf(cause, "the reply ended after %zu of "
				    "%zu bytes", b->n, b->length);
			else
				xasprintf(cause, "reading the reply after %zu "
				    "of %zu bytes: %s", b->n, b->length,
				    strerror(conn->error));
			return -1;
		case HTTP_BODY_CLOSE:
			/* A reset is not an end. */
			if ((r = http_conn_read(conn, p, n)) == -1) {
				xasprintf(cause, "the reply was cut off after "
				    "%zu bytes: %s", b->n,
				    strerror(conn->error));
				return -1;
			}
			if (r == 0)
				b->framing = HTTP_BODY_NONE;
			b->n += (size_t)r;
			return r;
		case HTTP_BODY_CHUNKED:
			if (b->left == 0) {
				if (http_reply_chunk_next(conn, b, cause) != 0)
					return -1;
				continue;
			}
			if (n > b->left)
				n = b->left;
			if ((r = http_conn_read(conn, p, n)) > 0) {
				b->left -= (size_t)r;
				b->n += (size_t)r;
				return r;
			}
			if (r == 0)
				xasprintf(cause, "the reply ended %zu bytes into "
				    "a chunk of %zu bytes", b->size - b->left,
				    b->size);
			else
				xasprintf(cause, "the reply was cut off %zu "
				    "bytes into a chunk of %zu bytes: %s",
				    b->size - b->left, b->size,
				    strerror(conn->error));
			return -1;
		}
	}
}

/*
 * Up to n (more than 0) bytes of the body into p, unframed and inflated.
 * Returns how many, 0 once all of it is read, or -1 with *cause.
 */
ssize_t
http_reply_body(struct http_conn *conn, struct http_body *b, char *p,
    size_t n, char **cause)
{
	if (b->gunzip != NULL)
		return http_gunzip_read(b->gunzip, conn, b, p, n, cause);
	return http_reply_raw(conn, b, p, n, cause);
}

void
http_body_clear(struct http_body *b)
{
	http_gunzip_free(b->gunzip);
	b->gunzip = NULL;
}

/*
 * The status line and headers of a reply into *status and b, which then
 * says how its body comes. A reply to HEAD (head_only) has no body
 * whatever its headers say. Returns 0, or -1 with *cause saying why.
 */
int
http_reply_start(struct http_conn *conn, int head_only, long *status,
    struct http_body *b, char **cause)
{
	struct http_head	 head;

	memset(b, 0, sizeof *b);
	if (http_reply_head(conn, b->line, &head, cause) != 0)
		return -1;
	*status = head.status;
	if (head_only || head.status == 204 || head.status == 304)
		b->framing = HTTP_BODY_NONE;
	else if (head.te && head.chunked)
		b->framing = HTTP_BODY_CHUNKED;
	else if (head.te || !head.has_length)
		b->framing = HTTP_BODY_CLOSE;
	else {
		b->framing = HTTP_BODY_LENGTH;
		b->length = head.length;
	}
	if (head.coding) {
		xasprintf(cause, "the reply is in a coding profctl does not "
		    "read (Content-Encoding other than gzip)");
		return -1;
	}
	if (head.gzip && b->framing != HTTP_BODY_NONE &&
	    (b->gunzip = http_gunzip_new()) == NULL) {
		xasprintf(cause, "cannot set up the inflate of the reply");
		return -1;
	}
	return 0;
}

/*
 * The rest of the body, up to max bytes (what is past them is left
 * unread), into reply's body, len and json; json is NULL unless the body
 * parsed as JSON. Returns 0, or -1 with *cause and reply untouched.
 */
int
http_reply_collect(struct http_conn *conn, struct http_body *b, size_t max,
    struct http_reply *reply, char **cause)
{
	struct http_sink	 sink = { NULL, 0, 0 };
	size_t			 want;
	ssize_t			 r;

	/* Trust a length only so far: it comes from the other end. */
	want = max < HTTP_RESERVE_MAX ? max : HTTP_RESERVE_MAX;
	if (b->framing == HTTP_BODY_LENGTH)
		http_reply_reserve(&sink, b->length < want ? b->length : want);
	while (sink.n < max) {
		want = max - sink.n;
		http_reply_reserve(&sink, want < sizeof conn->buf ? want :
		    sizeof conn->buf);
		if (want > sink.cap - sink.n - 1)
			want = sink.cap - sink.n - 1;
		if ((r = http_reply_body(conn, b, sink.p + sink.n, want,
		    cause)) == -1) {
			free(sink.p);
			return -1;
		}
		if (r == 0)
			break;
		sink.n += (size_t)r;
	}
	if (sink.p == NULL)
		sink.p = xstrdup("");
	sink.p[sink.n] = '\0';
	reply->body = sink.p;
	reply->len = sink.n;
	/* profd writes a NUL inside a string (a SQL value, say) as \u0000,
	 * which jansson refuses unless allowed. */
	if (reply->len != 0)
		reply->json = json_loadb(reply->body, reply->len,
		    JSON_ALLOW_NUL, NULL);
	return 0;
}

/*
 * The reply to a request, into reply: its body holds len bytes (and a NUL
 * after them), json is NULL unless the body parsed as JSON. A reply to
 * HEAD (head_only) has no body whatever its headers say. Returns 0, or -1
 * with *cause saying why.
 */
int
http_reply_read(struct http_conn *conn, int head_only,
    struct http_reply *reply, char **cause)
{
	struct http_body	*b;
	long			 status;
	int			 rc;

	memset(reply, 0, sizeof *reply);
	b = xmalloc(sizeof *b);
	rc = http_reply_start(conn, head_only, &status, b, cause);
	if (rc == 0)
		rc = http_reply_collect(conn, b, SIZE_MAX, reply, cause);
	http_body_clear(b);
	free(b);
	if (rc == 0)
		reply->status = status;
	return rc;
}

void
http_reply_clear(struct http_reply *reply)
{
	free(reply->body);
	if (reply->json != NULL)
		json_decref(reply->json);
	memset(reply, 0, sizeof *reply);
}
