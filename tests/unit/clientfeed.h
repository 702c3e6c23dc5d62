/* clientfeed.h: a reply fed to profctl's HTTP reading from a thread on
 * the other end of a socketpair (no server, no request), whole or a few
 * bytes a write, then the connection closed; and the reply's body read
 * back through http_reply_start and http_reply_body a few bytes at a
 * time, as profctl reads a reply it streams.  Header-only, as testlib.h;
 * the checks are asserts (the including file keeps them in release
 * builds). */
#ifndef PROFCTL_CLIENTFEED_H
#define PROFCTL_CLIENTFEED_H

#include <sys/socket.h>

#include <assert.h>
#include <pthread.h>
#include <unistd.h>

#include "alloc.h"
#include "http-int.h"

struct feed {
	int		 fd;
	const char	*p;
	size_t		 n;
	size_t		 step;	/* bytes a write, 0: all at once */
};

/* Write the bytes, a step at a time if asked, then close: the reader sees
 * the end of the connection after the last byte. */
static void *
feed_run(void *arg)
{
	struct feed	*f = arg;
	size_t		 off = 0, n;
	ssize_t		 w;

	while (off < f->n) {
		n = f->n - off;
		if (f->step != 0 && n > f->step)
			n = f->step;
		/* MSG_NOSIGNAL: EPIPE, not SIGPIPE. */
		if ((w = send(f->fd, f->p + off, n, MSG_NOSIGNAL)) <= 0)
			break;	/* the reader gave up and closed */
		off += (size_t)w;
	}
	close(f->fd);
	return NULL;
}

/* A connection whose peer, thread *t, writes n bytes at p step bytes at a
 * time (f must outlive the thread). */
static inline struct http_conn *
feed_conn(struct feed *f, const char *p, size_t n, size_t step,
    pthread_t *t)
{
	int	 sv[2];

	assert(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	f->fd = sv[1];
	f->p = p;
	f->n = n;
	f->step = step;
	assert(pthread_create(t, NULL, feed_run, f) == 0);
	return http_conn_new(sv[0]);
}

/* The reply (n bytes) written wstep bytes at a time, its body read rstep
 * bytes at a time into *body (*len bytes; the buffer grows by doubling:
 * a byte at a time stays linear under ASan).  Returns 0, or -1 with
 * *cause. */
static inline int
feed_pieces(const char *reply, size_t n, size_t wstep, size_t rstep,
    int head_only, char **body, size_t *len, char **cause)
{
	struct http_conn	*conn;
	struct http_body	*b;
	struct feed		 f;
	pthread_t		 t;
	char			*buf;
	long			 status;
	ssize_t			 r = 0;
	size_t			 cap = 0;
	int			 rc;

	conn = feed_conn(&f, reply, n, wstep, &t);
	b = xmalloc(sizeof *b);
	*cause = NULL;
	*body = NULL;
	*len = 0;
	rc = http_reply_start(conn, head_only, &status, b, cause);
	buf = xmalloc(rstep);
	while (rc == 0 && (r = http_reply_body(conn, b, buf, rstep,
	    cause)) > 0) {
		assert((size_t)r <= rstep);
		if (*len + (size_t)r + 1 > cap) {
			cap = (*len + (size_t)r + 1) * 2;
			*body = xreallocarray(*body, cap, 1);
		}
		memcpy(*body + *len, buf, (size_t)r);
		*len += (size_t)r;
	}
	if (r == -1)
		rc = -1;
	/* The end stays the end. */
	if (rc == 0)
		assert(http_reply_body(conn, b, buf, rstep, cause) == 0);
	free(buf);
	http_body_clear(b);
	free(b);
	http_conn_close(conn);
	assert(pthread_join(t, NULL) == 0);
	return rc;
}

#endif
