/* tls.h: TLS contexts and the libevent bufferevents over them, the one
 * place that knows OpenSSL: the TCP listener's server context (tls-cert,
 * tls-key: TLS 1.2 and later), the ClickHouse client's (fleet-ca-file or
 * the system's CAs, the server's name checked), and what failed on a
 * connection, said in words. */
#ifndef PROFD_TLS_H
#define PROFD_TLS_H

#include <stddef.h>

#include "error.h"

struct bufferevent;
struct event_base;
struct tls_ctx;

/* The certificate a server context presents, for /v1/status and the
 * log. */
struct tls_cert_info {
	char subject[256];	/* RFC 2253, e.g. CN=profd.example */
	char not_after[32];	/* RFC 3339, UTC */
	char serial[80];	/* hex */
};

/* A server context from PEM files: cert (a chain, leaf first) and its
 * key; NULL with err (ERR_INPUT) naming the file and why: unreadable,
 * not PEM, the key not the certificate's. */
struct tls_ctx *tls_server_new(const char *cert, const char *key,
    struct error *);
/* A client context: servers are verified against the PEM CAs of ca_file,
 * or the system's default paths when NULL; NULL with err naming
 * fleet-ca-file. */
struct tls_ctx *tls_client_new(const char *ca_file, struct error *);
/* Connections made already keep what they use of it. */
void tls_ctx_free(struct tls_ctx *);
const struct tls_cert_info *tls_cert(const struct tls_ctx *);

/* A bufferevent that accepts a TLS connection on the descriptor libevent
 * sets later (evhttp_set_bevcb); NULL if OpenSSL cannot make one. */
struct bufferevent *tls_bev_accept(struct tls_ctx *, struct event_base *);
/* A bufferevent that connects with TLS (evhttp's client connections),
 * sending host as SNI and checking the certificate names it (a DNS name
 * or an IP address). */
struct bufferevent *tls_bev_connect(struct tls_ctx *, struct event_base *,
    const char *host);
/* What went wrong on bev's TLS (a verification's reason first, else
 * OpenSSL's errors), into buf; 0 if nothing did or bev is not TLS.  The
 * errors are taken: a second call says nothing of them. */
int tls_bev_error(struct bufferevent *, char *buf, size_t size);

#endif
