/* origin.c: the cross-origin rule of origin.h.  Browsers name the page
 * that makes a request in Origin (every cross-origin request, and every
 * request but GET and HEAD) and, in secure contexts (which include
 * http://localhost and http://127.0.0.1), in Sec-Fetch-Site; a page cannot
 * forge either.  Comparing Origin with Host is the "same origin" test for
 * a server that cannot know the port it is reached by (a forwarded
 * socket): Host has passed the DNS rebinding check already, so a page
 * that names this server in Origin is served from it. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "origin.h"

/* Is origin the scheme http or https and then exactly host? */
static int
origin_is_host(const char *origin, const char *host)
{
	const char *rest;

	if (strncasecmp(origin, "http://", 7) == 0)
		rest = origin + 7;
	else if (strncasecmp(origin, "https://", 8) == 0)
		rest = origin + 8;
	else
		return 0;
	return host != NULL && *host != '\0' && strcasecmp(rest, host) == 0;
}

const char *
origin_check(const struct origin_req *r, char *why, size_t n)
{
	if (r->fetch_site != NULL && (strcasecmp(r->fetch_site,
	    "cross-site") == 0 || strcasecmp(r->fetch_site, "same-site") ==
	    0)) {
		snprintf(why, n, "a request from a web page of another site "
		    "or port (Sec-Fetch-Site: %.40s) is refused", r->fetch_site);
		return why;
	}
	if (r->origin != NULL && !r->serves_ui) {
		snprintf(why, n, "a request from a web page (Origin: %.200s) "
		    "is refused: this listener is for agents, and serves no "
		    "page", r->origin);
		return why;
	}
	if (r->origin != NULL && !origin_is_host(r->origin, r->host)) {
		snprintf(why, n, "a request from a web page of another origin "
		    "(Origin: %.200s, not this server's http://%.200s) is "
		    "refused", r->origin, r->host != NULL ? r->host : "");
		return why;
	}
	/* Not Sec-Fetch-Mode alone: Node's fetch (undici), which the
	 * Pyroscope Node client pushes with, sends "cors" on every
	 * request; browsers send Origin with every write. */
	if (r->write && !r->ui_header && (r->origin != NULL ||
	    r->fetch_site != NULL)) {
		snprintf(why, n, "a write from a web page must carry the "
		    "header " ORIGIN_UI_HEADER " (profd's page sends it; a page "
		    "of another origin cannot)");
		return why;
	}
	return NULL;
}
