/* scrape-unix.c: a GET over a Unix socket as HTTP/1.0 (scrape-unix.h
 * says why not libevent's client): the request written, the reply read
 * to the end of the stream within a bound, then its head checked. */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "alloc.h"
#include "scrape-unix.h"

#define SCRAPE_UNIX_HEAD_MAX	(64 * 1024)

struct scrape_unix {
	struct bufferevent *bev;
	size_t max_body;
	ssize_t head;			/* its length once read, else -1 */
	scrape_unix_cb *cb;
	void *arg;
};

static void
scrape_unix_end(struct scrape_unix *su, int code, struct evbuffer *body,
    const char *err)
{
	su->cb(code, body, err, su->arg);
	scrape_unix_cancel(su);
}

const char *
scrape_unix_head(const char *head, size_t n, int *code, long long *clen)
{
	char *h = xstrndup(head, n), *line, *save = NULL, *end;
	const char *err = NULL;

	*code = 0;
	*clen = -1;
	line = strtok_r(h, "\r\n", &save);
	if (line == NULL || strncmp(line, "HTTP/1.", 7) != 0 ||
	    (line[7] != '0' && line[7] != '1') || line[8] != ' ' ||
	    line[9] < '1' || line[9] > '5' || line[10] < '0' ||
	    line[10] > '9' || line[11] < '0' || line[11] > '9' ||
	    (line[12] != ' ' && line[12] != '\0'))
		err = "the reply is not HTTP/1.x";
	else
		*code = (line[9] - '0') * 100 + (line[10] - '0') * 10 +
		    (line[11] - '0');
	while (err == NULL && (line = strtok_r(NULL, "\r\n", &save)) !=
	    NULL) {
		if (strncasecmp(line, "Content-Length:", 15) == 0) {
			/* Digits only: strtoll takes "" as 0, and signs. */
			for (end = line + 15; *end == ' ' || *end == '\t';)
				end++;
			errno = 0;
			*clen = *end >= '0' && *end <= '9' ?
			    strtoll(end, &end, 10) : -2;
			while (*end == ' ' || *end == '\t')
				end++;
			if (errno != 0 || *clen < 0 || *end != '\0')
				err = "the reply's Content-Length is not a "
				    "number";
		} else if (strncasecmp(line, "Transfer-Encoding:", 18) == 0 &&
		    strcasestr(line + 18, "chunked") != NULL)
			err = "the reply is chunked (to an HTTP/1.0 request)";
	}
	free(h);
	if (err != NULL)
		*code = 0;
	return err;
}

/* The reply whole: its head, then the body, which must be as long as a
 * Content-Length says. */
static void
scrape_unix_reply(struct scrape_unix *su)
{
	struct evbuffer *in = bufferevent_get_input(su->bev);
	struct evbuffer_ptr end;
	const char *e;
	char err[128];
	long long clen;
	int code;
	size_t hn;

	if (su->head < 0 && (end = evbuffer_search(in, "\r\n\r\n", 4,
	    NULL)).pos >= 0)
		su->head = end.pos + 4;
	if (su->head < 0) {
		scrape_unix_end(su, 0, NULL, "the reply has no HTTP head");
		return;
	}
	hn = (size_t)su->head;
	e = scrape_unix_head((const char *)evbuffer_pullup(in, (ssize_t)hn),
	    hn, &code, &clen);
	if (e != NULL) {
		scrape_unix_end(su, 0, NULL, e);
		return;
	}
	evbuffer_drain(in, hn);
	if (clen >= 0 && (size_t)clen != evbuffer_get_length(in)) {
		snprintf(err, sizeof err, "the body ended at %zu of its %lld "
		    "bytes", evbuffer_get_length(in), clen);
		scrape_unix_end(su, 0, NULL, err);
		return;
	}
	scrape_unix_end(su, code, in, NULL);
}

/* The head within its bound, then the body within max-body. */
static void
scrape_unix_read_cb(struct bufferevent *bev, void *arg)
{
	struct scrape_unix *su = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n = evbuffer_get_length(in);
	struct evbuffer_ptr end;
	char err[96];

	if (su->head < 0) {
		end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
		if (end.pos >= 0)
			su->head = end.pos + 4;
		else if (n > SCRAPE_UNIX_HEAD_MAX) {
			scrape_unix_end(su, 0, NULL, "the reply's head is "
			    "over 64 KiB");
			return;
		}
	}
	if (su->head >= 0 && n - (size_t)su->head > su->max_body) {
		snprintf(err, sizeof err, "the body is over max-body (%zu "
		    "bytes)", su->max_body);
		scrape_unix_end(su, 0, NULL, err);
	}
}

static void
scrape_unix_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct scrape_unix *su = arg;
	char err[160];

	(void)bev;
	if (what & BEV_EVENT_EOF) {
		scrape_unix_reply(su);
		return;
	}
	if (what & BEV_EVENT_TIMEOUT)
		snprintf(err, sizeof err, "timed out %s", what &
		    BEV_EVENT_READING ? "waiting for the reply" :
		    "sending the request");
	else
		snprintf(err, sizeof err, "the connection failed: %s",
		    strerror(errno));
	scrape_unix_end(su, 0, NULL, err);
}

struct scrape_unix *
scrape_unix_get(struct event_base *base, const char *path, const char *uri,
    int64_t timeout_s, size_t max_body, scrape_unix_cb *cb, void *arg,
    char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { (time_t)timeout_s, 0 };
	struct scrape_unix *su;
	int fd;

	if (strlen(path) >= sizeof sa.sun_path) {
		snprintf(err, errlen, "the socket path is too long");
		return NULL;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return NULL;
	}
	/* A Unix socket connects at once or not at all (EAGAIN: its
	 * backlog is full): never in progress. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == -1) {
		snprintf(err, errlen, "cannot connect to %s: %s", path,
		    strerror(errno));
		close(fd);
		return NULL;
	}
	su = xcalloc(1, sizeof *su);
	su->cb = cb;
	su->arg = arg;
	su->max_body = max_body;
	su->head = -1;
	if ((su->bev = bufferevent_socket_new(base, fd,
	    BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		close(fd);
		free(su);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	bufferevent_setcb(su->bev, scrape_unix_read_cb, NULL,
	    scrape_unix_event_cb, su);
	bufferevent_set_timeouts(su->bev, &tv, &tv);
	evbuffer_add_printf(bufferevent_get_output(su->bev), "GET %s "
	    "HTTP/1.0\r\nHost: localhost\r\nUser-Agent: profd/%s\r\n\r\n", uri,
	    PROFD_VERSION);
	bufferevent_enable(su->bev, EV_READ | EV_WRITE);
	return su;
}

void
scrape_unix_cancel(struct scrape_unix *su)
{
	if (su == NULL)
		return;
	bufferevent_free(su->bev);
	free(su);
}
