/* conn-refuse.c: what the guard's other files (conn.c, conn-in.c,
 * conn-out.c) share of a connection: its own answers (a JSON error
 * written straight to the socket, then the close once the peer has it),
 * its deadline, its place (a stranger's, or one of max-connections) and
 * the body bytes it holds, given back to the budget and, once many were,
 * the heap trimmed. */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "alloc.h"
#include "clock.h"
#include "http-error.h"
#include "memtrim.h"
#include "server-http-int.h"

static int64_t
ms_to_ns(int64_t ms)
{
	return ms * 1000000;
}

/* Large bodies gone, the heap is trimmed (memtrim.c says why): once
 * TRIM_BYTES of bodies were released, a second later (the last of them
 * freed by then: a refused one goes with its connection, an imported one
 * on the import thread), at most once per TRIM_EVERY seconds, so that a
 * steady stream of large pushes does not fault its pages in again and
 * again, and while no body is held if that comes within TRIM_EVERY:
 * malloc_trim holds each arena's lock while it walks it, the loop's
 * included: 30-50 ms for 400 MiB on a quiet heap, seconds while bodies
 * are written into it on a busy machine. */
#define TRIM_BYTES	(64ULL << 20)
#define TRIM_EVERY	10
#define NS		1000000000LL

static void
conn_trim_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server_http *sh = arg;
	struct timeval second = { 1, 0 };
	int64_t now = mono_ns();

	(void)fd;
	(void)what;
	if (sh->inflight > 0 && now - sh->trim_due_ns < TRIM_EVERY * NS) {
		evtimer_add(sh->trim, &second);
		return;
	}
	sh->released = 0;
	sh->trimmed_ns = now;
	memtrim_async();
}

static void
conn_released(struct server_http *sh, uint64_t n)
{
	struct timeval tv = { 1, 0 };
	int64_t now;

	sh->released += n;
	if (sh->released < TRIM_BYTES || (sh->trim == NULL && (sh->trim =
	    evtimer_new(sh->base, conn_trim_cb, sh)) == NULL) ||
	    evtimer_pending(sh->trim, NULL))
		return;
	now = mono_ns();
	if (sh->trimmed_ns != 0 && now - sh->trimmed_ns < (TRIM_EVERY - 1) * NS)
		tv.tv_sec = (time_t)(TRIM_EVERY - (now - sh->trimmed_ns) / NS);
	sh->trim_due_ns = now + tv.tv_sec * NS;
	evtimer_add(sh->trim, &tv);
}

void
conn_release_body(struct conn *c)
{
	c->sh->inflight -= c->body_bytes;
	conn_released(c->sh, c->body_bytes);
	c->body_bytes = 0;
}

void
conn_register(struct conn *c)
{
	struct server_http *sh = c->sh;
	int fd = (int)bufferevent_getfd(c->under), domain = 0;
	socklen_t dlen = sizeof domain;
	size_t n;

	if (fd < 0)
		return;
	if ((size_t)fd >= sh->nbyfd) {
		n = sh->nbyfd ? sh->nbyfd : 256;
		while (n <= (size_t)fd)
			n *= 2;
		sh->byfd = xreallocarray(sh->byfd, n, sizeof *sh->byfd);
		memset(sh->byfd + sh->nbyfd, 0, (n - sh->nbyfd) *
		    sizeof *sh->byfd);
		sh->nbyfd = n;
	}
	sh->byfd[fd] = c;
	c->fd = fd;
	c->is_tcp = getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) ==
	    0 && (domain == AF_INET || domain == AF_INET6);
	/* A reply leaves in several writes (TLS records, the last byte
	 * held back until the rest is sent): with Nagle's algorithm the
	 * later ones wait for the client's delayed ACK, 40 ms a reply on a
	 * kept connection.  A Unix socket refuses the option: no matter. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 },
	    sizeof(int));
}

/* evhttp has freed the connection (bufferevent_free clears the
 * callbacks), and libevent finalizes it later.  A trigger or flush now
 * would take a new reference to it and finalize it a second time. */
int
conn_dead(struct conn *c)
{
	bufferevent_event_cb ecb;

	bufferevent_getcb(c->bev, NULL, NULL, &ecb, NULL);
	return ecb == NULL;
}

/* Close as libevent closes a connection whose read timed out: it frees
 * the connection (and so this filter) without a reply.  c is gone after. */
void
conn_close(struct conn *c)
{
	bufferevent_trigger_event(c->bev, BEV_EVENT_READING |
	    BEV_EVENT_TIMEOUT, 0);
}

/* Write what the socket's buffer holds now, not at its next write
 * event: libevent may close the connection meanwhile (a request it
 * refuses itself), shutting the socket's sending side down first, and
 * bytes written after that are lost (EPIPE).  OpenSSL's bufferevent
 * writes at once on its own. */
static void
conn_write_now(struct conn *c)
{
	struct evbuffer *out = bufferevent_get_output(c->under);
	int fd = (int)bufferevent_getfd(c->under);

	if (c->tls || fd < 0)
		return;
	/* Its front is frozen: only the socket's bufferevent writes from
	 * there (conn-out.c's conn_send thaws it the same way). */
	evbuffer_unfreeze(out, 1);
	while (evbuffer_get_length(out) > 0)
		if (evbuffer_write(out, fd) <= 0)
			break;
	evbuffer_freeze(out, 1);
}

/* A reply written by the guard itself, straight to the socket; libevent
 * never sees the request.  Nothing more is read: what the client sends
 * after it (the rest of a body) stays in the kernel until the close, and
 * an end of the connection read meanwhile cannot make libevent close it
 * under the reply.  The connection closes once the reply is sent. */
void
conn_refuse(struct conn *c, int status, const char *detail,
    const char *const *challenges)
{
	char head[512];
	size_t len, n;
	char *body = http_error_json(status, detail, &len);

	bufferevent_disable(c->under, EV_READ);
	n = (size_t)snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: application/json\r\nContent-Length: %zu\r\n"
	    "%s", status, http_error_reason(status), len, status == 503 ?
	    "Retry-After: 1\r\n" : "");
	for (; challenges != NULL && *challenges != NULL && n < sizeof head;
	    challenges++)
		n += (size_t)snprintf(head + n, sizeof head - n,
		    "WWW-Authenticate: %s\r\n", *challenges);
	if (n < sizeof head)
		snprintf(head + n, sizeof head - n,
		    "Connection: close\r\n\r\n");
	bufferevent_write(c->under, head, strlen(head));
	/* A HEAD's reply has the length of the body it does not carry. */
	if (strcmp(c->rh.method, "HEAD") != 0)
		bufferevent_write(c->under, body, len);
	free(body);
	conn_write_now(c);
	conn_release_body(c);
	c->state = C_REFUSED;
	c->out_discard = 1;
	c->close_by_ns = mono_ns() + ms_to_ns(2000);
	event_del(c->timer);
	event_add(c->timer, &(struct timeval){ 0, 0 });
}

/* Bytes of the reply the peer has not acknowledged yet (a TCP socket's
 * send queue): closing a socket with unread bytes in it sends a reset,
 * which would drop them. */
int
conn_unsent(struct conn *c)
{
	int n = 0;

	if (evbuffer_get_length(bufferevent_get_output(c->under)) > 0)
		return 1;
	if (c->is_tcp && c->fd >= 0 && ioctl(c->fd, SIOCOUTQ, &n) == 0)
		return n > 0;
	return 0;
}

void
conn_arm(struct conn *c, int64_t seconds)
{
	event_del(c->timer);
	event_add(c->timer, &(struct timeval){ (time_t)seconds, 0 });
}

int
conn_authenticated(struct conn *c)
{
	struct server_http *sh = c->sh;
	char msg[160];

	if (c->stranger) {
		TAILQ_REMOVE(&sh->strangers, c, link);
		c->stranger = 0;
		sh->nstrangers--;
	}
	if (sh->nauthed >= sh->cfg->max_connections) {
		sh->refused_conns++;
		snprintf(msg, sizeof msg, "profd serves %zu connections with "
		    "credentials (max-connections %zu); retry later",
		    sh->nauthed, sh->cfg->max_connections);
		conn_refuse(c, 503, msg, NULL);
		return -1;
	}
	c->authed = 1;
	sh->nauthed++;
	return 0;
}
