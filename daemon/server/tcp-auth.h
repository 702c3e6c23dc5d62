/* tcp-auth.h: the TCP listener's credentials (tcp-auth.c): the writers'
 * (tcp-auth-token, tcp-basic-auth) and the readers' (tcp-read-token,
 * tcp-read-basic-auth), checked at start and matched against a request's
 * Authorization header.  Plain strings in, a verdict out: no libevent. */
#ifndef PROFD_TCP_AUTH_H
#define PROFD_TCP_AUTH_H

#include <stddef.h>

#include "config.h"

/* The kinds of credential, and of route (ROUTE_TCP_WRITE, _READ). */
#define TCP_AUTH_WRITE	0x1
#define TCP_AUTH_READ	0x2

struct tcp_creds {
	const char *token[2];	/* [0] writers', [1] readers'; NULL: none */
	const char *basic[2];	/* USER:PASSWORD; NULL: none */
};

/* The settings' credentials (borrowed from cfg). */
void tcp_creds_of(struct tcp_creds *, const struct config *);
/* Is any set? */
int tcp_creds_any(const struct tcp_creds *);
/* -1 with why if a setting cannot be used: a USER:PASSWORD without the
 * colon, a user or a password, an empty token, a reader's credential
 * that is a writer's.  warn gets a weak token's warning ("" if none). */
int tcp_creds_check(const struct tcp_creds *, char *why, size_t,
    char *warn, size_t);
/* The kinds of credential (TCP_AUTH_*) an Authorization value proves. */
int tcp_auth_kinds(const struct tcp_creds *, const char *authorization);

enum tcp_verdict {
	TCP_ALLOW,
	TCP_UNAUTHORIZED,	/* 401: no credential, or not one of ours */
	TCP_FORBIDDEN,		/* 403: the other kind's */
};
/* A route that needs kind (TCP_AUTH_WRITE or TCP_AUTH_READ): allowed when
 * no credential is set at all (a loopback listener), else only to its
 * own kind's credential. */
enum tcp_verdict tcp_auth_decide(const struct tcp_creds *, int kind,
    const char *authorization);
/* "token basic", "token", "basic" or "none": what kind (TCP_AUTH_*)
 * takes. */
const char *tcp_auth_names(const struct tcp_creds *, int kind);

#endif
