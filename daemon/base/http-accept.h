/* http-accept.h: what a request's Accept-Encoding lets a reply be sent
 * in (RFC 9110 12.5.3). */
#ifndef PROFD_HTTP_ACCEPT_H
#define PROFD_HTTP_ACCEPT_H

/* 1 if the Accept-Encoding value takes gzip: "gzip" (or "x-gzip") with a
 * q-value above 0, or, gzip not named, "*" with one; 0 otherwise, for no
 * header (NULL) too.  A malformed member is skipped, as if not sent. */
int http_accept_gzip(const char *value);

#endif
