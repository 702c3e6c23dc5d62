/* api-body.c: a push's body as bytes (api-body.h). */
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api-body.h"
#include "inflate.h"
#include "stream.h"

int
api_body_kind(struct evkeyvalq *h, const char *proto, int *json, int *gzip)
{
	const char *ct = evhttp_find_header(h, "Content-Type");
	const char *enc = evhttp_find_header(h, "Content-Encoding");
	size_t n = ct ? strcspn(ct, "; \t") : 0;

	if (ct != NULL && n == strlen(proto) && strncasecmp(ct, proto,
	    n) == 0)
		*json = 0;
	else if (ct != NULL && n == 16 && strncasecmp(ct, "application/json",
	    n) == 0)
		*json = 1;
	else
		return API_BODY_BAD_TYPE;
	if (enc != NULL && strcasecmp(enc, "identity") != 0 &&
	    strcasecmp(enc, "gzip") != 0)
		return API_BODY_BAD_ENCODING;
	*gzip = enc != NULL && strcasecmp(enc, "gzip") == 0;
	return 0;
}

int
api_body_bytes(struct api_call *call, struct evbuffer **body, int json,
    int gzip, uint8_t **own, const uint8_t **data, size_t *len,
    struct error *err)
{
	struct limits lim = call->host->cfg->limits;
	size_t max = json ? lim.max_json : lim.max_inflated;
	struct error e = { 0 };
	struct stream *in;
	int rc = 0;

	*own = NULL;
	*len = evbuffer_get_length(*body);
	*data = *len ? evbuffer_pullup(*body, -1) : (const uint8_t *)"";
	if (gzip) {
		if (lim.max_inflated > max)
			lim.max_inflated = max;
		in = inflate_stream(stream_mem(*data, *len), &lim);
		rc = stream_slurp(in, max, own, len, &e);
		stream_free(in);
		evbuffer_free(*body);
		*body = NULL;
		*data = *own;
	} else if (json && *len > max)
		rc = error_set(&e, ERR_TOO_LARGE, "the body is %zu bytes",
		    *len);
	if (rc == -1 && json && e.kind == ERR_TOO_LARGE)
		return error_set(err, e.kind, "%.300s: a JSON push is at most "
		    "max-json (%zu bytes) after gunzip; protobuf takes up to "
		    "max-inflated", e.msg, max);
	if (rc == -1)
		return error_set(err, e.kind, "%s", e.msg);
	return 0;
}
