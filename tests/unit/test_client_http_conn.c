/* test_client_http_conn.c: http-conn.c, the transport under profctl's HTTP
 * client: connecting (and failing to), lines through the buffer (CRLF or
 * LF, split across reads, too long, cut by the end), body bytes after
 * lines and straight into the caller's memory, and a large send that the
 * socket takes in parts. */

/* The checks are asserts: keep them in release builds. */
#undef NDEBUG

#include <sys/socket.h>
#include <sys/uio.h>

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "clientfeed.h"
#include "http-int.h"

static void
test_open(void)
{
	char	*cause = NULL, *path;

	assert(http_conn_open("/nonexistent/profd.sock", &cause) == NULL);
	assert(cause != NULL && strcmp(cause, "No such file or directory") ==
	    0);
	free(cause);
	path = xmalloc(200);
	memset(path, 'a', 199);
	path[199] = '\0';
	assert(http_conn_open(path, &cause) == NULL);
	assert(strcmp(cause, "File name too long") == 0);
	free(cause);
	free(path);
}

/* A connection whose peer has written n bytes of p and closed. */
static struct http_conn *
conn_of(const char *p, size_t n)
{
	int	 sv[2];

	assert(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	assert(write(sv[1], p, n) == (ssize_t)n);
	close(sv[1]);
	return http_conn_new(sv[0]);
}

static void
test_lines(void)
{
	static const char	 text[] = "one\r\ntwo\n\r\nlast";
	struct http_conn	*conn;
	char			*line, *big, body[8];
	size_t			 len;

	line = xmalloc(HTTP_LINE_MAX);
	conn = conn_of(text, sizeof text - 1);
	assert(http_conn_line(conn, line, &len) == HTTP_LINE_OK);
	assert(len == 3 && strcmp(line, "one") == 0);
	assert(http_conn_line(conn, line, &len) == HTTP_LINE_OK);
	assert(len == 3 && strcmp(line, "two") == 0);
	assert(http_conn_line(conn, line, &len) == HTTP_LINE_OK);
	assert(len == 0 && line[0] == '\0');
	/* The end before a LF: how much came is said. */
	assert(http_conn_line(conn, line, &len) == HTTP_LINE_EOF);
	assert(len == 4 && memcmp(line, "last", 4) == 0);
	http_conn_close(conn);

	/* A line, then body bytes from the same buffer, then the end. */
	conn = conn_of("head\nbody", 9);
	assert(http_conn_line(conn, line, &len) == HTTP_LINE_OK);
	assert(http_conn_read(conn, body, sizeof body) == 4);
	assert(memcmp(body, "body", 4) == 0);
	assert(http_conn_read(conn, body, sizeof body) == 0);
	http_conn_close(conn);

	/* A line of HTTP_LINE_MAX bytes does not fit with its NUL. */
	big = xmalloc(HTTP_LINE_MAX + 1);
	memset(big, 'x', HTTP_LINE_MAX);
	big[HTTP_LINE_MAX] = '\n';
	conn = conn_of(big, HTTP_LINE_MAX + 1);
	assert(http_conn_line(conn, line, &len) == HTTP_LINE_LONG);
	http_conn_close(conn);
	/* One byte shorter does, read across the buffer's refills. */
	big[HTTP_LINE_MAX - 1] = '\n';
	conn = conn_of(big, HTTP_LINE_MAX);
	assert(http_conn_line(conn, line, &len) == HTTP_LINE_OK);
	assert(len == HTTP_LINE_MAX - 1 && line[len] == '\0');
	http_conn_close(conn);
	free(big);
	free(line);
}

struct drain {
	int	 fd;
	size_t	 n;
	char	*p;
};

static void *
drain_run(void *arg)
{
	struct drain	*d = arg;
	char		 buf[4096];
	ssize_t		 r;

	while ((r = read(d->fd, buf, sizeof buf)) > 0) {
		memcpy(d->p + d->n, buf, (size_t)r);
		d->n += (size_t)r;
	}
	return NULL;
}

/* Two iovecs, larger together than the socket takes at once, arrive whole
 * and in order; a read larger than the buffer goes straight to the
 * caller. */
static void
test_send(void)
{
	struct http_conn	*conn;
	struct iovec		 iov[3];
	struct drain		 d;
	struct feed		 f;
	pthread_t		 t;
	char			*a, *b;
	size_t			 na = 3 << 20, nb = 1 << 20, i, got;
	ssize_t			 r;
	int			 sv[2];

	a = xmalloc(na);
	b = xmalloc(nb);
	for (i = 0; i < na; i++)
		a[i] = (char)(i * 7);
	for (i = 0; i < nb; i++)
		b[i] = (char)(i * 13 + 1);
	assert(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	d.fd = sv[1];
	d.n = 0;
	d.p = xmalloc(na + nb);
	assert(pthread_create(&t, NULL, drain_run, &d) == 0);
	conn = http_conn_new(sv[0]);
	iov[0].iov_base = a;
	iov[0].iov_len = na;
	iov[1].iov_base = NULL;
	iov[1].iov_len = 0;
	iov[2].iov_base = b;
	iov[2].iov_len = nb;
	assert(http_conn_send(conn, iov, 3) == 0);
	shutdown(sv[0], SHUT_WR);
	assert(pthread_join(t, NULL) == 0);
	assert(d.n == na + nb);
	assert(memcmp(d.p, a, na) == 0 && memcmp(d.p + na, b, nb) == 0);

	http_conn_close(conn);
	close(sv[1]);

	/* The other way: 3 MiB read in large requests, which go straight
	 * into the caller's memory, then the end. */
	conn = feed_conn(&f, a, na, 0, &t);
	for (got = 0; got < na; got += (size_t)r) {
		r = http_conn_read(conn, d.p + got, na - got);
		assert(r > 0);
	}
	assert(http_conn_read(conn, d.p, 1) == 0);
	assert(pthread_join(t, NULL) == 0);
	assert(memcmp(d.p, a, na) == 0);
	http_conn_close(conn);
	free(d.p);
	free(a);
	free(b);
}

int
main(void)
{
	test_open();
	test_lines();
	test_send();
	printf("ok\n");
	return 0;
}
