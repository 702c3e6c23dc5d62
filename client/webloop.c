/* webloop.c: profctl web's one thread that accepts and reads.  A thread
 * per connection blocked in read let idle connections take every thread
 * (issue 25): here a connection only costs a slot until its head has come
 * whole, read by poll(2) as bytes arrive, and WEBLOOP_HEAD_TIMEOUT after
 * the accept it is closed, however often it sent a byte.  At the cap (in
 * all, or from one address) the oldest connection still without its head
 * is closed for the new one.  A whole head goes to the workers (webpool.c); an answered
 * connection comes back through a pipe to linger (what the browser still
 * sends is read away, so that the close is no reset) and be closed. */
#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "profctl.h"
#include "webserve.h"

#define WEBLOOP_CONNS_MAX	256	/* being read or lingering */
#define WEBLOOP_PER_ADDR	64	/* of them from one client address */
#define WEBLOOP_HEAD_TIMEOUT	5000	/* ms from accept to the whole head */
#define WEBLOOP_LINGER		2000	/* ms to read away after a reply */
#define WEBLOOP_LINGER_BYTES	((int64_t)128 << 20)
#define WEBLOOP_ACCEPT_PAUSE	100	/* ms when out of descriptors */

enum webloop_state {
	WEBLOOP_READING,
	WEBLOOP_LINGERING
};

struct webloop_conn {
	int			 fd;
	enum webloop_state	 state;
	int64_t			 since, deadline;	/* ms, monotonic */
	unsigned char		 addr[17];	/* family, then the address */
	struct webhead		 head;
	int64_t			 left;		/* bytes to read away */
};

struct webloop {
	const struct webserve	*ws;
	struct webpool		*pool;
	int			 lfd, done[2];
	int64_t			 accept_at;	/* paused until then */
	struct webloop_conn	 conns[WEBLOOP_CONNS_MAX];
	size_t			 n;
};

static int64_t
webloop_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The client's address without its port: what the cap per client
 * counts. */
static void
webloop_addr(int fd, unsigned char *key)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len = sizeof ss;

	memset(key, 0, 17);
	if (getpeername(fd, (struct sockaddr *)&ss, &len) == -1)
		return;
	key[0] = (unsigned char)ss.ss_family;
	if (ss.ss_family == AF_INET)
		memcpy(key + 1, &((struct sockaddr_in *)&ss)->sin_addr, 4);
	else if (ss.ss_family == AF_INET6)
		memcpy(key + 1, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
}

static void
webloop_drop(struct webloop *loop, size_t i)
{
	struct webloop_conn	*wc = &loop->conns[i];

	close(wc->fd);
	webhead_free(&wc->head);
	loop->conns[i] = loop->conns[--loop->n];
}

/* Which of a and b to close first: one still to send its head before one
 * that has its reply (closed early, unread bytes would reset it and the
 * browser could lose the reply), then the older. */
static int
webloop_before(const struct webloop_conn *a, const struct webloop_conn *b)
{
	if (a->state != b->state)
		return a->state == WEBLOOP_READING;
	return a->since < b->since;
}

/* The first to close (of those from addr, unless NULL), SIZE_MAX if
 * none; *count says how many there are. */
static size_t
webloop_victim(const struct webloop *loop, const unsigned char *addr,
    size_t *count)
{
	size_t	 i, oldest = SIZE_MAX;

	*count = 0;
	for (i = 0; i < loop->n; i++) {
		if (addr != NULL && memcmp(loop->conns[i].addr, addr, 17) != 0)
			continue;
		(*count)++;
		if (oldest == SIZE_MAX ||
		    webloop_before(&loop->conns[i], &loop->conns[oldest]))
			oldest = i;
	}
	return oldest;
}

/* A slot for a connection from addr: the oldest connection goes when all
 * are taken, or all that addr may have (loopback clients share one
 * address: the oldest is the likeliest idle; a browser sends its head at
 * once). */
static void
webloop_make_room(struct webloop *loop, const unsigned char *addr)
{
	size_t	 i, count;

	i = webloop_victim(loop, addr, &count);
	if (count >= WEBLOOP_PER_ADDR)
		webloop_drop(loop, i);
	else if (loop->n == WEBLOOP_CONNS_MAX)
		webloop_drop(loop, webloop_victim(loop, NULL, &count));
}

static struct webloop_conn *
webloop_add(struct webloop *loop, int fd, int64_t now)
{
	struct webloop_conn	*wc;
	unsigned char		 addr[17];

	webloop_addr(fd, addr);
	webloop_make_room(loop, addr);
	wc = &loop->conns[loop->n++];
	memset(wc, 0, sizeof *wc);
	wc->fd = fd;
	wc->since = now;
	memcpy(wc->addr, addr, sizeof addr);
	webhead_init(&wc->head);
	return wc;
}

/* Our side is done: read away what comes until the client closes, for
 * WEBLOOP_LINGER at most. */
static void
webloop_linger(struct webloop_conn *wc, int64_t now)
{
	(void)shutdown(wc->fd, SHUT_WR);
	webhead_free(&wc->head);
	wc->state = WEBLOOP_LINGERING;
	wc->deadline = now + WEBLOOP_LINGER;
	wc->left = WEBLOOP_LINGER_BYTES;
}

/* Connection i has bytes (or its end); 0, or -1 when it is to close. */
static int
webloop_read(struct webloop *loop, size_t i, int64_t now)
{
	struct webloop_conn	*wc = &loop->conns[i];
	static char		 buf[65536];
	ssize_t			 n;

	if (wc->state == WEBLOOP_LINGERING) {
		while ((n = recv(wc->fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
			if ((wc->left -= n) <= 0)
				return -1;
		return n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == EINTR) ? 0 : -1;
	}
	switch (webhead_read(&wc->head, wc->fd)) {
	case WEBHEAD_MORE:
		return 0;
	case WEBHEAD_DONE:
		if (webpool_push(loop->pool, wc->fd, &wc->head) == 0) {
			/* The fd is the pool's now. */
			loop->conns[i] = loop->conns[--loop->n];
			return 0;
		}
		webserve_refuse(wc->fd, 503, "profctl web is busy: every "
		    "worker is answering and the queue is full; try again");
		webloop_linger(wc, now);
		return 0;
	case WEBHEAD_LONG:
		webserve_refuse(wc->fd, 431, "the request's head is over 64 "
		    "KiB");
		webloop_linger(wc, now);
		return 0;
	default:
		return -1;
	}
}

/* Close what is past its deadline; the ms until the next one, or -1. */
static int
webloop_expire(struct webloop *loop, int64_t now)
{
	int64_t	 next = -1;
	size_t	 i;

	for (i = loop->n; i-- > 0;) {
		if (loop->conns[i].deadline <= now) {
			webloop_drop(loop, i);
			continue;
		}
		if (next == -1 || loop->conns[i].deadline - now < next)
			next = loop->conns[i].deadline - now;
	}
	if (loop->accept_at > now && (next == -1 ||
	    loop->accept_at - now < next))
		next = loop->accept_at - now;
	return (int)next;
}

/* Answered connections, back from the workers. */
static void
webloop_take_back(struct webloop *loop, int64_t now)
{
	int	 fds[64];
	ssize_t	 n, k;

	while ((n = read(loop->done[0], fds, sizeof fds)) > 0)
		for (k = 0; k < n / (ssize_t)sizeof fds[0]; k++)
			webloop_linger(webloop_add(loop, fds[k], now), now);
}

/* Accept what waits; 0, or -1 when the listening socket failed. */
static int
webloop_accept(struct webloop *loop, int64_t now)
{
	struct webloop_conn	*wc;
	size_t			 count;
	int			 fd;

	for (;;) {
		fd = accept4(loop->lfd, NULL, NULL, SOCK_CLOEXEC |
		    SOCK_NONBLOCK);
		if (fd != -1) {
			wc = webloop_add(loop, fd, now);
			wc->deadline = now + WEBLOOP_HEAD_TIMEOUT;
			/* A browser's head is often there already: handed
			 * over now, it takes no slot a burst would need. */
			if (webloop_read(loop, loop->n - 1, now) == -1)
				webloop_drop(loop, loop->n - 1);
			continue;
		}
		switch (errno) {
		case EAGAIN:
#if EWOULDBLOCK != EAGAIN
		case EWOULDBLOCK:
#endif
			return 0;
		case EINTR:
		case ECONNABORTED:
		case EPROTO:
			continue;
		case EMFILE:
		case ENFILE:
		case ENOBUFS:
		case ENOMEM:
			/* Out of descriptors: free one, wait a little. */
			if (loop->n > 0)
				webloop_drop(loop, webloop_victim(loop, NULL,
				    &count));
			loop->accept_at = now + WEBLOOP_ACCEPT_PAUSE;
			return 0;
		default:
			fprintf(stderr, "profctl web: accept: %s\n",
			    strerror(errno));
			return -1;
		}
	}
}

/* Serve on lfd until it fails (profctl web ends by a signal). */
int
webloop_run(const struct webserve *ws, int lfd)
{
	struct webloop	*loop = xcalloc(1, sizeof *loop);
	struct pollfd	 pfd[2 + WEBLOOP_CONNS_MAX];
	int64_t		 now;
	size_t		 i, np;
	int		 timeout, fl, listening;

	if (pipe2(loop->done, O_CLOEXEC) == -1) {
		fprintf(stderr, "profctl web: pipe: %s\n", strerror(errno));
		free(loop);
		return PROFCTL_EXIT_REFUSED;
	}
	/* Workers write whole; the loop must never wait to read. */
	fl = fcntl(loop->done[0], F_GETFL);
	(void)fcntl(loop->done[0], F_SETFL, fl | O_NONBLOCK);
	fl = fcntl(lfd, F_GETFL);
	(void)fcntl(lfd, F_SETFL, fl | O_NONBLOCK);
	loop->ws = ws;
	loop->lfd = lfd;
	loop->pool = webpool_new(ws, loop->done[1]);
	for (;;) {
		now = webloop_now();
		timeout = webloop_expire(loop, now);
		pfd[0] = (struct pollfd){ .fd = loop->done[0], .events = POLLIN };
		listening = loop->accept_at <= now;
		pfd[1] = (struct pollfd){ .fd = listening ? lfd : -1,
		    .events = POLLIN };
		for (i = 0; i < loop->n; i++)
			pfd[2 + i] = (struct pollfd){ .fd = loop->conns[i].fd,
			    .events = POLLIN };
		np = 2 + loop->n;
		if (poll(pfd, np, timeout) == -1) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "profctl web: poll: %s\n",
			    strerror(errno));
			return PROFCTL_EXIT_REFUSED;
		}
		now = webloop_now();
		/* Downwards: a connection removed takes the last one's slot,
		 * which was seen already. */
		for (i = np - 2; i-- > 0;)
			if (pfd[2 + i].revents != 0 &&
			    webloop_read(loop, i, now) == -1)
				webloop_drop(loop, i);
		if (pfd[0].revents != 0)
			webloop_take_back(loop, now);
		if (listening && pfd[1].revents != 0 &&
		    webloop_accept(loop, now) == -1)
			return PROFCTL_EXIT_REFUSED;
	}
}
