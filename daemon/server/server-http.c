/* server-http.c: libevent's HTTP server as profd configures it, and the
 * guard around each connection.
 *
 * libevent 2.1 has no connection limit, no accept error policy of its own
 * (it warns and retries at once, forever, when descriptors run out), read
 * timeouts that every byte resets, and HTML error pages.  Every connection
 * is therefore given (evhttp_set_bevcb) a filter bufferevent over its
 * socket: the input side sees the bytes before libevent parses them, so it
 * can time the head and the body and count the body bytes held; the output
 * side sees every reply, so libevent's own error pages can be rewritten
 * into the JSON every error is; the filter's free callback says when the
 * connection is gone.  A reply is the handler's ("ours") from the moment
 * the request is dispatched until libevent says it is written; anything
 * else libevent writes is one of its error pages, or "100 Continue".
 * The guard frames the requests itself and hands libevent one at a
 * time, so requests pipelined on a connection are answered in order
 * whatever their size; a listener may decide on each head before its
 * body is read (server_http_set_head_check). */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/http_struct.h>
#include <event2/listener.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "alloc.h"
#include "clock.h"
#include "http-error.h"
#include "log.h"
#include "origin.h"
#include "server-http-int.h"
#include "server-http.h"

/* The listener's error callback gets the listener's callback argument,
 * which evhttp owns (the evhttp): find the guard by its listener.  All on
 * the loop thread. */
static struct server_http *listening;

static int
is_health(struct evhttp_request *req)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;

	return (evhttp_request_get_command(req) == EVHTTP_REQ_GET ||
	    evhttp_request_get_command(req) == EVHTTP_REQ_HEAD) &&
	    path != NULL && strcmp(path, "/v1/health") == 0;
}

/* Send the JSON error and close. */
static void
server_http_refuse(struct evhttp_request *req, int status, const char *detail)
{
	http_error_send(req, status, detail, 1);
}

static int
host_is(const char *name, const char *host, size_t n)
{
	return strlen(name) == n && strncasecmp(name, host, n) == 0;
}

/* Is a request with this Host header (NULL: none) answered?  Its port
 * aside, it must be localhost, 127.0.0.1, [::1] or an allowed-host. */
static int
server_http_host_allowed(const char *host, const struct config *cfg)
{
	static const char *const local[] = { "localhost", "127.0.0.1",
	    "[::1]" };
	const char *end, *colon;
	size_t n, i;

	/* No authority (HTTP/1.0, or "Host:" empty): not from a browser,
	 * which always names the server it thinks it talks to. */
	if (host == NULL || *host == '\0')
		return 1;
	if (host[0] == '[') {
		if ((end = strchr(host, ']')) == NULL)
			return 0;
		end++;
	} else
		end = host + strcspn(host, ":");
	/* The port is not checked: the socket may be forwarded to any. */
	if (*end == ':') {
		colon = end + 1;
		if (strspn(colon, "0123456789") != strlen(colon))
			return 0;
	} else if (*end != '\0')
		return 0;
	n = (size_t)(end - host);
	for (i = 0; i < sizeof local / sizeof local[0]; i++)
		if (host_is(local[i], host, n))
			return 1;
	for (i = 0; i < cfg->allowed_hosts.n; i++)
		if (host_is(cfg->allowed_hosts.v[i], host, n))
			return 1;
	return 0;
}

/* DNS rebinding: once the socket is forwarded to a TCP port (ssh -L), a
 * page of another site whose name now resolves to 127.0.0.1 could read
 * and delete profiles through the browser; its requests carry that
 * name in Host.  0 if the request was refused. */
static int
server_http_check_host(struct server_http *sh, struct evhttp_request *req)
{
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	struct evkeyval *kv;
	const char *host = NULL;
	char msg[512];
	int nhost = 0;

	TAILQ_FOREACH(kv, in, next)
		if (strcasecmp(kv->key, "Host") == 0 && nhost++ == 0)
			host = kv->value;
	if (nhost > 1) {
		server_http_refuse(req, 400, "the request has more than one "
		    "Host header");
		return 0;
	}
	if (server_http_host_allowed(host, sh->cfg))
		return 1;
	snprintf(msg, sizeof msg, "Host \"%.200s\" is refused: profd "
	    "answers requests for localhost, 127.0.0.1, [::1] and the names "
	    "of allowed-host (a name this server is reached by is allowed "
	    "with --allowed-host NAME or \"allowed-host = NAME\" in the "
	    "config file)", host);
	server_http_refuse(req, 403, msg);
	return 0;
}

/* Cross-site request forgery (origin.h): a page of another origin
 * neither writes nor reads through any face.  0 if refused. */
static int
server_http_check_origin(struct server_http *sh, struct evhttp_request *req)
{
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	struct origin_req o = {
		.origin = evhttp_find_header(in, "Origin"),
		.fetch_site = evhttp_find_header(in, "Sec-Fetch-Site"),
		.host = evhttp_find_header(in, "Host"),
		.ui_header = evhttp_find_header(in, ORIGIN_UI_HEADER) != NULL,
		.write = cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD,
		/* The TCP face serves agents, not the page. */
		.serves_ui = !sh->any_host,
	};
	char why[600];

	if (origin_check(&o, why, sizeof why) == NULL)
		return 1;
	sh->refused_origin++;
	server_http_refuse(req, 403, why);
	return 0;
}

/* A whole request has arrived. */
static void
server_http_dispatch(struct evhttp_request *req, void *arg)
{
	struct server_http *sh = arg;
	struct conn *c = conn_of(sh, req);
	char msg[160];

	if (c != NULL) {
		event_del(c->timer);
		c->state = C_HANDLER;
		c->ours = 1;
		evhttp_request_set_on_complete_cb(req, conn_reply_done, c);
		/* A stranger's connection (a health check without a
		 * credential) does not stay open to idle. */
		if (sh->head_check != NULL && !c->authed)
			evhttp_add_header(evhttp_request_get_output_headers(
			    req), "Connection", "close");
		if (c->over && !is_health(req)) {
			snprintf(msg, sizeof msg, "profd has more than %zu "
			    "connections open (max-connections); retry later",
			    sh->cfg->max_connections);
			evhttp_add_header(evhttp_request_get_output_headers(
			    req), "Retry-After", "1");
			server_http_refuse(req, 503, msg);
			return;
		}
	}
	/* libevent takes any digits as a version (HTTP/0.1, HTTP/1555...5.1
	 * overflowing an int), keeps them in a char (HTTP/1.0111111111 is
	 * 1.-57) and answers in it. */
	if (req->major != 1 || (req->minor != 0 && req->minor != 1)) {
		req->major = 1;
		req->minor = 1;
		server_http_refuse(req, 400,
		    "the HTTP version is not 1.0 or 1.1");
		return;
	}
	if (!sh->any_host && !server_http_check_host(sh, req))
		return;
	if (!server_http_check_origin(sh, req))
		return;
	sh->cb(req, sh->cbarg);
}

static void
server_http_configure(struct server_http *sh)
{
	const struct config *cfg = sh->cfg;

	evhttp_set_max_body_size(sh->http, (ev_ssize_t)cfg->limits.max_body);
	/* Above the guard's own limit, which answers first with 431. */
	evhttp_set_max_headers_size(sh->http,
	    (ev_ssize_t)cfg->max_header_size + 1024);
	evhttp_set_timeout(sh->http, (int)cfg->idle_timeout);
}

struct server_http *
server_http_setup(struct evhttp *http, struct event_base *base,
    const struct config *cfg, void (*cb)(struct evhttp_request *, void *),
    void *arg)
{
	struct server_http *sh = xcalloc(1, sizeof *sh);

	TAILQ_INIT(&sh->strangers);
	sh->http = http;
	sh->base = base;
	sh->cfg = cfg;
	sh->cb = cb;
	sh->cbarg = arg;
	server_http_configure(sh);
	/* Every method, even unknown ones, reaches the router, which answers
	 * 405 in JSON; libevent would answer 501 in HTML. */
	evhttp_set_allowed_methods(http, 0xffff);
	evhttp_set_bevcb(http, conn_new, sh);
	evhttp_set_gencb(http, server_http_dispatch, sh);
	return sh;
}

void
server_http_any_host(struct server_http *sh)
{
	sh->any_host = 1;
}

void
server_http_set_tls(struct server_http *sh, struct tls_ctx *tls)
{
	sh->tls = tls;
}

void
server_http_set_head_check(struct server_http *sh, server_http_head_fn *fn,
    void *arg)
{
	sh->head_check = fn;
	sh->head_arg = arg;
}

void
server_http_set_config(struct server_http *sh, const struct config *cfg)
{
	sh->cfg = cfg;
	server_http_configure(sh);
}

static void
server_http_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server_http *sh = arg;

	if (sh->listener != NULL && sh->paused)
		evconnlistener_enable(sh->listener);
	sh->paused = 0;
}

/* accept() failed for a reason that retrying at once will not cure (out
 * of descriptors or memory): stop accepting for 100 ms and let the backlog
 * wait.  One warning when an episode begins (at most one per 10 s) and one
 * line when a connection is accepted again. */
static void
server_http_accept_error(struct evconnlistener *lis, void *arg)
{
	struct server_http *sh;
	int err = EVUTIL_SOCKET_ERROR();
	int64_t now = mono_ns();

	(void)arg;
	for (sh = listening; sh != NULL && sh->listener != lis; sh = sh->next)
		;
	if (sh == NULL) {
		/* Not ours: no way to pause it but to stop it. */
		evconnlistener_disable(lis);
		return;
	}

	sh->accept_errors++;
	evconnlistener_disable(lis);
	sh->paused = 1;
	event_add(sh->resume, &(struct timeval){ 0, 100000 });
	if (sh->episode_errors++ > 0)
		return;
	sh->episode_ns = now;
	if (sh->warned_ns != 0 && now - sh->warned_ns < 10 * 1000000000LL)
		return;
	sh->warned_ns = now;
	log_warn("accept: %s with %zu connections open; accepting in 100 ms "
	    "steps until it works%s", strerror(err), sh->nconns,
	    err == EMFILE || err == ENFILE ? "; raise the file limit "
	    "(LimitNOFILE=) or lower max-connections" : "");
}

int
server_http_listen(struct server_http *sh, int fd)
{
	if ((sh->bound = evhttp_accept_socket_with_handle(sh->http, fd)) ==
	    NULL)
		return -1;
	sh->listener = evhttp_bound_socket_get_listener(sh->bound);
	evconnlistener_set_error_cb(sh->listener, server_http_accept_error);
	sh->next = listening;
	listening = sh;
	if (sh->resume == NULL)
		sh->resume = evtimer_new(sh->base, server_http_resume_cb, sh);
	return 0;
}

static void
server_http_unlink(struct server_http *sh)
{
	struct server_http **pp;

	for (pp = &listening; *pp != NULL; pp = &(*pp)->next)
		if (*pp == sh) {
			*pp = sh->next;
			break;
		}
}

void
server_http_unlisten(struct server_http *sh)
{
	server_http_unlink(sh);
	if (sh->bound != NULL)
		evhttp_del_accept_socket(sh->http, sh->bound);
	sh->bound = NULL;
	sh->listener = NULL;
}

void
server_http_free(struct server_http *sh)
{
	int i;

	if (sh == NULL)
		return;
	/* evhttp_free frees the listener and the connections; a connection's
	 * bufferevents are finalized later, by the loop, and the filter's
	 * free callback needs the guard: run the loop until they are gone,
	 * not leaving them to event_base_free (which runs them after the
	 * guard is freed, and while walking a queue they would change). */
	sh->listener = NULL;
	if (sh->resume != NULL)
		event_del(sh->resume);
	if (sh->trim != NULL)
		event_free(sh->trim);
	sh->trim = NULL;
	evhttp_free(sh->http);
	for (i = 0; i < 16 && (i < 2 || sh->nconns > 0); i++)
		event_base_loop(sh->base, EVLOOP_NONBLOCK);
	server_http_unlink(sh);
	if (sh->resume != NULL)
		event_free(sh->resume);
	free(sh->byfd);
	free(sh);
}

void
server_http_stats(const struct server_http *sh, struct server_http_stats *st)
{
	st->connections = sh->nconns;
	st->max_connections = sh->cfg->max_connections;
	st->inflight_body_bytes = sh->inflight;
	st->accept_paused = sh->paused;
	st->accept_errors = sh->accept_errors;
	st->refused_connections = sh->refused_conns;
	st->refused_bodies = sh->refused_body;
	st->refused_heads = sh->refused_head;
	st->timed_out = sh->timed_out;
	st->refused_origins = sh->refused_origin;
	st->strangers = sh->nstrangers;
	st->strangers_closed = sh->strangers_closed;
	st->bytes_read = sh->bytes_read;
}

void
server_http_stats_add(struct server_http_stats *a,
    const struct server_http_stats *b)
{
	a->connections += b->connections;
	a->inflight_body_bytes += b->inflight_body_bytes;
	a->accept_errors += b->accept_errors;
	a->refused_connections += b->refused_connections;
	a->refused_bodies += b->refused_bodies;
	a->refused_heads += b->refused_heads;
	a->timed_out += b->timed_out;
	a->refused_origins += b->refused_origins;
	a->strangers += b->strangers;
	a->strangers_closed += b->strangers_closed;
	a->bytes_read += b->bytes_read;
}

json_t *
server_http_stats_json(const struct server_http_stats *st)
{
	return json_pack("{s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:I, "
	    "s:I}",
	    "connections", (json_int_t)st->connections,
	    "max_connections", (json_int_t)st->max_connections,
	    "inflight_body_bytes", (json_int_t)st->inflight_body_bytes,
	    "accept_paused", st->accept_paused,
	    "accept_errors", (json_int_t)st->accept_errors,
	    "refused_connections", (json_int_t)st->refused_connections,
	    "refused_bodies", (json_int_t)st->refused_bodies,
	    "refused_heads", (json_int_t)st->refused_heads,
	    "timed_out", (json_int_t)st->timed_out,
	    "refused_origins", (json_int_t)st->refused_origins);
}
