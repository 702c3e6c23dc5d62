/* routes.h: the route table and its dispatcher. */
#ifndef PROFD_ROUTES_H
#define PROFD_ROUTES_H

#include <event2/http.h>
#include <stdint.h>

struct api_call;
struct evhttp_request;

#define ROUTE_READONLY		0x1	/* runs on a query thread */
#define ROUTE_NEEDS_WRITER	0x2	/* runs on the import thread */
#define ROUTE_LOOP		0x4	/* answered on the loop itself */
#define ROUTE_IO		0x8	/* file I/O on the I/O thread */
#define ROUTE_PREFIX		0x10	/* path and what is under it */
/* Served on the TCP listener too (server-tcp.c), to a writer's
 * credential (tcp-auth-token, tcp-basic-auth) or a reader's
 * (tcp-read-token, tcp-read-basic-auth); every route is on the socket. */
#define ROUTE_TCP_WRITE		0x20
#define ROUTE_TCP_READ		0x40
/* Takes the selection's parameters (query/selection.h) beside its own. */
#define ROUTE_SELECTION		0x80
/* A page's URL: its query is the page's to read, any parameter goes. */
#define ROUTE_ANY_PARAMS	0x100
/* Speaks Connect: the dispatcher's refusals are Connect errors. */
#define ROUTE_CONNECT		0x200

struct route {
	const char *method;
	const char *path;
	int flags;
	void (*handler)(struct api_call *);
	/* The query parameters the route takes, NULL-terminated (NULL: none);
	 * "P.*" takes P followed by a selection parameter's name (diff's
	 * base.scope).  The dispatcher answers 400 naming any other, so
	 * that no parameter is ever ignored. */
	const char *const *params;
};

extern const struct route routes[];
extern const int nroutes;

/* Does path name r (exactly, or under it for a ROUTE_PREFIX route)? */
int routes_path_matches(const struct route *r, const char *path);
/* The evhttp generic callback: route, parse the query, refuse a
 * parameter the route does not take, call the handler. */
void routes_dispatch(struct evhttp_request *, void *host);
const char *routes_method_name(enum evhttp_cmd_type);

#endif
