/* push.c: one blob imported as a push (push.h): an import request made of
 * the push, its activity and counts, an upload's file opened and then
 * removed. */
#include <sys/uio.h>

#include <event2/buffer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activity.h"
#include "alloc.h"
#include "kind.h"
#include "mstr.h"
#include "push.h"
#include "uploads.h"

void
push_clear(struct push *p)
{
	size_t i;

	free(p->scope);
	free(p->upload);
	free(p->metric_type);
	free(p->metric_unit);
	free(p->format);
	free(p->name);
	for (i = 0; i < p->nlabels; i++) {
		free(p->labels[i].key);
		free(p->labels[i].value);
	}
	free(p->labels);
	for (i = 0; i < p->nkinds; i++) {
		free(p->kinds[i].type);
		free(p->kinds[i].unit);
	}
	free(p->kinds);
	for (i = 0; i < p->nkeep; i++) {
		free(p->keep[i].type);
		free(p->keep[i].unit);
	}
	free(p->keep);
	if (p->body != NULL)
		evbuffer_free(p->body);
	memset(p, 0, sizeof *p);
}

void
push_free(void *arg)
{
	push_clear(arg);
	free(arg);
}

void
push_label(struct push *p, const char *key, size_t keylen,
    const char *value, size_t valuelen)
{
	size_t i;

	for (i = 0; i < p->nlabels; i++)
		if (strlen(p->labels[i].key) == keylen &&
		    memcmp(p->labels[i].key, key, keylen) == 0) {
			free(p->labels[i].value);
			p->labels[i].value = xstrndup(value, valuelen);
			return;
		}
	p->labels = xreallocarray(p->labels, p->nlabels + 1,
	    sizeof *p->labels);
	p->labels[p->nlabels].key = xstrndup(key, keylen);
	p->labels[p->nlabels].value = xstrndup(value, valuelen);
	p->nlabels++;
}

/* The metric at spec (n bytes): TYPE or TYPE/UNIT, neither empty; its
 * type's length into *typelen and its unit (NULL: none given) into
 * *unit, to free.  -1 for anything else. */
static int
push_metric_parse(const char *spec, size_t n, size_t *typelen, char **unit)
{
	const char *slash = memchr(spec, '/', n);

	if (n == 0 || slash == spec || (slash != NULL && slash + 1 ==
	    spec + n))
		return -1;
	*typelen = slash ? (size_t)(slash - spec) : n;
	*unit = slash ? xstrndup(slash + 1, (size_t)(spec + n - slash - 1)) :
	    NULL;
	return 0;
}

int
push_kind(struct push *p, const char *spec, struct error *err)
{
	const char *colon = strrchr(spec, ':');
	enum metric_kind kind;
	size_t typelen;
	char *unit;

	/* The kind's name has no ':', a metric's type might. */
	if (colon == NULL || colon == spec)
		return error_set(err, ERR_INPUT, "\"%s\" is not METRIC:KIND "
		    "(e.g. alloc_space:cumulative)", spec);
	if (kind_parse(colon + 1, strlen(colon + 1), &kind) == -1)
		return error_set(err, ERR_INPUT, "\"%s\": the kind is one of "
		    "delta, cumulative, gauge", spec);
	if (push_metric_parse(spec, (size_t)(colon - spec), &typelen,
	    &unit) == -1)
		return error_set(err, ERR_INPUT, "\"%s\": the metric is TYPE "
		    "or TYPE/UNIT", spec);
	push_kind_set(p, spec, typelen, unit, kind);
	free(unit);
	return 0;
}

void
push_kind_set(struct push *p, const char *type, size_t typelen,
    const char *unit, enum metric_kind kind)
{
	struct import_kind *k;

	p->kinds = xreallocarray(p->kinds, p->nkinds + 1, sizeof *p->kinds);
	k = &p->kinds[p->nkinds++];
	k->type = xstrndup(type, typelen);
	k->unit = unit ? xstrdup(unit) : NULL;
	k->kind = kind;
}

void
push_kind_go_differenced(struct push *p)
{
	enum metric_kind kind;
	const char *type;
	size_t i;

	for (i = 0; (type = kind_go_type(i, &kind)) != NULL; i++)
		push_kind_set(p, type, strlen(type), NULL,
		    kind == KIND_CUMULATIVE ? KIND_DELTA : kind);
}

int
push_keep(struct push *p, const char *spec, struct error *err)
{
	size_t typelen;
	char *unit;

	if (push_metric_parse(spec, strlen(spec), &typelen, &unit) == -1)
		return error_set(err, ERR_INPUT, "\"%s\" is not TYPE or "
		    "TYPE/UNIT (e.g. inuse_space)", spec);
	push_keep_set(p, spec, typelen, unit);
	free(unit);
	return 0;
}

void
push_keep_set(struct push *p, const char *type, size_t typelen,
    const char *unit)
{
	struct import_metric *m;

	p->keep = xreallocarray(p->keep, p->nkeep + 1, sizeof *p->keep);
	m = &p->keep[p->nkeep++];
	m->type = xstrndup(type, typelen);
	m->unit = unit ? xstrdup(unit) : NULL;
}

static void
push_count(const struct push_env *env, int ok)
{
	atomic_fetch_add(ok ? env->done : env->failed, 1);
}

/* The upload is removed once stored or refused; kept when the store could
 * not take it for now (a full disk: 507, busy: 503), so the client sends
 * the same POST again instead of the whole upload. */
static void
push_upload_done(const struct push_env *env, struct push *p, int rc,
    struct error *err)
{
	struct error rm = { 0 };
	size_t n;

	if (rc == -1 && (err->kind == ERR_NO_SPACE || err->kind == ERR_BUSY)) {
		n = strlen(err->msg);
		snprintf(err->msg + n, sizeof err->msg - n, " (upload "
		    "%s is kept: send the same request again later)",
		    p->upload);
		return;
	}
	(void)uploads_remove(env->uploads, p->upload, &rm);
}

/* The body decoded to its end: freed now, not after the import (the
 * worker owns it; a 50 MB profile's 11 MB of gzip). */
static void
push_body_read(void *arg)
{
	struct push *p = arg;

	evbuffer_free(p->body);
	p->body = NULL;
}

int
push_run(const struct push_env *env, struct import_worker *w, struct push *p,
    struct import_result *res, struct error *err)
{
	struct import_request req;
	struct activity *act = env->activity;
	enum activity_source src = p->upload ? ACT_UPLOAD : p->source;
	size_t len = p->body != NULL ? evbuffer_get_length(p->body) : p->len;
	struct evbuffer_iovec *iov = NULL;
	char salt[48];
	int rc, n;

	memset(&req, 0, sizeof req);
	req.fd = -1;
	if (p->upload != NULL &&
	    (req.fd = uploads_open_read(env->uploads, p->upload, err)) == -1) {
		push_count(env, 0);
		activity_end(act, src, p->name, p->scope, err);
		return -1;
	}
	req.scope = p->scope;
	req.format = p->format;
	req.name = p->name;
	req.labels = p->labels;
	req.nlabels = p->nlabels;
	req.kinds = p->kinds;
	req.nkinds = p->nkinds;
	req.keep = p->keep;
	req.nkeep = p->nkeep;
	req.opts.metric_type = mstr_from(p->metric_type);
	req.opts.metric_unit = mstr_from(p->metric_unit);
	req.opts.scale = p->scale;
	req.opts.bucket_ns = p->bucket_ns;
	req.opts.part = p->part;
	req.opts.otlp = p->otlp;
	req.digest = p->digest;
	req.time_ns = p->time_ns;
	req.duration_ns = p->duration_ns;
	/* Folded text has no time of its own: the same stacks pushed for
	 * two time ranges are two profiles, not a duplicate. */
	if (p->format != NULL && strcmp(p->format, "folded") == 0 &&
	    p->time_ns != 0) {
		snprintf(salt, sizeof salt, "folded at %lld for %lld\n",
		    (long long)p->time_ns, (long long)p->duration_ns);
		req.salt = (const uint8_t *)salt;
		req.salt_len = strlen(salt);
	}
	/* The Profiles of one OTLP request are as many profiles. */
	if (p->part > 0) {
		snprintf(salt, sizeof salt, "otlp profile %lld\n",
		    (long long)p->part);
		req.salt = (const uint8_t *)salt;
		req.salt_len = strlen(salt);
	}
	/* The body as it came, in the pieces libevent read it into: one
	 * contiguous copy would cost its size again for the whole import. */
	req.data = p->body == NULL && p->data != NULL ? p->data :
	    (const uint8_t *)"";
	req.len = len;
	if (p->body != NULL && len > 0 &&
	    (n = evbuffer_peek(p->body, -1, NULL, NULL, 0)) > 0) {
		/* evbuffer_iovec is struct iovec where sys/uio.h exists. */
		iov = xreallocarray(NULL, (size_t)n, sizeof *iov);
		evbuffer_peek(p->body, -1, NULL, iov, n);
		req.iov = iov;
		req.niov = (size_t)n;
	}
	activity_begin(act, src, p->name, p->scope, req.fd,
	    req.fd == -1 ? (int64_t)len : -1);
	req.progress = activity_progress(act);
	if (req.niov > 0) {
		req.read_all = push_body_read;
		req.read_all_arg = p;
	}
	rc = importer_run(w->importer, &req, res, err);
	free(iov);
	activity_end(act, src, p->name, p->scope, rc == -1 ? err : NULL);
	if (req.fd != -1)
		close(req.fd);
	if (p->upload != NULL)
		push_upload_done(env, p, rc, err);
	push_count(env, rc == 0);
	return rc;
}
