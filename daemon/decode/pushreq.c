/* pushreq.c: push.v1.PushRequest from protobuf (through pb.c's field
 * loop) or from Connect's JSON form (protojson: bytes as base64, standard
 * or URL-safe, padded or not; field names in lowerCamelCase or as in the
 * .proto). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "b64.h"
#include "jsonlim.h"
#include "pb.h"
#include "pushreq.h"

void
pushreq_clear(struct pushreq *r)
{
	size_t i, j;

	for (i = 0; i < r->nseries; i++) {
		struct pushreq_series *s = &r->series[i];

		for (j = 0; j < s->nlabels; j++) {
			free(s->labels[j].name);
			free(s->labels[j].value);
		}
		free(s->labels);
		for (j = 0; j < s->nsamples; j++) {
			free(s->samples[j].own);
			free(s->samples[j].id);
		}
		free(s->samples);
	}
	free(r->series);
	memset(r, 0, sizeof *r);
}

const char *
pushreq_label(const struct pushreq_series *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nlabels; i++)
		if (strcmp(s->labels[i].name, name) == 0)
			return s->labels[i].value;
	return NULL;
}

/* A string field's bytes as a C string: UTF-8 without NUL, as proto3
 * strings are (and as they go into JSON replies). */
static char *
pushreq_str(const uint8_t *p, size_t n, const char *what, struct error *err)
{
	json_t *valid;

	/* jansson refuses a string that is not UTF-8: its check, not one
	 * more of our own. */
	if (memchr(p, '\0', n) != NULL ||
	    (valid = json_stringn((const char *)p, n)) == NULL) {
		error_set(err, ERR_INPUT, "PushRequest: %s is not UTF-8 "
		    "without NUL", what);
		return NULL;
	}
	json_decref(valid);
	return xstrndup((const char *)p, n);
}

/* One more zeroed element of *v (of size bytes, *n of them), or NULL
 * with err once count (what the bound counts) reached max. */
static void *
pushreq_grow(void *v, size_t *n, size_t size, size_t *count, size_t max,
    const char *what, struct error *err)
{
	void **vp = v;
	char *at;

	if (*count == max) {
		error_set(err, ERR_TOO_LARGE, "PushRequest: more than %zu %s",
		    max, what);
		return NULL;
	}
	(*count)++;
	*vp = xreallocarray(*vp, *n + 1, size);
	at = (char *)*vp + *n * size;
	memset(at, 0, size);
	(*n)++;
	return at;
}

static struct pushreq_series *
pushreq_series_add(struct pushreq *r, struct error *err)
{
	size_t count = r->nseries;

	return pushreq_grow(&r->series, &r->nseries, sizeof *r->series,
	    &count, PUSHREQ_MAX_SERIES, "series", err);
}

static struct pushreq_label *
pushreq_label_add(struct pushreq_series *s, struct error *err)
{
	size_t count = s->nlabels;

	return pushreq_grow(&s->labels, &s->nlabels, sizeof *s->labels,
	    &count, PUSHREQ_MAX_LABELS, "labels in a series", err);
}

static struct pushreq_sample *
pushreq_sample_add(struct pushreq *r, struct pushreq_series *s,
    struct error *err)
{
	return pushreq_grow(&s->samples, &s->nsamples, sizeof *s->samples,
	    &r->nsamples, PUSHREQ_MAX_SAMPLES, "samples", err);
}

/* The next field of s numbered 1 to last, others skipped: it must be of
 * wire type LEN (every field this decoder reads is a string, bytes or a
 * message).  1, 0 at the message's end, -1 with err; msg names the
 * message in the error ("" for PushRequest itself). */
static int
pb_next_len(struct pb *s, struct pb_field *g, uint32_t last,
    const char *msg, struct error *err)
{
	int r;

	while ((r = pb_next(s, g, err)) == 1) {
		if (g->num < 1 || g->num > last)
			continue;
		if (g->wt != PB_LEN)
			return error_set(err, ERR_INPUT, "PushRequest: %s%s"
			    "field %u at byte %zu is not length-delimited",
			    msg, *msg != '\0' ? " " : "", g->num, g->off);
		return 1;
	}
	return r;
}

static int
pb_label(const struct pb *c, const struct pb_field *f,
    struct pushreq_label *l, struct error *err)
{
	struct pb s;
	struct pb_field g;
	char **dst;
	int r;

	pb_sub(c, f, &s);
	while ((r = pb_next_len(&s, &g, 2, "LabelPair", err)) == 1) {
		dst = g.num == 1 ? &l->name : &l->value;
		free(*dst);
		if ((*dst = pushreq_str(g.data, g.len, g.num == 1 ?
		    "a label name" : "a label value", err)) == NULL)
			return -1;
	}
	if (r == -1)
		return -1;
	if (l->name == NULL)
		l->name = xstrdup("");
	if (l->value == NULL)
		l->value = xstrdup("");
	return 0;
}

static int
pb_sample(const struct pb *c, const struct pb_field *f,
    struct pushreq_sample *smp, struct error *err)
{
	struct pb s;
	struct pb_field g;
	int r;

	pb_sub(c, f, &s);
	while ((r = pb_next_len(&s, &g, 2, "RawSample", err)) == 1) {
		if (g.num == 1) {
			smp->raw = g.data;
			smp->len = g.len;
		} else {
			free(smp->id);
			if ((smp->id = pushreq_str(g.data, g.len,
			    "a sample ID", err)) == NULL)
				return -1;
		}
	}
	return r;
}

static int
pb_series(struct pushreq *req, const struct pb *c, const struct pb_field *f,
    struct error *err)
{
	struct pushreq_series *ser;
	struct pushreq_label *l;
	struct pushreq_sample *smp;
	struct pb s;
	struct pb_field g;
	int r;

	if ((ser = pushreq_series_add(req, err)) == NULL)
		return -1;
	pb_sub(c, f, &s);
	/* Field 3, annotations: dropped. */
	while ((r = pb_next_len(&s, &g, 2, "RawProfileSeries", err)) == 1) {
		if (g.num == 1) {
			if ((l = pushreq_label_add(ser, err)) == NULL ||
			    pb_label(&s, &g, l, err) == -1)
				return -1;
		} else if ((smp = pushreq_sample_add(req, ser, err)) == NULL ||
		    pb_sample(&s, &g, smp, err) == -1)
			return -1;
	}
	return r;
}

int
pushreq_decode(const uint8_t *data, size_t n, struct pushreq *req,
    struct error *err)
{
	struct pb c;
	struct pb_field f;
	int r;

	memset(req, 0, sizeof *req);
	pb_init(&c, data, n);
	while ((r = pb_next_len(&c, &f, 1, "", err)) == 1)
		if ((r = pb_series(req, &c, &f, err)) == -1)
			break;
	if (r == -1) {
		char msg[sizeof err->msg];

		if (err->kind == ERR_NONE)
			err->kind = ERR_INPUT;
		/* pb's own errors do not name the message. */
		if (strncmp(err->msg, "PushRequest", 11) != 0) {
			enum error_kind kind = err->kind;

			memcpy(msg, err->msg, sizeof msg);
			err->kind = ERR_NONE;
			error_set(err, kind, "PushRequest: %.480s", msg);
		}
		pushreq_clear(req);
		return -1;
	}
	return 0;
}

/* ---- JSON ---- */

/* protojson's bytes: base64, standard or URL-safe, padding optional. */
static int
pushreq_b64(const char *s, size_t n, uint8_t **out, size_t *outlen,
    struct error *err)
{
	uint8_t *o = xmalloc(n * 3 / 4 + 1);
	size_t bad;

	if (b64_decode(s, n, o, outlen, &bad) == -1) {
		free(o);
		if (bad == n)
			return error_set(err, ERR_INPUT, "PushRequest: "
			    "rawProfile is not base64 (its length)");
		return error_set(err, ERR_INPUT, "PushRequest: "
		    "rawProfile is not base64 (byte %zu)", bad);
	}
	*out = o;
	return 0;
}

/* The member of o named a, else b; *key (if key) says which. */
static json_t *
json_member(json_t *o, const char *a, const char *b, const char **key)
{
	json_t *v = json_object_get(o, a);

	if (v == NULL)
		v = json_object_get(o, a = b);
	if (key != NULL)
		*key = a;
	return v;
}

static int
json_series(struct pushreq *req, json_t *js, struct error *err)
{
	struct pushreq_series *ser;
	json_t *labels = json_object_get(js, "labels");
	json_t *samples = json_object_get(js, "samples"), *v, *name, *value;
	size_t i;

	if (!json_is_object(js) || (labels && !json_is_array(labels)) ||
	    (samples && !json_is_array(samples)))
		return error_set(err, ERR_INPUT, "PushRequest: a series is "
		    "not {\"labels\": [...], \"samples\": [...]}");
	if ((ser = pushreq_series_add(req, err)) == NULL)
		return -1;
	json_array_foreach(labels, i, v) {
		struct pushreq_label *l;

		name = json_object_get(v, "name");
		value = json_object_get(v, "value");
		if (!json_is_object(v) || (name && !json_is_string(name)) ||
		    (value && !json_is_string(value)))
			return error_set(err, ERR_INPUT, "PushRequest: a "
			    "label is not {\"name\": \"...\", \"value\": "
			    "\"...\"}");
		if ((l = pushreq_label_add(ser, err)) == NULL ||
		    (l->name = pushreq_str((const uint8_t *)(name ?
		    json_string_value(name) : ""), name ?
		    json_string_length(name) : 0, "a label name", err)) ==
		    NULL || (l->value = pushreq_str((const uint8_t *)(value ?
		    json_string_value(value) : ""), value ?
		    json_string_length(value) : 0, "a label value", err)) ==
		    NULL)
			return -1;
	}
	json_array_foreach(samples, i, v) {
		struct pushreq_sample *smp;
		const char *rawkey;
		json_t *raw = json_member(v, "rawProfile", "raw_profile",
		    &rawkey);
		json_t *id = json_member(v, "ID", "iD", NULL);

		if (!json_is_object(v) || (raw && !json_is_string(raw)) ||
		    (id && !json_is_string(id)))
			return error_set(err, ERR_INPUT, "PushRequest: a "
			    "sample is not {\"rawProfile\": BASE64, \"ID\": "
			    "\"...\"}");
		if ((smp = pushreq_sample_add(req, ser, err)) == NULL)
			return -1;
		if (id != NULL && (smp->id = pushreq_str((const uint8_t *)
		    json_string_value(id), json_string_length(id),
		    "a sample ID", err)) == NULL)
			return -1;
		if (raw == NULL)
			continue;
		if (pushreq_b64(json_string_value(raw), json_string_length(raw),
		    &smp->own, &smp->len, err) == -1)
			return -1;
		smp->raw = smp->own;
		/* Its base64 is not read again: the tree shrinks as the
		 * profiles are decoded, instead of holding both. */
		json_object_del(v, rawkey);
	}
	return 0;
}

int
pushreq_decode_json(const uint8_t *data, size_t n, struct pushreq *req,
    struct error *err)
{
	const struct jsonlim lim = { PUSHREQ_JSON_MAX_DEPTH,
	    PUSHREQ_JSON_MAX_VALUES, n };
	struct error lerr = { 0 };
	json_error_t je;
	json_t *root, *series, *v;
	size_t i;
	int rc = 0;

	memset(req, 0, sizeof *req);
	if (jsonlim_check(data, n, &lim, &lerr) == -1)
		return error_set(err, lerr.kind, "PushRequest: %.480s",
		    lerr.msg);
	if ((root = json_loadb((const char *)data, n, JSON_REJECT_DUPLICATES,
	    &je)) == NULL)
		return error_set(err, ERR_INPUT, "PushRequest: JSON: %s at "
		    "byte %d", je.text, je.position);
	series = json_object_get(root, "series");
	if (!json_is_object(root) || (series && !json_is_array(series)))
		rc = error_set(err, ERR_INPUT, "PushRequest: not "
		    "{\"series\": [...]}");
	json_array_foreach(series, i, v)
		if (rc == 0 && json_series(req, v, err) == -1)
			rc = -1;
	json_decref(root);
	if (rc == -1)
		pushreq_clear(req);
	return rc;
}
