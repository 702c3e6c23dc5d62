/* api-connect.c: POST /push.v1.PusherService/Push, Pyroscope's push
 * service as Grafana Alloy's pyroscope.write calls it: a Connect unary
 * call over HTTP/1.1 whose body is a push.v1.PushRequest in protobuf
 * (Content-Type application/proto) or JSON (application/json), gzipped
 * if Content-Encoding says so.
 *
 * Each raw_profile of each series is a pprof (gzipped or not) imported
 * as a push of its own.  The scope is the series' service_name label,
 * else its __name__; characters a scope name cannot hold become '_'
 * (Alloy's eBPF service names hold '/').  The stored labels are the
 * series' others but service_name and those starting "__" (Pyroscope's
 * internal ones: __name__, the profile type, __delta__,
 * __session_id__...).  The labels say whether Go's counters are
 * differences already (connect_differenced()); else their kinds are
 * inferred.  Errors are Connect's: {"code", "message"} in JSON with the
 * HTTP status Connect maps the code to. */
#include <event2/buffer.h>
#include <event2/http.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api-body.h"
#include "api-pyro.h"
#include "connect-err.h"
#include "nitems.h"
#include "pushreq.h"
#include "scopename.h"

struct cpush {
	struct evbuffer *body;
	int json, gzip;
};

static void
cpush_free(void *arg)
{
	struct cpush *c = arg;

	if (c->body != NULL)
		evbuffer_free(c->body);
	free(c);
}

/* The series' scope into buf (129 bytes); -1 if it has none. */
static int
connect_scope(const struct pushreq_series *s, char *buf)
{
	const char *v = pushreq_label(s, "service_name");

	if (v == NULL || *v == '\0')
		v = pushreq_label(s, "__name__");
	if (v == NULL || *v == '\0')
		return -1;
	scope_name_from(v, strlen(v), buf);
	return 0;
}

/* Whether the series' Go counters (alloc_*, contentions, delay) are
 * differences already, which a profile without a duration does not say
 * (docs/INTAKE.md "Kinds").  Pyroscope's server differences a series
 * unless it is labelled __delta__="false", as Alloy's pyroscope.scrape
 * labels the memory, mutex and block fetches it differences itself, and
 * reads a __name__ godeltaprof_* (Alloy up to 1.6) as that label:
 * godeltaprof serves differences.  Alloy since 1.9 sends its godeltaprof
 * fetches as memory, mutex or block with no __delta__; only the scope
 * label it adds since 1.18 tells them from a heap file pushed with
 * neither label (profilecli upload).  "true" asks for differencing: the
 * importer's rule decides. */
static int
connect_differenced(const struct pushreq_series *s)
{
	static const char *const godeltaprof[] = { "memory", "mutex",
	    "block" };
	const char *delta = pushreq_label(s, "__delta__");
	const char *name = pushreq_label(s, "__name__");
	const char *scope = pushreq_label(s, "otel.scope.name");
	size_t i;

	if (name == NULL)
		name = "";
	if (strncmp(name, "godeltaprof_", 12) == 0)
		return 1;
	if (delta != NULL)
		return strcmp(delta, "false") == 0;
	if (scope == NULL ||
	    strcmp(scope, "com.grafana.alloy/pyroscope.scrape") != 0)
		return 0;
	for (i = 0; i < NITEMS(godeltaprof); i++)
		if (strcmp(name, godeltaprof[i]) == 0)
			return 1;
	return 0;
}

/* Every series is checked before the first import: a request refused for
 * its labels stores nothing. */
static int
connect_check(const struct pushreq *req, struct error *err)
{
	char scope[129];
	size_t i, j;

	for (i = 0; i < req->nseries; i++) {
		const struct pushreq_series *s = &req->series[i];

		if (s->nsamples > 0 && connect_scope(s, scope) == -1)
			return error_set(err, ERR_INPUT, "series %zu has "
			    "neither a service_name nor a __name__ label", i);
		for (j = 0; j < s->nlabels; j++)
			if (!api_pyro_label_name_valid(s->labels[j].name,
			    strlen(s->labels[j].name)))
				return error_set(err, ERR_INPUT, "series %zu: "
				    "the label name \"%s\" is not "
				    "[A-Za-z_][A-Za-z0-9_.]*", i,
				    s->labels[j].name);
	}
	return 0;
}

static int
connect_import(struct api_call *call, void *worker,
    const struct pushreq *req, size_t *stored, struct error *err)
{
	struct push p;
	struct import_result res;
	char scope[129];
	const char *name;
	size_t i, j;
	int rc = 0;

	for (i = 0; i < req->nseries && rc == 0; i++) {
		const struct pushreq_series *s = &req->series[i];

		if (s->nsamples == 0)
			continue;
		memset(&p, 0, sizeof p);
		(void)connect_scope(s, scope);
		p.scope = xstrdup(scope);
		p.format = xstrdup("pprof");
		name = pushreq_label(s, "__name__");
		p.name = xstrdup(name ? name : "");
		for (j = 0; j < s->nlabels; j++) {
			const struct pushreq_label *l = &s->labels[j];

			if (strncmp(l->name, "__", 2) != 0 &&
			    strcmp(l->name, "service_name") != 0)
				push_label(&p, l->name, strlen(l->name),
				    l->value, strlen(l->value));
		}
		if (connect_differenced(s))
			push_kind_go_differenced(&p);
		for (j = 0; j < s->nsamples && rc == 0; j++) {
			p.data = s->samples[j].raw;
			p.len = s->samples[j].len;
			if ((rc = api_pyro_import(call, worker, &p, &res,
			    err)) == 0) {
				(*stored)++;
				import_result_clear(&res);
			} else {
				char msg[sizeof err->msg];
				enum error_kind kind = err->kind;

				memcpy(msg, err->msg, sizeof msg);
				err->kind = ERR_NONE;
				error_set(err, kind, "series %zu, sample %zu: "
				    "%.440s", i, j, msg);
			}
		}
		push_clear(&p);
	}
	return rc;
}

/* What the decoded request no longer needs (the JSON form's samples own
 * their bytes; the protobuf form's point into the body). */
static void
connect_body_release(struct cpush *c, uint8_t **own)
{
	free(*own);
	*own = NULL;
	if (c->body != NULL) {
		evbuffer_free(c->body);
		c->body = NULL;
	}
}

static void
connect_work(struct api_call *call, void *worker)
{
	struct cpush *c = call->data;
	struct pushreq req;
	struct error err = { 0 };
	const uint8_t *data;
	uint8_t *own;
	size_t len, stored = 0;
	const char *code;
	int status, rc;

	rc = api_body_bytes(call, &c->body, c->json, c->gzip, &own, &data,
	    &len, &err);
	if (rc == 0)
		rc = c->json ? pushreq_decode_json(data, len, &req, &err) :
		    pushreq_decode(data, len, &req, &err);
	if (rc == -1 || c->json)
		connect_body_release(c, &own);
	if (rc == 0) {
		if ((rc = connect_check(&req, &err)) == 0)
			rc = connect_import(call, worker, &req, &stored, &err);
		pushreq_clear(&req);
		connect_body_release(c, &own);
	}
	if (rc == -1) {
		char msg[sizeof err.msg + 64];

		code = connect_code(&err, &status);
		snprintf(msg, sizeof msg, "%s%s", err.msg, stored ?
		    " (the profiles before it were stored)" : "");
		api_result(call, status, connect_body(code, msg));
		return;
	}
	/* PushResponse is empty: no bytes in protobuf, {} in JSON. */
	if (c->json)
		api_result_text(call, 200, "application/json", xstrdup("{}"));
	else
		api_result_blob(call, 200, "application/proto", xstrdup(""), 0);
}

void
api_connect_push_post(struct api_call *call)
{
	struct cpush *c;
	int json, gzip;

	if (connect_unary_head(call, &json, &gzip) == -1)
		return;
	c = xcalloc(1, sizeof *c);
	call->data = c;
	call->free_data = cpush_free;
	c->json = json;
	c->gzip = gzip;
	c->body = evbuffer_new();
	evbuffer_add_buffer(c->body, evhttp_request_get_input_buffer(
	    call->req));
	api_submit(call, API_IMPORT, connect_work);
}
