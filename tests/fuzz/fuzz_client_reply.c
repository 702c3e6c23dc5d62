/* fuzz_client_reply.c: profctl's HTTP reply parser (client/http-reply.c
 * on client/http-conn.c), which reads whatever comes back on the socket.
 * The first byte says whether the reply answers a HEAD (bit 0); the rest
 * is written to one end of a socketpair, which is then shut, and the
 * parser reads the other end as profctl does.  Beside not crashing: a
 * reply is either parsed (a status of 100-599 that is not 1xx, a body of
 * len bytes ending in a NUL, a gzipped one inflated) or refused with a
 * message and nothing half-kept. */
#include <sys/socket.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FZ_CHECK(c) do {						\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: fuzz check failed: %s\n",	\
		    __FILE__, __LINE__, #c);				\
		abort();						\
	}								\
} while (0)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_conn *conn;
	struct http_reply r;
	char *cause = NULL;
	int sv[2], head_only, rc;
	size_t off;
	ssize_t w;

	/* What a socketpair holds without a reader (no second thread). */
	if (size < 1 || size > 100000)
		return -1;
	head_only = data[0] & 1;
	FZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	for (off = 1; off < size; off += (size_t)w) {
		w = write(sv[1], data + off, size - off);
		FZ_CHECK(w > 0);
	}
	FZ_CHECK(shutdown(sv[1], SHUT_WR) == 0);
	conn = http_conn_new(sv[0]);
	memset(&r, 0xa5, sizeof r);
	rc = http_reply_read(conn, head_only, &r, &cause);
	http_conn_close(conn);
	close(sv[1]);
	FZ_CHECK(rc == 0 || rc == -1);
	if (rc == -1) {
		FZ_CHECK(cause != NULL && cause[0] != '\0');
		FZ_CHECK(r.status == 0 && r.body == NULL && r.json == NULL);
		free(cause);
		return 0;
	}
	FZ_CHECK(cause == NULL);
	FZ_CHECK(r.status >= 200 && r.status <= 599);
	FZ_CHECK(r.body != NULL && r.body[r.len] == '\0');
	FZ_CHECK(!head_only || r.len == 0);
	http_reply_clear(&r);
	return 0;
}
