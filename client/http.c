/* http.c: requests to profd with libcurl over its Unix socket. Nothing else
 * in profctl includes curl. */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "profctl.h"

struct http {
	CURL	*curl;
	char	*socket;
	char	 errbuf[CURL_ERROR_SIZE];
};

struct http_sink {
	char	*p;
	size_t	 n, cap;
};

struct http *
http_new(const char *socket_path)
{
	struct http	*h;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return (NULL);
	h = xcalloc(1, sizeof *h);
	if ((h->curl = curl_easy_init()) == NULL) {
		free(h);
		curl_global_cleanup();
		return (NULL);
	}
	h->socket = xstrdup(socket_path);
	return (h);
}

void
http_free(struct http *h)
{
	if (h == NULL)
		return;
	curl_easy_cleanup(h->curl);
	free(h->socket);
	free(h);
	curl_global_cleanup();
}

const char *
http_socket(const struct http *h)
{
	return (h->socket);
}

static size_t
http_write_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct http_sink	*s = arg;
	size_t			 n = size * nmemb;

	if (s->n + n + 1 > s->cap) {
		s->cap = (s->n + n + 1) * 2;
		s->p = xreallocarray(s->p, s->cap, 1);
	}
	memcpy(s->p + s->n, data, n);
	s->n += n;
	s->p[s->n] = '\0';
	return (n);
}

/*
 * Send method path (with its query) and body; fill reply. Returns 0 when
 * profd answered (any status), HTTP_ECONNECT when it could not be reached,
 * HTTP_EBROKEN when the exchange broke off later; *cause says why.
 */
int
http_request(struct http *h, const char *method, const char *path,
    const void *body, size_t len, struct http_reply *reply, char **cause)
{
	return (http_request_type(h, method, path, NULL, body, len, reply,
	    cause));
}

/* http_request with the Content-Type of the body (NULL: a blob,
 * application/octet-stream). Replies are kept as sent, binary or not:
 * body holds len bytes (and a NUL after them), json is NULL unless the
 * body parsed as JSON. */
int
http_request_type(struct http *h, const char *method, const char *path,
    const char *ctype, const void *body, size_t len, struct http_reply *reply,
    char **cause)
{
	struct sockaddr_un	 sun;
	struct curl_slist	*hdrs = NULL;
	struct http_sink	 sink = { NULL, 0, 0 };
	CURL			*c = h->curl;
	CURLcode		 rc;
	char			*url, *ct;
	long			 status = 0, oserr = 0;

	memset(reply, 0, sizeof *reply);
	if (strlen(h->socket) >= sizeof sun.sun_path) {
		xasprintf(cause, "%s", strerror(ENAMETOOLONG));
		return (HTTP_ECONNECT);
	}

	curl_easy_reset(c);
	xasprintf(&url, "http://localhost%s", path);
	h->errbuf[0] = '\0';
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, h->socket);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->errbuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "profctl/" PROFD_VERSION);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, http_write_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
	hdrs = curl_slist_append(hdrs, "Accept: application/json");
	if (strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0) {
		/* No "Expect: 100-continue": one round trip, no stall. */
		hdrs = curl_slist_append(hdrs, "Expect:");
		xasprintf(&ct, "Content-Type: %s", ctype != NULL ? ctype :
		    "application/octet-stream");
		hdrs = curl_slist_append(hdrs, ct);
		free(ct);
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		if (strcmp(method, "PUT") == 0)
			curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body != NULL ?
		    body : "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)len);
	} else if (strcmp(method, "GET") == 0)
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	else
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);

	rc = curl_easy_perform(c);
	curl_slist_free_all(hdrs);
	free(url);
	if (rc != CURLE_OK) {
		free(sink.p);
		if (rc == CURLE_COULDNT_CONNECT) {
			curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &oserr);
			if (oserr != 0)
				xasprintf(cause, "%s", strerror((int)oserr));
			else
				xasprintf(cause, "%s", h->errbuf[0] != '\0' ?
				    h->errbuf : curl_easy_strerror(rc));
			return (HTTP_ECONNECT);
		}
		xasprintf(cause, "%s", h->errbuf[0] != '\0' ? h->errbuf :
		    curl_easy_strerror(rc));
		return (HTTP_EBROKEN);
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);

	reply->status = status;
	reply->body = sink.p != NULL ? sink.p : xstrdup("");
	reply->len = sink.n;
	if (reply->len != 0)
		reply->json = json_loadb(reply->body, reply->len, 0, NULL);
	return (0);
}

void
http_reply_clear(struct http_reply *reply)
{
	free(reply->body);
	if (reply->json != NULL)
		json_decref(reply->json);
	memset(reply, 0, sizeof *reply);
}

/* Percent-encode everything but RFC 3986's unreserved characters. */
char *
http_escape(const char *s)
{
	static const char	 hex[] = "0123456789ABCDEF";
	const unsigned char	*p;
	char			*out, *o;

	out = o = xreallocarray(NULL, strlen(s) + 1, 3);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~')
			*o++ = (char)*p;
		else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 0xf];
		}
	}
	*o = '\0';
	return (out);
}

/* Append key=value (encoded) to the query of *path. */
void
http_query_add(char **path, const char *key, const char *value)
{
	char	*k, *v, *n;

	k = http_escape(key);
	v = http_escape(value);
	xasprintf(&n, "%s%c%s=%s", *path, strchr(*path, '?') ? '&' : '?',
	    k, v);
	free(k);
	free(v);
	free(*path);
	*path = n;
}
