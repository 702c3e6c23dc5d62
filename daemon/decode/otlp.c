/* otlp.c: OTLP profiles requests (otlp.h): read, every index of the
 * dictionary checked before one is followed, each Profile checked on its
 * own (a bad one is refused, not the request), its scope and labels;
 * the format table's decoder.
 *
 * The tables' entry 0 is the zero value and must be there (profiles.proto,
 * ProfilesDictionary): index 0 means "not set".  A table sent empty is
 * given its zero entry, so that index 0 always resolves; a string table
 * whose entry 0 is not "" is refused (another version's, or garbled). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "alloc.h"
#include "otlp-int.h"

void
otlp_req_free(struct otlp_req *r)
{
	size_t i;

	if (r == NULL)
		return;
	free(r->mappings.v);
	free(r->locations.v);
	free(r->lines.v);
	free(r->functions.v);
	free(r->links.v);
	free(r->strings.v);
	free(r->attrs.v);
	free(r->stacks.v);
	free(r->kvs.v);
	free(r->resources.v);
	free(r->scopes.v);
	free(r->profiles.v);
	free(r->samples.v);
	free(r->idx.v);
	free(r->vals.v);
	free(r->times.v);
	for (i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	free(r->owned);
	json_decref(r->json);
	free(r);
}

size_t
otlp_req_profiles(const struct otlp_req *r)
{
	return r->profiles.n;
}

/* 0 if i indexes a table of n entries, else -1 naming where it is. */
static int
otlp_index(int64_t i, size_t n, const char *table, struct error *err,
    const char *where, ...) __attribute__((format(printf, 5, 6)));

static int
otlp_index(int64_t i, size_t n, const char *table, struct error *err,
    const char *where, ...)
{
	char at[200];
	va_list ap;

	if (i >= 0 && (uint64_t)i < n)
		return 0;
	va_start(ap, where);
	vsnprintf(at, sizeof at, where, ap);
	va_end(ap);
	return error_set(err, ERR_INPUT, "OTLP: %s is %" PRId64 ", out of "
	    "%s (%zu entries)", at, i, table, n);
}

/* The first of run's indices out of a table of n entries, or -1. */
static ssize_t
otlp_run_bad(const struct otlp_req *r, const struct otlp_run *run, size_t n)
{
	size_t j;
	int64_t v;

	for (j = 0; j < run->n; j++)
		if ((v = r->idx.v[run->first + j]) < 0 || (uint64_t)v >= n)
			return (ssize_t)j;
	return -1;
}

#define OTLP_RUN_BAD(req, run, size)	((run)->n > 0 && \
	(bad = otlp_run_bad(req, run, size)) >= 0)
#define OTLP_RUN_AT(req, run)	((req)->idx.v[(run)->first + (size_t)bad])

/* Every index the dictionary's own entries hold. */
static int
otlp_check_dictionary(struct otlp_req *r, struct error *err)
{
	size_t ns = r->strings.n, na = r->attrs.n, k, j;
	ssize_t bad;

	for (k = 0; k < ns; k++)
		if (OTLP_AT(&r->strings, struct mstr, k)->n >
		    r->lim->max_string_len)
			return error_set(err, ERR_TOO_LARGE, "OTLP: "
			    "string_table[%zu] is %zu bytes (max-string-len "
			    "%" PRIu32 ")", k, OTLP_AT(&r->strings,
			    struct mstr, k)->n, r->lim->max_string_len);
	if (OTLP_AT(&r->strings, struct mstr, 0)->n != 0)
		return error_set(err, ERR_INPUT, "OTLP: bad dictionary: "
		    "string_table[0] is not \"\"");
	for (k = 0; k < r->mappings.n; k++) {
		struct otlp_mapping *m = OTLP_AT(&r->mappings,
		    struct otlp_mapping, k);

		if (otlp_index(m->file, ns, "string_table", err,
		    "mapping_table[%zu].filename_strindex", k) == -1)
			return -1;
		if (OTLP_RUN_BAD(r, &m->attrs, na))
			return otlp_index(OTLP_RUN_AT(r, &m->attrs), na,
			    "attribute_table", err, "mapping_table[%zu]."
			    "attribute_indices[%zd]", k, bad);
	}
	for (k = 0; k < r->locations.n; k++) {
		struct otlp_location *l = OTLP_AT(&r->locations,
		    struct otlp_location, k);

		if (otlp_index(l->mapping, r->mappings.n, "mapping_table",
		    err, "location_table[%zu].mapping_index", k) == -1)
			return -1;
		if (OTLP_RUN_BAD(r, &l->attrs, na))
			return otlp_index(OTLP_RUN_AT(r, &l->attrs), na,
			    "attribute_table", err, "location_table[%zu]."
			    "attribute_indices[%zd]", k, bad);
		for (j = 0; j < l->nline; j++)
			if (otlp_index(OTLP_AT(&r->lines, struct otlp_line,
			    l->line + j)->function, r->functions.n,
			    "function_table", err, "location_table[%zu]."
			    "lines[%zu].function_index", k, j) == -1)
				return -1;
	}
	for (k = 0; k < r->functions.n; k++) {
		struct otlp_function *f = OTLP_AT(&r->functions,
		    struct otlp_function, k);

		if (otlp_index(f->name, ns, "string_table", err,
		    "function_table[%zu].name_strindex", k) == -1 ||
		    otlp_index(f->system_name, ns, "string_table", err,
		    "function_table[%zu].system_name_strindex", k) == -1 ||
		    otlp_index(f->file, ns, "string_table", err,
		    "function_table[%zu].filename_strindex", k) == -1)
			return -1;
	}
	for (k = 0; k < na; k++) {
		struct otlp_attr *a = OTLP_AT(&r->attrs, struct otlp_attr, k);

		if (otlp_index(a->key, ns, "string_table", err,
		    "attribute_table[%zu].key_strindex", k) == -1 ||
		    otlp_index(a->unit, ns, "string_table", err,
		    "attribute_table[%zu].unit_strindex", k) == -1 ||
		    (a->v.kind == OTLP_V_STRINDEX && otlp_index(a->v.i, ns,
		    "string_table", err, "attribute_table[%zu].value."
		    "string_value_strindex", k) == -1))
			return -1;
	}
	for (k = 0; k < r->stacks.n; k++) {
		struct otlp_run *st = OTLP_AT(&r->stacks, struct otlp_run, k);

		if (st->n > r->lim->max_stack_depth)
			return error_set(err, ERR_TOO_LARGE, "OTLP: "
			    "stack_table[%zu] has %zu locations "
			    "(max-stack-depth %" PRIu32 ")", k, st->n,
			    r->lim->max_stack_depth);
		if (OTLP_RUN_BAD(r, st, r->locations.n))
			return otlp_index(OTLP_RUN_AT(r, st), r->locations.n,
			    "location_table", err, "stack_table[%zu]."
			    "location_indices[%zd]", k, bad);
	}
	/* The resources' and scopes' attributes name strings too. */
	for (k = 0; k < r->kvs.n; k++) {
		struct otlp_kv *kv = OTLP_AT(&r->kvs, struct otlp_kv, k);

		if (otlp_index(kv->key_strindex, ns, "string_table", err,
		    "an attribute's key_strindex (attribute %zu)", k) == -1 ||
		    (kv->v.kind == OTLP_V_STRINDEX && otlp_index(kv->v.i, ns,
		    "string_table", err, "an attribute's "
		    "string_value_strindex (attribute %zu)", k) == -1))
			return -1;
	}
	return 0;
}

int
otlp_req_decode(const uint8_t *data, size_t len, int json,
    const struct limits *lim, struct otlp_req **out, struct error *err)
{
	struct otlp_req *r = xcalloc(1, sizeof *r);
	struct {
		struct otlp_tab *t;
		size_t size;
		const char *what;
	} zero[] = {
		{ &r->mappings, sizeof(struct otlp_mapping), "mapping_table" },
		{ &r->locations, sizeof(struct otlp_location),
		    "location_table" },
		{ &r->functions, sizeof(struct otlp_function),
		    "function_table" },
		{ &r->links, sizeof(struct otlp_link), "link_table" },
		{ &r->strings, sizeof(struct mstr), "string_table" },
		{ &r->attrs, sizeof(struct otlp_attr), "attribute_table" },
		{ &r->stacks, sizeof(struct otlp_run), "stack_table" },
	};
	size_t i;
	int rc;

	*out = NULL;
	r->lim = lim;
	rc = json ? otlp_json_read(r, data, len, err) :
	    otlp_pb_read(r, data, len, err);
	for (i = 0; rc == 0 && i < sizeof zero / sizeof zero[0]; i++)
		if (zero[i].t->n == 0 && otlp_tab_add(r, zero[i].t,
		    zero[i].size, zero[i].what, err) == NULL)
			rc = -1;
	if (rc == 0)
		rc = otlp_check_dictionary(r, err);
	if (rc == -1) {
		otlp_req_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

int
otlp_profile_check(struct otlp_req *r, size_t i, struct error *err)
{
	const struct otlp_profile *p = OTLP_AT(&r->profiles,
	    struct otlp_profile, i);
	size_t ns = r->strings.n, na = r->attrs.n, k;
	ssize_t bad;

	if (otlp_index(p->sample_type.type, ns, "string_table", err,
	    "profile %zu: sample_type.type_strindex", i) == -1 ||
	    otlp_index(p->sample_type.unit, ns, "string_table", err,
	    "profile %zu: sample_type.unit_strindex", i) == -1 ||
	    otlp_index(p->period_type.type, ns, "string_table", err,
	    "profile %zu: period_type.type_strindex", i) == -1 ||
	    otlp_index(p->period_type.unit, ns, "string_table", err,
	    "profile %zu: period_type.unit_strindex", i) == -1)
		return -1;
	if (OTLP_RUN_BAD(r, &p->attrs, na))
		return otlp_index(OTLP_RUN_AT(r, &p->attrs), na,
		    "attribute_table", err, "profile %zu: "
		    "attribute_indices[%zd]", i, bad);
	if (otlp_str(r, p->sample_type.type).n == 0 && p->nsample > 0)
		return error_set(err, ERR_INPUT, "OTLP: profile %zu: its "
		    "sample_type has no type", i);
	for (k = 0; k < p->nsample; k++) {
		const struct otlp_sample *s = OTLP_AT(&r->samples,
		    struct otlp_sample, p->sample + k);

		if (otlp_index(s->stack, r->stacks.n, "stack_table", err,
		    "profile %zu: samples[%zu].stack_index", i, k) == -1 ||
		    otlp_index(s->link, r->links.n, "link_table", err,
		    "profile %zu: samples[%zu].link_index", i, k) == -1)
			return -1;
		if (OTLP_RUN_BAD(r, &s->attrs, na))
			return otlp_index(OTLP_RUN_AT(r, &s->attrs), na,
			    "attribute_table", err, "profile %zu: samples[%zu]."
			    "attribute_indices[%zd]", i, k, bad);
		if (s->values.n == 0 && s->times.n == 0)
			return error_set(err, ERR_INPUT, "OTLP: profile %zu: "
			    "samples[%zu] has neither values nor "
			    "timestamps_unix_nano", i, k);
		if (s->values.n != 0 && s->times.n != 0 &&
		    s->values.n != s->times.n)
			return error_set(err, ERR_INPUT, "OTLP: profile %zu: "
			    "samples[%zu] has %zu values and %zu "
			    "timestamps_unix_nano (the same number, or either "
			    "alone)", i, k, s->values.n, s->times.n);
	}
	return 0;
}

/* The key of a Resource's or a scope's attribute. */
static struct mstr
otlp_kv_key(const struct otlp_req *r, const struct otlp_kv *kv)
{
	return kv->key_strindex != 0 ? otlp_str(r, kv->key_strindex) :
	    kv->key;
}

int
otlp_profile_service(struct otlp_req *r, size_t i, struct mstr *out)
{
	const struct otlp_profile *p = OTLP_AT(&r->profiles,
	    struct otlp_profile, i);
	const struct otlp_attrset *a = OTLP_AT(&r->resources,
	    struct otlp_attrset, p->resource);
	char buf[OTLP_TEXT_MAX];
	size_t k;

	for (k = a->nkv; k-- > 0;) {
		const struct otlp_kv *kv = OTLP_AT(&r->kvs, struct otlp_kv,
		    a->kv + k);

		if (mstr_eqs(otlp_kv_key(r, kv), "service.name") &&
		    (kv->v.kind == OTLP_V_STR ||
		    kv->v.kind == OTLP_V_STRINDEX) &&
		    otlp_value_text(r, &kv->v, buf, out) == 0 && out->n > 0)
			return 0;
	}
	return -1;
}

static void
otlp_kvs_labels(struct otlp_req *r, const struct otlp_attrset *a,
    int resource, void (*fn)(void *, struct mstr, struct mstr), void *arg)
{
	char buf[OTLP_TEXT_MAX];
	struct mstr key, value;
	size_t k;

	for (k = 0; k < a->nkv; k++) {
		const struct otlp_kv *kv = OTLP_AT(&r->kvs, struct otlp_kv,
		    a->kv + k);

		key = otlp_kv_key(r, kv);
		if (key.n == 0 || (resource && mstr_eqs(key, "service.name")) ||
		    otlp_value_text(r, &kv->v, buf, &value) == -1)
			continue;
		fn(arg, key, value);
	}
}

void
otlp_profile_labels(struct otlp_req *r, size_t i,
    void (*fn)(void *, struct mstr, struct mstr), void *arg)
{
	const struct otlp_profile *p = OTLP_AT(&r->profiles,
	    struct otlp_profile, i);
	char buf[OTLP_TEXT_MAX];
	struct mstr key, value;
	size_t k;

	otlp_kvs_labels(r, OTLP_AT(&r->resources, struct otlp_attrset,
	    p->resource), 1, fn, arg);
	otlp_kvs_labels(r, OTLP_AT(&r->scopes, struct otlp_attrset,
	    p->scope), 0, fn, arg);
	for (k = 0; k < p->attrs.n; k++) {
		const struct otlp_attr *a = OTLP_AT(&r->attrs,
		    struct otlp_attr, r->idx.v[p->attrs.first + k]);

		key = otlp_str(r, a->key);
		if (key.n > 0 && otlp_value_text(r, &a->v, buf, &value) == 0)
			fn(arg, key, value);
	}
}

size_t
otlp_profile_samples(const struct otlp_req *r, size_t i)
{
	return OTLP_AT(&r->profiles, struct otlp_profile, i)->nsample;
}

void
otlp_profile_payload(const struct otlp_req *r, size_t i,
    struct mstr *format, struct mstr *payload)
{
	const struct otlp_profile *p = OTLP_AT(&r->profiles,
	    struct otlp_profile, i);

	*format = p->payload_format;
	*payload = p->payload;
}

/* JSON opens with '{' (after blanks), which no protobuf message does
 * (field 15 of wire type 3, a group). */
static int
otlp_is_json(const uint8_t *p, size_t n)
{
	while (n > 0 && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++, n--;
	return n > 0 && *p == '{';
}

int
otlp_sniff(const uint8_t *p, size_t n)
{
	static const char *const keys[] = { "\"resourceProfiles\"",
	    "\"dictionary\"" };
	size_t i;

	/* Only the JSON form is told by its first key. */
	if (!otlp_is_json(p, n))
		return 0;
	while (*p != '{')
		p++, n--;
	p++, n--;
	while (n > 0 && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++, n--;
	for (i = 0; i < 2; i++)
		if (n >= strlen(keys[i]) && memcmp(p, keys[i],
		    strlen(keys[i])) == 0)
			return 1;
	return 0;
}

int
otlp_decode_stream(struct stream *in, const struct decode_opts *opts,
    const struct limits *lim, const struct sink *sink, struct error *err)
{
	struct otlp_req *r = opts->otlp;
	uint8_t *data = NULL;
	size_t len = 0, n, i;
	int json, rc = -1;

	if (r != NULL)
		goto decoded;
	if (stream_slurp(in, lim->max_inflated, &data, &len, err) == -1)
		return -1;
	if ((json = otlp_is_json(data, len)) && len > lim->max_json) {
		error_set(err, ERR_TOO_LARGE, "OTLP: a JSON request of %zu "
		    "bytes (max-json %zu)", len, lim->max_json);
		goto out;
	}
	if (otlp_req_decode(data, len, json, lim, &r, err) == -1)
		goto out;
decoded:
	n = otlp_req_profiles(r);
	i = opts->part > 0 ? (size_t)(opts->part - 1) : 0;
	if (opts->part <= 0 && n != 1) {
		error_set(err, ERR_INPUT, "OTLP: the request holds %zu "
		    "Profiles; as a profile pushed it must hold one (POST "
		    "/v1development/profiles takes any number)", n);
		goto out;
	}
	if (i >= n) {
		error_set(err, ERR_INPUT, "OTLP: no Profile %zu in the "
		    "request (%zu)", i + 1, n);
		goto out;
	}
	if (otlp_profile_check(r, i, err) == -1 ||
	    otlp_emit(r, i, sink, err) == -1)
		goto out;
	rc = 0;
out:
	if (r != opts->otlp)
		otlp_req_free(r);
	free(data);
	return rc;
}
