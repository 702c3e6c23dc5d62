/* http.c: requests to profd over its Unix socket: a small HTTP/1.1 client,
 * one request per connection. Written here rather than taken from libcurl,
 * whose loading and initialisation cost 7 of the 9 ms of a `profctl top`.
 * This file makes the request and hands back the reply, whole or as a
 * stream whose body is read as it comes; http-conn.c carries the bytes
 * and http-reply.c parses what comes back. */
#include <sys/types.h>
#include <sys/uio.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "http-int.h"

struct http {
	char			*socket;
	const struct http_watch	*watch;		/* or NULL */
};

/* A watched body goes in slices this large, each said when sent. */
#define HTTP_WATCH_SLICE	((size_t)256 << 10)

static void	http_stream_fail(struct http_stream *, char **);

/* Never NULL: there is nothing to initialise but the path. */
struct http *
http_new(const char *socket_path)
{
	struct http	*h;

	h = xcalloc(1, sizeof *h);
	h->socket = xstrdup(socket_path);
	return h;
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
	return h->socket;
}

void
http_watch(struct http *h, const struct http_watch *w)
{
	h->watch = w;
}

/* The head, then the body a slice at a time, the watcher told after
 * each; the watch is put aside while it runs (it may make requests of
 * its own).  Returns as http_conn_send. */
static int
http_send_watched(struct http *h, struct http_conn *conn, struct iovec *iov)
{
	const struct http_watch	*w = h->watch;
	const char		*body = iov[1].iov_base;
	size_t			 len = iov[1].iov_len, done = 0;
	struct iovec		 piece;
	int			 rc;

	if ((rc = http_conn_send(conn, iov, 1)) != 0)
		return rc;
	h->watch = NULL;
	while (done < len) {
		piece.iov_base = (void *)(uintptr_t)(body + done);
		piece.iov_len = len - done < HTTP_WATCH_SLICE ? len - done :
		    HTTP_WATCH_SLICE;
		if ((rc = http_conn_send(conn, &piece, 1)) != 0)
			break;
		done += piece.iov_len;
		if (w->sent != NULL)
			w->sent(w->arg, done, len);
	}
	h->watch = w;
	return rc;
}

/* The watcher told the wait is over: what comes next is for good. */
static void
http_answered(struct http *h)
{
	if (h->watch != NULL && h->watch->answered != NULL)
		h->watch->answered(h->watch->arg);
}

/* Until the reply starts to come, the watcher told every tick. */
static void
http_wait_watched(struct http *h, struct http_conn *conn)
{
	const struct http_watch	*w = h->watch;
	struct pollfd		 pfd;
	int			 n;

	if (w->waiting == NULL || conn->off < conn->end)
		return;
	pfd.fd = conn->fd;
	pfd.events = POLLIN;
	for (;;) {
		pfd.revents = 0;
		n = poll(&pfd, 1, HTTP_WAIT_TICK_MS);
		if (n > 0 || (n == -1 && errno != EINTR))
			return;
		if (n == 0) {
			h->watch = NULL;
			w->waiting(w->arg);
			h->watch = w;
		}
	}
}

/* A method is a token; a path starts with / and holds no space or
 * control character (it would end the request line early). */
static int
http_check_request(const char *method, const char *path)
{
	const char	*p;

	if (*method == '\0' || *path != '/')
		return -1;
	for (p = method; *p != '\0'; p++) {
		if ((*p < 'A' || *p > 'Z') && *p != '-' && *p != '_')
			return -1;
	}
	for (p = path; *p != '\0'; p++) {
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return -1;
	}
	return 0;
}

/* A reply being read: its connection and how far its body has come. */
struct http_stream {
	struct http_conn	*conn;
	long			 status;
	int			 send_error;	/* errno of a send cut short */
	struct http_body	 body;
};

/*
 * Send method path (with its query) and body, of Content-Type ctype
 * (NULL: a blob, application/octet-stream), and read the reply's status
 * and headers into *sp, whose body is then read with http_stream_read or
 * http_stream_rest. Returns 0 when profd answered (any status),
 * HTTP_ECONNECT when it could not be reached, HTTP_EBROKEN when the
 * exchange broke off later; *cause says why.
 */
int
http_stream_open(struct http *h, const char *method, const char *path,
    const char *ctype, const void *body, size_t len, struct http_stream **sp,
    char **cause)
{
	struct http_stream	*s;
	struct iovec		 iov[2];
	char			*req, cl[48];
	int			 has_body;

	*sp = NULL;
	if (body == NULL)
		len = 0;
	if (http_check_request(method, path) != 0) {
		xasprintf(cause, "invalid request: %s %s", method, path);
		return HTTP_EBROKEN;
	}
	s = xcalloc(1, sizeof *s);
	if ((s->conn = http_conn_open(h->socket, cause)) == NULL) {
		free(s);
		return HTTP_ECONNECT;
	}

	has_body = strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0;
	cl[0] = '\0';
	if (has_body || len != 0)
		snprintf(cl, sizeof cl, "Content-Length: %zu\r\n", len);
	/* No "Expect: 100-continue": one round trip, no stall. */
	xasprintf(&req, "%s %s HTTP/1.1\r\n"
	    "Host: localhost\r\n"
	    "User-Agent: profctl/" PROFD_VERSION "\r\n"
	    "Accept: application/json\r\n"
	    "Accept-Encoding: gzip\r\n"
	    "%s%s%s%s"
	    "Connection: close\r\n\r\n", method, path,
	    has_body ? "Content-Type: " : "",
	    has_body ? (ctype != NULL ? ctype : "application/octet-stream") :
	    "", has_body ? "\r\n" : "", cl);

	iov[0].iov_base = req;
	iov[0].iov_len = strlen(req);
	iov[1].iov_base = (void *)(uintptr_t)body;	/* not written to */
	iov[1].iov_len = len;
	if ((h->watch != NULL ? http_send_watched(h, s->conn, iov) :
	    http_conn_send(s->conn, iov, 2)) != 0) {
		/* profd may have answered (413, say) and closed before
		 * taking the whole body: its reply is still worth reading. */
		s->send_error = errno;
		if (s->send_error != EPIPE && s->send_error != ECONNRESET) {
			http_answered(h);
			xasprintf(cause, "sending the request: %s",
			    strerror(s->send_error));
			free(req);
			http_stream_close(s);
			return HTTP_EBROKEN;
		}
	}
	free(req);

	if (h->watch != NULL && s->send_error == 0)
		http_wait_watched(h, s->conn);
	http_answered(h);
	if (http_reply_start(s->conn, strcmp(method, "HEAD") == 0,
	    &s->status, &s->body, cause) != 0) {
		http_stream_fail(s, cause);
		http_stream_close(s);
		return HTTP_EBROKEN;
	}
	*sp = s;
	return 0;
}

/* A reply that could not be read after a send that failed: the send's
 * error is what went wrong. */
static void
http_stream_fail(struct http_stream *s, char **cause)
{
	if (s->send_error == 0)
		return;
	free(*cause);
	xasprintf(cause, "sending the request: %s", strerror(s->send_error));
}

long
http_stream_status(const struct http_stream *s)
{
	return s->status;
}

/* Up to n (more than 0) bytes of the body into p. Returns how many, 0 at
 * its end, or -1 with *cause (the exchange broke off). */
ssize_t
http_stream_read(struct http_stream *s, char *p, size_t n, char **cause)
{
	ssize_t	 r;

	if ((r = http_reply_body(s->conn, &s->body, p, n, cause)) == -1)
		http_stream_fail(s, cause);
	return r;
}

/* The rest of the body into reply, at most max bytes of it (an error
 * reply is read whole, and a huge one cut). Returns 0 or HTTP_EBROKEN
 * with *cause. */
int
http_stream_rest(struct http_stream *s, size_t max, struct http_reply *reply,
    char **cause)
{
	memset(reply, 0, sizeof *reply);
	if (http_reply_collect(s->conn, &s->body, max, reply, cause) != 0) {
		http_stream_fail(s, cause);
		return HTTP_EBROKEN;
	}
	reply->status = s->status;
	return 0;
}

void
http_stream_close(struct http_stream *s)
{
	if (s == NULL)
		return;
	http_body_clear(&s->body);
	http_conn_close(s->conn);
	free(s);
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
	return http_request_type(h, method, path, NULL, body, len, reply,
	    cause);
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
	struct http_stream	*s;
	int			 rc;

	memset(reply, 0, sizeof *reply);
	if ((rc = http_stream_open(h, method, path, ctype, body, len, &s,
	    cause)) != 0)
		return rc;
	rc = http_stream_rest(s, SIZE_MAX, reply, cause);
	http_stream_close(s);
	return rc;
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
	return out;
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
