/* fuzz_tcp_auth.c: the TCP listener's reading of an Authorization value
 * (tcp-auth.c) on any bytes: never a read past the string, and a request
 * is let in only by a value that is exactly one of the credentials (its
 * scheme's case aside), a writer's for a write, a reader's for a read. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tcp-auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const struct tcp_creds creds = {
	{ "wtoken-0123456789", "rtoken-0123456789" },
	{ "agent:pw", "grafana:gpw" },
};
/* The values that prove each kind: Bearer TOKEN, Basic base64(U:P). */
static const char *const proof[2][2] = {
	{ "wtoken-0123456789", "YWdlbnQ6cHc=" },
	{ "rtoken-0123456789", "Z3JhZmFuYTpncHc=" },
};

static int
proves(const char *h, int k)
{
	return (strncasecmp(h, "Bearer ", 7) == 0 &&
	    strcmp(h + 7, proof[k][0]) == 0) ||
	    (strncasecmp(h, "Basic ", 6) == 0 &&
	    strcmp(h + 6, proof[k][1]) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *h = malloc(size + 1);
	int k, kinds;

	memcpy(h, data, size);
	h[size] = '\0';
	kinds = tcp_auth_kinds(&creds, h);
	for (k = 0; k < 2; k++)
		if (((kinds >> k) & 1) != proves(h, k))
			abort();
	if ((tcp_auth_decide(&creds, TCP_AUTH_WRITE, h) == TCP_ALLOW) !=
	    proves(h, 0) ||
	    (tcp_auth_decide(&creds, TCP_AUTH_READ, h) == TCP_ALLOW) !=
	    proves(h, 1))
		abort();
	free(h);
	return 0;
}
