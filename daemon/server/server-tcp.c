/* server-tcp.c: the TCP listener of listen-tcp, for Pyroscope agents that
 * cannot reach the Unix socket (pyroscope-go, the Node client, Grafana
 * Alloy on another host or in a container) and for readers (Grafana's
 * Pyroscope data source).
 *
 * It is a second evhttp with its own connection guard (server-http.c,
 * conn.c: max-connections, the head and body deadlines, the body budget,
 * each counted apart from the socket's), TLS under the guard with
 * tls-cert and tls-key (base/tls.c; SIGHUP reads them again), and a
 * dispatcher of its own that serves the routes the table flags
 * ROUTE_TCP_WRITE (pushes) or ROUTE_TCP_READ (reads), and GET
 * /v1/health; 404 for any other path: no delete, no SQL, no UI over the
 * network.  Once any credential is set, a route takes its own kind only
 * (tcp-auth.c): 401 with WWW-Authenticate without one, 403 with the
 * other kind's.  All of it is decided on each request's head, before a
 * byte of its body is read (tcp_head, the guard's head check): a
 * refusal is the guard's answer and a close, so a stranger's body costs
 * nothing, and a connection whose requests never carried a credential
 * is a stranger's (conn.c: few, closed after each answer).  Health
 * never needs one, for load balancers, and says "ok" and nothing else
 * (no paths, versions or counters).  An address
 * that is not loopback needs a credential, and TLS unless tcp-insecure:
 * profd refuses to start without.  No Host check: agents name the host
 * they reach.  A web page (a rebound name among them) is refused by the
 * guard before this, credentials or not: any Origin is another's here,
 * where no page is served (base/origin.c, server_http_check_origin). */
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
#include "tcp-auth.h"
#include "tls.h"

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

/* The settings of the listener, before anything is bound: -1 after
 * logging why not. */
static int
tcp_settings_ok(const struct config *cfg)
{
	struct tcp_creds c;
	char why[300], warn[300];

	if ((cfg->tls_cert == NULL) != (cfg->tls_key == NULL)) {
		log_err("%s is set without %s: TLS needs both (the "
		    "certificate chain and its private key, PEM)",
		    cfg->tls_cert != NULL ? "tls-cert" : "tls-key",
		    cfg->tls_cert != NULL ? "tls-key" : "tls-cert");
		return -1;
	}
	tcp_creds_of(&c, cfg);
	if (tcp_creds_check(&c, why, sizeof why, warn, sizeof warn) == -1) {
		log_err("%s", why);
		return -1;
	}
	if (warn[0] != '\0')
		log_warn("%s", warn);
	return 0;
}

int
server_tcp_open(struct server *srv)
{
	const struct config *cfg = srv->cfg;
	struct addrinfo hints, *ai = NULL;
	char buf[300], name[INET6_ADDRSTRLEN];
	const char *host, *port;
	struct tcp_creds creds;
	struct error err = { 0 };
	struct sockaddr_storage bound;
	socklen_t bound_len;
	char serv[NI_MAXSERV];
	int fd = -1, one = 1, rc;

	srv->tcp_fd = -1;
	if (cfg->listen_tcp == NULL) {
		if (cfg->tls_cert != NULL || cfg->tls_key != NULL)
			log_warn("tls-cert and tls-key are for listen-tcp, "
			    "which is not set: nothing speaks TLS");
		return 0;
	}
	if (tcp_settings_ok(cfg) == -1)
		return -1;
	tcp_creds_of(&creds, cfg);
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
	if (!tcp_loopback(ai->ai_addr) && !tcp_creds_any(&creds)) {
		log_err("listen-tcp %s is not a loopback address: set "
		    "tcp-auth-token or tcp-basic-auth (in the config file) so "
		    "that only your agents can push (tcp-read-token or "
		    "tcp-read-basic-auth for readers), or listen on 127.0.0.1",
		    cfg->listen_tcp);
		freeaddrinfo(ai);
		return -1;
	}
	/* Off loopback, a token in clear text is anyone's on the path. */
	if (!tcp_loopback(ai->ai_addr) && cfg->tls_cert == NULL &&
	    !cfg->tcp_insecure) {
		log_err("listen-tcp %s is not a loopback address: set tls-cert "
		    "and tls-key so that credentials and profiles do not cross "
		    "the network in clear text, or tcp-insecure = yes if "
		    "something else encrypts it (a TLS proxy in front, a "
		    "private network)", cfg->listen_tcp);
		freeaddrinfo(ai);
		return -1;
	}
	if (cfg->tls_cert != NULL &&
	    (srv->tls = tls_server_new(cfg->tls_cert, cfg->tls_key,
	    &err)) == NULL) {
		log_err("listen-tcp %s: %s", cfg->listen_tcp, err.msg);
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
	/* The address bound, as /v1/status says it: port 0 asks the kernel
	 * for a free port, and the status tells which (the tests' way to a
	 * port no other process can take between its pick and the bind). */
	bound_len = sizeof bound;
	if (getsockname(fd, (struct sockaddr *)&bound, &bound_len) == -1 ||
	    getnameinfo((struct sockaddr *)&bound, bound_len, name,
	    sizeof name, serv, sizeof serv, NI_NUMERICHOST |
	    NI_NUMERICSERV) != 0) {
		getnameinfo(ai->ai_addr, ai->ai_addrlen, name, sizeof name,
		    NULL, 0, NI_NUMERICHOST);
		snprintf(serv, sizeof serv, "%s", port);
	}
	xasprintf(&srv->tcp_name, ai->ai_family == AF_INET6 ? "[%s]:%s" :
	    "%s:%s", name, serv);
	freeaddrinfo(ai);
	srv->tcp_fd = fd;
	return 0;
}

/* A request's route as routes_dispatch will find it: the first of the
 * table whose path and method match (HEAD a GET's).  *path_tcp: some
 * route the TCP listener serves has this path (another method: 405). */
static const struct route *
tcp_route(const char *method, const char *path, int *path_tcp)
{
	const struct route *found = NULL;
	int j;

	*path_tcp = 0;
	for (j = 0; j < nroutes; j++) {
		if (!routes_path_matches(&routes[j], path))
			continue;
		if (routes[j].flags & (ROUTE_TCP_WRITE | ROUTE_TCP_READ))
			*path_tcp = 1;
		if (found == NULL && (strcmp(routes[j].method, method) == 0 ||
		    (strcmp(method, "HEAD") == 0 &&
		    strcmp(routes[j].method, "GET") == 0)))
			found = &routes[j];
	}
	return found;
}

static void
tcp_refuse(struct server_http_verdict *v, int status, const char *detail)
{
	v->status = status;
	snprintf(v->detail, sizeof v->detail, "%s", detail);
}

/* What the listener does with a request, from its method, path (NULL:
 * none), Authorization and whether a body follows: v->status 0 to serve
 * it.  The guard asks it of each head before any byte of the body is
 * read (tcp_head); tcp_dispatch asks it again of what libevent parsed.
 * Routes flagged ROUTE_TCP_WRITE or _READ, and health; a route takes
 * its kind of credential (tcp-auth.c); a GET takes no body. */
static void
tcp_decide(struct server *srv, const char *method, const char *path,
    const char *authorization, int body, struct server_http_verdict *v)
{
	const struct route *r = NULL;
	struct tcp_creds c;
	int path_tcp = 0, kind, k;

	tcp_creds_of(&c, srv->cfg);
	/* For load balancers, without a credential: that profd serves, and
	 * nothing of what it is.  Where credentials are set, a stranger's
	 * request whatever it carries: answered, then its connection closed
	 * (it takes no place of max-connections). */
	if (path != NULL && strcmp(path, "/v1/health") == 0) {
		v->authenticated = !tcp_creds_any(&c);
		if (body)
			tcp_refuse(v, 413, "GET /v1/health takes no body");
		return;
	}
	if (path != NULL)
		r = tcp_route(method, path, &path_tcp);
	if (r == NULL || !(r->flags & (ROUTE_TCP_WRITE | ROUTE_TCP_READ))) {
		if (path_tcp) {
			tcp_refuse(v, 405, "method not allowed here");
			return;
		}
		srv->tcp_not_found++;
		tcp_refuse(v, 404, "the TCP listener serves pushes (/ingest, "
		    "/push.v1.PusherService/Push), Grafana's reads and "
		    "/v1/health only; the rest of the API is on the Unix "
		    "socket");
		return;
	}
	/* A route both kinds may call takes either credential. */
	kind = (r->flags & ROUTE_TCP_WRITE ? TCP_AUTH_WRITE : 0) |
	    (r->flags & ROUTE_TCP_READ ? TCP_AUTH_READ : 0);
	switch (tcp_auth_decide(&c, kind, authorization)) {
	case TCP_ALLOW:
		break;
	case TCP_UNAUTHORIZED:
		/* 401: the schemes the route's kind of credential comes
		 * in. */
		k = kind == TCP_AUTH_READ;
		if (c.basic[k] != NULL)
			v->challenges[0] = "Basic realm=\"profd\", "
			    "charset=\"UTF-8\"";
		if (c.token[k] != NULL || c.basic[k] == NULL)
			v->challenges[v->challenges[0] != NULL] =
			    "Bearer realm=\"profd\"";
		srv->tcp_unauthorized++;
		tcp_refuse(v, 401, k ? "the credentials are missing or wrong "
		    "(Authorization: Bearer TOKEN of tcp-read-token, or Basic "
		    "of tcp-read-basic-auth)" : "the credentials are missing "
		    "or wrong (Authorization: Bearer TOKEN of tcp-auth-token, "
		    "or Basic of tcp-basic-auth)");
		return;
	case TCP_FORBIDDEN:
		srv->tcp_forbidden++;
		tcp_refuse(v, 403, kind == TCP_AUTH_READ ? "a writer's "
		    "credential reads nothing: use tcp-read-token or "
		    "tcp-read-basic-auth" : "a reader's credential pushes "
		    "nothing: use tcp-auth-token or tcp-basic-auth");
		return;
	}
	v->authenticated = 1;
	if (body && strcmp(r->method, "GET") == 0)
		tcp_refuse(v, 413, "a GET takes no body here");
}

/* The guard's head check: the decision, before any body byte is read;
 * a refusal closes the connection. */
static void
tcp_head(const struct server_http_head *h, struct server_http_verdict *v,
    void *arg)
{
	struct server *srv = arg;
	struct evhttp_uri *uri = NULL;
	const char *path = NULL;

	srv->tcp_requests++;
	/* The path as libevent will parse the target (CONNECT's is an
	 * authority: no path, so no route). */
	if (strcmp(h->method, "CONNECT") != 0 &&
	    (uri = evhttp_uri_parse_with_flags(h->target,
	    EVHTTP_URI_NONCONFORMANT)) != NULL)
		path = evhttp_uri_get_path(uri);
	tcp_decide(srv, h->method, path, h->authorization, h->body, v);
	if (uri != NULL)
		evhttp_uri_free(uri);
}

static void
tcp_dispatch(struct evhttp_request *req, void *arg)
{
	struct server *srv = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	struct server_http_verdict v;
	const char *const *ch;

	memset(&v, 0, sizeof v);
	tcp_decide(srv, routes_method_name(evhttp_request_get_command(req)), path,
	    evhttp_find_header(evhttp_request_get_input_headers(req),
	    "Authorization"), 0, &v);
	if (v.status != 0) {
		/* The head passed the same decision: libevent read it
		 * otherwise.  Refused, and closed. */
		for (ch = v.challenges; *ch != NULL; ch++)
			evhttp_add_header(out, "WWW-Authenticate", *ch);
		http_error_send(req, v.status, v.detail, 1);
		return;
	}
	if (path != NULL && strcmp(path, "/v1/health") == 0) {
		evhttp_add_header(out, "Content-Type", "application/json");
		evbuffer_add_printf(evhttp_request_get_output_buffer(req),
		    "{\"status\":\"ok\"}\n");
		http_reply_send(req, 200);
		return;
	}
	routes_dispatch(req, &srv->host);
}

int
server_tcp_start(struct server *srv)
{
	const struct tls_cert_info *ci;
	struct tcp_creds c;
	char tls[512];

	if (srv->tcp_fd == -1)
		return 0;
	srv->tcp_http = evhttp_new(srv->base);
	srv->tcp_guard = server_http_setup(srv->tcp_http, srv->base, srv->cfg,
	    tcp_dispatch, srv);
	server_http_any_host(srv->tcp_guard);
	server_http_set_tls(srv->tcp_guard, srv->tls);
	server_http_set_head_check(srv->tcp_guard, tcp_head, srv);
	if (server_http_listen(srv->tcp_guard, srv->tcp_fd) == -1) {
		log_err("evhttp cannot accept on %s", srv->tcp_name);
		close(srv->tcp_fd);
		srv->tcp_fd = -1;
		return -1;
	}
	srv->tcp_fd = -1;
	if (srv->tls != NULL) {
		ci = tls_cert(srv->tls);
		snprintf(tls, sizeof tls, "TLS, certificate %s, serial %s, "
		    "valid until %s", ci->subject, ci->serial, ci->not_after);
	} else
		snprintf(tls, sizeof tls, "clear text, no TLS");
	tcp_creds_of(&c, srv->cfg);
	log_info("listening on TCP %s for Pyroscope agents and readers (%s; "
	    "%s)", srv->tcp_name, tls, tcp_creds_any(&c) ? "credentials "
	    "required" : "loopback, no credentials");
	return 0;
}

void
server_tcp_reload(struct server *srv)
{
	const struct config *cfg = srv->cfg;
	const struct tls_cert_info *ci;
	struct tls_ctx *t;
	struct error err = { 0 };

	if (srv->tcp_guard == NULL || srv->tls == NULL)
		return;
	free(srv->tls_reload_error);
	srv->tls_reload_error = NULL;
	if ((t = tls_server_new(cfg->tls_cert, cfg->tls_key, &err)) == NULL) {
		ci = tls_cert(srv->tls);
		log_err("SIGHUP: %s; the TCP listener keeps the certificate it "
		    "had (%s, serial %s)", err.msg, ci->subject, ci->serial);
		srv->tls_reload_error = xstrdup(err.msg);
		return;
	}
	/* Connections open keep the context they were made with. */
	server_http_set_tls(srv->tcp_guard, t);
	tls_ctx_free(srv->tls);
	srv->tls = t;
	ci = tls_cert(t);
	log_info("SIGHUP: TLS certificate read again: %s, serial %s, valid "
	    "until %s", ci->subject, ci->serial, ci->not_after);
}

/* /v1/status's "tcp": null without listen-tcp.  Its connections count
 * in /v1/health's too. */
json_t *
server_tcp_status(void *ctx)
{
	struct server *srv = ctx;
	const struct tls_cert_info *ci;
	struct server_http_stats h;
	struct tcp_creds c;
	json_t *o, *cert = json_null();

	if (srv->tcp_guard == NULL)
		return json_null();
	server_http_stats(srv->tcp_guard, &h);
	tcp_creds_of(&c, srv->cfg);
	if (srv->tls != NULL) {
		ci = tls_cert(srv->tls);
		cert = json_pack("{s:s, s:s, s:s, s:s*}", "subject",
		    ci->subject, "serial", ci->serial, "not_after",
		    ci->not_after, "reload_error", srv->tls_reload_error);
	}
	o = json_pack("{s:s, s:b, s:o, s:s, s:s, s:I, s:I, s:I, s:I, s:I, "
	    "s:I, s:I, s:I, s:I, s:I, s:I}",
	    "listen", srv->tcp_name,
	    "tls", srv->tls != NULL,
	    "certificate", cert,
	    "auth", tcp_auth_names(&c, TCP_AUTH_WRITE),
	    "read_auth", tcp_auth_names(&c, TCP_AUTH_READ),
	    "connections", (json_int_t)h.connections,
	    "unauthenticated", (json_int_t)h.strangers,
	    "unauthenticated_closed", (json_int_t)h.strangers_closed,
	    "requests", (json_int_t)srv->tcp_requests,
	    "unauthorized", (json_int_t)srv->tcp_unauthorized,
	    "forbidden", (json_int_t)srv->tcp_forbidden,
	    "not_found", (json_int_t)srv->tcp_not_found,
	    "refused_origins", (json_int_t)h.refused_origins,
	    "inflight_body_bytes", (json_int_t)h.inflight_body_bytes,
	    "bytes_read", (json_int_t)h.bytes_read,
	    "timed_out", (json_int_t)h.timed_out);
	return o;
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
	tls_ctx_free(srv->tls);
	srv->tls = NULL;
	free(srv->tls_reload_error);
	srv->tls_reload_error = NULL;
}
