/* connect-err.c: a Connect unary call's head checked, and our errors as
 * Connect's (connect-err.h). */
#include <event2/http.h>
#include <string.h>

#include "api.h"
#include "api-body.h"
#include "connect-err.h"

const char *
connect_code(const struct error *err, int *status)
{
	switch (err->kind) {
	case ERR_INPUT:
		*status = 400;
		return "invalid_argument";
	case ERR_NOT_FOUND:
		*status = 404;
		return "not_found";
	case ERR_TOO_LARGE:
	case ERR_NO_SPACE:
		*status = 429;
		return "resource_exhausted";
	case ERR_UNSUPPORTED:
		*status = 501;
		return "unimplemented";
	case ERR_BUSY:
	case ERR_TIMEOUT:
		*status = 503;
		return "unavailable";
	case ERR_DEADLINE:
		*status = 504;
		return "deadline_exceeded";
	default:
		*status = 500;
		return "internal";
	}
}

json_t *
connect_body(const char *code, const char *msg)
{
	json_t *m = json_string(msg);

	/* A message quoting bad bytes may not be UTF-8. */
	if (m == NULL)
		m = json_string("(the message is not printable)");
	return json_pack("{s:s, s:o}", "code", code, "message", m);
}

void
connect_refuse(struct api_call *call, int status, const char *code,
    const char *msg)
{
	api_reply(call, status, connect_body(code, msg));
}

int
connect_unary_head(struct api_call *call, int *json, int *gzip)
{
	struct evkeyvalq *h = evhttp_request_get_input_headers(call->req);
	const char *ver = evhttp_find_header(h, "Connect-Protocol-Version");
	int kind = api_body_kind(h, "application/proto", json, gzip);

	if (kind == API_BODY_BAD_TYPE) {
		connect_refuse(call, 415, "invalid_argument", "Content-Type "
		    "must be application/proto or application/json (a Connect "
		    "unary call)");
		return -1;
	}
	if (ver != NULL && strcmp(ver, "1") != 0) {
		connect_refuse(call, 400, "invalid_argument",
		    "Connect-Protocol-Version must be 1");
		return -1;
	}
	if (kind == API_BODY_BAD_ENCODING) {
		connect_refuse(call, 501, "unimplemented", "Content-Encoding "
		    "must be gzip or identity");
		return -1;
	}
	return 0;
}
