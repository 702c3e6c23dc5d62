/* http-error.h: the body of every error reply, whoever sends it (a handler,
 * the connection guard, or libevent through the rewriting filter):
 * {"error": "<kind>", "detail": "<what and where>"}, always valid JSON;
 * and the one way every reply that is not streamed is sent. */
#ifndef PROFD_HTTP_ERROR_H
#define PROFD_HTTP_ERROR_H

#include <stddef.h>

struct evbuffer;

/* The short kind of an error status ("bad request", "busy", ...). */
const char *http_error_kind(int status);
/* The reason phrase of an error status line; NULL below 400, where
 * libevent's own are right (its table stops at 417: 422 would be
 * "Client Error"). */
const char *http_error_reason(int status);
/* A copy of s in which every byte that is not part of valid UTF-8 is
 * replaced by U+FFFD, so that a detail quoting client bytes still
 * encodes (jansson refuses invalid UTF-8). */
char *http_utf8_clean(const char *s);
/* The error body, newline-terminated (malloc'ed; *len set). */
char *http_error_json(int status, const char *detail, size_t *len);
/* Send req's reply (its body in the output buffer) with status: every
 * reply that is not streamed leaves through here, with the length of its
 * body (for HTTP/1.0 and HEAD too) and, to HEAD, no body. */
struct evhttp_request;
void http_reply_send(struct evhttp_request *, int status);
/* That body sent as req's reply (with Connection: close if close_it),
 * where no api_call is made yet: the server's guards, the TCP
 * listener's refusals. */
void http_error_send(struct evhttp_request *, int status,
    const char *detail, int close_it);
/* Rewrite the replies libevent wrote itself from src into dst: its fixed
 * HTML error pages become the JSON error (the status kept, the rest of
 * the output discarded: *discard set, the connection closes), "100
 * Continue" passes.  -1 until src holds a whole head. */
int http_error_rewrite(struct evbuffer *src, struct evbuffer *dst,
    size_t max_body, int *discard);

#endif
