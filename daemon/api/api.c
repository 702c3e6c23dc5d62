/* api.c: the life of one call: parameters, hand-off to a worker, reply. */
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "alloc.h"
#include "api.h"
#include "buf.h"
#include "clock.h"
#include "deflate.h"
#include "http-accept.h"
#include "http-error.h"
#include "jsonw.h"
#include "nitems.h"
#include "query.h"
#include "rfc3339.h"
#include "store.h"
#include "routes.h"
#include "selection.h"

const char *
api_param(struct api_call *call, const char *key)
{
	return evhttp_find_header(&call->query, key);
}

static void
api_call_free(struct api_call *call)
{
	api_watch_stop(call);
	evhttp_clear_headers(&call->query);
	api_stream_free(call->stream);
	if (call->free_data != NULL)
		call->free_data(call->data);
	if (call->reply != NULL)
		json_decref(call->reply);
	free(call->reply_text);
	free(call);
}

void
api_done(struct api_call *call, int status)
{
	if (call->route != NULL)
		api_host_route_done(call->host, call->route, status,
		    mono_ns() - call->start_ns);
	api_call_free(call);
}

void
api_reply(struct api_call *call, int status, json_t *body)
{
	struct evbuffer *out = evhttp_request_get_output_buffer(call->req);
	struct evkeyvalq *h = evhttp_request_get_output_headers(call->req);
	char *text;

	text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (text != NULL) {
		evbuffer_add(out, text, strlen(text));
		evbuffer_add(out, "\n", 1);
		free(text);
	}
	evhttp_add_header(h, "Content-Type", "application/json");
	if (status == 503)
		evhttp_add_header(h, "Retry-After", "1");
	http_reply_send(call->req, status);
	api_done(call, status);
}

void
api_error(struct api_call *call, int status, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;

	char *clean;
	json_t *body;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	/* The detail may quote client bytes, and vsnprintf may cut a
	 * character in two: invalid UTF-8 would make json_pack fail and
	 * the reply empty. */
	clean = http_utf8_clean(detail);
	body = json_pack("{s:s, s:s}", "error", http_error_kind(status),
	    "detail", clean);
	free(clean);
	api_reply(call, status, body != NULL ? body : json_pack("{s:s, s:s}",
	    "error", http_error_kind(status), "detail", "(unprintable)"));
}

void
api_reply_err(struct api_call *call)
{
	if (call->reply_err != NULL) {
		call->reply_err(call);
		return;
	}
	api_error(call, error_http_status(&call->err), "%s", call->err.msg);
}

void
api_result(struct api_call *call, int status, json_t *body)
{
	call->status = status;
	call->reply = body;
}

void
api_result_text(struct api_call *call, int status, const char *type,
    char *text)
{
	call->status = status;
	call->reply_type = type;
	call->reply_text = text;
	call->reply_len = strlen(text);
}

void
api_result_blob(struct api_call *call, int status, const char *type,
    void *data, size_t len)
{
	call->status = status;
	call->reply_type = type;
	call->reply_text = data;
	call->reply_len = len;
}

static void
api_reply_text(struct api_call *call)
{
	struct evbuffer *out = evhttp_request_get_output_buffer(call->req);
	struct evkeyvalq *h = evhttp_request_get_output_headers(call->req);

	evbuffer_add(out, call->reply_text, call->reply_len);
	evhttp_add_header(h, "Content-Type", call->reply_type);
	if (call->reply_gzip)
		evhttp_add_header(h, "Content-Encoding", "gzip");
	if (call->reply_vary)
		evhttp_add_header(h, "Vary", "Accept-Encoding");
	if (call->status == 503)
		evhttp_add_header(h, "Retry-After", "1");
	http_reply_send(call->req, call->status);
	api_done(call, call->status);
}

/* On the worker, once the work is done: the result as the bytes the loop
 * sends (a JSON one dumped), gzipped if the client takes it and it pays:
 * neither the dump nor the deflate of a 12 MB tree runs on the loop. */
static void
api_result_pack(struct api_call *call)
{
	struct error err = { 0 };
	uint8_t *gz;
	size_t gzlen, n;
	char *text;

	/* A gzipped stream's work that did not end it: its end. */
	if (api_stream_started(call)) {
		api_stream_last(call, NULL, 0);
		return;
	}
	if (call->err.kind != ERR_NONE)
		return;
	if (call->reply_text == NULL) {
		if (call->reply == NULL)
			call->reply = json_object();
		text = json_dumps(call->reply, JSON_COMPACT);
		if (text == NULL)
			return;		/* api_finish tries again */
		n = strlen(text);
		call->reply_text = xrealloc(text, n + 2);
		memcpy(call->reply_text + n, "\n", 2);
		call->reply_len = n + 1;
		call->reply_type = "application/json";
		if (call->status == 0)
			call->status = 200;
		json_decref(call->reply);
		call->reply = NULL;
	}
	/* A gzip already (an export) would not shrink. */
	if (call->reply_len < API_GZIP_MIN || (call->reply_len >= 2 &&
	    (uint8_t)call->reply_text[0] == 0x1f &&
	    (uint8_t)call->reply_text[1] == 0x8b))
		return;
	call->reply_vary = 1;
	if (!call->accept_gzip || deflate_gzip(call->reply_text,
	    call->reply_len, DEFLATE_REPLY_LEVEL, &gz, &gzlen, &err) == -1)
		return;
	/* Bytes that do not shrink (random ones) go as they are. */
	if (gzlen >= call->reply_len) {
		free(gz);
		return;
	}
	free(call->reply_text);
	call->reply_text = (char *)gz;
	call->reply_len = gzlen;
	call->reply_gzip = 1;
}

static int
api_is_read(const struct api_call *call)
{
	return call->queue == API_QUERY || call->queue == API_FLEET;
}

void
api_cancel_reason(struct api_call *call, struct error *err)
{
	if (!api_is_read(call) || err->kind == ERR_NONE ||
	    cancel_fired(&call->cancel) == CANCEL_NONE)
		return;
	error_clear(err);
	cancel_error(&call->cancel, err);
}

/* A read that stopped for its cancel's reason, counted once. */
static void
api_cancel_count(struct api_call *call)
{
	switch (cancel_fired(&call->cancel)) {
	case CANCEL_GONE:
		atomic_fetch_add(&call->host->views_cancelled, 1);
		break;
	case CANCEL_TIMEOUT:
		atomic_fetch_add(&call->host->views_timed_out, 1);
		break;
	default:
		break;
	}
}

static void
api_job_run(struct job *j, void *worker)
{
	struct api_call *call = (struct api_call *)j;
	struct query_worker *w = worker;
	struct store *store = NULL;
	struct error err = { 0 };
	int i;

	if (api_is_read(call)) {
		/* Its client left while it waited, or its time ran out:
		 * not run at all. */
		if (cancel_check(&call->cancel, &call->err) == -1) {
			api_cancel_count(call);
			return;
		}
		/* The view's loops poll it (cancel_poll), SQLite through
		 * its progress handler. */
		cancel_enter(&call->cancel);
		if ((store = w->store) != NULL)
			store_watch_cancel(store, &call->cancel);
	}
	for (i = 0; i < call->nsels; i++)
		if (selection_compile(call->sels[i], &err) == -1) {
			error_set(&call->err, err.kind, "%s%s",
			    call->sel_prefix[i], err.msg);
			break;
		}
	if (i == call->nsels)
		call->work(call, worker);
	if (api_is_read(call)) {
		if (store != NULL)
			store_watch_cancel(store, NULL);
		cancel_leave();
		api_cancel_reason(call, &call->err);
		api_cancel_count(call);
	}
	if (i == call->nsels)
		api_result_pack(call);
}

static void
api_job_done(struct job *j)
{
	struct api_call *call = (struct api_call *)j;

	api_watch_stop(call);
	if (j->run == NULL) {
		api_error(call, 503, "profd is shutting down");
		return;
	}
	api_finish(call);
}

void
api_finish(struct api_call *call)
{
	json_t *body;

	if (api_stream_started(call)) {
		api_stream_end(call);
		api_host_route_done(call->host, call->route, call->status ?
		    call->status : 200, mono_ns() - call->start_ns);
		api_call_free(call);
		return;
	}
	if (call->err.kind != ERR_NONE) {
		api_reply_err(call);
		return;
	}
	if (call->reply_text != NULL) {
		api_reply_text(call);
		return;
	}
	body = call->reply;
	call->reply = NULL;
	api_reply(call, call->status ? call->status : 200,
	    body ? body : json_object());
}

/* Did the call come over the TCP listener (a reader of Grafana's), not
 * the Unix socket (a user of this host)? */
static int
api_from_tcp(struct api_call *call)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(
	    call->req);
	struct bufferevent *bev;
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	evutil_socket_t fd;

	if (evcon == NULL ||
	    (bev = evhttp_connection_get_bufferevent(evcon)) == NULL ||
	    (fd = bufferevent_getfd(bev)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		return 0;
	return ss.ss_family != AF_UNIX;
}

void
api_submit(struct api_call *call, enum api_queue which,
    void (*work)(struct api_call *, void *worker))
{
	call->work = work;
	call->queue = which;
	call->accept_gzip = http_accept_gzip(evhttp_find_header(
	    evhttp_request_get_input_headers(call->req), "Accept-Encoding"));
	call->job.run = api_job_run;
	call->job.done = api_job_done;
	if (api_is_read(call)) {
		/* From its arrival: the time it waits for a thread counts,
		 * as it does for its client. */
		cancel_init(&call->cancel, call->start_ns,
		    call->host->cfg->query_timeout, &call->host->abort);
		call->job.guest = api_from_tcp(call);
	}
	if (jobq_push(call->host->queues[which], &call->job) == -1) {
		if (call->job.guest)
			api_error(call, 503, "the query queue's places for "
			    "the TCP listener's readers are taken; retry "
			    "later");
		else
			api_error(call, 503, "the %s queue is full; retry "
			    "later", which == API_IMPORT ? "import" : "query");
		return;
	}
	if (api_is_read(call))
		api_watch_start(call);
}

int
api_selection(struct api_call *call, struct selection *sel,
    const char *prefix)
{
	struct evkeyval *kv;
	struct error err = { 0 };
	size_t plen = prefix ? strlen(prefix) : 0;
	const char *key;
	int rc;

	TAILQ_FOREACH(kv, &call->query, next) {
		key = kv->key;
		if (prefix != NULL) {
			/* Only base.* parameters select the base. */
			if (strncmp(key, prefix, plen) != 0)
				continue;
			key += plen;
		}
		/* Not a selection parameter (rc 0): one of the route's own,
		 * as routes_dispatch made sure of. */
		if ((rc = selection_param(sel, key, kv->value, now_ns(),
		    &err)) == -1) {
			api_error(call, 400, "%s%s", prefix ? prefix : "",
			    err.msg);
			return -1;
		}
	}
	if (selection_check(sel, &err) == -1) {
		api_error(call, 400, "%s%s", prefix ? prefix : "", err.msg);
		return -1;
	}
	if (call->nsels < (int)NITEMS(call->sels)) {
		call->sels[call->nsels] = sel;
		call->sel_prefix[call->nsels++] = prefix ? prefix : "";
	}
	return 0;
}

int
api_bool(struct api_call *call, const char *name, int *out)
{
	const char *v = api_param(call, name);

	if (v == NULL)
		return 0;
	if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
		*out = 1;
	else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
		*out = 0;
	else {
		api_error(call, 400, "%s: \"%s\" is neither true nor false",
		    name, v);
		return -1;
	}
	return 0;
}

void
api_jsonw_head(struct buf *out, const char *scope,
    const struct store_metric *m, int64_t total, int64_t nprofiles)
{
	jsonw_raw(out, "{");
	jsonw_key(out, "scope");
	jsonw_str(out, scope);
	jsonw_raw(out, ",\"metric\":{");
	jsonw_key(out, "type");
	jsonw_str(out, m->type);
	jsonw_mstr(out, "unit", m->unit);
	if (m->aggregate != AGG_DEFAULT)
		jsonw_mstr(out, "aggregate", aggregate_name(m->aggregate));
	jsonw_raw(out, "}");
	jsonw_mstr(out, "unit", m->unit);
	jsonw_mint(out, "total", total);
	jsonw_mint(out, "profiles", nprofiles);
}

json_t *
api_time_json(int64_t ns)
{
	char buf[64];

	format_rfc3339(ns, buf, sizeof buf);
	return json_string(buf);
}

json_t *
api_metric_json(const char *type, const char *unit)
{
	return json_pack("{s:s, s:s}", "type", type, "unit", unit);
}

json_t *
api_view_metric_json(const struct store_metric *m)
{
	json_t *o = api_metric_json(m->type, m->unit);

	if (m->aggregate != AGG_DEFAULT)
		json_object_set_new(o, "aggregate", json_string(
		    aggregate_name(m->aggregate)));
	return o;
}
