/* client.c: the connection to profd the commands share, and the one place
 * that turns a failed request into a message and an exit code. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

void
client_free(struct client *c)
{
	http_free(c->http);
	free(c->socket);
	c->http = NULL;
	c->socket = NULL;
}

/* An error reply as "profctl: [what: ]<error>: <detail>". */
static void
client_print_error(const struct http_reply *reply, const char *what)
{
	const char	*error, *detail;
	char		*e, *d, *nl;

	error = json_string_value(json_object_get(reply->json, "error"));
	detail = json_string_value(json_object_get(reply->json, "detail"));
	if (error != NULL) {
		e = xstrdup(error);
		d = xstrdup(detail != NULL ? detail : "");
	} else {
		/* Not profd's JSON: say the status and the first line. */
		xasprintf(&e, "HTTP %ld", reply->status);
		d = xstrdup(reply->body != NULL ? reply->body : "");
		if ((nl = strchr(d, '\n')) != NULL)
			*nl = '\0';
		if (strlen(d) > 200)
			d[200] = '\0';
	}
	termsafe_line(stderr, "profctl: %s%s%s%s%s", what != NULL ? what : "",
	    what != NULL ? ": " : "", e, *d != '\0' ? ": " : "", d);
	free(e);
	free(d);
}

/* The http made on first use. */
static struct http *
client_http(struct client *c)
{
	char	*socket_path;

	if (c->http == NULL) {
		socket_path = paths_socket(c->socket);
		c->http = http_new(socket_path);
		free(socket_path);
	}
	return c->http;
}

/* A request that failed (rc from http.c) said as such; the exit code. */
static int
client_broken(struct client *c, int rc, char *cause)
{
	if (rc == HTTP_ECONNECT)
		termsafe_line(stderr, "profctl: cannot connect to profd at %s: "
		    "%s (is profd running? set --socket or PROFD_SOCKET)",
		    http_socket(c->http), cause);
	else
		termsafe_line(stderr, "profctl: lost connection to profd at "
		    "%s: %s", http_socket(c->http), cause);
	free(cause);
	return PROFCTL_EXIT_USAGE;
}

/*
 * Send a request and check the answer. Returns PROFCTL_EXIT_OK with a JSON
 * reply from a 2xx status, otherwise prints why (prefixed by what if not
 * NULL) and returns the exit code: PROFCTL_EXIT_USAGE when profd could not
 * be reached, PROFCTL_EXIT_REFUSED when it said no.
 */
static int
client_call_type(struct client *c, const char *method, const char *path,
    const char *ctype, const void *body, size_t len, struct http_reply *reply,
    const char *what, int raw)
{
	char	*cause = NULL;
	int	 rc;

	memset(reply, 0, sizeof *reply);
	rc = http_request_type(client_http(c), method, path, ctype, body, len,
	    reply, &cause);
	if (rc != 0)
		return client_broken(c, rc, cause);
	if (reply->status < 200 || reply->status > 299) {
		client_print_error(reply, what);
		http_reply_clear(reply);
		return PROFCTL_EXIT_REFUSED;
	}
	if (reply->json == NULL && !raw) {
		termsafe_line(stderr, "profctl: %s%sunexpected reply from "
		    "profd (HTTP %ld, not JSON)", what != NULL ? what : "",
		    what != NULL ? ": " : "", reply->status);
		http_reply_clear(reply);
		return PROFCTL_EXIT_REFUSED;
	}
	return PROFCTL_EXIT_OK;
}

/*
 * Send a request and hand the body of a 2xx reply to fn as it arrives, a
 * piece at a time, then once more with no bytes at its end; so a reply of
 * any size goes through CLIENT_STREAM_BUF of memory here. fn returns 0,
 * or -1 to stop, with a message in *cause (NULL: it said why itself).
 * Any other status is an error reply, said as client_call says it.
 * Returns the exit code.
 */
int
client_stream(struct client *c, const char *method, const char *path,
    const char *ctype, const void *body, size_t len, client_feed_fn fn,
    void *arg)
{
	struct http_stream	*s;
	struct http_reply	 reply;
	char			*buf, *cause = NULL;
	ssize_t			 n;
	long			 status;
	int			 rc;

	if ((rc = http_stream_open(client_http(c), method, path, ctype, body,
	    len, &s, &cause)) != 0)
		return client_broken(c, rc, cause);
	status = http_stream_status(s);
	if (status < 200 || status > 299) {
		rc = http_stream_rest(s, CLIENT_ERROR_MAX, &reply, &cause);
		http_stream_close(s);
		if (rc != 0)
			return client_broken(c, rc, cause);
		client_print_error(&reply, NULL);
		http_reply_clear(&reply);
		return PROFCTL_EXIT_REFUSED;
	}
	buf = xmalloc(CLIENT_STREAM_BUF);
	for (;;) {
		if ((n = http_stream_read(s, buf, CLIENT_STREAM_BUF,
		    &cause)) == -1) {
			rc = client_broken(c, HTTP_EBROKEN, cause);
			break;
		}
		if (fn(arg, buf, (size_t)n, &cause) != 0) {
			if (cause != NULL)
				termsafe_line(stderr, "profctl: %s", cause);
			free(cause);
			rc = PROFCTL_EXIT_REFUSED;
			break;
		}
		if (n == 0) {
			rc = PROFCTL_EXIT_OK;
			break;
		}
	}
	free(buf);
	http_stream_close(s);
	return rc;
}

int
client_call(struct client *c, const char *method, const char *path,
    const void *body, size_t len, struct http_reply *reply, const char *what)
{
	return client_call_type(c, method, path, NULL, body, len, reply, what,
	    0);
}

/* client_get for replies that need not be JSON (text/plain folded
 * stacks, a gzipped profile): a 2xx reply is returned as it came. */
int
client_get_raw(struct client *c, const char *path, struct http_reply *reply)
{
	return client_call_type(c, "GET", path, NULL, NULL, 0, reply, NULL,
	    1);
}

/* POST a body of the given Content-Type; the reply must be JSON. */
int
client_post_type(struct client *c, const char *path, const char *ctype,
    const void *body, size_t len, struct http_reply *reply)
{
	return client_call_type(c, "POST", path, ctype, body, len, reply,
	    NULL, 0);
}

int
client_get(struct client *c, const char *path, struct http_reply *reply)
{
	return client_call(c, "GET", path, NULL, 0, reply, NULL);
}

/* Requests from now on said to w while they last (NULL: no more). */
void
client_watch(struct client *c, const struct http_watch *w)
{
	http_watch(client_http(c), w);
}

/* GET path when only a JSON success is of use and a failure is no one's
 * concern (a poll for a progress line): 0 with reply filled, else -1 and
 * nothing said. */
int
client_try_get(struct client *c, const char *path, struct http_reply *reply)
{
	char	*cause = NULL;

	if (http_request(client_http(c), "GET", path, NULL, 0, reply,
	    &cause) != 0) {
		free(cause);
		return -1;
	}
	if (reply->status < 200 || reply->status > 299 ||
	    reply->json == NULL) {
		http_reply_clear(reply);
		return -1;
	}
	return 0;
}
