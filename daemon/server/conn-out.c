/* conn-out.c: the guard's output filter (conn.c has the rest of the
 * guard): every reply libevent writes itself made JSON, and no reply's
 * end let go unsent.  libevent takes a reply as sent, and may close the
 * connection, once this filter's buffer is empty; so the last byte is
 * held back until the socket (or OpenSSL's bufferevent) has taken the
 * rest. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "http-error.h"
#include "server-http-int.h"

/* TLS: OpenSSL's bufferevent writes on its own, so nothing is written
 * from here.  The same end is kept from libevent: the last byte waits in
 * src until the TLS bufferevent has written all before it (its write
 * callback brings us back), and once that byte is handed over too the
 * filter says nothing (BEV_NEED_MORE) until conn_tls_drained sees it
 * gone, then tells libevent the output is written. */
static enum bufferevent_filter_result
conn_send_tls(struct conn *c, struct evbuffer *src, size_t n,
    struct evbuffer *dst)
{
	if (evbuffer_get_length(dst) > 0)
		return BEV_NEED_MORE;
	if (n > 1) {
		evbuffer_remove_buffer(src, dst, n - 1);
		c->sendfirst = 1;
		return BEV_OK;
	}
	evbuffer_remove_buffer(src, dst, n);
	c->sendfirst = 0;
	if (evbuffer_get_length(src) > 0)
		return BEV_OK;
	c->tls_end = 1;
	return BEV_NEED_MORE;
}

void
conn_tls_drained(struct evbuffer *buf, const struct evbuffer_cb_info *info,
    void *arg)
{
	struct conn *c = arg;

	if (!c->tls_end || info->n_deleted == 0 || evbuffer_get_length(buf) > 0)
		return;
	c->tls_end = 0;
	if (!conn_dead(c))
		bufferevent_trigger(c->bev, EV_WRITE, BEV_OPT_DEFER_CALLBACKS);
}

/* Move the first n bytes of src to the socket's buffer and write them at
 * once.  libevent thinks a reply sent, and may close the connection
 * (shutting the socket down), as soon as this filter's buffer is empty,
 * although the socket's buffer may still hold the end of it.  So when the
 * socket does not take everything, the last byte goes back to src
 * (c->sendfirst) until the socket has taken the rest: the socket's write
 * callback brings us back then. */
static enum bufferevent_filter_result
conn_send(struct conn *c, struct evbuffer *src, size_t n,
    struct evbuffer *dst)
{
	struct evbuffer *tmp;
	size_t len;
	int fd;

	if (c->tls)
		return conn_send_tls(c, src, n, dst);
	if (evbuffer_get_length(dst) > 0)
		return BEV_NEED_MORE;
	evbuffer_remove_buffer(src, dst, n);
	c->sendfirst = 0;
	if ((fd = (int)bufferevent_getfd(c->under)) < 0)
		return BEV_OK;
	/* The socket's bufferevent keeps its output's front frozen (only it
	 * writes from there, and removing from a frozen front fails):
	 * thaw it for these writes and the move back, as it does. */
	errno = 0;
	evbuffer_unfreeze(dst, 1);
	while (evbuffer_get_length(dst) > 0)
		if (evbuffer_write(dst, fd) <= 0)
			break;
	if ((len = evbuffer_get_length(dst)) > 1 && (errno == EAGAIN ||
	    errno == EWOULDBLOCK || errno == EINTR)) {
		tmp = evbuffer_new();
		evbuffer_remove_buffer(dst, tmp, len - 1);
		evbuffer_prepend_buffer(src, dst);
		evbuffer_add_buffer(dst, tmp);
		evbuffer_free(tmp);
		c->sendfirst = 1;
	}
	evbuffer_freeze(dst, 1);
	return BEV_OK;
}

enum bufferevent_filter_result
conn_out(struct evbuffer *src, struct evbuffer *dst, ev_ssize_t lim,
    enum bufferevent_flush_mode mode, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *mine;
	enum bufferevent_filter_result r;
	size_t n;

	if (c->sendfirst > 0) {
		r = conn_send(c, src, c->sendfirst, dst);
		if (r != BEV_OK || c->sendfirst > 0)
			return r;
	}
	if (c->out_discard) {
		evbuffer_drain(src, evbuffer_get_length(src));
		return BEV_OK;
	}
	if (c->ours)
		return conn_send(c, src, evbuffer_get_length(src), dst);
	if (evbuffer_get_length(dst) > 0)
		return BEV_NEED_MORE;
	mine = evbuffer_new();
	r = http_error_rewrite(src, mine, c->sh->cfg->limits.max_body,
	    &c->out_discard) == 0 ? BEV_OK : BEV_NEED_MORE;
	if ((n = evbuffer_get_length(mine)) > 0) {
		evbuffer_prepend_buffer(src, mine);
		r = conn_send(c, src, n, dst);
	}
	evbuffer_free(mine);
	return r;
}

/* libevent adds to the output before it enables writing, and a filter
 * only looks at its output when it is added to with writing enabled: so
 * look again once libevent is done adding. */
void
conn_kick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (!conn_dead(c) &&
	    evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
		bufferevent_flush(c->bev, EV_WRITE, BEV_NORMAL);
}

void
conn_output_added(struct evbuffer *buf, const struct evbuffer_cb_info *info,
    void *arg)
{
	struct conn *c = arg;

	if (info->n_added > 0)
		event_active(c->kick, EV_TIMEOUT, 1);
}
