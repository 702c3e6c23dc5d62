/* http.c: requests to profd over its Unix socket: a small HTTP/1.1 client,
 * one request per connection. Written here rather than taken from libcurl,
 * whose loading and initialisation cost 7 of the 9 ms of a `profctl top`.
 * This file makes the request; http-conn.c carries the bytes and
 * http-reply.c parses what comes back. */
#include <sys/types.h>
#include <sys/uio.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http-int.h"

struct http {
	char	*socket;
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
	struct iovec		 iov[2];
	char			*req, cl[48];
	int			 rc, has_body, send_error = 0;

	memset(reply, 0, sizeof *reply);
	if (body == NULL)
		len = 0;
	if (http_check_request(method, path) != 0) {
		xasprintf(cause, "invalid request: %s %s", method, path);
		render_clean(*cause);
		return (HTTP_EBROKEN);
	}
	if ((conn = http_conn_open(h->socket, cause)) == NULL)
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
	if (http_conn_send(conn, iov, 2) != 0) {
		/* profd may have answered (413, say) and closed before
		 * taking the whole body: its reply is still worth reading. */
		send_error = errno;
		if (send_error != EPIPE && send_error != ECONNRESET) {
			xasprintf(cause, "sending the request: %s",
			    strerror(send_error));
			free(req);
			http_conn_close(conn);
			return (HTTP_EBROKEN);
		}
	}
	free(req);

	rc = http_reply_read(conn, strcmp(method, "HEAD") == 0, reply, cause);
	http_conn_close(conn);
	if (rc != 0 && send_error != 0) {
		free(*cause);
		xasprintf(cause, "sending the request: %s",
		    strerror(send_error));
	}
	return (rc != 0 ? HTTP_EBROKEN : 0);
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
