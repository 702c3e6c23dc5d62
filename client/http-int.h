/* http-int.h: what the files of profctl's HTTP client share and nothing
 * else sees (the commands use http.c's interface in profctl.h): the
 * connection's reading end (http-conn.c) and the reply parser on top of it
 * (http-reply.c). The unit tests include it to drive the parser on a
 * socketpair without a server. */
#ifndef PROFCTL_HTTP_INT_H
#define PROFCTL_HTTP_INT_H

#include <sys/types.h>
#include <sys/uio.h>

#include <stddef.h>

#include "profctl.h"

#define HTTP_CONNECT_TIMEOUT	10		/* seconds, as libcurl had it */
#define HTTP_LINE_MAX		8192		/* a header or chunk-size line */
#define HTTP_HEAD_MAX		65536		/* status line and headers */
#define HTTP_INTERIM_MAX	16		/* 1xx replies before the real one */
#define HTTP_RESERVE_MAX	((size_t)64 << 20)	/* trust in a length */

/* A connection to profd. Lines come through buf; body bytes past what buf
 * holds are read straight into the reply. */
struct http_conn {
	int	 fd;
	int	 error;		/* errno of the read that failed */
	size_t	 off, end;	/* unread bytes are buf[off..end) */
	char	 buf[16384];
};

enum http_line {
	HTTP_LINE_OK,
	HTTP_LINE_EOF,
	HTTP_LINE_ERROR,	/* conn->error says why */
	HTTP_LINE_LONG
};

/* http-conn.c: connect, send, and read bytes and lines. */
struct http_conn	*http_conn_open(const char *, char **);
struct http_conn	*http_conn_new(int);
void			 http_conn_close(struct http_conn *);
int			 http_conn_send(struct http_conn *, struct iovec *,
			     int);
ssize_t			 http_conn_read(struct http_conn *, char *, size_t);
enum http_line		 http_conn_line(struct http_conn *, char *, size_t *);

/* http-reply.c: a reply read off a connection: status, headers, body in
 * its framing (Content-Length, chunked, or until the close). */
int			 http_reply_read(struct http_conn *, int,
			     struct http_reply *, char **);

#endif
