/* api-otlp.c: POST /v1development/profiles, OpenTelemetry's profiles over
 * OTLP/HTTP (the path of opentelemetry-proto's profiles_service_http.yaml):
 * an ExportProfilesServiceRequest of opentelemetry-proto v1.11.0 in
 * protobuf (Content-Type application/x-protobuf) or OTLP's JSON
 * (application/json), gzipped if Content-Encoding says so.
 *
 * The request is decoded whole on the import thread and its dictionary
 * checked (decode/otlp.c): a bad one refuses the request.  Each Profile is
 * then a profile of its own, imported as any push (api_pyro_import): its
 * scope the resource's service.name (else otlp-default-scope), its labels
 * the other attributes of its resource, its scope and its own.  A Profile
 * that cannot be stored is counted in the reply's partial_success and the
 * others are stored; a request of which none can be is a 400 that stores
 * nothing.  Replies are OTLP's: an ExportProfilesServiceResponse, or on
 * failure a google.rpc.Status, in the request's encoding. */
#include <event2/buffer.h>
#include <event2/http.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api-body.h"
#include "api-pyro.h"
#include "buf.h"
#include "otlp.h"
#include "pbw.h"
#include "scopename.h"
#include "sha256.h"

struct opush {
	struct evbuffer *body;
	int json, gzip;
};

static void
opush_free(void *arg)
{
	struct opush *o = arg;

	if (o->body != NULL)
		evbuffer_free(o->body);
	free(o);
}

/* google.rpc.Status's code for our error's HTTP status. */
static int
otlp_grpc_code(int status)
{
	switch (status) {
	case 400:
		return 3;		/* INVALID_ARGUMENT */
	case 413:
	case 507:
		return 8;		/* RESOURCE_EXHAUSTED */
	case 503:
		return 14;		/* UNAVAILABLE */
	default:
		return 13;		/* INTERNAL */
	}
}

/* A Status {code = 1, message = 2} in the request's encoding. */
static void
otlp_status(struct api_call *call, int json, int status, const char *msg)
{
	struct buf b = { 0 };
	json_t *m;

	if (json) {
		/* A message quoting bad bytes may not be UTF-8. */
		if ((m = json_string(msg)) == NULL)
			m = json_string("(the message is not printable)");
		api_result(call, status, json_pack("{s:i, s:o}", "code",
		    otlp_grpc_code(status), "message", m));
		return;
	}
	pbw_opt_int(&b, 1, otlp_grpc_code(status));
	pbw_str(&b, 2, msg);
	api_result_blob(call, status, "application/x-protobuf", b.p, b.n);
}

/* ExportProfilesServiceResponse, its partial_success set when some
 * Profiles were refused. */
static void
otlp_reply(struct api_call *call, int json, size_t rejected,
    const char *why)
{
	struct buf b = { 0 };
	size_t mark;
	char n[24];

	if (json) {
		snprintf(n, sizeof n, "%zu", rejected);
		/* int64 as proto3's JSON writes it: a string. */
		api_result(call, 200, rejected == 0 ? json_object() :
		    json_pack("{s:{s:s, s:s}}", "partialSuccess",
		    "rejectedProfiles", n, "errorMessage", why));
		return;
	}
	if (rejected > 0) {
		mark = pbw_begin(&b, 1);
		pbw_opt_int(&b, 1, (int64_t)rejected);
		pbw_str(&b, 2, why);
		pbw_end(&b, mark);
	}
	api_result_blob(call, 200, "application/x-protobuf",
	    b.p != NULL ? (void *)b.p : xstrdup(""), b.n);
}

static void
otlp_label(void *arg, struct mstr key, struct mstr value)
{
	push_label(arg, key.p, key.n, value.p, value.n);
}

/* Why Profile i is refused, appended to why (its count in *rejected). */
static void
otlp_refused(struct buf *why, size_t *rejected, size_t i, const char *msg)
{
	(*rejected)++;
	/* A few reasons say what is wrong; the count says how much. */
	if (why->n >= 1024)
		return;
	if (strncmp(msg, "OTLP: ", 6) == 0)
		msg += 6;
	/* The check's own errors name the profile already. */
	if (strncmp(msg, "profile ", 8) == 0)
		buf_printf(why, "%s%.300s", why->n ? "; " : "", msg);
	else
		buf_printf(why, "%sprofile %zu: %.300s", why->n ? "; " : "",
		    i, msg);
}

/* Profile i as a push: its scope, labels and what to decode. */
static int
otlp_push(struct api_call *call, struct otlp_req *r, size_t i,
    const uint8_t *data, size_t len, const uint8_t *digest, struct push *p,
    struct error *err)
{
	const char *dflt = call->host->cfg->otlp_default_scope;
	struct mstr svc, pfmt, payload;
	char scope[129];

	memset(p, 0, sizeof *p);
	if (otlp_profile_check(r, i, err) == -1)
		return -1;
	if (otlp_profile_service(r, i, &svc) == 0)
		scope_name_from(svc.p, svc.n, scope);
	else if (dflt != NULL)
		snprintf(scope, sizeof scope, "%s", dflt);
	else
		return error_set(err, ERR_INPUT, "its resource has no "
		    "service.name and otlp-default-scope is none");
	p->scope = xstrdup(scope);
	p->name = xstrdup("otlp");
	otlp_profile_labels(r, i, otlp_label, p);
	otlp_profile_payload(r, i, &pfmt, &payload);
	/* A Profile that carries only its pprof is that pprof. */
	if (otlp_profile_samples(r, i) == 0 && payload.n > 0 &&
	    mstr_eqs(pfmt, "pprof")) {
		p->format = xstrdup("pprof");
		p->data = (const uint8_t *)payload.p;
		p->len = payload.n;
		return 0;
	}
	p->format = xstrdup("otlp");
	p->part = (int64_t)i + 1;
	/* Decoded and hashed once for all its Profiles: each import costs
	 * what its Profile holds, not the request's size again. */
	p->otlp = r;
	p->digest = digest;
	p->data = data;
	p->len = len;
	return 0;
}

/* Every Profile checked, then the good ones imported; 0 with what was
 * refused in *rejected and why, or -1 with err when nothing could be
 * stored (every Profile refused: the reasons) or an import failed for
 * another reason than its input (past max-body, the store busy or
 * full: the client may send it again, and what was stored is then a
 * duplicate). */
static int
otlp_import(struct api_call *call, void *worker, struct otlp_req *r,
    const uint8_t *data, size_t len, size_t *rejected, struct buf *why,
    struct error *err)
{
	size_t i, n = otlp_req_profiles(r), stored = 0;
	struct import_result res;
	struct error e;
	struct push p;
	struct sha256 sh;
	uint8_t digest[32];
	int *ok = xcalloc(n ? n : 1, sizeof *ok);
	int rc = 0;

	sha256_init(&sh);
	sha256_update(&sh, data, len);
	sha256_final(&sh, digest);
	for (i = 0; i < n; i++) {
		memset(&e, 0, sizeof e);
		if (otlp_push(call, r, i, data, len, digest, &p, &e) == -1)
			otlp_refused(why, rejected, i, e.msg);
		else
			ok[i] = 1;
		push_clear(&p);
	}
	if (n > 0 && *rejected == n) {
		free(ok);
		return error_set(err, ERR_INPUT, "every Profile is refused, "
		    "nothing is stored: %.440s", (char *)why->p);
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (!ok[i])
			continue;
		memset(&e, 0, sizeof e);
		(void)otlp_push(call, r, i, data, len, digest, &p, &e);
		if (api_pyro_import(call, worker, &p, &res, &e) == 0) {
			import_result_clear(&res);
			stored++;
		} else if (e.kind == ERR_INPUT)
			otlp_refused(why, rejected, i, e.msg);
		else
			rc = error_set(err, e.kind, "profile %zu: %.400s%s", i,
			    e.msg, stored ? " (the profiles before it were "
			    "stored)" : "");
		push_clear(&p);
	}
	free(ok);
	if (rc == 0 && n > 0 && stored == 0)
		return error_set(err, ERR_INPUT, "no Profile could be stored: "
		    "%.440s", (char *)why->p);
	return rc;
}

static void
otlp_work(struct api_call *call, void *worker)
{
	struct opush *o = call->data;
	struct otlp_req *r = NULL;
	struct error err = { 0 };
	struct buf why = { 0 };
	const uint8_t *data;
	uint8_t *own = NULL;
	size_t len, rejected = 0;
	int rc;

	rc = api_body_bytes(call, &o->body, o->json, o->gzip, &own, &data,
	    &len, &err);
	if (rc == 0)
		rc = otlp_req_decode(data, len, o->json,
		    &call->host->cfg->limits, &r, &err);
	if (rc == 0)
		rc = otlp_import(call, worker, r, data, len, &rejected, &why,
		    &err);
	otlp_req_free(r);
	free(own);
	if (rc == -1)
		otlp_status(call, o->json, error_http_status(&err), err.msg);
	else {
		buf_add(&why, "", 1);
		otlp_reply(call, o->json, rejected, (char *)why.p);
	}
	buf_free(&why);
}

void
api_otlp_post(struct api_call *call)
{
	struct opush *o;
	int json = 0, gzip = 0;

	switch (api_body_kind(evhttp_request_get_input_headers(call->req),
	    "application/x-protobuf", &json, &gzip)) {
	case API_BODY_BAD_TYPE:
		api_error(call, 415, "Content-Type must be "
		    "application/x-protobuf or application/json (OTLP/HTTP)");
		return;
	case API_BODY_BAD_ENCODING:
		api_error(call, 415, "Content-Encoding must be gzip or "
		    "identity");
		return;
	}
	o = xcalloc(1, sizeof *o);
	call->data = o;
	call->free_data = opush_free;
	o->json = json;
	o->gzip = gzip;
	o->body = evbuffer_new();
	evbuffer_add_buffer(o->body, evhttp_request_get_input_buffer(
	    call->req));
	api_submit(call, API_IMPORT, otlp_work);
}
