/* webasset.h: the browser UI's files (web/), compiled into profd and
 * profctl by web/embed.cmake, and what serving them takes: the content
 * type, an ETag and the bytes plain and gzipped.  Both programs serve them
 * from memory: nothing is read from disk or compressed when asked. */
#ifndef PROFD_WEBASSET_H
#define PROFD_WEBASSET_H

#include <stddef.h>

struct webasset {
	const char		*name;		/* "index.html" */
	const char		*type;		/* Content-Type */
	const char		*etag;		/* quoted, as sent */
	const unsigned char	*data;
	size_t			 len;
	const unsigned char	*gz;		/* the same, gzipped */
	size_t			 gzlen;
};

extern const struct webasset	webassets[];
extern const int		nwebassets;

/* How a request for path (under /ui/, or "/" for profctl web) is answered. */
struct webasset_reply {
	int			 status;	/* 200, 304, 302 or 404 */
	const char		*location;	/* for 302: where to */
	const struct webasset	*asset;		/* for 200 and 304 */
	const unsigned char	*body;		/* for 200 */
	size_t			 len;
	int			 gzip;		/* Content-Encoding: gzip */
};

/* The asset named by the path after "/ui/" ("" is index.html), or NULL. */
const struct webasset	*webasset_find(const char *);
/* Answer GET path (without the query) given the request's If-None-Match
 * (NULL when absent) and whether its Accept-Encoding takes gzip (the
 * caller's http_accept_gzip(), one rule for every reply). */
void			 webasset_answer(const char *, const char *, int,
			     struct webasset_reply *);
/* The headers every asset reply carries besides its type and length:
 * NULL-terminated name, value pairs. */
extern const char *const webasset_headers[];

#endif
