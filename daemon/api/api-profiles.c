/* api-profiles.c: POST /v1/profiles (push a blob: its parameters here,
 * its import intake/push.c's) and GET /v1/profiles (the profiles of a
 * scope, each metric with its kind). */
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "import.h"
#include "kind.h"
#include "push.h"
#include "query.h"
#include "scopename.h"
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

static json_t *
opt_metric_json(const struct store_metric *m)
{
	return m->id ? api_metric_json(m->type, m->unit) : json_null();
}

static void
profiles_work(struct api_call *call, void *worker)
{
	struct query_worker *w = worker;
	struct store_profile_info *v;
	size_t n, i, j;
	json_t *arr;

	if (store_profiles(w->store, call->data, &v, &n, &call->err) == -1)
		return;
	arr = json_array();
	for (i = 0; i < n; i++) {
		json_t *labels = json_object(), *comments = json_array();
		json_t *dropped = json_object();

		for (j = 0; j < v[i].nlabels; j++)
			json_object_set_new(labels, v[i].label_keys[j],
			    json_string(v[i].label_values[j]));
		for (j = 0; j < v[i].ncomments; j++)
			json_array_append_new(comments,
			    json_string(v[i].comments[j]));
		for (j = 0; j < v[i].ncounts; j++)
			json_object_set_new(dropped, v[i].counts[j].name,
			    json_integer((json_int_t)v[i].counts[j].n));
		json_array_append_new(arr, json_pack("{s:I, s:s, s:s, s:o, "
		    "s:I, s:I, s:o, s:I, s:I, s:I, s:o, s:o, s:o, s:I, s:o, "
		    "s:o, s:o, s:I, s:s}",
		    "id", (json_int_t)v[i].id,
		    "name", v[i].name,
		    "format", v[i].format,
		    "time", api_time_json(v[i].time_ns),
		    "time_ns", (json_int_t)v[i].time_ns,
		    "duration_ns", (json_int_t)v[i].duration_ns,
		    "imported", api_time_json(v[i].imported_ns),
		    "imported_ns", (json_int_t)v[i].imported_ns,
		    "samples", (json_int_t)v[i].samples,
		    "dropped_samples", (json_int_t)v[i].dropped_samples,
		    "dropped", dropped,
		    "metrics", metrics_json(v[i].metrics, v[i].nmetrics),
		    "default_metric", opt_metric_json(&v[i].default_metric),
		    "period", (json_int_t)v[i].period,
		    "period_type", opt_metric_json(&v[i].period_type),
		    "labels", labels,
		    "comments", comments,
		    "bytes", (json_int_t)v[i].bytes,
		    "doc_url", v[i].doc_url));
	}
	store_profile_info_free(v, n);
	api_result(call, 200, json_pack("{s:s, s:o}", "scope",
	    (const char *)call->data, "profiles", arr));
}

void
api_profiles_get(struct api_call *call)
{
	const char *scope = api_param(call, "scope");

	if (scope == NULL || !scope_name_valid(scope)) {
		api_error(call, 400, "scope: %s", scope ? "not a valid scope "
		    "name" : "missing (GET /v1/profiles?scope=NAME)");
		return;
	}
	call->data = xstrdup(scope);
	call->free_data = free;
	api_submit(call, API_QUERY, profiles_work);
}
