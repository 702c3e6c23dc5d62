/* webserve.c: one request to profctl web: its head (read by webloop.c)
 * parsed, checked (Host, token, what may be forwarded) and answered, from
 * the UI files compiled in or by forwarding it to profd's socket and the
 * reply back.  One request per connection ("Connection: close"), answered
 * on a worker of webpool.c with blocking I/O, each read and write bounded
 * there: a local server for one user's browser. */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "alloc.h"
#include "http-accept.h"
#include "http-int.h"
#include "origin.h"
#include "webasset.h"
#include "webserve.h"

#define WEBSERVE_HEADERS_MAX	100

struct webserve_req {
	char	 method[16];
	char	*target;		/* as sent */
	char	*path;			/* target up to '?' */
	char	*query;			/* after '?', the token taken out */
	int	 query_token;		/* the query held the right token */
	char	*host, *cookie, *inm, *ae, *ctype, *clen, *te, *expect;
	char	*origin, *fetch_site, *ui;	/* origin.h */
	char	*tokhdr;		/* WEBSERVE_TOKEN_HEADER */
	long long len;			/* Content-Length, -1 if none */
};

static const char *
webserve_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 302: return "Found";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 411: return "Length Required";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	default: return "Error";
	}
}

static const char *
webserve_kind(int status)
{
	switch (status) {
	case 401: return "unauthorized";
	case 403: return "forbidden";
	case 404: return "not found";
	case 405: return "method not allowed";
	case 411: return "length required";
	case 431: return "header too large";
	case 502: return "bad gateway";
	case 503: return "unavailable";
	default: return "bad request";
	}
}

static int
webserve_write(struct http_conn *c, const void *p, size_t n)
{
	struct iovec	 iov = { (void *)(uintptr_t)p, n };

	return http_conn_send(c, &iov, 1);
}

/* A reply with a body: extra is more header lines, each ending in CRLF. */
static void
webserve_reply(struct http_conn *c, int status, const char *extra,
    const char *type, const void *body, size_t len)
{
	char	*head;

	char	 clen[48] = "";

	/* A 304's length would be that of the 200 it stands for. */
	if (status != 304)
		snprintf(clen, sizeof clen, "Content-Length: %zu\r\n", len);
	xasprintf(&head, "HTTP/1.1 %d %s\r\n%s%s%s%s%sConnection: close\r\n"
	    "\r\n", status, webserve_reason(status),
	    extra != NULL ? extra : "", type != NULL ? "Content-Type: " : "",
	    type != NULL ? type : "", type != NULL ? "\r\n" : "", clen);
	if (webserve_write(c, head, strlen(head)) == 0 && len > 0)
		(void)webserve_write(c, body, len);
	free(head);
}

static void	webserve_error(struct http_conn *, int, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

/* An error as profd says them: {"error": kind, "detail": ...}. */
static void
webserve_error(struct http_conn *c, int status, const char *fmt, ...)
{
	va_list	 ap;
	char	 detail[512], *text;
	json_t	*j;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	j = json_pack("{s:s, s:s}", "error", webserve_kind(status), "detail",
	    detail);
	text = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	webserve_reply(c, status, NULL, "application/json",
	    text != NULL ? text : "{}", text != NULL ? strlen(text) : 2);
	free(text);
}

/* Equal strings in a time that does not depend on where they differ. */
static int
webserve_token_eq(const char *a, size_t alen, const char *token)
{
	size_t		 n = strlen(token), i;
	unsigned char	 d = 0;

	if (alen != n)
		return 0;
	for (i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ token[i]);
	return d == 0;
}

/* Take token=... out of the query (profd would refuse it as a parameter
 * of no endpoint), noting whether it was the right one. */
static void
webserve_take_token(struct webserve_req *r, const char *token)
{
	char	*q = r->query, *out = q, *p, *end;
	size_t	 n;

	if (q == NULL)
		return;
	for (p = q; *p != '\0'; p = end) {
		end = p + strcspn(p, "&");
		n = (size_t)(end - p);
		if (n >= 6 && strncmp(p, "token=", 6) == 0) {
			if (webserve_token_eq(p + 6, n - 6, token))
				r->query_token = 1;
		} else if (n > 0) {
			if (out != q)
				*out++ = '&';
			memmove(out, p, n);
			out += n;
		}
		if (*end == '&')
			end++;
	}
	*out = '\0';
}

/* Does the Cookie header carry this port's cookie, NAME=PORT.SECRET? */
static int
webserve_cookie_ok(const struct webserve *ws, const char *cookie)
{
	size_t	 nlen = strlen(ws->cookie_name);
	const char *p = cookie, *end;

	while (p != NULL && *p != '\0') {
		p += strspn(p, " \t;");
		end = p + strcspn(p, ";");
		if ((size_t)(end - p) > nlen && strncmp(p, ws->cookie_name,
		    nlen) == 0 && p[nlen] == '=' &&
		    webserve_token_eq(p + nlen + 1, (size_t)(end - p) - nlen - 1,
		    ws->cookie_value))
			return 1;
		p = end;
	}
	return 0;
}

/* The Host header names this server: the listen address, or localhost
 * (with the port or without).  Anything else may be a DNS rebinding. */
static int
webserve_host_ok(const struct webserve *ws, const char *host)
{
	char	 lh[64];

	if (host == NULL)
		return 0;
	snprintf(lh, sizeof lh, "localhost:%d", ws->port);
	return strcmp(host, ws->listen_host) == 0 ||
	    strcasecmp(host, lh) == 0 || strcasecmp(host, "localhost") == 0;
}

/* What a request does to profd's data: 0 reads, 1 pushes, 2 other
 * writes. */
static int
webserve_kind_of(const struct webserve_req *r)
{
	if (strcmp(r->method, "GET") == 0 || strcmp(r->method, "HEAD") == 0)
		return 0;
	if (strcmp(r->method, "POST") == 0 &&
	    strcmp(r->path, "/v1/query") == 0)
		return 0;		/* read-only SQL */
	if (strcmp(r->method, "POST") == 0 &&
	    strcmp(r->path, "/v1/profiles") == 0)
		return 1;
	if (strcmp(r->path, "/v1/uploads") == 0 &&
	    (strcmp(r->method, "POST") == 0 || strcmp(r->method, "PUT") == 0 ||
	    strcmp(r->method, "DELETE") == 0))
		return 1;		/* a large push, in chunks */
	return 2;
}

static char **
webserve_header_slot(struct webserve_req *r, const char *name)
{
	static const struct {
		const char	*name;
		size_t		 off;
	} known[] = {
		{ "host", offsetof(struct webserve_req, host) },
		{ "cookie", offsetof(struct webserve_req, cookie) },
		{ "if-none-match", offsetof(struct webserve_req, inm) },
		{ "accept-encoding", offsetof(struct webserve_req, ae) },
		{ "content-type", offsetof(struct webserve_req, ctype) },
		{ "content-length", offsetof(struct webserve_req, clen) },
		{ "transfer-encoding", offsetof(struct webserve_req, te) },
		{ "expect", offsetof(struct webserve_req, expect) },
		{ "origin", offsetof(struct webserve_req, origin) },
		{ "sec-fetch-site", offsetof(struct webserve_req, fetch_site) },
		{ ORIGIN_UI_HEADER, offsetof(struct webserve_req, ui) },
		{ WEBSERVE_TOKEN_HEADER, offsetof(struct webserve_req, tokhdr) },
	};
	size_t	 i;

	for (i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcasecmp(name, known[i].name) == 0)
			return (char **)(void *)((char *)r + known[i].off);
	return NULL;
}

/* A control character (a bare CR among them) would let a value we pass
 * on end a line of its own. */
static int
webserve_has_ctl(const char *s)
{
	for (; *s != '\0'; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
			return 1;
	return 0;
}

/* The head's bytes, taken a line at a time. */
struct webserve_head {
	const char	*p, *end;
};

/* The next line as http_conn_line gives one: its LF (and a CR before it)
 * dropped, NUL-terminated into line[HTTP_LINE_MAX]. */
static enum http_line
webserve_line(struct webserve_head *h, char *line, size_t *len)
{
	const char	*nl;
	size_t		 n;

	*len = 0;
	nl = memchr(h->p, '\n', (size_t)(h->end - h->p));
	n = nl != NULL ? (size_t)(nl - h->p) : (size_t)(h->end - h->p);
	if (n >= HTTP_LINE_MAX)
		return HTTP_LINE_LONG;
	if (nl == NULL)
		return HTTP_LINE_EOF;
	memcpy(line, h->p, n);
	h->p = nl + 1;
	if (n > 0 && line[n - 1] == '\r')
		n--;
	line[n] = '\0';
	*len = n;
	return HTTP_LINE_OK;
}

/* The request line and headers.  0, or an HTTP status to refuse with. */
static int
webserve_read_head(struct webserve_head *h, struct webserve_req *r)
{
	char	 line[HTTP_LINE_MAX], *sp, *sp2, *colon, *v, **slot;
	size_t	 len;
	int	 n = 0;
	char	*end;

	if (webserve_line(h, line, &len) != HTTP_LINE_OK)
		return -1;
	if (strlen(line) != len || webserve_has_ctl(line))
		return 400;
	if ((sp = strchr(line, ' ')) == NULL ||
	    (sp2 = strchr(sp + 1, ' ')) == NULL ||
	    (size_t)(sp - line) >= sizeof r->method ||
	    strncmp(sp2 + 1, "HTTP/1.", 7) != 0)
		return 400;
	memcpy(r->method, line, (size_t)(sp - line));
	r->method[sp - line] = '\0';
	*sp2 = '\0';
	r->target = xstrdup(sp + 1);
	r->path = xstrdup(r->target);
	if ((v = strchr(r->path, '?')) != NULL) {
		*v = '\0';
		r->query = xstrdup(v + 1);
	}
	if (r->path[0] != '/')
		return 400;
	for (;;) {
		switch (webserve_line(h, line, &len)) {
		case HTTP_LINE_OK:
			break;
		case HTTP_LINE_LONG:
			return 431;
		default:
			return -1;
		}
		if (len == 0)
			break;
		if (strlen(line) != len || webserve_has_ctl(line))
			return 400;
		if (++n > WEBSERVE_HEADERS_MAX)
			return 431;
		if ((colon = strchr(line, ':')) == NULL)
			return 400;
		*colon = '\0';
		v = colon + 1 + strspn(colon + 1, " \t");
		len = strlen(v);
		while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
			v[--len] = '\0';
		if ((slot = webserve_header_slot(r, line)) != NULL) {
			if (*slot != NULL)	/* twice: which one counts? */
				return 400;
			*slot = xstrdup(v);
		}
	}
	r->len = -1;
	if (r->clen != NULL) {
		errno = 0;
		r->len = strtoll(r->clen, &end, 10);
		if (errno != 0 || end == r->clen || *end != '\0' || r->len < 0)
			return 400;
	}
	return 0;
}

static void
webserve_req_free(struct webserve_req *r)
{
	free(r->target);
	free(r->path);
	free(r->query);
	free(r->host);
	free(r->cookie);
	free(r->inm);
	free(r->ae);
	free(r->ctype);
	free(r->clen);
	free(r->te);
	free(r->expect);
	free(r->origin);
	free(r->fetch_site);
	free(r->ui);
	free(r->tokhdr);
}

/* A file of the UI, or the way to it: the way from the URL profctl web
 * printed hands the page the token in the fragment, which the browser
 * keeps and sends to no server (web/request.js stores it). */
static void
webserve_asset(struct http_conn *c, const struct webserve *ws,
    const struct webserve_req *r, const char *setcookie)
{
	struct webasset_reply	 a;
	char			*extra = NULL, *more;
	int			 i;

	if (strcmp(r->method, "GET") != 0) {
		webserve_error(c, 405, "method %s not allowed on %s",
		    r->method, r->path);
		return;
	}
	webasset_answer(r->path, r->inm, http_accept_gzip(r->ae), &a);
	if (a.status == 404) {
		webserve_error(c, 404, "no such file of the UI: %s", r->path);
		return;
	}
	xasprintf(&extra, "%s", setcookie);
	if (a.status == 302) {
		xasprintf(&more, "%sLocation: %s%s%s%s%s\r\n", extra,
		    a.location, r->query != NULL && *r->query != '\0' ? "?" :
		    "", r->query != NULL ? r->query : "", r->query_token ?
		    "#token=" : "", r->query_token ? ws->token : "");
		free(extra);
		webserve_reply(c, 302, more, NULL, NULL, 0);
		free(more);
		return;
	}
	for (i = 0; webasset_headers[i] != NULL; i += 2) {
		xasprintf(&more, "%s%s: %s\r\n", extra, webasset_headers[i],
		    webasset_headers[i + 1]);
		free(extra);
		extra = more;
	}
	xasprintf(&more, "%sETag: %s\r\n%s", extra, a.asset->etag,
	    a.gzip ? "Content-Encoding: gzip\r\n" : "");
	free(extra);
	if (a.status == 304)
		webserve_reply(c, 304, more, NULL, NULL, 0);
	else
		webserve_reply(c, 200, more, a.asset->type, a.body, a.len);
	free(more);
}

/* Copy n bytes (or to the end, n < 0) from one connection to a socket. */
static int
webserve_copy(struct http_conn *from, int to, long long n)
{
	char		 buf[65536];
	ssize_t		 got;
	struct iovec	 iov;
	struct http_conn out = { .fd = to };

	while (n != 0) {
		got = http_conn_read(from, buf, n > 0 && n < (long long)sizeof
		    buf ? (size_t)n : sizeof buf);
		if (got <= 0)
			return n < 0 && got == 0 ? 0 : -1;
		iov.iov_base = buf;
		iov.iov_len = (size_t)got;
		if (http_conn_send(&out, &iov, 1) == -1)
			return -1;
		if (n > 0)
			n -= got;
	}
	return 0;
}

/* Forward the request to profd and its reply back, whole: profd is told
 * to close after it, so the reply ends where the socket does. */
static void
webserve_proxy(struct http_conn *c, const struct webserve *ws,
    struct webserve_req *r, const char *setcookie)
{
	struct http_conn	*up;
	char			*head, *cause = NULL, line[HTTP_LINE_MAX + 2];
	size_t			 len;
	int			 first = 1;
	enum http_line		 got;

	if (r->te != NULL) {
		webserve_error(c, 411, "a body must come with Content-Length");
		return;
	}
	if ((up = http_conn_open(ws->socket, &cause)) == NULL) {
		webserve_error(c, 502, "profd at %s: %s", ws->socket, cause);
		free(cause);
		return;
	}
	/* A browser that takes gzip gets profd's gzipped replies as they
	 * are (the socket may be a forwarded one). */
	xasprintf(&head, "%s %s%s%s HTTP/1.1\r\nHost: localhost\r\n"
	    "Connection: close\r\n%s%s%s%sContent-Length: %lld\r\n\r\n",
	    r->method, r->path, r->query != NULL && *r->query != '\0' ? "?" :
	    "", r->query != NULL ? r->query : "",
	    http_accept_gzip(r->ae) ? "Accept-Encoding: gzip\r\n" : "",
	    r->ctype != NULL ? "Content-Type: " : "",
	    r->ctype != NULL ? r->ctype : "", r->ctype != NULL ? "\r\n" : "",
	    r->len > 0 ? r->len : 0);
	if (r->expect != NULL && strcasecmp(r->expect, "100-continue") == 0)
		(void)webserve_write(c, "HTTP/1.1 100 Continue\r\n\r\n", 25);
	if (webserve_write(up, head, strlen(head)) == -1 ||
	    (r->len > 0 && webserve_copy(c, up->fd, r->len) == -1)) {
		free(head);
		webserve_error(c, 502, "profd at %s: the request broke off",
		    ws->socket);
		http_conn_close(up);
		return;
	}
	free(head);
	/* The status line and headers, with our Connection and cookie. */
	while ((got = http_conn_line(up, line, &len)) == HTTP_LINE_OK) {
		if (len == 0) {
			xasprintf(&head, "%sConnection: close\r\n\r\n",
			    setcookie);
			(void)webserve_write(c, head, strlen(head));
			free(head);
			break;
		}
		if (!first && strncasecmp(line, "connection:", 11) == 0)
			continue;
		first = 0;
		line[len++] = '\r';
		line[len++] = '\n';
		if (webserve_write(c, line, len) == -1)
			break;
	}
	if (got == HTTP_LINE_OK && first == 0)
		(void)webserve_copy(up, c->fd, -1);
	else if (first)
		webserve_error(c, 502, "profd at %s sent no reply", ws->socket);
	http_conn_close(up);
}

/* A page of another origin (another port of this host among them) is
 * refused whatever it asks, as profd refuses it (origin.h): this server's
 * origin is the Host it is reached by, which webserve_host_ok checked. */
static int
webserve_origin_ok(struct http_conn *c, const struct webserve_req *r)
{
	struct origin_req o = {
		.origin = r->origin,
		.fetch_site = r->fetch_site,
		.host = r->host,
		.ui_header = r->ui != NULL,
		.write = strcmp(r->method, "GET") != 0 &&
		    strcmp(r->method, "HEAD") != 0,
		.serves_ui = 1,
	};
	char why[600];

	if (origin_check(&o, why, sizeof why) == NULL)
		return 1;
	webserve_error(c, 403, "%s", why);
	return 0;
}

/* Answer the request whose head is head[0..len) on fd, which stays open
 * (webloop.c closes it gently). */
void
webserve_answer(const struct webserve *ws, int fd, const char *head,
    size_t len)
{
	struct http_conn	*c = http_conn_new(fd);
	struct webserve_head	 h = { head, head + len };
	struct webserve_req	 r;
	char			*setcookie = xstrdup("");
	int			 rc, kind, api;

	memset(&r, 0, sizeof r);
	if ((rc = webserve_read_head(&h, &r)) != 0) {
		if (rc > 0)
			webserve_error(c, rc, "not a request profctl web "
			    "takes");
		goto out;
	}
	if (!webserve_host_ok(ws, r.host)) {
		webserve_error(c, 403, "Host \"%.100s\" is not this server "
		    "(%s or localhost)", r.host ? r.host : "", ws->listen_host);
		goto out;
	}
	if (!webserve_origin_ok(c, &r))
		goto out;
	webserve_take_token(&r, ws->token);
	api = strncmp(r.path, "/v1/", 4) == 0;
	/* An API call: the token in the header (a page cannot send it
	 * without a preflight, and only this origin's page knows it) or the
	 * query.  The page's files: the cookie will do. */
	if (!r.query_token && (api ? r.tokhdr == NULL ||
	    !webserve_token_eq(r.tokhdr, strlen(r.tokhdr), ws->token) :
	    !webserve_cookie_ok(ws, r.cookie))) {
		webserve_error(c, 401, api ? "the token is missing or wrong: "
		    "an API call through profctl web carries it in "
		    WEBSERVE_TOKEN_HEADER " (profd's page, opened from the "
		    "URL profctl web printed, sends it) or as token= in the "
		    "query" : "the token is missing or wrong: open the URL "
		    "profctl web printed");
		goto out;
	}
	if (r.query_token) {
		free(setcookie);
		xasprintf(&setcookie, "Set-Cookie: %s=%s; Path=/; HttpOnly; "
		    "SameSite=Strict\r\n", ws->cookie_name, ws->cookie_value);
	}
	if (!api) {
		webserve_asset(c, ws, &r, setcookie);
		goto out;
	}
	kind = webserve_kind_of(&r);
	if (kind == 2 && !ws->allow_write) {
		webserve_error(c, 403, "%s %s changes profd's data: profctl "
		    "web forwards it only with --allow-write", r.method, r.path);
		goto out;
	}
	if (kind == 1 && ws->read_only) {
		webserve_error(c, 403, "%s %s pushes a profile: profctl web "
		    "runs with --read-only", r.method, r.path);
		goto out;
	}
	webserve_proxy(c, ws, &r, setcookie);
out:
	free(setcookie);
	webserve_req_free(&r);
	free(c);		/* not the fd */
}

/* A request refused before it was read whole (a head too long) or
 * answered (every worker busy), on a socket that does not block: the
 * reply is small and the socket new, so it fits. */
void
webserve_refuse(int fd, int status, const char *detail)
{
	struct http_conn	 c = { .fd = fd };

	webserve_error(&c, status, "%s", detail);
}
