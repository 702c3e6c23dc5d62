/* server-tcp.c: the TCP listener of listen-tcp, for Pyroscope agents that
 * cannot reach the Unix socket (pyroscope-go, the Node client, Grafana
 * Alloy on another host or in a container).
 *
 * It is a second evhttp with its own connection guard (server-http.c,
 * conn.c: max-connections, the head and body deadlines, the body budget,
 * each counted apart from the socket's), and a dispatcher of its own
 * that serves only POST /ingest, POST /push.v1.PusherService/Push and
 * GET /v1/health (404 for any other path: no query, no delete, no UI
 * over the network).  With tcp-auth-token and/or tcp-basic-auth set, the
 * two ingest routes need one of them (401 with WWW-Authenticate
 * otherwise); health never does, for load balancers, and says "ok" and
 * nothing else (no paths, versions or counters).  An address that
 * is not loopback needs one: profd refuses to start without.  No Host
 * check: agents name the host they reach.  A web page (a rebound name
 * among them) is refused by the guard before this, credentials or not:
 * any Origin is another's here, where no page is served (base/origin.c,
 * server_http_check_origin). */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "alloc.h"
#include "http-error.h"
#include "log.h"
#include "routes.h"
#include "server-http.h"
#include "server-int.h"

/* Split ADDR:PORT ([V6]:PORT) into host and port (in buf); -1 if bad. */
static int
tcp_split(const char *spec, char *buf, size_t size, const char **host,
    const char **port)
{
	char *colon;

	if (snprintf(buf, size, "%s", spec) >= (int)size)
		return -1;
	if (buf[0] == '[') {
		if ((colon = strchr(buf, ']')) == NULL || colon[1] != ':')
			return -1;
		*colon = '\0';
		*host = buf + 1;
		*port = colon + 2;
	} else {
		if ((colon = strrchr(buf, ':')) == NULL)
			return -1;
		*colon = '\0';
		*host = buf;
		*port = colon + 1;
	}
	if (**port == '\0' || strspn(*port, "0123456789") != strlen(*port) ||
	    atoi(*port) > 65535)
		return -1;
	return 0;
}

static int
tcp_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr)
		    >> 24) == 127;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(
		    &((const struct sockaddr_in6 *)sa)->sin6_addr);
	return 0;
}

int
server_tcp_open(struct server *srv)
{
	const struct config *cfg = srv->cfg;
	struct addrinfo hints, *ai = NULL;
	char buf[300], name[INET6_ADDRSTRLEN];
	const char *host, *port;
	int fd = -1, one = 1, rc;

	srv->tcp_fd = -1;
	if (cfg->listen_tcp == NULL)
		return 0;
	if (cfg->tcp_basic_auth != NULL && (strchr(cfg->tcp_basic_auth, ':') ==
	    NULL || cfg->tcp_basic_auth[0] == ':')) {
		log_err("tcp-basic-auth is not USER:PASSWORD");
		return -1;
	}
	/* "agent:" would let anyone who knows the user name push, and
	 * open a listener off loopback on the strength of it. */
	if (cfg->tcp_basic_auth != NULL &&
	    strchr(cfg->tcp_basic_auth, ':')[1] == '\0') {
		log_err("tcp-basic-auth has an empty password");
		return -1;
	}
	if (cfg->tcp_auth_token != NULL && cfg->tcp_auth_token[0] == '\0') {
		log_err("tcp-auth-token is empty");
		return -1;
	}
	if (cfg->tcp_auth_token != NULL && strlen(cfg->tcp_auth_token) < 16)
		log_warn("tcp-auth-token is %zu characters: a guessable "
		    "token (16 or more random ones, e.g. openssl rand -hex "
		    "16)", strlen(cfg->tcp_auth_token));
	if (tcp_split(cfg->listen_tcp, buf, sizeof buf, &host, &port) == -1) {
		log_err("listen-tcp: \"%s\" is not ADDR:PORT (e.g. "
		    "127.0.0.1:4040, [::1]:4040, 0.0.0.0:4040)",
		    cfg->listen_tcp);
		return -1;
	}
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((rc = getaddrinfo(*host ? host : NULL, port, &hints, &ai)) != 0) {
		log_err("listen-tcp %s: %s", cfg->listen_tcp, gai_strerror(rc));
		return -1;
	}
	if (!tcp_loopback(ai->ai_addr) && cfg->tcp_auth_token == NULL &&
	    cfg->tcp_basic_auth == NULL) {
		log_err("listen-tcp %s is not a loopback address: set "
		    "tcp-auth-token or tcp-basic-auth (in the config file) so "
		    "that only your agents can push, or listen on 127.0.0.1",
		    cfg->listen_tcp);
		freeaddrinfo(ai);
		return -1;
	}
	if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == -1 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) == -1 ||
	    listen(fd, 128) == -1) {
		log_err("listen-tcp %s: %s", cfg->listen_tcp, strerror(errno));
		if (fd != -1)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	getnameinfo(ai->ai_addr, ai->ai_addrlen, name, sizeof name, NULL, 0,
	    NI_NUMERICHOST);
	xasprintf(&srv->tcp_name, ai->ai_family == AF_INET6 ? "[%s]:%s" :
	    "%s:%s", name, port);
	freeaddrinfo(ai);
	srv->tcp_fd = fd;
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

/* Does the request carry a credential the config names? */
static int
tcp_authorized(const struct config *cfg, struct evhttp_request *req)
{
	const char *h = evhttp_find_header(evhttp_request_get_input_headers(
	    req), "Authorization");
	char *want;
	int ok = 0;

	if (cfg->tcp_auth_token == NULL && cfg->tcp_basic_auth == NULL)
		return 1;
	if (h == NULL)
		return 0;
	if (cfg->tcp_auth_token != NULL && strncasecmp(h, "Bearer ", 7) == 0)
		ok = tcp_same(h + 7, strlen(h + 7), cfg->tcp_auth_token);
	if (cfg->tcp_basic_auth != NULL && strncasecmp(h, "Basic ", 6) == 0) {
		want = xmalloc(strlen(cfg->tcp_basic_auth) / 3 * 4 + 5);
		tcp_b64(cfg->tcp_basic_auth, want);
		ok = tcp_same(h + 6, strlen(h + 6), want);
		free(want);
	}
	return ok;
}

static void
tcp_refuse(struct evhttp_request *req, int status, const char *detail)
{
	http_error_send(req, status, detail, 0);
}

static void
tcp_dispatch(struct evhttp_request *req, void *arg)
{
	struct server *srv = arg;
	const struct config *cfg = srv->cfg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);

	srv->tcp_requests++;
	if (path == NULL || (strcmp(path, "/ingest") != 0 &&
	    strcmp(path, "/push.v1.PusherService/Push") != 0 &&
	    strcmp(path, "/v1/health") != 0)) {
		srv->tcp_not_found++;
		tcp_refuse(req, 404, "the TCP listener serves /ingest, "
		    "/push.v1.PusherService/Push and /v1/health only; the "
		    "rest of the API is on the Unix socket");
		return;
	}
	/* For load balancers: that profd serves, and nothing of what it is
	 * (paths, counters, versions) to whoever asks. */
	if (strcmp(path, "/v1/health") == 0) {
		evhttp_add_header(out, "Content-Type", "application/json");
		evbuffer_add_printf(evhttp_request_get_output_buffer(req),
		    "{\"status\":\"ok\"}\n");
		http_reply_send(req, 200);
		return;
	}
	if (!tcp_authorized(cfg, req)) {
		if (cfg->tcp_basic_auth != NULL)
			evhttp_add_header(out, "WWW-Authenticate",
			    "Basic realm=\"profd\", charset=\"UTF-8\"");
		if (cfg->tcp_auth_token != NULL)
			evhttp_add_header(out, "WWW-Authenticate",
			    "Bearer realm=\"profd\"");
		srv->tcp_unauthorized++;
		tcp_refuse(req, 401, "the credentials are missing or wrong "
		    "(Authorization: Bearer TOKEN of tcp-auth-token, or Basic "
		    "of tcp-basic-auth)");
		return;
	}
	routes_dispatch(req, &srv->host);
}

int
server_tcp_start(struct server *srv)
{
	if (srv->tcp_fd == -1)
		return 0;
	srv->tcp_http = evhttp_new(srv->base);
	srv->tcp_guard = server_http_setup(srv->tcp_http, srv->base, srv->cfg,
	    tcp_dispatch, srv);
	server_http_any_host(srv->tcp_guard);
	if (server_http_listen(srv->tcp_guard, srv->tcp_fd) == -1) {
		log_err("evhttp cannot accept on %s", srv->tcp_name);
		close(srv->tcp_fd);
		srv->tcp_fd = -1;
		return -1;
	}
	srv->tcp_fd = -1;
	log_info("listening on TCP %s for Pyroscope agents (%s)",
	    srv->tcp_name, srv->cfg->tcp_auth_token != NULL ||
	    srv->cfg->tcp_basic_auth != NULL ? "credentials required" :
	    "loopback, no credentials");
	return 0;
}

/* /v1/status's "tcp": null without listen-tcp.  Its connections count
 * in /v1/health's too. */
json_t *
server_tcp_status(void *ctx)
{
	struct server *srv = ctx;
	const struct config *cfg = srv->cfg;
	struct server_http_stats h;

	if (srv->tcp_guard == NULL)
		return json_null();
	server_http_stats(srv->tcp_guard, &h);
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I}",
	    "listen", srv->tcp_name,
	    "auth", cfg->tcp_auth_token != NULL ? (cfg->tcp_basic_auth !=
	    NULL ? "token basic" : "token") : cfg->tcp_basic_auth != NULL ?
	    "basic" : "none",
	    "connections", (json_int_t)h.connections,
	    "requests", (json_int_t)srv->tcp_requests,
	    "unauthorized", (json_int_t)srv->tcp_unauthorized,
	    "not_found", (json_int_t)srv->tcp_not_found,
	    "refused_origins", (json_int_t)h.refused_origins);
}

void
server_tcp_free(struct server *srv)
{
	if (srv->tcp_guard != NULL)
		server_http_free(srv->tcp_guard);	/* and tcp_http */
	else if (srv->tcp_http != NULL)
		evhttp_free(srv->tcp_http);
	if (srv->tcp_fd != -1)
		close(srv->tcp_fd);
	srv->tcp_guard = NULL;
	srv->tcp_http = NULL;
	srv->tcp_fd = -1;
	free(srv->tcp_name);
	srv->tcp_name = NULL;
}
