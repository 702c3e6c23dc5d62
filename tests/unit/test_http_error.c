/* test_http_error.c: the body of every error reply.  A detail quoting
 * client bytes that are not UTF-8 (overlong forms, surrogates, past
 * U+10FFFF, a sequence cut short, as vsnprintf may cut one) still makes
 * the documented JSON, with U+FFFD for each bad byte and valid text kept;
 * libevent's own HTML error pages are rewritten into it. */
#include <event2/buffer.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "http-error.h"
#include "testlib.h"

static void
clean_is(const char *in, const char *want)
{
	char *got = http_utf8_clean(in);

	if (strcmp(got, want) != 0)
		fprintf(stderr, "clean(%s): got %s\n", in, got);
	CHECK(strcmp(got, want) == 0);
	free(got);
}

/* The body is {"error": kind, "detail": detail} and nothing else. */
static void
json_is(const char *body, size_t len, const char *kind, const char *detail)
{
	json_error_t e;
	json_t *j = json_loadb(body, len, 0, &e);

	CHECK(j != NULL);
	CHECK(json_object_size(j) == 2);
	CHECK(STREQ(json_string_value(json_object_get(j, "error")), kind));
	CHECK(STREQ(json_string_value(json_object_get(j, "detail")), detail));
	json_decref(j);
}

static void
test_utf8(void)
{
	clean_is("plain <ascii> \"quoted\"", "plain <ascii> \"quoted\"");
	clean_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	clean_is("\xff", "\xef\xbf\xbd");
	clean_is("a\xc3", "a\xef\xbf\xbd");		/* cut short */
	clean_is("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");	/* overlong */
	clean_is("\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	clean_is("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	clean_is("\xf4\x90\x80\x80",			/* past U+10FFFF */
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	clean_is("\xc3\x28", "\xef\xbf\xbd(");
}

static void
test_json(void)
{
	size_t len;
	char *body = http_error_json(400, "scope: \"\xff\xfe\" is bad", &len);

	CHECK(len == strlen(body) && body[len - 1] == '\n');
	json_is(body, len, "bad request",
	    "scope: \"\xef\xbf\xbd\xef\xbf\xbd\" is bad");
	free(body);
	body = http_error_json(503, "", &len);
	json_is(body, len, "busy", "");
	free(body);
	CHECK(STREQ(http_error_kind(431), "header too large"));
	CHECK(STREQ(http_error_reason(503), "Service Unavailable"));
	CHECK(STREQ(http_error_reason(422), "Unprocessable Entity"));
	CHECK(http_error_reason(200) == NULL);
}

/* libevent's 400 page, then its 413 after a 100 Continue. */
static void
test_rewrite(void)
{
	static const char page[] = "HTTP/1.1 400 Bad Request\r\n"
	    "Content-Type: text/html\r\nConnection: close\r\n"
	    "Content-Length: 40\r\n\r\n<HTML><HEAD>\n<TITLE>400</TITLE></HEAD>";
	struct evbuffer *src = evbuffer_new(), *dst = evbuffer_new();
	char *out, *body;
	int discard = 0;
	size_t n;

	evbuffer_add(src, page, 30);	/* half a head: wait */
	CHECK(http_error_rewrite(src, dst, 1024, &discard) == -1);
	CHECK(evbuffer_get_length(dst) == 0 && !discard);
	evbuffer_add(src, page + 30, sizeof page - 1 - 30);
	CHECK(http_error_rewrite(src, dst, 1024, &discard) == 0);
	CHECK(discard && evbuffer_get_length(src) == 0);
	n = evbuffer_get_length(dst);
	out = xmalloc(n + 1);
	evbuffer_remove(dst, out, n);
	out[n] = '\0';
	CHECK(strncmp(out, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
	CHECK(HAS(out, "Content-Type: application/json\r\n"));
	CHECK((body = strstr(out, "\r\n\r\n")) != NULL);
	json_is(body + 4, strlen(body + 4), "bad request",
	    "the request is not valid HTTP/1.1 (request line, header or "
	    "chunked body)");
	free(out);

	discard = 0;
	evbuffer_add_printf(src, "HTTP/1.1 100 Continue\r\n\r\n"
	    "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n");
	CHECK(http_error_rewrite(src, dst, 1024, &discard) == 0);
	n = evbuffer_get_length(dst);
	out = xmalloc(n + 1);
	evbuffer_remove(dst, out, n);
	out[n] = '\0';
	CHECK(strncmp(out, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 413 ", 38)
	    == 0);
	CHECK(HAS(out, "passes max-body (1024 bytes)"));
	free(out);
	evbuffer_free(src);
	evbuffer_free(dst);
}

int
main(void)
{
	test_utf8();
	test_json();
	test_rewrite();
	printf("test_http_error: %u checks\n", checks);
	return 0;
}
