/* api-uploads.c: POST /v1/uploads (start), PUT /v1/uploads?id=&offset=
 * (append a chunk), DELETE /v1/uploads?id= (abandon).  Chunks are written
 * on the I/O thread; POST /v1/profiles?upload=ID imports the result. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "uploads.h"

struct chunk {
	char id[UPLOAD_ID_LEN + 1];
	uint64_t offset;
	struct evbuffer *body;
};

static void
chunk_free(void *arg)
{
	struct chunk *c = arg;

	if (c->body != NULL)
		evbuffer_free(c->body);
	free(c);
}

static void
create_work(struct api_call *call, void *worker)
{
	char id[UPLOAD_ID_LEN + 1];

	if (uploads_create(call->host->uploads, id, &call->err) == -1)
		return;
	api_result(call, 201, json_pack("{s:s, s:I}", "upload_id", id,
	    "bytes", (json_int_t)0));
}

void
api_uploads_post(struct api_call *call)
{
	api_submit(call, API_IO, create_work);
}

static void
append_work(struct api_call *call, void *worker)
{
	struct chunk *c = call->data;
	size_t len = evbuffer_get_length(c->body);
	uint64_t total;

	if (uploads_append(call->host->uploads, c->id, c->offset,
	    len ? evbuffer_pullup(c->body, -1) : (const uint8_t *)"", len,
	    &total, &call->err) == -1)
		return;
	api_result(call, 200, json_pack("{s:s, s:I}", "upload_id", c->id,
	    "bytes", (json_int_t)total));
}

/* id= and, when want_offset, offset= of an upload call. */
static struct chunk *
chunk_params(struct api_call *call, int want_offset)
{
	const char *id = api_param(call, "id");
	const char *off = api_param(call, "offset");
	struct chunk *c;
	char *end;

	if (id == NULL || !uploads_id_valid(id)) {
		api_error(call, 400, "id: %s", id ? "not an upload id" :
		    "missing (the upload_id of POST /v1/uploads)");
		return NULL;
	}
	c = xcalloc(1, sizeof *c);
	memcpy(c->id, id, UPLOAD_ID_LEN + 1);
	call->data = c;
	call->free_data = chunk_free;
	if (!want_offset)
		return c;
	if (off == NULL) {
		api_error(call, 400, "offset: missing (the bytes uploaded so "
		    "far)");
		return NULL;
	}
	errno = 0;
	c->offset = strtoull(off, &end, 10);
	if (*off == '\0' || *off == '-' || *end != '\0' || errno != 0) {
		api_error(call, 400, "offset: \"%s\" is not a byte count", off);
		return NULL;
	}
	return c;
}

void
api_uploads_put(struct api_call *call)
{
	struct chunk *c = chunk_params(call, 1);

	if (c == NULL)
		return;
	c->body = evbuffer_new();
	evbuffer_add_buffer(c->body, evhttp_request_get_input_buffer(
	    call->req));
	api_submit(call, API_IO, append_work);
}

static void
remove_work(struct api_call *call, void *worker)
{
	struct chunk *c = call->data;

	if (uploads_remove(call->host->uploads, c->id, &call->err) == -1)
		return;
	api_result(call, 200, json_pack("{s:s}", "removed", c->id));
}

void
api_uploads_delete(struct api_call *call)
{
	if (chunk_params(call, 0) != NULL)
		api_submit(call, API_IO, remove_work);
}
