/* origin.h: is a request sent by a web page of another origin?  profd's
 * answer to cross-site request forgery on every face (the Unix socket,
 * which ssh -L forwards to a browser's port, and the TCP listener), in
 * terms of the headers alone so that it can be tested without a server. */
#ifndef PROFD_ORIGIN_H
#define PROFD_ORIGIN_H

#include <stddef.h>

/* The header profd's UI sends on every API call (web/request.js).  A page
 * of another origin cannot add it without a CORS preflight, which profd
 * never grants: on a write from a browser its absence is a refusal. */
#define ORIGIN_UI_HEADER	"X-Profd-UI"

struct origin_req {
	const char *origin;		/* Origin, NULL if none */
	const char *fetch_site;		/* Sec-Fetch-Site, NULL if none */
	const char *host;		/* Host, NULL if none */
	int ui_header;			/* ORIGIN_UI_HEADER was sent */
	int write;			/* a method other than GET and HEAD */
	int serves_ui;			/* the face serves profd's page */
};

/* NULL if the request may go on, else why it is refused (403), written
 * into why[n]: an Origin other than the page's own (http:// or https://
 * and the Host the request names; a face without a page has no origin
 * of its own, so any Origin), Sec-Fetch-Site cross-site or same-site (a
 * page on another port of the same host), or a write from a browser (an
 * Origin, which browsers send with every write, or a Sec-Fetch-Site)
 * without ORIGIN_UI_HEADER.  A client that is not a browser (profctl,
 * curl, an agent) sends none of these (Node's fetch sends Sec-Fetch-Mode
 * only, which is not looked at). */
const char *origin_check(const struct origin_req *, char *why, size_t n);

#endif
