/* api-querier.c: Grafana Pyroscope's querier.v1.QuerierService, the
 * calls Grafana's Pyroscope data source (and the Profiles Drilldown app)
 * reads profiles with: Connect unary calls over HTTP/1.1 (POST
 * /querier.v1.QuerierService/METHOD), the request and the reply in
 * protobuf (application/proto) or proto3 JSON (application/json), the
 * request gzipped if Content-Encoding says so, errors as Connect's JSON
 * (connect-err.c).  Each call is a view (api_view_submit) over the
 * source grafana-source names (api_pyro_source): its body is decoded on
 * the query thread, then querier-labels.c or querier-select.c answers.
 * The methods Grafana calls that profd does not serve answer Connect's
 * unimplemented (api_querier_unimplemented), not 404. */
#include <event2/http.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api-pyro.h"
#include "bounds.h"
#include "connect-err.h"
#include "inflate.h"
#include "nitems.h"
#include "query.h"
#include "querier-int.h"
#include "routes.h"
#include "source.h"
#include "stream.h"

#define QUERIER_PREFIX	"/querier.v1.QuerierService/"

static const struct {
	const char *name;
	enum querier_method m;
	int (*run)(struct qenv *, struct error *);
} qmethods[] = {
	{ "ProfileTypes", QM_PROFILE_TYPES, querier_profile_types },
	{ "LabelNames", QM_LABEL_NAMES, querier_label_names },
	{ "LabelValues", QM_LABEL_VALUES, querier_label_values },
	{ "Series", QM_SERIES, querier_series_list },
	{ "SelectSeries", QM_SELECT_SERIES, querier_select_series },
	{ "SelectMergeStacktraces", QM_SELECT_STACKS, querier_select_stacks },
	{ "SelectMergeProfile", QM_SELECT_PROFILE, querier_select_profile },
	{ "GetProfileStats", QM_PROFILE_STATS, querier_profile_stats },
};

static void
qcall_free(void *arg)
{
	struct qcall *qc = arg;

	if (qc->body != NULL)
		evbuffer_free(qc->body);
	querier_req_clear(&qc->req);
	querier_reply_clear(&qc->reply);
	api_fleet_params_clear(&qc->src);
	store_scope_info_free(qc->scopes, qc->nscopes);
	free(qc->profile);
	free(qc);
}

/* The body, gunzipped if Content-Encoding said gzip, bounded by
 * QUERIER_REQ_MAX_BYTES either way. */
static int
querier_body(struct api_call *call, struct qcall *qc, uint8_t **own,
    const uint8_t **data, size_t *len, struct error *err)
{
	struct limits lim = call->host->cfg->limits;
	struct error e = { 0 };
	struct stream *in;
	int rc;

	*own = NULL;
	*len = evbuffer_get_length(qc->body);
	*data = *len ? evbuffer_pullup(qc->body, -1) : (const uint8_t *)"";
	if (!qc->gzip)
		return 0;
	if (lim.max_inflated > QUERIER_REQ_MAX_BYTES)
		lim.max_inflated = QUERIER_REQ_MAX_BYTES;
	in = inflate_stream(stream_mem(*data, *len), &lim);
	rc = stream_slurp(in, QUERIER_REQ_MAX_BYTES, own, len, &e);
	stream_free(in);
	if (rc == -1)
		return error_set(err, e.kind, "%s: %.400s",
		    querier_req_name(qc->method), e.msg);
	*data = *own;
	return 0;
}

/* The reply the work made, in the call's encoding. */
static void
querier_result(struct api_call *call, struct qcall *qc)
{
	struct querier_reply *r = &qc->reply;

	if (qc->profile != NULL) {
		api_result_blob(call, 200, "application/proto", qc->profile,
		    qc->profile_len);
		qc->profile = NULL;
	} else if (r->json && r->text) {
		/* Written as text, not as a tree (a time series'). */
		api_result_blob(call, 200, "application/json", r->pb.p,
		    r->pb.n);
		memset(&r->pb, 0, sizeof r->pb);
	} else if (r->json) {
		api_result(call, 200, r->js != NULL ? r->js : json_object());
		r->js = NULL;
	} else if (r->pb.n > 0) {
		api_result_blob(call, 200, "application/proto", r->pb.p,
		    r->pb.n);
		memset(&r->pb, 0, sizeof r->pb);
	} else
		api_result_blob(call, 200, "application/proto", xstrdup(""),
		    0);
}

/* On the query thread: decode, answer. */
static void
querier_view(struct api_call *call, struct stack_source *src)
{
	struct qcall *qc = call->data;
	struct qenv env = { qc, src, call->view_worker };
	struct error err = { 0 };
	const uint8_t *data;
	uint8_t *own;
	size_t len, i;
	const char *code;
	int rc, status;

	querier_reply_init(&qc->reply, qc->json);
	rc = querier_body(call, qc, &own, &data, &len, &err);
	if (rc == 0)
		rc = qc->json ? querier_req_decode_json(qc->method, data, len,
		    &qc->req, &err) : querier_req_decode(qc->method, data, len,
		    &qc->req, &err);
	free(own);
	evbuffer_free(qc->body);
	qc->body = NULL;
	if (rc == 0 && qc->req.unsupported != NULL)
		rc = error_set(&err, ERR_UNSUPPORTED, "%s: %s is not served "
		    "by profd (docs/GRAFANA.md)", querier_req_name(qc->method),
		    qc->req.unsupported);
	for (i = 0; rc == 0 && i < NITEMS(qmethods); i++)
		if (qmethods[i].m == qc->method)
			rc = qmethods[i].run(&env, &err);
	if (rc == -1) {
		/* Stopped by its cancel: deadline_exceeded, not "internal". */
		api_cancel_reason(call, &err);
		code = connect_code(&err, &status);
		api_result(call, status, connect_body(code, err.msg));
		return;
	}
	querier_result(call, qc);
}

/* An error the call ends with before its work could answer (its read
 * dropped unrun: the client gone, query-timeout passed while it waited
 * for a thread): Connect's too. */
static void
querier_reply_err(struct api_call *call)
{
	const char *code;
	int status;

	code = connect_code(&call->err, &status);
	connect_refuse(call, status, code, call->err.msg);
}

void
api_querier_post(struct api_call *call)
{
	const char *path = call->route->path + strlen(QUERIER_PREFIX);
	struct qcall *qc;
	size_t i;
	int json, gzip;

	for (i = 0; i < NITEMS(qmethods); i++)
		if (strcmp(path, qmethods[i].name) == 0)
			break;
	if (i == NITEMS(qmethods)) {
		connect_refuse(call, 501, "unimplemented", "not a method "
		    "profd serves");
		return;
	}
	if (connect_unary_head(call, &json, &gzip) == -1)
		return;
	if (evbuffer_get_length(evhttp_request_get_input_buffer(call->req)) >
	    QUERIER_REQ_MAX_BYTES) {
		connect_refuse(call, 429, "resource_exhausted", "a querier "
		    "request is at most 1 MiB");
		return;
	}
	qc = xcalloc(1, sizeof *qc);
	call->data = qc;
	call->free_data = qcall_free;
	qc->method = qmethods[i].m;
	qc->json = json;
	qc->gzip = gzip;
	qc->max_series = call->host->cfg->query_max_series;
	qc->max_points = call->host->cfg->query_max_points;
	qc->body = evbuffer_new();
	evbuffer_add_buffer(qc->body, evhttp_request_get_input_buffer(
	    call->req));
	api_pyro_source(call, &qc->src);
	call->reply_err = querier_reply_err;
	api_view_submit(call, &qc->src, querier_view);
}

/* The methods Grafana (or the Drilldown app) may call that profd does
 * not serve: Connect's unimplemented, so that Grafana shows why. */
void
api_querier_unimplemented(struct api_call *call)
{
	const struct evhttp_uri *u = evhttp_request_get_evhttp_uri(call->req);
	const char *path = u != NULL ? evhttp_uri_get_path(u) : NULL;
	char msg[256];

	/* The path asked (a prefix route's is longer than the route's). */
	if (path == NULL || *path != '/')
		path = call->route->path;
	snprintf(msg, sizeof msg, "%.160s is not served by profd (see "
	    "docs/GRAFANA.md for what is)", path + 1);
	connect_refuse(call, 501, "unimplemented", msg);
}

/* settings.v1.SettingsService/Get, which the Profiles Drilldown app asks
 * for its stored settings: none (an empty GetSettingsResponse), so that
 * it runs with its defaults. */
void
api_querier_settings_get(struct api_call *call)
{
	int json, gzip;

	if (connect_unary_head(call, &json, &gzip) == -1)
		return;
	if (json)
		api_reply(call, 200, json_object());
	else {
		api_result_blob(call, 200, "application/proto", xstrdup(""), 0);
		api_finish(call);
	}
}
