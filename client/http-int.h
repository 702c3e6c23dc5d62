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

/* How a reply's body comes, and how much of it has come: read a piece
 * at a time (http_reply_body), so that a reply of any size can be
 * handled in a buffer of fixed size. */
enum http_framing {
	HTTP_BODY_NONE,		/* no body, or all of it read */
	HTTP_BODY_LENGTH,	/* Content-Length bytes */
	HTTP_BODY_CHUNKED,
	HTTP_BODY_CLOSE		/* until the connection closes */
};
struct http_gunzip;
struct http_body {
	enum http_framing	 framing;
	struct http_gunzip	*gunzip;	/* Content-Encoding: gzip */
	size_t			 length;	/* LENGTH: the Content-Length */
	size_t			 size;		/* CHUNKED: the chunk's size */
	size_t			 left;		/* ... and what is left of it */
	size_t			 n;		/* body bytes read so far */
	char			 line[HTTP_LINE_MAX];	/* lines of the head,
						   chunk sizes, the trailer */
};

/* http-reply.c: a reply read off a connection: status, headers, body in
 * its framing (Content-Length, chunked, or until the close). */
int			 http_reply_start(struct http_conn *, int, long *,
			     struct http_body *, char **);
ssize_t			 http_reply_body(struct http_conn *,
			     struct http_body *, char *, size_t, char **);
/* The body's bytes as they came (gzipped, if they are), unframed. */
ssize_t			 http_reply_raw(struct http_conn *,
			     struct http_body *, char *, size_t, char **);
/* What http_reply_start set up in b (a gunzip). */
void			 http_body_clear(struct http_body *);
int			 http_reply_collect(struct http_conn *,
			     struct http_body *, size_t, struct http_reply *,
			     char **);
int			 http_reply_read(struct http_conn *, int,
			     struct http_reply *, char **);

/* http-gunzip.c: a gzipped body inflated as it is read. */
struct http_gunzip	*http_gunzip_new(void);
void			 http_gunzip_free(struct http_gunzip *);
ssize_t			 http_gunzip_read(struct http_gunzip *,
			     struct http_conn *, struct http_body *, char *,
			     size_t, char **);

#endif
