/* webasset.c: which embedded file a request names and how it is answered
 * (ETag revalidation, gzip when the client takes it).  Shared by profd's
 * /ui/ route and profctl web; knows no HTTP library. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "webasset.h"

/* no-cache: the browser asks again every time and gets a 304 while the
 * build is the same; a new build's files are seen at once. */
const char *const webasset_headers[] = {
	"Cache-Control", "no-cache",
	"Vary", "Accept-Encoding",
	"X-Content-Type-Options", "nosniff",
	"Referrer-Policy", "no-referrer",
	/* Nothing leaves the origin: no CDN, no fonts, no beacons. */
	"Content-Security-Policy", "default-src 'self'; img-src 'self' data: "
	    "blob:; style-src 'self'; script-src 'self'; connect-src 'self'; "
	    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
	    "form-action 'self'",
	NULL
};

const struct webasset *
webasset_find(const char *name)
{
	int	i;

	if (*name == '\0')
		name = "index.html";
	for (i = 0; i < nwebassets; i++)
		if (strcmp(webassets[i].name, name) == 0)
			return &webassets[i];
	return NULL;
}

/* Does a comma-separated list of entity tags (If-None-Match) hold etag?
 * A weak tag W/"x" matches "x" (RFC 9110 uses the weak comparison). */
static int
webasset_etag_in(const char *list, const char *etag)
{
	size_t	 n = strlen(etag), len;
	const char *p = list, *end;

	while (*p != '\0') {
		p += strspn(p, " \t,");
		end = p + strcspn(p, ",");
		len = (size_t)(end - p);
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len == 1 && *p == '*')
			return 1;
		if (len > 2 && strncmp(p, "W/", 2) == 0) {
			p += 2;
			len -= 2;
		}
		if (len == n && strncmp(p, etag, n) == 0)
			return 1;
		p = end;
	}
	return 0;
}

void
webasset_answer(const char *path, const char *inm, int gzip_ok,
    struct webasset_reply *r)
{
	const struct webasset	*a;

	memset(r, 0, sizeof *r);
	if (strcmp(path, "/") == 0 || strcmp(path, "/ui") == 0) {
		r->status = 302;
		r->location = "/ui/";
		return;
	}
	if (strncmp(path, "/ui/", 4) != 0 ||
	    (a = webasset_find(path + 4)) == NULL) {
		r->status = 404;
		return;
	}
	r->asset = a;
	if (inm != NULL && webasset_etag_in(inm, a->etag)) {
		r->status = 304;
		return;
	}
	r->status = 200;
	/* A gzip stream larger than the bytes (a tiny file) is not sent. */
	if (gzip_ok && a->gzlen < a->len) {
		r->gzip = 1;
		r->body = a->gz;
		r->len = a->gzlen;
	} else {
		r->body = a->data;
		r->len = a->len;
	}
}
