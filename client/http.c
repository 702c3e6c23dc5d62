/* http.c: requests to profd over its Unix socket: a small HTTP/1.1 client,
 * one request per connection. Written here rather than taken from libcurl,
 * whose loading and initialisation cost 7 of the 9 ms of a `profctl top`.
 * Replies may be sized by Content-Length, chunked (evhttp streams large
 * ones so) or delimited by the close of the connection. */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "profctl.h"

#define HTTP_CONNECT_TIMEOUT	10		/* seconds, as libcurl had it */
#define HTTP_LINE_MAX		8192		/* a header or chunk-size line */
#define HTTP_HEAD_MAX		65536		/* status line and headers */
#define HTTP_INTERIM_MAX	16		/* 1xx replies before the real one */
#define HTTP_RESERVE_MAX	((size_t)64 << 20)	/* trust in a length */

struct http {
	char	*socket;
};

/* The reading end of a connection. Lines come through buf; body bytes
 * past what buf holds are read straight into the reply. */
struct http_conn {
	int	 fd;
	int	 error;		/* errno of the read that failed */
	size_t	 off, end;	/* unread bytes are buf[off..end) */
	char	 buf[16384];
};

/* What the status line and headers of a reply say. */
struct http_head {
	long	 status;
	int	 te;		/* a Transfer-Encoding was given */
	int	 chunked;	/* ... and its last coding is chunked */
	int	 has_length;
	size_t	 length;	/* Content-Length */
};

struct http_sink {
	char	*p;
	size_t	 n, cap;
};

enum http_line {
	HTTP_LINE_OK,
	HTTP_LINE_EOF,
	HTTP_LINE_ERROR,	/* conn->error says why */
	HTTP_LINE_LONG
};

/* Never NULL: there is nothing to initialise but the path. */
struct http *
http_new(const char *socket_path)
{
	struct http	*h;

	h = xcalloc(1, sizeof *h);
	h->socket = xstrdup(socket_path);
	return (h);
}

void
http_free(struct http *h)
{
	if (h == NULL)
		return;
	free(h->socket);
	free(h);
}

const char *
http_socket(const struct http *h)
{
	return (h->socket);
}

/* Room for n more bytes and a NUL. */
static void
http_sink_reserve(struct http_sink *s, size_t n)
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

/*
 * Connect, waiting at most HTTP_CONNECT_TIMEOUT for room in profd's listen
 * queue (a blocking AF_UNIX connect honours SO_SNDTIMEO). Returns the
 * socket or -1 with *cause the error as strerror says it.
 */
static int
http_connect(const struct http *h, char **cause)
{
	struct sockaddr_un	 sun;
	struct timeval		 tv;
	size_t			 len = strlen(h->socket);
	int			 fd, error;

	if (len >= sizeof sun.sun_path) {
		xasprintf(cause, "%s", strerror(ENAMETOOLONG));
		return (-1);
	}
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, h->socket, len + 1);

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		xasprintf(cause, "%s", strerror(errno));
		return (-1);
	}
	tv.tv_sec = HTTP_CONNECT_TIMEOUT;
	tv.tv_usec = 0;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	while (connect(fd, (struct sockaddr *)&sun, sizeof sun) == -1) {
		if (errno == EINTR)
			continue;
		if (errno == EISCONN)
			break;
		error = errno;
		close(fd);
		if (error == EAGAIN)
			xasprintf(cause, "%s after %d s", strerror(ETIMEDOUT),
			    HTTP_CONNECT_TIMEOUT);
		else
			xasprintf(cause, "%s", strerror(error));
		return (-1);
	}
	/* Sending a large body may take as long as profd needs. */
	tv.tv_sec = 0;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	return (fd);
}

/* Write all of iov, through partial writes and EINTR. MSG_NOSIGNAL: a
 * closed socket is EPIPE, not SIGPIPE. Returns 0 or -1 with errno. */
static int
http_send(int fd, struct iovec *iov, int iovcnt)
{
	struct msghdr	 msg;
	ssize_t		 n;

	while (iovcnt > 0) {
		if (iov->iov_len == 0) {
			iov++;
			iovcnt--;
			continue;
		}
		memset(&msg, 0, sizeof msg);
		msg.msg_iov = iov;
		msg.msg_iovlen = (size_t)iovcnt;
		if ((n = sendmsg(fd, &msg, MSG_NOSIGNAL)) == -1) {
			if (errno == EINTR)
				continue;
			return (-1);
		}
		while (n > 0) {
			if ((size_t)n >= iov->iov_len) {
				n -= (ssize_t)iov->iov_len;
				iov++;
				iovcnt--;
			} else {
				iov->iov_base = (char *)iov->iov_base + n;
				iov->iov_len -= (size_t)n;
				n = 0;
			}
		}
	}
	return (0);
}

/* read(2) through EINTR; errno kept in conn->error. */
static ssize_t
http_conn_read_fd(struct http_conn *conn, void *p, size_t n)
{
	ssize_t	 r;

	while ((r = read(conn->fd, p, n)) == -1 && errno == EINTR)
		;
	if (r == -1)
		conn->error = errno;
	return (r);
}

/* More bytes into buf. Returns how many, 0 at the end, -1 on error. */
static ssize_t
http_conn_fill(struct http_conn *conn)
{
	ssize_t	 r;

	if (conn->off > 0) {
		memmove(conn->buf, conn->buf + conn->off,
		    conn->end - conn->off);
		conn->end -= conn->off;
		conn->off = 0;
	}
	r = http_conn_read_fd(conn, conn->buf + conn->end,
	    sizeof conn->buf - conn->end);
	if (r > 0)
		conn->end += (size_t)r;
	return (r);
}

/* Up to n body bytes into p: what buf holds first, then from the socket,
 * straight into p when n is large. Returns as http_conn_fill. */
static ssize_t
http_conn_read(struct http_conn *conn, char *p, size_t n)
{
	ssize_t	 r;

	if (conn->off == conn->end) {
		if (n >= sizeof conn->buf)
			return (http_conn_read_fd(conn, p, n));
		if ((r = http_conn_fill(conn)) <= 0)
			return (r);
	}
	if (n > conn->end - conn->off)
		n = conn->end - conn->off;
	memcpy(p, conn->buf + conn->off, n);
	conn->off += n;
	return ((ssize_t)n);
}

/* The next line, its LF (and a CR before it) dropped, NUL-terminated into
 * line[HTTP_LINE_MAX]; *len is its length, or at HTTP_LINE_EOF how much of
 * a line came before the end. */
static enum http_line
http_conn_line(struct http_conn *conn, char *line, size_t *len)
{
	char	*nl;
	size_t	 n;
	ssize_t	 r;

	*len = 0;
	for (;;) {
		nl = memchr(conn->buf + conn->off, '\n',
		    conn->end - conn->off);
		n = nl != NULL ? (size_t)(nl - (conn->buf + conn->off)) :
		    conn->end - conn->off;
		if (*len + n >= HTTP_LINE_MAX)
			return (HTTP_LINE_LONG);
		memcpy(line + *len, conn->buf + conn->off, n);
		*len += n;
		conn->off += n;
		if (nl != NULL) {
			conn->off++;
			if (*len > 0 && line[*len - 1] == '\r')
				(*len)--;
			line[*len] = '\0';
			return (HTTP_LINE_OK);
		}
		if ((r = http_conn_fill(conn)) <= 0)
			return (r == 0 ? HTTP_LINE_EOF : HTTP_LINE_ERROR);
	}
}

/* A copy of s fit for a message: control characters made '?', cut. */
static char *
http_quote(const char *s)
{
	char	*q;

	xasprintf(&q, "%.64s%s", s, strlen(s) > 64 ? "..." : "");
	render_clean(q);
	return (q);
}

/*
 * Read the lines of a header section (or trailer) until the empty line,
 * counting them against *room. Hands each line to fn when it is not NULL.
 * what names the section in errors ("headers", "trailer").
 */
static int
http_read_fields(struct http_conn *conn, char *line, size_t *room,
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
			return (-1);
		case HTTP_LINE_ERROR:
			xasprintf(cause, "reading the reply's %s: %s", what,
			    strerror(conn->error));
			return (-1);
		case HTTP_LINE_LONG:
			xasprintf(cause, "a line of the reply's %s is longer "
			    "than %d bytes", what, HTTP_LINE_MAX);
			return (-1);
		}
		if (len + 2 > *room) {
			xasprintf(cause, "more than %d bytes of %s in the "
			    "reply", HTTP_HEAD_MAX, what);
			return (-1);
		}
		*room -= len + 2;
		if (len == 0)
			return (0);
		if (memchr(line, '\0', len) != NULL) {
			xasprintf(cause, "a NUL byte in the reply's %s", what);
			return (-1);
		}
		if (fn != NULL && fn(head, line, cause) != 0)
			return (-1);
	}
}

/* Content-Length: digits, or a list of the same number repeated. */
static int
http_parse_length(const char *v, size_t *out)
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
				return (-1);
			n = n * 10 + (size_t)(*v - '0');
		}
		if (digits == 0 || (!first && n != *out))
			return (-1);
		*out = n;
		first = 0;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v == '\0')
			return (0);
		if (*v++ != ',')
			return (-1);
	}
}

/* One "Name: value" of the headers; only the framing ones matter. */
static int
http_parse_field(struct http_head *head, char *line, char **cause)
{
	static const char	 sep[] = "()<>@,;:\\\"/[]?={} \t";
	char			*colon, *v, *e, *q, *tok;
	size_t			 n = 0;
	const char		*p;

	if (*line == ' ' || *line == '\t') {
		q = http_quote(line);
		xasprintf(cause, "a folded header line in the reply: \"%s\"", q);
		free(q);
		return (-1);
	}
	colon = strchr(line, ':');
	for (p = line; colon != NULL && p < colon; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f ||
		    strchr(sep, *p) != NULL)
			break;
	}
	if (colon == NULL || colon == line || p != colon) {
		q = http_quote(line);
		xasprintf(cause, "a malformed header line in the reply: "
		    "\"%s\"", q);
		free(q);
		return (-1);
	}
	*colon = '\0';
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	e = v + strlen(v);
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';

	if (strcasecmp(line, "Content-Length") == 0) {
		if (http_parse_length(v, &n) != 0 ||
		    (head->has_length && n != head->length)) {
			q = http_quote(v);
			xasprintf(cause, "a bad Content-Length in the reply: "
			    "\"%s\"", q);
			free(q);
			return (-1);
		}
		head->has_length = 1;
		head->length = n;
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
	return (0);
}

/* "HTTP/1.x NNN[ reason]". */
static int
http_parse_status(struct http_head *head, const char *line, char **cause)
{
	const char	*p = line;
	char		*q;

	if (strncmp(p, "HTTP/1.", 7) != 0 || p[7] < '0' || p[7] > '9' ||
	    p[8] != ' ' || p[9] < '1' || p[9] > '9' || p[10] < '0' ||
	    p[10] > '9' || p[11] < '0' || p[11] > '9' ||
	    (p[12] != ' ' && p[12] != '\0')) {
		q = http_quote(line);
		xasprintf(cause, "a malformed status line in the reply: "
		    "\"%s\"", q);
		free(q);
		return (-1);
	}
	head->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	return (0);
}

/* The status line and headers of the final reply, 1xx ones skipped. */
static int
http_read_head(struct http_conn *conn, char *line, struct http_head *head,
    char **cause)
{
	size_t	 len, room;
	int	 interim;

	for (interim = 0;; interim++) {
		if (interim > HTTP_INTERIM_MAX) {
			xasprintf(cause, "more than %d interim (1xx) replies",
			    HTTP_INTERIM_MAX);
			return (-1);
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
			return (-1);
		case HTTP_LINE_ERROR:
			xasprintf(cause, "reading the reply: %s",
			    strerror(conn->error));
			return (-1);
		case HTTP_LINE_LONG:
			xasprintf(cause, "the reply's status line is longer "
			    "than %d bytes", HTTP_LINE_MAX);
			return (-1);
		}
		if (http_parse_status(head, line, cause) != 0)
			return (-1);
		room = HTTP_HEAD_MAX - (len + 2);
		if (http_read_fields(conn, line, &room, "headers",
		    http_parse_field, head, cause) != 0)
			return (-1);
		if (head->status == 101) {
			xasprintf(cause, "profd switched protocols (101)");
			return (-1);
		}
		if (head->status >= 200)
			return (0);
	}
}

/* n more bytes of the body into the sink: 0, 1 if the reply ended
 * first, -1 on a read error (conn->error); *got says how many came. */
static int
http_read_exact(struct http_conn *conn, struct http_sink *sink, size_t n,
    size_t *got)
{
	ssize_t	 r;

	http_sink_reserve(sink, n < HTTP_RESERVE_MAX ? n : HTTP_RESERVE_MAX);
	for (*got = 0; *got < n; *got += (size_t)r) {
		http_sink_reserve(sink, 1);
		r = http_conn_read(conn, sink->p + sink->n,
		    n - *got < sink->cap - sink->n - 1 ?
		    n - *got : sink->cap - sink->n - 1);
		if (r <= 0)
			return (r == 0 ? 1 : -1);
		sink->n += (size_t)r;
	}
	return (0);
}

/* A body of head->length bytes. */
static int
http_read_length(struct http_conn *conn, size_t length,
    struct http_sink *sink, char **cause)
{
	size_t	 got;

	switch (http_read_exact(conn, sink, length, &got)) {
	case 1:
		xasprintf(cause, "the reply ended after %zu of %zu bytes", got,
		    length);
		return (-1);
	case -1:
		xasprintf(cause, "reading the reply after %zu of %zu bytes: %s",
		    got, length, strerror(conn->error));
		return (-1);
	}
	return (0);
}

/* A body that ends with the connection. A reset is not an end. */
static int
http_read_close(struct http_conn *conn, struct http_sink *sink,
    char **cause)
{
	ssize_t	 r;

	for (;;) {
		http_sink_reserve(sink, sizeof conn->buf);
		r = http_conn_read(conn, sink->p + sink->n,
		    sink->cap - sink->n - 1);
		if (r == 0)
			return (0);
		if (r == -1) {
			xasprintf(cause, "the reply was cut off after %zu "
			    "bytes: %s", sink->n, strerror(conn->error));
			return (-1);
		}
		sink->n += (size_t)r;
	}
}

/* A chunk-size line: hex digits, then maybe extensions (ignored). */
static int
http_parse_chunk_size(const char *line, size_t *size)
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
			return (-1);
		n = n * 16 + (size_t)d;
	}
	if (p == line)
		return (-1);
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '\0' && *p != ';')
		return (-1);
	*size = n;
	return (0);
}

/* A chunked body: chunks until the last (size 0), then the trailer. */
static int
http_read_chunked(struct http_conn *conn, char *line, struct http_sink *sink,
    char **cause)
{
	size_t	 size, got, len, room;
	char	*q;

	for (;;) {
		switch (http_conn_line(conn, line, &len)) {
		case HTTP_LINE_OK:
			break;
		case HTTP_LINE_EOF:
			xasprintf(cause, "the reply ended before its last "
			    "chunk (after %zu bytes)", sink->n);
			return (-1);
		case HTTP_LINE_ERROR:
			xasprintf(cause, "the reply was cut off after %zu "
			    "bytes: %s", sink->n, strerror(conn->error));
			return (-1);
		case HTTP_LINE_LONG:
			xasprintf(cause, "a chunk-size line of the reply is "
			    "longer than %d bytes", HTTP_LINE_MAX);
			return (-1);
		}
		if (http_parse_chunk_size(line, &size) != 0) {
			q = http_quote(line);
			xasprintf(cause, "a bad chunk size in the reply: "
			    "\"%s\"", q);
			free(q);
			return (-1);
		}
		if (size == 0)
			break;
		switch (http_read_exact(conn, sink, size, &got)) {
		case 1:
			xasprintf(cause, "the reply ended %zu bytes into a "
			    "chunk of %zu bytes", got, size);
			return (-1);
		case -1:
			xasprintf(cause, "the reply was cut off %zu bytes into "
			    "a chunk of %zu bytes: %s", got, size,
			    strerror(conn->error));
			return (-1);
		}
		switch (http_conn_line(conn, line, &len)) {
		case HTTP_LINE_OK:
			if (len == 0)
				continue;
			/* FALLTHROUGH */
		case HTTP_LINE_LONG:
			xasprintf(cause, "a chunk of the reply is longer than "
			    "its size (%zu bytes)", size);
			return (-1);
		case HTTP_LINE_EOF:
			xasprintf(cause, "the reply ended after a chunk, "
			    "before its CRLF");
			return (-1);
		case HTTP_LINE_ERROR:
			xasprintf(cause, "the reply was cut off after %zu "
			    "bytes: %s", sink->n, strerror(conn->error));
			return (-1);
		}
	}
	room = HTTP_HEAD_MAX;
	return (http_read_fields(conn, line, &room, "trailer", NULL, NULL,
	    cause));
}

/* A method is a token; a path starts with / and holds no space or
 * control character (it would end the request line early). */
static int
http_check_request(const char *method, const char *path)
{
	const char	*p;

	if (*method == '\0' || *path != '/')
		return (-1);
	for (p = method; *p != '\0'; p++) {
		if ((*p < 'A' || *p > 'Z') && *p != '-' && *p != '_')
			return (-1);
	}
	for (p = path; *p != '\0'; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return (-1);
	}
	return (0);
}

/*
 * Send method path (with its query) and body; fill reply. Returns 0 when
 * profd answered (any status), HTTP_ECONNECT when it could not be reached,
 * HTTP_EBROKEN when the exchange broke off later; *cause says why.
 */
int
http_request(struct http *h, const char *method, const char *path,
    const void *body, size_t len, struct http_reply *reply, char **cause)
{
	return (http_request_type(h, method, path, NULL, body, len, reply,
	    cause));
}

/* http_request with the Content-Type of the body (NULL: a blob,
 * application/octet-stream). Replies are kept as sent, binary or not:
 * body holds len bytes (and a NUL after them), json is NULL unless the
 * body parsed as JSON. */
int
http_request_type(struct http *h, const char *method, const char *path,
    const char *ctype, const void *body, size_t len, struct http_reply *reply,
    char **cause)
{
	struct http_conn	*conn;
	struct http_head	 head;
	struct http_sink	 sink = { NULL, 0, 0 };
	struct iovec		 iov[2];
	char			*req, *line, cl[48];
	int			 fd, rc, has_body, send_error = 0;

	memset(reply, 0, sizeof *reply);
	if (body == NULL)
		len = 0;
	if (http_check_request(method, path) != 0) {
		xasprintf(cause, "invalid request: %s %s", method, path);
		render_clean(*cause);
		return (HTTP_EBROKEN);
	}
	if ((fd = http_connect(h, cause)) == -1)
		return (HTTP_ECONNECT);

	has_body = strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0;
	cl[0] = '\0';
	if (has_body || len != 0)
		snprintf(cl, sizeof cl, "Content-Length: %zu\r\n", len);
	/* No "Expect: 100-continue": one round trip, no stall. */
	xasprintf(&req, "%s %s HTTP/1.1\r\n"
	    "Host: localhost\r\n"
	    "User-Agent: profctl/" PROFD_VERSION "\r\n"
	    "Accept: application/json\r\n"
	    "%s%s%s%s"
	    "Connection: close\r\n\r\n", method, path,
	    has_body ? "Content-Type: " : "",
	    has_body ? (ctype != NULL ? ctype : "application/octet-stream") :
	    "", has_body ? "\r\n" : "", cl);

	iov[0].iov_base = req;
	iov[0].iov_len = strlen(req);
	iov[1].iov_base = (void *)(uintptr_t)body;	/* not written to */
	iov[1].iov_len = len;
	if (http_send(fd, iov, 2) != 0) {
		/* profd may have answered (413, say) and closed before
		 * taking the whole body: its reply is still worth reading. */
		send_error = errno;
		if (send_error != EPIPE && send_error != ECONNRESET) {
			xasprintf(cause, "sending the request: %s",
			    strerror(send_error));
			free(req);
			close(fd);
			return (HTTP_EBROKEN);
		}
	}
	free(req);

	conn = xmalloc(sizeof *conn);
	conn->fd = fd;
	conn->error = 0;
	conn->off = conn->end = 0;
	line = xmalloc(HTTP_LINE_MAX);
	rc = http_read_head(conn, line, &head, cause);
	if (rc != 0 && send_error != 0) {
		free(*cause);
		xasprintf(cause, "sending the request: %s",
		    strerror(send_error));
	}
	if (rc == 0) {
		if (strcmp(method, "HEAD") == 0 || head.status == 204 ||
		    head.status == 304)
			rc = 0;
		else if (head.te && head.chunked)
			rc = http_read_chunked(conn, line, &sink, cause);
		else if (head.te || !head.has_length)
			rc = http_read_close(conn, &sink, cause);
		else
			rc = http_read_length(conn, head.length, &sink, cause);
	}
	free(line);
	free(conn);
	close(fd);
	if (rc != 0) {
		free(sink.p);
		return (HTTP_EBROKEN);
	}

	reply->status = head.status;
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
	return (0);
}

void
http_reply_clear(struct http_reply *reply)
{
	free(reply->body);
	if (reply->json != NULL)
		json_decref(reply->json);
	memset(reply, 0, sizeof *reply);
}

/* Percent-encode everything but RFC 3986's unreserved characters. */
char *
http_escape(const char *s)
{
	static const char	 hex[] = "0123456789ABCDEF";
	const unsigned char	*p;
	char			*out, *o;

	out = o = xreallocarray(NULL, strlen(s) + 1, 3);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~')
			*o++ = (char)*p;
		else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 0xf];
		}
	}
	*o = '\0';
	return (out);
}

/* Append key=value (encoded) to the query of *path. */
void
http_query_add(char **path, const char *key, const char *value)
{
	char	*k, *v, *n;

	k = http_escape(key);
	v = http_escape(value);
	xasprintf(&n, "%s%c%s=%s", *path, strchr(*path, '?') ? '&' : '?',
	    k, v);
	free(k);
	free(v);
	free(*path);
	*path = n;
}
