/* test_httpc.c: httpc_make_request frees a request exactly once on every
 * path of libevent's evhttp_make_request that ends it within the call,
 * and leaves a request on its way alone.  Run under AddressSanitizer
 * (PROFD_SANITIZE) a leak or a double free fails the test; without it
 * the callbacks are still counted.
 *
 * libevent's allocator is this test's own (event_set_mem_functions), so
 * that the call's allocations can be made to fail:
 *   - the URI's copy (libevent frees the request itself, then -1);
 *   - the connect's event_add, short of memory for its timeout (libevent
 *     only takes the request off the connection, then -1: before
 *     httpc.c, the fleet and the scraper leaked it here);
 * and the connect made to fail at once, so that libevent answers the
 * request before returning 0:
 *   - a port out of range (its callback gets the request, code 0);
 *   - socket() out of descriptors once the numeric host is "resolved"
 *     on the spot (its callback gets NULL). */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "httpc.h"
#include "nitems.h"
#include "testlib.h"

/* ---- libevent's allocator, failing on demand ---- */

static int fail_malloc;		/* the next malloc returns NULL */
static int fail_realloc;	/* every realloc does, while set */

static void *
t_malloc(size_t n)
{
	if (fail_malloc) {
		fail_malloc = 0;
		return NULL;
	}
	return malloc(n);
}

static void *
t_realloc(void *p, size_t n)
{
	return fail_realloc ? NULL : realloc(p, n);
}

static void
t_free(void *p)
{
	free(p);
}

/* libevent's warnings about the failures made here. */
static void
quiet(int severity, const char *msg)
{
	(void)severity;
	(void)msg;
}

/* ---- the request's callback ---- */

struct seen {
	int calls;
	int with_req;		/* called with the request (not NULL) */
	int code;
};

static void
req_cb(struct evhttp_request *req, void *arg)
{
	struct seen *s = arg;

	s->calls++;
	s->with_req = req != NULL;
	s->code = req != NULL ? evhttp_request_get_response_code(req) : -1;
}

/* One request to host:port on a fresh base (no timer yet: the first
 * event_add with a timeout reallocates the timer heap), made with the
 * allocator failing as set by how, and with no descriptor left to open
 * if no_fds; the callback's calls in *s. */
enum how { H_NONE, H_URI, H_CONNECT };

static int
send_one(const char *host, int port, enum how how, int no_fds,
    struct seen *s)
{
	struct event_base *base = event_base_new();
	struct evhttp_connection *conn;
	struct evhttp_request *req;
	struct rlimit rl, low;
	int fds[64], nfds = 0, fd, rc;

	CHECK(base != NULL);
	conn = evhttp_connection_base_new(base, NULL, host,
	    (unsigned short)port);
	CHECK(conn != NULL);
	evhttp_connection_set_retries(conn, 0);
	req = evhttp_request_new(req_cb, s);
	CHECK(req != NULL);
	evbuffer_add(evhttp_request_get_output_buffer(req), "x", 1);
	if (no_fds) {
		CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
		low = rl;
		low.rlim_cur = NITEMS(fds);
		CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
		while (nfds < (int)NITEMS(fds) &&
		    (fd = open("/dev/null", O_RDONLY)) != -1)
			fds[nfds++] = fd;
		CHECK(errno == EMFILE);
	}
	fail_malloc = how == H_URI;
	fail_realloc = how == H_CONNECT;
	rc = httpc_make_request(conn, req, EVHTTP_REQ_POST, "/q");
	fail_malloc = fail_realloc = 0;
	if (no_fds) {
		while (nfds > 0)
			close(fds[--nfds]);
		CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	}
	/* A request still on its way goes with its connection. */
	evhttp_connection_free(conn);
	event_base_loop(base, EVLOOP_NONBLOCK);
	event_base_free(base);
	return rc;
}

int
main(void)
{
	struct seen s;

	event_set_mem_functions(t_malloc, t_realloc, t_free);
	event_set_log_callback(quiet);

	/* The URI's copy fails: libevent frees the request. */
	memset(&s, 0, sizeof s);
	CHECK(send_one("127.0.0.1", 9, H_URI, 0, &s) == -1);
	CHECK(s.calls == 0);

	/* The connect cannot start: libevent leaves the request. */
	memset(&s, 0, sizeof s);
	CHECK(send_one("127.0.0.1", 9, H_CONNECT, 0, &s) == -1);
	CHECK(s.calls == 0);

	/* Answered within the call, with the request (port 0). */
	memset(&s, 0, sizeof s);
	CHECK(send_one("127.0.0.1", 0, H_NONE, 0, &s) == 0);
	CHECK(s.calls == 1 && s.with_req && s.code == 0);

	/* Answered within the call, without it: no descriptor left. */
	memset(&s, 0, sizeof s);
	CHECK(send_one("127.0.0.1", 9, H_NONE, 1, &s) == 0);
	CHECK(s.calls == 1 && !s.with_req);

	/* On its way (nothing listens on port 9, but the connect has only
	 * begun): not answered, freed with the connection. */
	memset(&s, 0, sizeof s);
	CHECK(send_one("127.0.0.1", 9, H_NONE, 0, &s) == 0);
	CHECK(s.calls == 0);

	printf("test_httpc: %u checks passed\n", checks);
	return 0;
}
