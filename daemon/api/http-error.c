/* http-error.c: error bodies that are always the documented JSON. */
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "http-error.h"
#include "jsonw.h"

const char *
http_error_kind(int status)
{
	switch (status) {
	case 400:
		return "bad request";
	case 401:
		return "unauthorized";
	case 403:
		return "forbidden";
	case 404:
		return "not found";
	case 405:
		return "method not allowed";
	case 408:
		return "timeout";
	case 409:
		return "conflict";
	case 413:
		return "too large";
	case 417:
		return "expectation failed";
	case 422:
		return "unprocessable";
	case 431:
		return "header too large";
	case 501:
		return "not implemented";
	case 503:
		return "busy";
	case 504:
		return "deadline exceeded";
	case 507:
		return "insufficient storage";
	default:
		return status >= 500 ? "internal error" : "error";
	}
}

const char *
http_error_reason(int status)
{
	if (status < 400)
		return NULL;
	switch (status) {
	case 400:
		return "Bad Request";
	case 401:
		return "Unauthorized";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 408:
		return "Request Timeout";
	case 409:
		return "Conflict";
	case 413:
		return "Payload Too Large";
	case 417:
		return "Expectation Failed";
	case 422:
		return "Unprocessable Entity";
	case 431:
		return "Request Header Fields Too Large";
	case 501:
		return "Not Implemented";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	case 507:
		return "Insufficient Storage";
	default:
		return status >= 500 ? "Internal Server Error" : "Error";
	}
}

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if invalid:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t
utf8_seq(const unsigned char *p, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		cp = p[0] & 0x07;
	} else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

char *
http_utf8_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0, k;
	char *out = xmalloc(3 * n + 1);

	while (i < n) {
		if ((k = utf8_seq(p + i, n - i)) == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(out + o, p + i, k);
		o += k;
		i += k;
	}
	out[o] = '\0';
	return out;
}

/* Written straight into one buffer (jsonw turns bytes that are not UTF-8
 * into U+FFFD, as http_utf8_clean does), not packed into a jansson tree,
 * dumped and copied: nothing can fail, and nothing in a system library
 * built without frame pointers allocates.  ASan's fast unwinder took the
 * stack addresses json_pack and vasprintf keep in %rbp for frames and
 * recorded heap pointers as return addresses: a new stack in its depot,
 * never freed, for every error sent (fuzz_http's RSS grew by 0.1 kB an
 * execution). */
char *
http_error_json(int status, const char *detail, size_t *len)
{
	struct buf b = { NULL, 0, 0 };

	jsonw_raw(&b, "{\"error\":");
	jsonw_str(&b, http_error_kind(status));
	jsonw_mstr(&b, "detail", detail);
	jsonw_raw(&b, "}\n");
	*len = b.n;
	buf_add(&b, "", 1);
	return (char *)b.p;
}

/* libevent's own reply: its fixed HTML error page, or "100 Continue". */
int
http_error_rewrite(struct evbuffer *src, struct evbuffer *dst,
    size_t max_body, int *discard)
{
	struct evbuffer_ptr p;
	char line[16], head[256], detail[200];
	size_t len;
	char *body;
	int status;

	while (evbuffer_get_length(src) > 0) {
		p = evbuffer_search(src, "\r\n\r\n", 4, NULL);
		if (p.pos < 0)
			return -1;
		memset(line, 0, sizeof line);
		evbuffer_copyout(src, line, sizeof line - 1);
		status = strncmp(line, "HTTP/1.", 7) == 0 ? atoi(line + 9) : 0;
		if (status >= 100 && status < 200) {
			evbuffer_remove_buffer(src, dst, (size_t)p.pos + 4);
			continue;
		}
		switch (status) {
		case 400:
			snprintf(detail, sizeof detail, "the request is not "
			    "valid HTTP/1.1 (request line, header or chunked "
			    "body)");
			break;
		case 413:
			snprintf(detail, sizeof detail, "the request body "
			    "passes max-body (%zu bytes); send larger blobs "
			    "through /v1/uploads", max_body);
			break;
		case 417:
			snprintf(detail, sizeof detail, "the only expectation "
			    "understood is \"Expect: 100-continue\"");
			break;
		case 501:
			snprintf(detail, sizeof detail, "this method is not "
			    "implemented");
			break;
		default:
			snprintf(detail, sizeof detail, "the request was "
			    "refused by the HTTP layer");
			break;
		}
		if (status < 400 || status > 599)
			status = 400;
		body = http_error_json(status, detail, &len);
		snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\n"
		    "Content-Type: application/json\r\n"
		    "Content-Length: %zu\r\nConnection: close\r\n\r\n", status,
		    http_error_reason(status), len);
		evbuffer_add(dst, head, strlen(head));
		evbuffer_add(dst, body, len);
		free(body);
		/* The HTML body follows and the connection closes after. */
		*discard = 1;
		evbuffer_drain(src, evbuffer_get_length(src));
	}
	return 0;
}

/* libevent 2.1 adds Content-Length only to HTTP/1.1 replies and to 1.0
 * ones kept alive (it closes the others after them), and to no reply to
 * HEAD, whose body it sends anyway (evhttp_make_header): a 1.0 client
 * cannot tell a whole reply from a cut one, and a HEAD's body would be
 * read as the start of the next reply.  So the length is set here, and a
 * HEAD, answered as its GET, loses its body once it is measured. */
void
http_reply_send(struct evhttp_request *req, int status)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	struct evbuffer *out = evhttp_request_get_output_buffer(req);
	char len[24];

	/* 1xx, 204 and 304 have no body, and then no length. */
	if (status >= 200 && status != 204 && status != 304 &&
	    evhttp_find_header(h, "Content-Length") == NULL) {
		snprintf(len, sizeof len, "%zu", evbuffer_get_length(out));
		evhttp_add_header(h, "Content-Length", len);
	}
	if (evhttp_request_get_command(req) == EVHTTP_REQ_HEAD)
		evbuffer_drain(out, evbuffer_get_length(out));
	evhttp_send_reply(req, status, http_error_reason(status), NULL);
}

void
http_error_send(struct evhttp_request *req, int status, const char *detail,
    int close_it)
{
	struct evkeyvalq *h = evhttp_request_get_output_headers(req);
	size_t len;
	char *body = http_error_json(status, detail, &len);

	evhttp_add_header(h, "Content-Type", "application/json");
	if (close_it)
		evhttp_add_header(h, "Connection", "close");
	evbuffer_add(evhttp_request_get_output_buffer(req), body, len);
	free(body);
	http_reply_send(req, status);
}
