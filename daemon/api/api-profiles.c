/* api-profiles.c: POST /v1/profiles (push a blob: its parameters here,
 * its import intake/push.c's) and GET /v1/profiles (a page of a scope's
 * profiles, each metric with its kind). */
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "buf.h"
#include "import.h"
#include "jsonw.h"
#include "kind.h"
#include "push.h"
#include "query.h"
#include "rfc3339.h"
#include "scopename.h"
#include "selection.h"
#include "store.h"
#include "uploads.h"

/* A profile's metrics, each with its kind in that profile. */
static json_t *
metrics_json(const struct store_metric *m, size_t n)
{
	json_t *a = json_array(), *o;
	size_t i;

	for (i = 0; i < n; i++) {
		o = api_metric_json(m[i].type, m[i].unit);
		json_object_set_new(o, "kind", json_string(kind_name(
		    m[i].kind)));
		json_array_append_new(a, o);
	}
	return a;
}

static void
profiles_push_work(struct api_call *call, void *worker)
{
	struct push *p = call->data;
	struct push_env env;
	struct import_result res;
	json_t *dropped;
	size_t i;

	api_host_push_env(call->host, &env);
	if (push_run(&env, worker, p, &res, &call->err) == -1)
		return;
	dropped = json_object();
	for (i = 0; i < res.ncounts; i++)
		json_object_set_new(dropped, res.counts[i].name,
		    json_integer((json_int_t)res.counts[i].n));
	api_result(call, res.duplicate ? 200 : 201, json_pack(
	    "{s:I, s:s, s:s, s:I, s:I, s:o, s:o, s:b}",
	    "profile_id", (json_int_t)res.profile_id,
	    "scope", p->scope,
	    "format", res.format,
	    "samples", (json_int_t)res.samples,
	    "dropped_samples", (json_int_t)res.dropped_samples,
	    "dropped", dropped,
	    "metrics", metrics_json(res.metrics, res.nmetrics),
	    "duplicate", res.duplicate));
	import_result_clear(&res);
}

/* metric=TYPE[/UNIT]: what the counts of a folded blob measure. */
static int
profiles_metric(struct api_call *call, struct push *p, const char *metric)
{
	const char *slash;

	if (metric == NULL || *metric == '\0')
		return 0;
	slash = strchr(metric, '/');
	if (slash == metric || (slash != NULL && slash[1] == '\0')) {
		api_error(call, 400, "metric: \"%s\" is not TYPE or TYPE/UNIT",
		    metric);
		return -1;
	}
	p->metric_type = slash ? xstrndup(metric, (size_t)(slash - metric)) :
	    xstrdup(metric);
	p->metric_unit = xstrdup(slash ? slash + 1 : "count");
	return 0;
}

/* bucket=N[s|m|h]: the time bucket of timed samples, whole seconds. */
static int
profiles_bucket(struct api_call *call, struct push *p, const char *bucket)
{
	long long v;
	char *end;

	p->bucket_ns = 1000000000;
	if (bucket == NULL)
		return 0;
	v = strtoll(bucket, &end, 10);
	if (end == bucket || v <= 0 || v > 86400 * 366)
		goto bad;
	if (*end == 'm')
		v *= 60, end++;
	else if (*end == 'h')
		v *= 3600, end++;
	else if (*end == 's')
		end++;
	if (*end != '\0' || v > 86400 * 366)
		goto bad;
	p->bucket_ns = v * 1000000000;
	return 0;
bad:
	api_error(call, 400, "bucket: \"%s\" is not a duration of whole "
	    "seconds (e.g. 1s, 10s, 1m, 1h; at most a year)", bucket);
	return -1;
}

void
api_profiles_post(struct api_call *call)
{
	struct evkeyval *kv;
	struct push *p;
	const char *scope = api_param(call, "scope");
	const char *format = api_param(call, "format");
	const char *name = api_param(call, "name");
	const char *upload = api_param(call, "upload");

	if (scope == NULL) {
		api_error(call, 400, "scope: missing (POST "
		    "/v1/profiles?scope=NAME)");
		return;
	}
	if (!scope_name_valid(scope)) {
		api_error(call, 400, "scope: \"%s\" is not a valid scope name "
		    "([A-Za-z0-9._-], 1 to 128 characters, not . or ..)",
		    scope);
		return;
	}
	p = xcalloc(1, sizeof *p);
	call->data = p;
	call->free_data = push_free;
	p->scope = xstrdup(scope);
	p->format = xstrdup(format && *format ? format : "auto");
	p->name = xstrdup(name ? name : "");
	if (profiles_metric(call, p, api_param(call, "metric")) == -1 ||
	    profiles_bucket(call, p, api_param(call, "bucket")) == -1)
		return;
	TAILQ_FOREACH(kv, &call->query, next) {
		struct error kerr = { 0 };
		char *eq;

		if (strcmp(kv->key, "kind") == 0 ||
		    strcmp(kv->key, "keep") == 0) {
			if ((strcmp(kv->key, "kind") == 0 ? push_kind(p,
			    kv->value, &kerr) : push_keep(p, kv->value,
			    &kerr)) == -1) {
				api_error(call, 400, "%s: %s", kv->key,
				    kerr.msg);
				return;
			}
			continue;
		}
		if (strcmp(kv->key, "label") != 0)
			continue;
		if ((eq = strchr(kv->value, '=')) == NULL ||
		    eq == kv->value) {
			api_error(call, 400, "label: \"%s\" is not KEY=VALUE",
			    kv->value);
			return;
		}
		push_label(p, kv->value, (size_t)(eq - kv->value),
		    eq + 1, strlen(eq + 1));
	}
	p->body = evbuffer_new();
	evbuffer_add_buffer(p->body, evhttp_request_get_input_buffer(
	    call->req));
	if (upload != NULL) {
		if (!uploads_id_valid(upload) ||
		    evbuffer_get_length(p->body) != 0) {
			api_error(call, 400, "upload: %s", uploads_id_valid(
			    upload) ? "send either a body or upload=ID, not "
			    "both" : "not an upload id");
			return;
		}
		p->upload = xstrdup(upload);
	} else if (evbuffer_get_length(p->body) == 0) {
		api_error(call, 400, "the request body is empty: send the "
		    "profile as the body (or upload=ID of POST /v1/uploads)");
		return;
	}
	api_submit(call, API_IMPORT, profiles_push_work);
}

/* GET /v1/profiles: a page of one scope's profiles (store-plist.c), the
 * next one named by an opaque cursor, (time, id) of the page's last row:
 * a profile pushed meanwhile neither shifts a row nor repeats one. */
#define PROFILES_LIMIT		1000	/* a page's rows by default */
#define PROFILES_LIMIT_MAX	10000
/* The rows a page with filters (label, metric, profile) reads past its
 * cursor at most: the work of a call stays bounded when they pass few,
 * and the page says where the next one goes on. */
#define PROFILES_SCAN		20000

struct plist_req {
	struct selection sel;
	long long limit;
	int64_t after_ns, after_id;
};

static void
plist_req_free(void *p)
{
	struct plist_req *r = p;

	selection_clear(&r->sel);
	free(r);
}

static void
plist_time(struct buf *out, const char *key, int64_t ns)
{
	char t[64];

	format_rfc3339(ns, t, sizeof t);
	jsonw_mstr(out, key, t);
	snprintf(t, sizeof t, "%s_ns", key);
	jsonw_mint(out, t, ns);
}

/* {"type","unit"[,"kind"]} */
static void
plist_metric(struct buf *out, const struct store_metric *m, int kind)
{
	jsonw_raw(out, "{");
	jsonw_key(out, "type");
	jsonw_str(out, m->type);
	jsonw_mstr(out, "unit", m->unit);
	if (kind)
		jsonw_mstr(out, "kind", kind_name(m->kind));
	jsonw_raw(out, "}");
}

/* ,"key":{"type","unit"}, or null for none (id 0). */
static void
plist_opt_metric(struct buf *out, const char *key,
    const struct store_metric *m)
{
	jsonw_raw(out, ",");
	jsonw_key(out, key);
	if (m->id == 0)
		jsonw_raw(out, "null");
	else
		plist_metric(out, m, 0);
}

/* One profile of a page, written as text: a page of 10,000 rows is 5 MB
 * of JSON, where a tree of it would hold ten times that. */
static void
plist_row(struct buf *out, const struct store_profile_info *p)
{
	size_t j;

	jsonw_raw(out, "{");
	jsonw_key(out, "id");
	jsonw_int(out, p->id);
	jsonw_mstr(out, "name", p->name);
	jsonw_mstr(out, "format", p->format);
	plist_time(out, "time", p->time_ns);
	jsonw_mint(out, "duration_ns", p->duration_ns);
	plist_time(out, "imported", p->imported_ns);
	jsonw_mint(out, "samples", p->samples);
	jsonw_mint(out, "dropped_samples", p->dropped_samples);
	jsonw_raw(out, ",\"dropped\":{");
	for (j = 0; j < p->ncounts; j++) {
		jsonw_raw(out, j ? "," : "");
		jsonw_key(out, p->counts[j].name);
		jsonw_int(out, p->counts[j].n);
	}
	jsonw_raw(out, "},\"metrics\":[");
	for (j = 0; j < p->nmetrics; j++) {
		jsonw_raw(out, j ? "," : "");
		plist_metric(out, &p->metrics[j], 1);
	}
	jsonw_raw(out, "]");
	plist_opt_metric(out, "default_metric", &p->default_metric);
	jsonw_mint(out, "period", p->period);
	plist_opt_metric(out, "period_type", &p->period_type);
	jsonw_raw(out, ",\"labels\":{");
	for (j = 0; j < p->nlabels; j++) {
		jsonw_raw(out, j ? "," : "");
		jsonw_key(out, p->label_keys[j]);
		jsonw_str(out, p->label_values[j]);
	}
	jsonw_raw(out, "},\"comments\":[");
	for (j = 0; j < p->ncomments; j++) {
		jsonw_raw(out, j ? "," : "");
		jsonw_str(out, p->comments[j]);
	}
	jsonw_raw(out, "]");
	jsonw_mint(out, "bytes", p->bytes);
	jsonw_mstr(out, "doc_url", p->doc_url);
	jsonw_raw(out, "}");
}

/* The filter of the request's selection over the store: the scope's id
 * and its metric's (ERR_NOT_FOUND, ERR_INPUT as the views answer). */
static int
profiles_filter(struct store *st, const struct plist_req *r,
    struct store_plist *q, struct error *err)
{
	const struct selection *sel = &r->sel;
	char *type, *unit;

	memset(q, 0, sizeof *q);
	if ((q->scope_id = store_scope(st, sel->scopes[0], 0, err)) == -1)
		return -1;
	if (q->scope_id == 0)
		return error_set(err, ERR_NOT_FOUND, "unknown scope \"%s\"",
		    sel->scopes[0]);
	if (sel->metric != NULL) {
		type = xstrdup(sel->metric);
		if ((unit = strchr(type, '/')) != NULL)
			*unit++ = '\0';
		q->metric_id = store_scope_metric(st, q->scope_id, type, unit,
		    err);
		free(type);
		if (q->metric_id == -1)
			return -1;
		if (q->metric_id == 0)
			return error_set(err, ERR_INPUT, "metric: scope \"%s\" "
			    "has no metric \"%s\" (GET /v1/scopes lists them)",
			    sel->scopes[0], sel->metric);
	}
	selection_window(sel, &q->since_s, &q->until_s);
	q->after_ns = r->after_ns;
	q->after_id = r->after_id;
	q->profiles = sel->profiles;
	q->nprofiles = sel->nprofiles;
	q->labels = sel->labels;
	q->nlabels = sel->nlabels;
	q->limit = (size_t)r->limit;
	q->scan = PROFILES_SCAN;
	return 0;
}

static void
profiles_work(struct api_call *call, void *worker)
{
	struct query_worker *w = worker;
	const struct plist_req *r = call->data;
	struct store_plist q;
	struct store_plist_page pg;
	struct buf out = { 0 };
	char cursor[64];
	size_t i;

	if (profiles_filter(w->store, r, &q, &call->err) == -1 ||
	    store_plist(w->store, &q, &pg, &call->err) == -1)
		return;
	jsonw_raw(&out, "{");
	jsonw_key(&out, "scope");
	jsonw_str(&out, r->sel.scopes[0]);
	jsonw_raw(&out, ",\"profiles\":[");
	for (i = 0; i < pg.n; i++) {
		jsonw_raw(&out, i ? "," : "");
		plist_row(&out, &pg.v[i]);
	}
	jsonw_raw(&out, "]");
	if (pg.more) {
		snprintf(cursor, sizeof cursor, "%lld.%lld",
		    (long long)pg.next_ns, (long long)pg.next_id);
		jsonw_mstr(&out, "next_cursor", cursor);
	}
	jsonw_raw(&out, "}");
	buf_add(&out, "", 1);
	store_plist_page_clear(&pg);
	api_result_text(call, 200, "application/json", (char *)out.p);
}

/* cursor=: what a page's next_cursor said, TIME_NS.ID. */
static int
profiles_cursor(struct api_call *call, struct plist_req *r)
{
	const char *s = api_param(call, "cursor");
	long long t, id;
	char *end;

	if (s == NULL)
		return 0;
	errno = 0;
	t = strtoll(s, &end, 10);
	if (end != s && *end == '.' && errno == 0) {
		s = end + 1;
		id = strtoll(s, &end, 10);
		if (end != s && *end == '\0' && errno == 0 && id > 0) {
			r->after_ns = t;
			r->after_id = id;
			return 0;
		}
	}
	api_error(call, 400, "cursor: \"%.64s\" is not a cursor of "
	    "/v1/profiles (pass a reply's next_cursor as it came)",
	    api_param(call, "cursor"));
	return -1;
}

void
api_profiles_get(struct api_call *call)
{
	struct plist_req *r = xcalloc(1, sizeof *r);

	call->data = r;
	call->free_data = plist_req_free;
	if (api_selection(call, &r->sel, NULL) == -1)
		return;
	if (r->sel.nscopes != 1) {
		api_error(call, 400, "scope: given %zu times (GET /v1/profiles "
		    "lists one scope's profiles)", r->sel.nscopes);
		return;
	}
	if (api_limit(call, &r->limit) == -1 || profiles_cursor(call, r) == -1)
		return;
	if (r->limit == -1)
		r->limit = PROFILES_LIMIT;
	if (r->limit < 1 || r->limit > PROFILES_LIMIT_MAX) {
		api_error(call, 400, "limit: %lld rows; a page holds 1 to %d",
		    r->limit, PROFILES_LIMIT_MAX);
		return;
	}
	api_submit(call, API_QUERY, profiles_work);
}
