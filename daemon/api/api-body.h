/* api-body.h: a push's body as one piece of bytes, gunzipped when its
 * Content-Encoding said gzip, for the pushes whose decoders read a whole
 * request (the Connect push, OTLP's profiles). */
#ifndef PROFD_API_BODY_H
#define PROFD_API_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"

struct evbuffer;
struct evkeyvalq;

/* What a push's request headers say of its body: Content-Type proto (the
 * protobuf type's name, media type parameters ignored) or
 * application/json (*json), Content-Encoding gzip or identity or none
 * (*gzip).  0, or API_BODY_BAD_TYPE or API_BODY_BAD_ENCODING: each
 * caller refuses in its protocol's words. */
enum { API_BODY_BAD_TYPE = 1, API_BODY_BAD_ENCODING };
int api_body_kind(struct evkeyvalq *headers, const char *proto, int *json,
    int *gzip);

/* On the worker: *body's bytes at *data (*len of them); gunzipped into
 * *own (to free) if gzip, *body then freed and NULL.  JSON is held again
 * as jansson's tree, so its text is bounded by max-json, protobuf by
 * max-inflated: ERR_TOO_LARGE past them, ERR_INPUT for bad gzip. */
int api_body_bytes(struct api_call *, struct evbuffer **body, int json,
    int gzip, uint8_t **own, const uint8_t **data, size_t *len,
    struct error *);

#endif
