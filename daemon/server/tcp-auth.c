/* tcp-auth.c: the TCP listener's credentials, writers' and readers'
 * (tcp-auth.h).  A writer's credential admits pushes and nothing else, a
 * reader's the read calls (Grafana's) and nothing else: a token leaked
 * from an agent's config reads no profile, and Grafana's cannot push. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "alloc.h"
#include "tcp-auth.h"

static const char *const token_name[2] = { "tcp-auth-token",
    "tcp-read-token" };
static const char *const basic_name[2] = { "tcp-basic-auth",
    "tcp-read-basic-auth" };

void
tcp_creds_of(struct tcp_creds *c, const struct config *cfg)
{
	c->token[0] = cfg->tcp_auth_token;
	c->token[1] = cfg->tcp_read_token;
	c->basic[0] = cfg->tcp_basic_auth;
	c->basic[1] = cfg->tcp_read_basic_auth;
}

int
tcp_creds_any(const struct tcp_creds *c)
{
	return c->token[0] != NULL || c->token[1] != NULL ||
	    c->basic[0] != NULL || c->basic[1] != NULL;
}

int
tcp_creds_check(const struct tcp_creds *c, char *why, size_t size,
    char *warn, size_t wsize)
{
	const char *colon;
	int k;

	warn[0] = '\0';
	for (k = 0; k < 2; k++) {
		if (c->basic[k] != NULL && ((colon = strchr(c->basic[k],
		    ':')) == NULL || colon == c->basic[k])) {
			snprintf(why, size, "%s is not USER:PASSWORD",
			    basic_name[k]);
			return -1;
		}
		/* "agent:" would let anyone who knows the user name in,
		 * and open a listener off loopback on the strength of it. */
		if (c->basic[k] != NULL && colon[1] == '\0') {
			snprintf(why, size, "%s has an empty password",
			    basic_name[k]);
			return -1;
		}
		if (c->token[k] != NULL && c->token[k][0] == '\0') {
			snprintf(why, size, "%s is empty", token_name[k]);
			return -1;
		}
		if (c->token[k] != NULL && strlen(c->token[k]) < 16 &&
		    warn[0] == '\0')
			snprintf(warn, wsize, "%s is %zu characters: a "
			    "guessable token (16 or more random ones, e.g. "
			    "openssl rand -hex 16)", token_name[k],
			    strlen(c->token[k]));
	}
	/* One secret for both would make every reader a writer. */
	if (c->token[0] != NULL && c->token[1] != NULL &&
	    strcmp(c->token[0], c->token[1]) == 0) {
		snprintf(why, size, "tcp-read-token is tcp-auth-token: a "
		    "reader could push; give each its own");
		return -1;
	}
	if (c->basic[0] != NULL && c->basic[1] != NULL &&
	    strcmp(c->basic[0], c->basic[1]) == 0) {
		snprintf(why, size, "tcp-read-basic-auth is tcp-basic-auth: a "
		    "reader could push; give each its own");
		return -1;
	}
	return 0;
}

/* Equal strings, in a time that does not tell how much of them is. */
static int
tcp_same(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b), i;
	unsigned char d = an != bn;

	for (i = 0; i < an; i++)
		d |= (unsigned char)(a[i] ^ b[i < bn ? i : 0]);
	return d == 0 && bn > 0;
}

static void
tcp_b64(const char *s, char *out)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), i;
	uint32_t v;

	for (i = 0; i + 2 < n; i += 3) {
		v = (uint32_t)(unsigned char)s[i] << 16 |
		    (uint32_t)(unsigned char)s[i + 1] << 8 |
		    (unsigned char)s[i + 2];
		*out++ = t[v >> 18], *out++ = t[v >> 12 & 63];
		*out++ = t[v >> 6 & 63], *out++ = t[v & 63];
	}
	if (i < n) {
		v = (uint32_t)(unsigned char)s[i] << 16 | (i + 1 < n ?
		    (uint32_t)(unsigned char)s[i + 1] << 8 : 0);
		*out++ = t[v >> 18], *out++ = t[v >> 12 & 63];
		*out++ = i + 1 < n ? t[v >> 6 & 63] : '=';
		*out++ = '=';
	}
	*out = '\0';
}

int
tcp_auth_kinds(const struct tcp_creds *c, const char *h)
{
	char *want;
	int k, kinds = 0;

	if (h == NULL)
		return 0;
	for (k = 0; k < 2; k++) {
		if (c->token[k] != NULL && strncasecmp(h, "Bearer ", 7) == 0 &&
		    tcp_same(h + 7, strlen(h + 7), c->token[k]))
			kinds |= 1 << k;
		if (c->basic[k] != NULL && strncasecmp(h, "Basic ", 6) == 0) {
			want = xmalloc(strlen(c->basic[k]) / 3 * 4 + 5);
			tcp_b64(c->basic[k], want);
			if (tcp_same(h + 6, strlen(h + 6), want))
				kinds |= 1 << k;
			free(want);
		}
	}
	return kinds;
}

enum tcp_verdict
tcp_auth_decide(const struct tcp_creds *c, int kind, const char *h)
{
	int kinds;

	if (!tcp_creds_any(c))
		return TCP_ALLOW;
	kinds = tcp_auth_kinds(c, h);
	if (kinds & kind)
		return TCP_ALLOW;
	return kinds != 0 ? TCP_FORBIDDEN : TCP_UNAUTHORIZED;
}

const char *
tcp_auth_names(const struct tcp_creds *c, int kind)
{
	int k = kind == TCP_AUTH_READ;

	if (c->token[k] != NULL)
		return c->basic[k] != NULL ? "token basic" : "token";
	return c->basic[k] != NULL ? "basic" : "none";
}
