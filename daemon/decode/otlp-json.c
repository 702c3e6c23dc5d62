/* otlp-json.c: an ExportProfilesServiceRequest in OTLP's JSON form into
 * struct otlp_req (otlp-int.h).
 *
 * OTLP's JSON is proto3's JSON mapping with its own rules (the OTLP
 * specification, "JSON Protobuf Encoding"): names in lowerCamelCase only,
 * 64-bit integers as decimal strings or numbers, bytes as base64 but
 * traceId and spanId as hexadecimal, unknown names ignored.  A known name
 * holding another JSON type than v1.11.0's field (an array where it has a
 * message) is another version's request, refused as such.  Strings point
 * into jansson's tree, which the request keeps. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "b64.h"
#include "hex.h"
#include "jsonlim.h"
#include "otlp-int.h"

struct jr {
	struct otlp_req *r;
	struct error *err;
};

/* -1 naming msg.name, what it is and what v1.11.0 has there. */
static int
jr_wrong(struct jr *d, const char *msg, const char *name, const json_t *v,
    const char *want)
{
	static const char *const types[] = { "an object", "an array",
	    "a string", "an integer", "a number", "true", "false", "null" };

	return otlp_wrong_version(d->err, "%s.%s is %s, in v1.11.0 it is %s",
	    msg, name, types[json_typeof(v)], want);
}

/* The member name of o if it is of type t (NULL: absent or null). */
static json_t *
jr_get(struct jr *d, json_t *o, const char *msg, const char *name,
    json_type t, int *bad)
{
	static const char *const want[] = { "a message", "a list",
	    "a string" };
	json_t *v = json_object_get(o, name);

	if (v == NULL || json_is_null(v))
		return NULL;
	if (json_typeof(v) != t) {
		*bad = jr_wrong(d, msg, name, v, want[t]);
		return NULL;
	}
	return v;
}

/* An integer as proto3's JSON gives it: a number, or a decimal string
 * (64-bit ones are strings); uns for uint64 fields. */
static int
jr_intval(struct jr *d, const json_t *v, const char *msg, const char *name,
    int uns, int64_t *out)
{
	const char *s, *p;
	uint64_t u = 0;
	int neg;

	if (json_is_integer(v)) {
		*out = (int64_t)json_integer_value(v);
		return 0;
	}
	if (!json_is_string(v))
		return jr_wrong(d, msg, name, v, "an integer");
	s = json_string_value(v);
	neg = *s == '-' && !uns;
	p = s + neg;
	if (*p == '\0' || json_string_length(v) > 20)
		goto bad;
	for (; *p != '\0'; p++) {
		if (*p < '0' || *p > '9' || u > (UINT64_MAX - 9) / 10)
			goto bad;
		u = u * 10 + (uint64_t)(*p - '0');
	}
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
bad:
	return error_set(d->err, ERR_INPUT, "OTLP: %s.%s: \"%.40s\" is not "
	    "an integer", msg, name, s);
}

static int
jr_int(struct jr *d, json_t *o, const char *msg, const char *name,
    int64_t *out)
{
	json_t *v = json_object_get(o, name);

	if (v == NULL || json_is_null(v))
		return 0;
	return jr_intval(d, v, msg, name, 0, out);
}

static int
jr_u64(struct jr *d, json_t *o, const char *msg, const char *name,
    uint64_t *out)
{
	json_t *v = json_object_get(o, name);
	int64_t i;

	if (v == NULL || json_is_null(v))
		return 0;
	if (jr_intval(d, v, msg, name, 1, &i) == -1)
		return -1;
	*out = (uint64_t)i;
	return 0;
}

static int
jr_str(struct jr *d, json_t *o, const char *msg, const char *name,
    struct mstr *out)
{
	int bad = 0;
	json_t *v = jr_get(d, o, msg, name, JSON_STRING, &bad);

	if (v != NULL) {
		out->p = json_string_value(v);
		out->n = json_string_length(v);
	}
	return bad;
}

static uint8_t *
jr_own(struct jr *d, size_t n)
{
	struct otlp_req *r = d->r;

	r->owned = xreallocarray(r->owned, r->nowned + 1, sizeof *r->owned);
	return r->owned[r->nowned++] = xmalloc(n + 1);
}

/* bytes: base64 (standard or URL-safe, padded or not), or hexadecimal
 * for traceId and spanId. */
static int
jr_bytes(struct jr *d, json_t *o, const char *msg, const char *name,
    int hex, struct mstr *out)
{
	struct mstr s = { NULL, 0 };
	uint8_t *b;
	size_t i, k = 0, bad;
	int hi, lo;

	if (jr_str(d, o, msg, name, &s) == -1)
		return -1;
	if (s.p == NULL)
		return 0;
	b = jr_own(d, s.n);
	if (!hex && b64_decode(s.p, s.n, b, &k, &bad) == -1)
		goto bad;
	for (i = 0; hex && i < s.n; i += 2, k++) {
		if (i + 1 == s.n || (hi = hex_digit(s.p[i])) < 0 ||
		    (lo = hex_digit(s.p[i + 1])) < 0)
			goto bad;
		b[k] = (uint8_t)(hi << 4 | lo);
	}
	out->p = (const char *)b;
	out->n = k;
	return 0;
bad:
	return error_set(d->err, ERR_INPUT, "OTLP: %s.%s is not %s", msg,
	    name, hex ? "hexadecimal" : "base64");
}

/* A list of integers appended to pool as run. */
static int
jr_ints(struct jr *d, json_t *o, const char *msg, const char *name,
    struct otlp_i64s *pool, struct otlp_run *run)
{
	int bad = 0;
	json_t *a = jr_get(d, o, msg, name, JSON_ARRAY, &bad), *v;
	size_t i;
	int64_t x;

	if (a == NULL)
		return bad;
	otlp_run_open(pool, run);
	json_array_foreach(a, i, v) {
		if (jr_intval(d, v, msg, name, 0, &x) == -1)
			return -1;
		otlp_i64s_add(pool, x);
	}
	run->n = pool->n - run->first;
	return 0;
}

static int
jr_value(struct jr *d, json_t *o, const char *name, struct otlp_value *v)
{
	static const char *const other[] = { "arrayValue", "kvlistValue" };
	int bad = 0;
	json_t *a = jr_get(d, o, "KeyValue", name, JSON_OBJECT, &bad), *x;
	size_t i;

	if (a == NULL)
		return bad;
	if ((x = json_object_get(a, "stringValue")) != NULL) {
		v->kind = OTLP_V_STR;
		return jr_str(d, a, "AnyValue", "stringValue", &v->s);
	}
	if ((x = json_object_get(a, "boolValue")) != NULL) {
		if (!json_is_boolean(x))
			return jr_wrong(d, "AnyValue", "boolValue", x,
			    "true or false");
		v->kind = OTLP_V_BOOL;
		v->i = json_is_true(x);
		return 0;
	}
	if (json_object_get(a, "intValue") != NULL) {
		v->kind = OTLP_V_INT;
		return jr_int(d, a, "AnyValue", "intValue", &v->i);
	}
	if ((x = json_object_get(a, "doubleValue")) != NULL) {
		if (!json_is_number(x))
			return jr_wrong(d, "AnyValue", "doubleValue", x,
			    "a number");
		v->kind = OTLP_V_DOUBLE;
		v->d = json_number_value(x);
		return 0;
	}
	if (json_object_get(a, "bytesValue") != NULL) {
		v->kind = OTLP_V_BYTES;
		return jr_bytes(d, a, "AnyValue", "bytesValue", 0, &v->s);
	}
	if (json_object_get(a, "stringValueStrindex") != NULL) {
		v->kind = OTLP_V_STRINDEX;
		return jr_int(d, a, "AnyValue", "stringValueStrindex", &v->i);
	}
	for (i = 0; i < 2; i++)
		if (json_object_get(a, other[i]) != NULL)
			v->kind = OTLP_V_OTHER;
	return 0;
}

static int
jr_attrset(struct jr *d, json_t *o, int scope, struct otlp_attrset *a)
{
	const char *msg = scope ? "InstrumentationScope" : "Resource";
	int bad = 0;
	json_t *l = jr_get(d, o, msg, "attributes", JSON_ARRAY, &bad), *v;
	struct otlp_kv *kv;
	size_t i;

	if (bad || (scope && (jr_str(d, o, msg, "name", &a->name) == -1 ||
	    jr_str(d, o, msg, "version", &a->version) == -1)))
		return -1;
	a->kv = d->r->kvs.n;
	json_array_foreach(l, i, v) {
		if (!json_is_object(v))
			return jr_wrong(d, msg, "attributes", v, "a KeyValue");
		if ((kv = otlp_tab_add(d->r, &d->r->kvs, sizeof *kv,
		    "attributes", d->err)) == NULL ||
		    jr_str(d, v, "KeyValue", "key", &kv->key) == -1 ||
		    jr_int(d, v, "KeyValue", "keyStrindex",
		    &kv->key_strindex) == -1 ||
		    jr_value(d, v, "value", &kv->v) == -1)
			return -1;
	}
	a->nkv = d->r->kvs.n - a->kv;
	return 0;
}

static int
jr_vt(struct jr *d, json_t *o, const char *name, struct otlp_vt *vt)
{
	int bad = 0;
	json_t *v = jr_get(d, o, "Profile", name, JSON_OBJECT, &bad);

	if (v == NULL)
		return bad;
	return jr_int(d, v, "ValueType", "typeStrindex", &vt->type) == -1 ||
	    jr_int(d, v, "ValueType", "unitStrindex", &vt->unit) == -1 ?
	    -1 : 0;
}

static int
jr_sample(struct jr *d, json_t *o)
{
	struct otlp_sample *sm;

	if (!json_is_object(o))
		return jr_wrong(d, "Profile", "samples", o, "a Sample");
	if ((sm = otlp_tab_add(d->r, &d->r->samples, sizeof *sm, "samples",
	    d->err)) == NULL)
		return -1;
	return jr_int(d, o, "Sample", "stackIndex", &sm->stack) == -1 ||
	    jr_ints(d, o, "Sample", "attributeIndices", &d->r->idx,
	    &sm->attrs) == -1 ||
	    jr_int(d, o, "Sample", "linkIndex", &sm->link) == -1 ||
	    jr_ints(d, o, "Sample", "values", &d->r->vals, &sm->values) ==
	    -1 || jr_ints(d, o, "Sample", "timestampsUnixNano", &d->r->times,
	    &sm->times) == -1 ? -1 : 0;
}

static int
jr_profile(struct jr *d, json_t *o, size_t resource, size_t scope)
{
	struct otlp_profile *p;
	int bad = 0;
	json_t *l, *v;
	size_t i;

	if (!json_is_object(o))
		return jr_wrong(d, "ScopeProfiles", "profiles", o, "a Profile");
	if ((p = otlp_tab_add(d->r, &d->r->profiles, sizeof *p, "profiles",
	    d->err)) == NULL)
		return -1;
	p->resource = resource;
	p->scope = scope;
	p->sample = d->r->samples.n;
	if (jr_vt(d, o, "sampleType", &p->sample_type) == -1 ||
	    jr_vt(d, o, "periodType", &p->period_type) == -1 ||
	    jr_u64(d, o, "Profile", "timeUnixNano", &p->time_ns) == -1 ||
	    jr_u64(d, o, "Profile", "durationNano", &p->duration_ns) == -1 ||
	    jr_int(d, o, "Profile", "period", &p->period) == -1 ||
	    jr_str(d, o, "Profile", "originalPayloadFormat",
	    &p->payload_format) == -1 ||
	    jr_bytes(d, o, "Profile", "originalPayload", 0,
	    &p->payload) == -1 ||
	    jr_ints(d, o, "Profile", "attributeIndices", &d->r->idx,
	    &p->attrs) == -1)
		return -1;
	l = jr_get(d, o, "Profile", "samples", JSON_ARRAY, &bad);
	json_array_foreach(l, i, v)
		if (jr_sample(d, v) == -1)
			return -1;
	p = OTLP_AT(&d->r->profiles, struct otlp_profile,
	    d->r->profiles.n - 1);
	p->nsample = d->r->samples.n - p->sample;
	return bad;
}

/* resourceProfiles[].scopeProfiles[].profiles[] */
static int
jr_resources(struct jr *d, json_t *list)
{
	struct otlp_attrset *a;
	json_t *rp, *sp, *sps, *ps, *p, *x;
	size_t i, j, k, res, sc;
	int bad = 0;

	json_array_foreach(list, i, rp) {
		if (!json_is_object(rp))
			return jr_wrong(d, "ExportProfilesServiceRequest",
			    "resourceProfiles", rp, "a ResourceProfiles");
		if ((a = otlp_tab_add(d->r, &d->r->resources, sizeof *a,
		    "resources", d->err)) == NULL)
			return -1;
		res = d->r->resources.n - 1;
		x = jr_get(d, rp, "ResourceProfiles", "resource", JSON_OBJECT,
		    &bad);
		sps = jr_get(d, rp, "ResourceProfiles", "scopeProfiles",
		    JSON_ARRAY, &bad);
		if (bad || (x != NULL && jr_attrset(d, x, 0, a) == -1))
			return -1;
		json_array_foreach(sps, j, sp) {
			if (!json_is_object(sp))
				return jr_wrong(d, "ResourceProfiles",
				    "scopeProfiles", sp, "a ScopeProfiles");
			if ((a = otlp_tab_add(d->r, &d->r->scopes, sizeof *a,
			    "scopes", d->err)) == NULL)
				return -1;
			sc = d->r->scopes.n - 1;
			x = jr_get(d, sp, "ScopeProfiles", "scope",
			    JSON_OBJECT, &bad);
			ps = jr_get(d, sp, "ScopeProfiles", "profiles",
			    JSON_ARRAY, &bad);
			if (bad || (x != NULL && jr_attrset(d, x, 1, a) == -1))
				return -1;
			json_array_foreach(ps, k, p)
				if (jr_profile(d, p, res, sc) == -1)
					return -1;
		}
	}
	return 0;
}

static int
jr_entry(struct jr *d, int table, json_t *o)
{
	struct otlp_req *r = d->r;
	struct otlp_mapping *m;
	struct otlp_location *l;
	struct otlp_line *ln;
	struct otlp_function *fn;
	struct otlp_link *k;
	struct otlp_attr *a;
	struct mstr *s;
	struct otlp_run *st;
	json_t *lines, *v;
	size_t i;
	int bad = 0;

	switch (table) {
	case 0:
		if ((m = otlp_tab_add(r, &r->mappings, sizeof *m,
		    "mapping_table", d->err)) == NULL)
			return -1;
		return jr_u64(d, o, "Mapping", "memoryStart", &m->start) ||
		    jr_u64(d, o, "Mapping", "memoryLimit", &m->limit) ||
		    jr_u64(d, o, "Mapping", "fileOffset", &m->offset) ||
		    jr_int(d, o, "Mapping", "filenameStrindex", &m->file) ||
		    jr_ints(d, o, "Mapping", "attributeIndices", &r->idx,
		    &m->attrs) ? -1 : 0;
	case 1:
		if ((l = otlp_tab_add(r, &r->locations, sizeof *l,
		    "location_table", d->err)) == NULL)
			return -1;
		if (jr_int(d, o, "Location", "mappingIndex", &l->mapping) ||
		    jr_u64(d, o, "Location", "address", &l->address) ||
		    jr_ints(d, o, "Location", "attributeIndices", &r->idx,
		    &l->attrs))
			return -1;
		lines = jr_get(d, o, "Location", "lines", JSON_ARRAY, &bad);
		l->line = r->lines.n;
		json_array_foreach(lines, i, v) {
			if (!json_is_object(v))
				return jr_wrong(d, "Location", "lines", v,
				    "a Line");
			if ((ln = otlp_tab_add(r, &r->lines, sizeof *ln,
			    "lines", d->err)) == NULL ||
			    jr_int(d, v, "Line", "functionIndex",
			    &ln->function) || jr_int(d, v, "Line", "line",
			    &ln->line) || jr_int(d, v, "Line", "column",
			    &ln->column))
				return -1;
		}
		l = OTLP_AT(&r->locations, struct otlp_location,
		    r->locations.n - 1);
		l->nline = r->lines.n - l->line;
		return bad;
	case 2:
		if ((fn = otlp_tab_add(r, &r->functions, sizeof *fn,
		    "function_table", d->err)) == NULL)
			return -1;
		return jr_int(d, o, "Function", "nameStrindex", &fn->name) ||
		    jr_int(d, o, "Function", "systemNameStrindex",
		    &fn->system_name) || jr_int(d, o, "Function",
		    "filenameStrindex", &fn->file) || jr_int(d, o, "Function",
		    "startLine", &fn->start_line) ? -1 : 0;
	case 3:
		if ((k = otlp_tab_add(r, &r->links, sizeof *k, "link_table",
		    d->err)) == NULL)
			return -1;
		return jr_bytes(d, o, "Link", "traceId", 1, &k->trace_id) ||
		    jr_bytes(d, o, "Link", "spanId", 1, &k->span_id) ? -1 : 0;
	case 4:
		if ((s = otlp_tab_add(r, &r->strings, sizeof *s,
		    "string_table", d->err)) == NULL)
			return -1;
		s->p = json_string_value(o);
		s->n = json_string_length(o);
		return 0;
	case 5:
		if ((a = otlp_tab_add(r, &r->attrs, sizeof *a,
		    "attribute_table", d->err)) == NULL)
			return -1;
		return jr_int(d, o, "KeyValueAndUnit", "keyStrindex",
		    &a->key) || jr_int(d, o, "KeyValueAndUnit",
		    "unitStrindex", &a->unit) ||
		    jr_value(d, o, "value", &a->v) ? -1 : 0;
	default:
		if ((st = otlp_tab_add(r, &r->stacks, sizeof *st,
		    "stack_table", d->err)) == NULL)
			return -1;
		return jr_ints(d, o, "Stack", "locationIndices", &r->idx, st);
	}
}

static int
jr_dictionary(struct jr *d, json_t *o)
{
	static const struct {
		const char *name, *what;
		json_type type;
	} t[] = {
		{ "mappingTable", "a Mapping", JSON_OBJECT },
		{ "locationTable", "a Location", JSON_OBJECT },
		{ "functionTable", "a Function", JSON_OBJECT },
		{ "linkTable", "a Link", JSON_OBJECT },
		{ "stringTable", "a string", JSON_STRING },
		{ "attributeTable", "a KeyValueAndUnit", JSON_OBJECT },
		{ "stackTable", "a Stack", JSON_OBJECT },
	};
	json_t *l, *v;
	size_t i, j;
	int bad = 0;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		l = jr_get(d, o, "ProfilesDictionary", t[i].name, JSON_ARRAY,
		    &bad);
		if (bad)
			return -1;
		json_array_foreach(l, j, v) {
			if (json_typeof(v) != t[i].type)
				return jr_wrong(d, "ProfilesDictionary",
				    t[i].name, v, t[i].what);
			if (jr_entry(d, (int)i, v) == -1)
				return -1;
		}
	}
	return 0;
}

int
otlp_json_read(struct otlp_req *r, const uint8_t *data, size_t n,
    struct error *err)
{
	const struct jsonlim lim = { OTLP_JSON_MAX_DEPTH,
	    OTLP_JSON_MAX_VALUES, n };
	struct jr d = { r, err };
	struct error lerr = { 0 };
	json_error_t je;
	json_t *root, *x;
	int bad = 0;

	if (jsonlim_check(data, n, &lim, &lerr) == -1)
		return error_set(err, lerr.kind, "OTLP: %.480s", lerr.msg);
	if ((root = json_loadb((const char *)data, n, JSON_REJECT_DUPLICATES,
	    &je)) == NULL)
		return error_set(err, ERR_INPUT, "OTLP: JSON: %s at byte %d",
		    je.text, je.position);
	r->json = root;
	if (!json_is_object(root))
		return jr_wrong(&d, "(the body)", "", root, "an object");
	/* The dictionary first: nothing of the profiles refers to it yet,
	 * but an error in it is the one to name. */
	x = jr_get(&d, root, "ExportProfilesServiceRequest", "dictionary",
	    JSON_OBJECT, &bad);
	if (bad || (x != NULL && jr_dictionary(&d, x) == -1))
		return -1;
	x = jr_get(&d, root, "ExportProfilesServiceRequest",
	    "resourceProfiles", JSON_ARRAY, &bad);
	if (bad || jr_resources(&d, x) == -1)
		return -1;
	return 0;
}
