/* connect-err.h: errors as the Connect protocol sends them for a unary
 * call: a JSON body {"code", "message"} with the HTTP status Connect maps
 * the code to, whatever the call's encoding.  Shared by the push service
 * (api-connect.c) and the querier (api-querier.c). */
#ifndef PROFD_CONNECT_ERR_H
#define PROFD_CONNECT_ERR_H

#include <jansson.h>

#include "error.h"

/* Connect's code for an error of ours, and its HTTP status. */
const char *connect_code(const struct error *, int *status);
/* The error body (a message that is not UTF-8 is replaced). */
json_t *connect_body(const char *code, const char *msg);

struct api_call;
/* On the loop: check the head of a Connect unary call (Content-Type
 * application/proto or application/json: *json; Connect-Protocol-Version
 * 1 when given; Content-Encoding gzip, *gzip, or identity).  -1 once a
 * Connect error is sent. */
int connect_unary_head(struct api_call *, int *json, int *gzip);
/* On the loop: reply with a Connect error now. */
void connect_refuse(struct api_call *, int status, const char *code,
    const char *msg);

#endif
