/* httpc.h: a request handed to libevent's HTTP client so that it is freed
 * exactly once, whatever happens in the call (the fleet's ClickHouse
 * requests, the scraper's GETs). */
#ifndef PROFD_HTTPC_H
#define PROFD_HTTPC_H

#include <event2/http.h>

/* evhttp_make_request, except that on -1 the request has been freed (by
 * libevent or here, never both), and that a request libevent answered
 * within the call (a connection that cannot even start: its callback
 * has already run) is freed too, with 0 returned as libevent does.  The
 * callback may thus run before this returns: set what it clears before
 * the call, and touch nothing the callback may free after it. */
int httpc_make_request(struct evhttp_connection *, struct evhttp_request *,
    enum evhttp_cmd_type, const char *uri);

#endif
