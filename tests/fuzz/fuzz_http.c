/* fuzz_http.c: the HTTP request path as profd configures libevent.
 *
 * The input is the bytes a client sends (request line, headers, query
 * string, a Content-Length or chunked body, pipelined requests).  They go
 * over a connected Unix socket into an evhttp set up by server_http_setup(),
 * the function profd itself calls (limits, timeouts, methods, and the
 * guard's filter around every connection), then the loop runs until the
 * daemon side has answered and closed.  libevent 2.1 has no public call
 * that hands it a connected descriptor, so the pair is made by connecting
 * to a listening socket in the abstract namespace (nothing on disk).
 *
 * A complete request reaches a stand-in for the router that does what
 * routes_dispatch does before a handler (route lookup on the real table,
 * prefix routes included, query string parsing, reading the body) and
 * replies; the store is not involved (its handlers need the whole
 * daemon).  Beside not crashing:
 * every reply is a well-formed HTTP response, and every error reply,
 * whoever wrote it (the guard, libevent, the stand-in), is the documented
 * JSON {"error": string, "detail": string} with a JSON Content-Type; and
 * no connection is left counted once it is closed. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "alloc.h"
#include "config.h"
#include "fuzz.h"
#include "http-error.h"
#include "log.h"
#include "routes.h"
#include "server-http.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);


static struct event_base *base;
static struct server_http *sh;
static struct config cfg;
static struct sockaddr_un addr;
static socklen_t addrlen;

static void
reply_error(struct evhttp_request *req, int status, const char *detail)
{
	http_error_send(req, status, detail, 0);
}

/* What routes_dispatch does before it calls a handler. */
static void
fuzz_dispatch(struct evhttp_request *req, void *arg)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	const char *query = uri ? evhttp_uri_get_query(uri) : NULL;
	struct evkeyvalq *q;
	struct evkeyval *kv;
	char detail[512];
	size_t n = 0;
	int i, w, known = 0;

	(void)arg;
	for (i = 0; path != NULL && i < nroutes; i++)
		if (routes_path_matches(&routes[i], path))
			known = 1;
	if (!known) {
		snprintf(detail, sizeof detail, "no such endpoint: %s",
		    path ? path : "(none)");
		reply_error(req, 404, detail);
		return;
	}
	/* On the heap, as routes_dispatch's call->query.  libevent, built
	 * without frame pointers, keeps the list's address in %rbp while it
	 * adds to it: on the stack, ASan's fast unwinder would take it for a
	 * frame and record the list's tail pointer as a return address, a
	 * new stack for every parameter in ASan's stack depot, which never
	 * frees one (RSS grew by 0.1 kB an execution). */
	q = xcalloc(1, sizeof *q);
	TAILQ_INIT(q);
	if (query != NULL && evhttp_parse_query_str(query, q) != 0) {
		free(q);
		reply_error(req, 400, "the query string is not valid");
		return;
	}
	/* Echo every value back in a detail, as handlers quote bad input:
	 * whatever bytes they hold, the reply must stay JSON. */
	TAILQ_FOREACH(kv, q, next) {
		w = snprintf(detail + n, sizeof detail - n, "%s=%s ", kv->key,
		    kv->value);
		n += w > 0 ? (size_t)w : 0;
		if (n >= sizeof detail - 1) {
			n = sizeof detail - 1;
			break;
		}
	}
	evhttp_clear_headers(q);
	free(q);
	if (n > 0) {
		reply_error(req, 400, detail);
		return;
	}
	evbuffer_add_printf(evhttp_request_get_output_buffer(req),
	    "{\"bytes\": %zu}\n", evbuffer_get_length(
	    evhttp_request_get_input_buffer(req)));
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "application/json");
	evhttp_send_reply(req, 200, "OK", NULL);
}

static void
setup(void)
{
	struct evhttp *http;
	int fd;

	log_init(LOG_CRIT, 1);
	config_defaults(&cfg);
	/* The corpus names its server "x": allowed, so its requests go on
	 * past the Host check (server-http.c) to the routes. */
	FZ_CHECK(config_set(&cfg, "allowed-host", "x", NULL) == 0);
	/* No deadline of profd's ends an exchange here: one the daemon
	 * leaves waiting never ends, and libFuzzer's -timeout reports it
	 * with its input, however fast or loaded the machine (a clock read
	 * here would make the result depend on the load). */
	FZ_CHECK(config_set(&cfg, "header-timeout", "1h", NULL) == 0);
	FZ_CHECK(config_set(&cfg, "body-timeout", "1d", NULL) == 0);
	FZ_CHECK(config_set(&cfg, "idle-timeout", "1d", NULL) == 0);
	FZ_CHECK((base = event_base_new()) != NULL);
	FZ_CHECK((http = evhttp_new(base)) != NULL);
	sh = server_http_setup(http, base, &cfg, fuzz_dispatch, NULL);
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1,
	    "profd-fuzz-http-%d", (int)getpid());
	addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	    strlen(addr.sun_path + 1));
	FZ_CHECK((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) >= 0);
	FZ_CHECK(bind(fd, (struct sockaddr *)&addr, addrlen) == 0);
	FZ_CHECK(listen(fd, 16) == 0);
	FZ_CHECK(server_http_listen(sh, fd) == 0);
}

/* Each reply in out[0..n): a status line, headers, and a body of
 * Content-Length bytes, or up to the close. */
static void
check_replies(const char *out, size_t n)
{
	const char *p = out, *end = out + n, *hend, *h;
	json_t *j;
	long status;
	size_t clen;
	int json_type;

	while (p < end) {
		/* HTTP/1.0 or 1.1 only (the guard answers others in 1.1). */
		FZ_CHECK(end - p >= 12 && memcmp(p, "HTTP/1.", 7) == 0 &&
		    (p[7] == '0' || p[7] == '1'));
		status = strtol(p + 9, NULL, 10);
		FZ_CHECK(status >= 100 && status <= 599);
		hend = memmem(p, (size_t)(end - p), "\r\n\r\n", 4);
		FZ_CHECK(hend != NULL);
		if (status < 200) {	/* 100 Continue */
			p = hend + 4;
			continue;
		}
		clen = (size_t)-1;
		json_type = 0;
		for (h = memchr(p, '\n', (size_t)(hend - p)); h != NULL &&
		    h < hend; h = memchr(h, '\n', (size_t)(hend - h))) {
			h++;
			if (strncasecmp(h, "Content-Length:", 15) == 0)
				clen = strtoul(h + 15, NULL, 10);
			else if (strncasecmp(h, "Content-Type: "
			    "application/json", 30) == 0)
				json_type = 1;
		}
		p = hend + 4;
		/* The reply to a HEAD has no body (and may have no length);
		 * more replies may follow. */
		if (end - p >= 7 && memcmp(p, "HTTP/1.", 7) == 0)
			continue;
		if (p == end && clen != 0)
			break;
		/* HTTP/1.0 without keep-alive: the body ends at the close. */
		if (clen == (size_t)-1)
			clen = (size_t)(end - p);
		FZ_CHECK((size_t)(end - p) >= clen);
		if (status >= 400) {
			FZ_CHECK(json_type);
			j = json_loadb(p, clen, 0, NULL);
			FZ_CHECK(j != NULL);
			FZ_CHECK(json_is_string(json_object_get(j, "error")));
			FZ_CHECK(json_is_string(json_object_get(j, "detail")));
			json_decref(j);
		}
		p += clen;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *out;
	static size_t cap;
	size_t sent = 0, n = 0;
	ssize_t r;
	int c, eof = 0, i;

	if (base == NULL)
		setup();
	if (size > 1 << 20)
		return -1;
	FZ_CHECK((c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) >= 0);
	FZ_CHECK(connect(c, (struct sockaddr *)&addr, addrlen) == 0);
	while (!eof) {
		if (sent < size) {
			r = send(c, data + sent, size - sent, MSG_NOSIGNAL);
			if (r > 0)
				sent += (size_t)r;
			else if (r == -1 && errno != EAGAIN)
				sent = size;	/* the daemon closed: fine */
			if (sent == size)
				shutdown(c, SHUT_WR);
		} else if (size == 0 && sent == 0) {
			shutdown(c, SHUT_WR);
			sent = 1;
		}
		event_base_loop(base, EVLOOP_NONBLOCK);
		for (;;) {
			if (cap - n < 65536)
				FZ_CHECK((out = realloc(out, cap = cap * 2 +
				    65536)) != NULL);
			r = recv(c, out + n, cap - n, 0);
			if (r > 0) {
				n += (size_t)r;
				continue;
			}
			if (r == 0 || errno == ECONNRESET)
				eof = 1;
			break;
		}
	}
	close(c);
	check_replies(out, n);
	/* The connection is finalized by the loop, after the close. */
	for (i = 0; i < 8; i++)
		event_base_loop(base, EVLOOP_NONBLOCK);
	return 0;
}
