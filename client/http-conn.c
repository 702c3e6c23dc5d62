/* http-conn.c: the transport under profctl's HTTP client: a connection to
 * profd's Unix socket, a request written whole, and the reply read back
 * as lines and body bytes through one buffer. What the bytes mean is
 * http-reply.c's business. */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "http-int.h"

/* The reading end of an open socket fd, which it now owns. */
struct http_conn *
http_conn_new(int fd)
{
	struct http_conn	*conn;

	conn = xmalloc(sizeof *conn);
	conn->fd = fd;
	conn->error = 0;
	conn->off = conn->end = 0;
	return conn;
}

void
http_conn_close(struct http_conn *conn)
{
	if (conn == NULL)
		return;
	close(conn->fd);
	free(conn);
}

/*
 * Connect, waiting at most HTTP_CONNECT_TIMEOUT for room in profd's listen
 * queue (a blocking AF_UNIX connect honours SO_SNDTIMEO). Returns the
 * connection or NULL with *cause the error as strerror says it.
 */
struct http_conn *
http_conn_open(const char *path, char **cause)
{
	struct sockaddr_un	 sun;
	struct timeval		 tv;
	size_t			 len = strlen(path);
	int			 fd, error;

	if (len >= sizeof sun.sun_path) {
		xasprintf(cause, "%s", strerror(ENAMETOOLONG));
		return NULL;
	}
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, len + 1);

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		xasprintf(cause, "%s", strerror(errno));
		return NULL;
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
		return NULL;
	}
	/* Sending a large body may take as long as profd needs. */
	tv.tv_sec = 0;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	return http_conn_new(fd);
}

/* Write all of iov, through partial writes and EINTR. MSG_NOSIGNAL: a
 * closed socket is EPIPE, not SIGPIPE. Returns 0 or -1 with errno. */
int
http_conn_send(struct http_conn *conn, struct iovec *iov, int iovcnt)
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
		if ((n = sendmsg(conn->fd, &msg, MSG_NOSIGNAL)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
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
	return 0;
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
	return r;
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
	return r;
}

/* Up to n body bytes into p: what buf holds first, then from the socket,
 * straight into p when n is large. Returns as http_conn_fill. */
ssize_t
http_conn_read(struct http_conn *conn, char *p, size_t n)
{
	ssize_t	 r;

	if (conn->off == conn->end) {
		if (n >= sizeof conn->buf)
			return http_conn_read_fd(conn, p, n);
		if ((r = http_conn_fill(conn)) <= 0)
			return r;
	}
	if (n > conn->end - conn->off)
		n = conn->end - conn->off;
	memcpy(p, conn->buf + conn->off, n);
	conn->off += n;
	return (ssize_t)n;
}

/* The next line, its LF (and a CR before it) dropped, NUL-terminated into
 * line[HTTP_LINE_MAX]; *len is its length, or at HTTP_LINE_EOF how much of
 * a line came before the end. */
enum http_line
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
			return HTTP_LINE_LONG;
		memcpy(line + *len, conn->buf + conn->off, n);
		*len += n;
		conn->off += n;
		if (nl != NULL) {
			conn->off++;
			if (*len > 0 && line[*len - 1] == '\r')
				(*len)--;
			line[*len] = '\0';
			return HTTP_LINE_OK;
		}
		if ((r = http_conn_fill(conn)) <= 0)
			return r == 0 ? HTTP_LINE_EOF : HTTP_LINE_ERROR;
	}
}
