/* scrape-unix.h: one GET over a Unix socket, on the loop.  libevent 2.1's
 * HTTP client cannot: evhttp_connection_base_bufferevent_new's connection
 * closes the socket it is given and connects again to its host name (2.2
 * has evhttp_connection_base_bufferevent_unix_new).  So the request is
 * HTTP/1.0, which a server answers without chunks and ends by closing:
 * the body is what comes before the end of the stream. */
#ifndef PROFD_SCRAPE_UNIX_H
#define PROFD_SCRAPE_UNIX_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct evbuffer;
struct scrape_unix;

/* Called once, on the loop: code 0 and err on failure, else the status
 * and the body (the callee may take its bytes); the request is freed
 * right after. */
typedef void scrape_unix_cb(int code, struct evbuffer *body, const char *err,
    void *arg);

/* The reply's head (n bytes, up to its empty line): NULL with *code the
 * status and *clen the Content-Length (-1: none), or why it is refused
 * (chunks, not HTTP/1.x, a bad length). */
const char *scrape_unix_head(const char *head, size_t n, int *code,
    long long *clen);
/* NULL with err (size errlen) if the socket cannot be connected to. */
struct scrape_unix *scrape_unix_get(struct event_base *, const char *path,
    const char *uri, int64_t timeout_s, size_t max_body, scrape_unix_cb *,
    void *arg, char *err, size_t errlen);
/* Before the callback: it will not be called. */
void scrape_unix_cancel(struct scrape_unix *);

#endif
