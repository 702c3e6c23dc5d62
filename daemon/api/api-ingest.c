/* api-ingest.c: POST /ingest, Pyroscope's push API, as pyroscope-go, the
 * Node.js client and other Pyroscope agents send it.
 *
 * name=APP[.TYPE]{k=v,...}: the scope is APP with a profile type suffix
 * Pyroscope's clients add (.cpu, .alloc_objects, ...) removed, the tags
 * become labels (and spyName the label pyroscope_spy).  from and until
 * are Unix times in s, ms, us or ns, told apart by their digits as
 * Pyroscope's attime does (13: ms, 16: us, 19: ns, else s).  The body is
 * folded text ("groups", the default; format=lines: one stack a line,
 * each counting 1), or a pprof: format=pprof, or any body sent as
 * multipart/form-data, whose "profile" part is the pprof.  Folded
 * counts are what units says: samples (the default) are CPU samples at
 * sampleRate Hz, stored as cpu/nanoseconds (count * 1e9 / sampleRate, as
 * pprof's cpu profile reads); objects, bytes, goroutines, lock_samples
 * and lock_nanoseconds keep their count under the metric the profile
 * type names.  A pprof keeps its own sample types, of the kinds its
 * sample_type_config says (else inferred); a folded body's metric is a
 * gauge with aggregationType=average (docs/TIME.md).
 *
 * Status codes as Pyroscope's: 400 for bad parameters, 413 past
 * max-body, 422 for a body that does not read as its format; 200 for a
 * stored profile (pyroscope-go takes anything else as a failure). */
#include <event2/buffer.h>
#include <event2/http.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api-pyro.h"
#include "buf.h"
#include "clock.h"
#include "http-error.h"
#include "jsonlim.h"
#include "kind.h"
#include "multipart.h"
#include "scopename.h"

/* sample_type_config is a few hundred bytes in every client
 * (pyroscope-go's: four sample types of {"units", "aggregation"}, 2 deep,
 * some 20 values): bounds a hundred times that keep its tree small. */
#define INGEST_STC_MAX		(64u << 10)
static const struct jsonlim ingest_stc_lim = { 16, 4096, INGEST_STC_MAX };

struct ingest {
	struct push p;
	const char *format;		/* folded, lines or pprof */
	char boundary[MULTIPART_MAX_BOUNDARY + 1];	/* "": not multipart */
	struct evbuffer *body;
};

static void
ingest_free(void *arg)
{
	struct ingest *in = arg;

	push_clear(&in->p);
	if (in->body != NULL)
		evbuffer_free(in->body);
	free(in);
}

/* The profile type suffixes Pyroscope's clients put after the app name:
 * pyroscope-go's, the Node client's, the Java agent's, with the metric
 * of a folded body of each and the units its counts are in when the
 * push does not say. */
static const struct suffix {
	const char *suffix, *type, *units;
} suffixes[] = {
	{ "cpu", "cpu", "samples" }, { "itimer", "cpu", "samples" },
	{ "wall", "wall", "samples" },
	{ "alloc_objects", "alloc_objects", "objects" },
	{ "alloc_space", "alloc_space", "bytes" },
	{ "inuse_objects", "inuse_objects", "objects" },
	{ "inuse_space", "inuse_space", "bytes" },
	{ "goroutines", "goroutine", "goroutines" },
	{ "mutex_count", "contentions", "lock_samples" },
	{ "mutex_duration", "delay", "lock_nanoseconds" },
	{ "block_count", "contentions", "lock_samples" },
	{ "block_duration", "delay", "lock_nanoseconds" },
	{ "lock_count", "contentions", "lock_samples" },
	{ "lock_duration", "delay", "lock_nanoseconds" },
	{ "alloc_in_new_tlab_objects", "alloc_in_new_tlab_objects",
	    "objects" },
	{ "alloc_in_new_tlab_bytes", "alloc_in_new_tlab_bytes", "bytes" },
	{ "alloc_outside_tlab_objects", "alloc_outside_tlab_objects",
	    "objects" },
	{ "alloc_outside_tlab_bytes", "alloc_outside_tlab_bytes", "bytes" },
};

/* name=APP.TYPE{k=v,...}: scope, the suffix's row (or NULL) and labels. */
static int
ingest_name(struct api_call *call, struct ingest *in, const char *name,
    const struct suffix **sfx)
{
	const char *brace = strchr(name, '{'), *end, *p, *q, *eq;
	char *app;
	size_t n, i;

	*sfx = NULL;
	end = brace ? brace : name + strlen(name);
	while (end > name && end[-1] == ' ')
		end--;
	while (*name == ' ')
		name++;
	app = xstrndup(name, end > name ? (size_t)(end - name) : 0);
	if ((q = strrchr(app, '.')) != NULL)
		for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
			if (strcmp(q + 1, suffixes[i].suffix) == 0) {
				app[q - app] = '\0';
				*sfx = &suffixes[i];
				break;
			}
	if (!scope_name_valid(app)) {
		api_error(call, 400, "name: the application name \"%s\" is "
		    "not a valid scope name ([A-Za-z0-9._-], 1 to 128 "
		    "characters)", app);
		free(app);
		return -1;
	}
	in->p.scope = app;
	if (brace == NULL)
		return 0;
	n = strlen(brace);
	if (brace[n - 1] != '}') {
		api_error(call, 400, "name: the tags \"%s\" do not end in }",
		    brace);
		return -1;
	}
	for (p = brace + 1; p < brace + n - 1; p = q + 1) {
		const char *k, *ke, *v, *ve;

		if ((q = memchr(p, ',', (size_t)(brace + n - 1 - p))) == NULL)
			q = brace + n - 1;
		if ((eq = memchr(p, '=', (size_t)(q - p))) == NULL) {
			/* "app{}" and a trailing comma have empty tags. */
			for (k = p; k < q && *k == ' '; k++)
				;
			if (k == q)
				continue;
			api_error(call, 400, "name: the tag \"%.*s\" is not "
			    "KEY=VALUE", (int)(q - p), p);
			return -1;
		}
		for (k = p; k < eq && *k == ' '; k++)
			;
		for (ke = eq; ke > k && ke[-1] == ' '; ke--)
			;
		for (v = eq + 1; v < q && *v == ' '; v++)
			;
		for (ve = q; ve > v && ve[-1] == ' '; ve--)
			;
		if (!api_pyro_label_name_valid(k, (size_t)(ke - k))) {
			api_error(call, 400, "name: the tag name \"%.*s\" is "
			    "not [A-Za-z_][A-Za-z0-9_.]*", (int)(ke - k), k);
			return -1;
		}
		push_label(&in->p, k, (size_t)(ke - k), v, (size_t)(ve - v));
	}
	return 0;
}

/* from/until: Unix time in s, ms, us or ns by its digits (Pyroscope's
 * attime); absent: now. */
static int
ingest_time(struct api_call *call, const char *key, int64_t *ns)
{
	const char *s = api_param(call, key);
	size_t n, i;
	int64_t v = 0, mul;

	if (s == NULL || *s == '\0') {
		*ns = now_ns();
		return 0;
	}
	n = strlen(s);
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - 9) / 10)
			goto bad;
		v = v * 10 + (s[i] - '0');
	}
	mul = n == 19 ? 1 : n == 16 ? 1000 : n == 13 ? 1000000 : 1000000000;
	if (v > INT64_MAX / mul)
		goto bad;
	*ns = v * mul;
	return 0;
bad:
	api_error(call, 400, "%s: \"%s\" is not a Unix time (seconds, or "
	    "13 digits of ms, 16 of us, 19 of ns)", key, s);
	return -1;
}

/* The metric a folded body's counts in units are stored as, type the
 * suffix's (NULL: none); -1 for units that are none of Pyroscope's. */
static int
units_metric(const char *type, const char *units, const char **mtype,
    const char **munit)
{
	if (units == NULL || *units == '\0' || strcmp(units, "samples") == 0) {
		*mtype = type && strcmp(type, "wall") == 0 ? "wall" : "cpu";
		*munit = "nanoseconds";
	} else if (strcmp(units, "objects") == 0) {
		*mtype = type ? type : "objects";
		*munit = "count";
	} else if (strcmp(units, "bytes") == 0) {
		*mtype = type ? type : "space";
		*munit = "bytes";
	} else if (strcmp(units, "goroutines") == 0) {
		*mtype = "goroutine";
		*munit = "count";
	} else if (strcmp(units, "lock_samples") == 0) {
		*mtype = "contentions";
		*munit = "count";
	} else if (strcmp(units, "lock_nanoseconds") == 0) {
		*mtype = "delay";
		*munit = "nanoseconds";
	} else
		return -1;
	return 0;
}

int
api_pyro_suffix(const char *suffix, const char **type, const char **unit)
{
	size_t i;

	for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
		if (strcmp(suffix, suffixes[i].suffix) == 0)
			return units_metric(suffixes[i].type, suffixes[i].units,
			    type, unit);
	return -1;
}

/* What a folded body's counts are: units, sampleRate, the suffix. */
static int
ingest_metric(struct api_call *call, struct ingest *in,
    const struct suffix *sfx)
{
	const char *units = api_param(call, "units");
	const char *rate = api_param(call, "sampleRate");
	const char *mtype, *munit;
	long long hz = 100;		/* Pyroscope's DefaultSampleRate */
	char *end;

	if (rate != NULL && *rate != '\0') {
		hz = strtoll(rate, &end, 10);
		if (*end != '\0' || hz <= 0 || hz > 1000000000) {
			api_error(call, 400, "sampleRate: \"%s\" is not a rate "
			    "in Hz (1 to 1000000000)", rate);
			return -1;
		}
	}
	if ((units == NULL || *units == '\0') && sfx != NULL)
		units = sfx->units;
	if (units_metric(sfx ? sfx->type : NULL, units, &mtype, &munit) == -1) {
		api_error(call, 400, "units: \"%s\" is not one of samples, "
		    "objects, bytes, goroutines, lock_samples, "
		    "lock_nanoseconds", units);
		return -1;
	}
	in->p.metric_type = xstrdup(mtype);
	in->p.metric_unit = xstrdup(munit);
	if (strcmp(munit, "nanoseconds") == 0 && (strcmp(mtype, "cpu") == 0 ||
	    strcmp(mtype, "wall") == 0))
		in->p.scale = 1000000000 / hz;
	return 0;
}

/* format (and Content-Type) as Pyroscope reads them. */
static int
ingest_format(struct api_call *call, struct ingest *in)
{
	const char *f = api_param(call, "format");
	const char *ct = evhttp_find_header(evhttp_request_get_input_headers(
	    call->req), "Content-Type");
	struct error err = { 0 };

	if (ct != NULL && strncmp(ct, "binary/octet-stream+", 20) == 0 &&
	    (f == NULL || *f == '\0'))
		f = ct + 20;
	if (f == NULL || *f == '\0' || strcmp(f, "groups") == 0 ||
	    strcmp(f, "folded") == 0)
		in->format = "folded";
	else if (strcmp(f, "lines") == 0)
		in->format = "lines";
	else if (strcmp(f, "pprof") == 0)
		in->format = "pprof";
	else {
		api_error(call, 400, "format: \"%s\" is not taken (profd "
		    "takes folded (groups), lines and pprof; trie, tree, jfr "
		    "and speedscope are not)", f);
		return -1;
	}
	if (multipart_is_form(ct)) {
		if (strcmp(in->format, "lines") == 0) {
			api_error(call, 400, "format: lines is not sent as "
			    "multipart/form-data");
			return -1;
		}
		if (multipart_boundary(ct, in->boundary, &err) == -1) {
			api_error(call, 400, "Content-Type: %s", err.msg);
			return -1;
		}
		in->format = "pprof";
	}
	return 0;
}

/* format=lines: each line a stack whose count is 1, as folded text. */
static char *
ingest_lines(const uint8_t *data, size_t len, size_t *outlen)
{
	struct buf b = { 0 };
	const uint8_t *p = data, *end = data + len, *eol, *e;

	while (p < end) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		for (e = eol; e > p && (e[-1] == '\r' || e[-1] == ' ' ||
		    e[-1] == '\t'); e--)
			;
		if (e > p) {
			buf_add(&b, p, (size_t)(e - p));
			buf_add(&b, " 1\n", 3);
		}
		p = eol + (eol < end);
	}
	*outlen = b.n;
	return (char *)b.p;
}

/* The kinds a sample_type_config says (Pyroscope's SampleType): an
 * "aggregation" of "average" is a gauge, "cumulative": true a counter
 * (with a prev_profile, by old clients), any other a delta: pyroscope-go's
 * godeltaprof sends heap, mutex and block profiles whose counters are
 * differences already, without a duration that would say so. */
static void
ingest_stc_kinds(json_t *cfg, struct push *p)
{
	const char *type;
	json_t *v, *agg;
	enum metric_kind kind;

	json_object_foreach(cfg, type, v) {
		if (!json_is_object(v))
			continue;
		agg = json_object_get(v, "aggregation");
		if (json_is_string(agg) && strcmp(json_string_value(agg),
		    "average") == 0)
			kind = KIND_GAUGE;
		else if (json_is_true(json_object_get(v, "cumulative")))
			kind = KIND_CUMULATIVE;
		else
			kind = KIND_DELTA;
		push_kind_set(p, type, strlen(type), NULL, kind);
	}
}

/* The sample_type_config part must be a JSON object; the pprof's own
 * sample types name its metrics, the config their kinds. */
static int
ingest_stc(const struct mpart *stc, struct push *p, struct error *err)
{
	struct error e = { 0 };
	json_t *cfg;
	int ok;

	if (stc->len > INGEST_STC_MAX)
		return error_set(err, ERR_TOO_LARGE, "multipart: "
		    "sample_type_config is %zu bytes (at most %u)", stc->len,
		    INGEST_STC_MAX);
	if (jsonlim_check(stc->data, stc->len, &ingest_stc_lim, &e) == -1)
		return error_set(err, e.kind, "multipart: sample_type_config: "
		    "%.400s", e.msg);
	cfg = json_loadb((const char *)stc->data, stc->len, 0, NULL);
	if ((ok = json_is_object(cfg)))
		ingest_stc_kinds(cfg, p);
	json_decref(cfg);
	if (!ok)
		return error_set(err, ERR_INPUT, "multipart: "
		    "sample_type_config is not a JSON object");
	return 0;
}

static void
ingest_fail(struct api_call *call, int status)
{
	json_t *body = json_pack("{s:s, s:s}", "error",
	    http_error_kind(status), "detail", call->err.msg);

	memset(&call->err, 0, sizeof call->err);
	api_result(call, status, body);
}

static void
ingest_work(struct api_call *call, void *worker)
{
	struct ingest *in = call->data;
	struct mpart parts[MULTIPART_MAX_PARTS];
	const struct mpart *prof, *stc;
	struct import_result res;
	size_t len = evbuffer_get_length(in->body), n, flen;
	const uint8_t *data = len ? evbuffer_pullup(in->body, -1) :
	    (const uint8_t *)"";
	char *folded = NULL;
	int rc;

	if (in->boundary[0] != '\0') {
		if (multipart_parse(data, len, in->boundary, parts,
		    MULTIPART_MAX_PARTS, &n, &call->err) == -1)
			return ingest_fail(call, 422);
		if ((prof = multipart_find(parts, n, "profile")) == NULL) {
			error_set(&call->err, ERR_INPUT, "multipart: no "
			    "\"profile\" part");
			return ingest_fail(call, 422);
		}
		if ((stc = multipart_find(parts, n, "sample_type_config")) !=
		    NULL && ingest_stc(stc, &in->p, &call->err) == -1)
			return ingest_fail(call, call->err.kind ==
			    ERR_TOO_LARGE ? 413 : 422);
		data = prof->data;
		len = prof->len;
	}
	if (strcmp(in->format, "lines") == 0) {
		folded = ingest_lines(data, len, &flen);
		data = folded ? (const uint8_t *)folded : (const uint8_t *)"";
		len = flen;
	}
	in->p.format = xstrdup(strcmp(in->format, "pprof") == 0 ? "pprof" :
	    "folded");
	in->p.data = data;
	in->p.len = len;
	rc = api_pyro_import(call, worker, &in->p, &res, &call->err);
	free(folded);
	if (rc == -1) {
		if (call->err.kind == ERR_INPUT)
			ingest_fail(call, 422);
		return;
	}
	api_result(call, 200, json_pack("{s:I, s:s, s:s, s:I, s:b}",
	    "profile_id", (json_int_t)res.profile_id, "scope", in->p.scope,
	    "format", res.format, "samples", (json_int_t)res.samples,
	    "duplicate", res.duplicate));
	import_result_clear(&res);
}

void
api_ingest_post(struct api_call *call)
{
	struct ingest *in;
	const struct suffix *sfx;
	const char *name = api_param(call, "name");
	const char *spy = api_param(call, "spyName");
	const char *agg = api_param(call, "aggregationType");
	int64_t until;

	if (name == NULL || *name == '\0') {
		api_error(call, 400, "name: missing (POST "
		    "/ingest?name=APP.cpu{key=value,...})");
		return;
	}
	in = xcalloc(1, sizeof *in);
	call->data = in;
	call->free_data = ingest_free;
	in->p.name = xstrdup(name);
	if (ingest_name(call, in, name, &sfx) == -1 ||
	    ingest_time(call, "from", &in->p.time_ns) == -1 ||
	    ingest_time(call, "until", &until) == -1 ||
	    ingest_format(call, in) == -1 ||
	    (strcmp(in->format, "pprof") != 0 &&
	    ingest_metric(call, in, sfx) == -1))
		return;
	if (until < in->p.time_ns) {
		api_error(call, 400, "until is before from");
		return;
	}
	in->p.duration_ns = until - in->p.time_ns;
	if (agg != NULL && *agg != '\0' && strcmp(agg, "sum") != 0 &&
	    strcmp(agg, "average") != 0) {
		api_error(call, 400, "aggregationType: \"%s\" is not sum or "
		    "average", agg);
		return;
	}
	/* A folded body's one metric averaged over a window is a gauge (a
	 * pprof's kinds are its sample_type_config's, else inferred). */
	if (agg != NULL && strcmp(agg, "average") == 0 &&
	    in->p.metric_type != NULL)
		push_kind_set(&in->p, in->p.metric_type,
		    strlen(in->p.metric_type), in->p.metric_unit, KIND_GAUGE);
	if (spy != NULL && *spy != '\0')
		push_label(&in->p, "pyroscope_spy", 13, spy, strlen(spy));
	in->body = evbuffer_new();
	evbuffer_add_buffer(in->body, evhttp_request_get_input_buffer(
	    call->req));
	if (evbuffer_get_length(in->body) == 0) {
		api_error(call, 400, "the request body is empty");
		return;
	}
	api_submit(call, API_IMPORT, ingest_work);
}
