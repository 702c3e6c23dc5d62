/* http-gunzip.c: a reply's body sent gzipped (Content-Encoding: gzip,
 * which profctl asks for) inflated as it is read: out comes at most what
 * the caller asks for, so that a reply is bounded as it inflates, as any
 * other is as it arrives (a small body cannot make a large buffer). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "alloc.h"
#include "http-int.h"

struct http_gunzip {
	z_stream	 z;
	int		 ended;		/* the member's trailer is read */
	unsigned char	 in[16384];
};

struct http_gunzip *
http_gunzip_new(void)
{
	struct http_gunzip	*g;

	g = xcalloc(1, sizeof *g);
	/* 16 + MAX_WBITS: a gzip header and trailer, not zlib's. */
	if (inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
		free(g);
		return NULL;
	}
	return g;
}

void
http_gunzip_free(struct http_gunzip *g)
{
	if (g == NULL)
		return;
	inflateEnd(&g->z);
	free(g);
}

/*
 * Up to n (more than 0) inflated bytes of the body into p: as
 * http_reply_body returns them. One gzip member, and nothing after it.
 */
ssize_t
http_gunzip_read(struct http_gunzip *g, struct http_conn *conn,
    struct http_body *b, char *p, size_t n, char **cause)
{
	ssize_t	 r;
	size_t	 got;
	int	 rc;

	if (n > UINT32_MAX)
		n = UINT32_MAX;
	for (;;) {
		if (g->z.avail_in == 0) {
			r = http_reply_raw(conn, b, (char *)g->in,
			    sizeof g->in, cause);
			if (r == -1)
				return -1;
			if (r == 0 && !g->ended) {
				xasprintf(cause, "the reply's gzip stream ended "
				    "early (after %zu bytes)", b->n);
				return -1;
			}
			if (r == 0)
				return 0;
			if (g->ended) {
				xasprintf(cause, "%zd bytes after the end of the "
				    "reply's gzip stream", r);
				return -1;
			}
			g->z.next_in = g->in;
			g->z.avail_in = (uInt)r;
		}
		g->z.next_out = (unsigned char *)p;
		g->z.avail_out = (uInt)n;
		rc = inflate(&g->z, Z_NO_FLUSH);
		got = n - g->z.avail_out;
		if (rc == Z_STREAM_END)
			g->ended = 1;
		else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			xasprintf(cause, "the reply's gzip stream is corrupt "
			    "after %zu bytes: %s", b->n, g->z.msg != NULL ?
			    g->z.msg : "inflate failed");
			return -1;
		}
		if (g->ended && g->z.avail_in > 0) {
			xasprintf(cause, "%u bytes after the end of the "
			    "reply's gzip stream", g->z.avail_in);
			return -1;
		}
		if (got > 0)
			return (ssize_t)got;
	}
}
