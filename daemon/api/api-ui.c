/* api-ui.c: GET /ui/...: the browser UI's files, from memory on the loop
 * (nothing to wait for: the bytes and their gzip are compiled in), with
 * ETags and gzip; GET / and /ui lead to /ui/. */
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "http-accept.h"
#include "http-error.h"
#include "routes.h"
#include "webasset.h"

void
api_ui_get(struct api_call *call)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(call->req);
	const char *path = evhttp_uri_get_path(uri);
	const char *query = evhttp_uri_get_query(uri);
	struct evkeyvalq *in = evhttp_request_get_input_headers(call->req);
	struct evkeyvalq *h = evhttp_request_get_output_headers(call->req);
	struct webasset_reply r;
	char *loc;
	int i;

	webasset_answer(path, evhttp_find_header(in, "If-None-Match"),
	    http_accept_gzip(evhttp_find_header(in, "Accept-Encoding")), &r);
	if (r.status == 404) {
		api_error(call, 404, "no such file of the UI: %s", path);
		return;
	}
	if (r.status == 302) {
		/* The query goes along: a shared link to / keeps its view. */
		xasprintf(&loc, "%s%s%s", r.location, query ? "?" : "",
		    query ? query : "");
		evhttp_add_header(h, "Location", loc);
		api_reply(call, 302, json_pack("{s:s}", "location", loc));
		free(loc);
		return;
	}
	for (i = 0; webasset_headers[i] != NULL; i += 2)
		evhttp_add_header(h, webasset_headers[i], webasset_headers[i + 1]);
	evhttp_add_header(h, "ETag", r.asset->etag);
	if (r.status == 200) {
		evhttp_add_header(h, "Content-Type", r.asset->type);
		if (r.gzip)
			evhttp_add_header(h, "Content-Encoding", "gzip");
		evbuffer_add_reference(evhttp_request_get_output_buffer(
		    call->req), r.body, r.len, NULL, NULL);
	}
	http_reply_send(call->req, r.status);
	api_done(call, r.status);
}
