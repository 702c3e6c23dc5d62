/* otlp-pb.c: an ExportProfilesServiceRequest's protobuf into struct
 * otlp_req (otlp-int.h), through pb.c's field loop.  Strings and bytes
 * point into the input.
 *
 * A field of a known number with another wire type than v1.11.0 gives it
 * is the sign of another version's message (v1.9.0's Sample had values
 * at 2 and attribute_indices at 3, v1.11.0 has them at 4 and 2): it is
 * refused as such, naming the message, the field and the byte.  Unknown
 * fields are skipped, as protobuf says. */
#include <string.h>

#include "otlp-int.h"
#include "pb.h"

/* One message being read: its name for errors and the request. */
struct rd {
	struct otlp_req *r;
	const char *msg;
	struct error *err;
};

static int
rd_next(struct rd *d, struct pb *c, struct pb_field *f)
{
	struct error pe = { 0 };
	int rc;

	if ((rc = pb_next(c, f, &pe)) == -1)
		return error_set(d->err, ERR_INPUT, "OTLP: %s: the protobuf "
		    "is cut short or garbled: %.400s", d->msg, pe.msg);
	return rc;
}

/* -1 unless f is of wire type wt (or also, for a repeated scalar that
 * may come packed, alt). */
static int
rd_want(struct rd *d, const struct pb_field *f, enum pb_wire wt,
    enum pb_wire alt, const char *name)
{
	if (f->wt == wt || f->wt == alt)
		return 0;
	return otlp_wrong_version(d->err, "%s.%s (field %u) at byte %zu is "
	    "%s, in v1.11.0 it is %s", d->msg, name, f->num, f->off,
	    pb_wire_name(f->wt), pb_wire_name(wt));
}

static int
rd_int(struct rd *d, const struct pb_field *f, const char *name,
    int64_t *v)
{
	if (rd_want(d, f, PB_VARINT, PB_VARINT, name) == -1)
		return -1;
	*v = (int64_t)f->v;
	return 0;
}

static int
rd_u64(struct rd *d, const struct pb_field *f, const char *name,
    uint64_t *v)
{
	if (rd_want(d, f, PB_VARINT, PB_VARINT, name) == -1)
		return -1;
	*v = f->v;
	return 0;
}

static int
rd_bytes(struct rd *d, const struct pb_field *f, const char *name,
    struct mstr *s)
{
	if (rd_want(d, f, PB_LEN, PB_LEN, name) == -1)
		return -1;
	s->p = (const char *)f->data;
	s->n = f->len;
	return 0;
}

static int
rd_i64s_add(void *arg, uint64_t v)
{
	otlp_i64s_add(arg, (int64_t)v);
	return 0;
}

/* A repeated int32 or int64 field, packed or not, appended to run in
 * pool. */
static int
rd_ints(struct rd *d, const struct pb *c, const struct pb_field *f,
    const char *name, struct otlp_i64s *pool, struct otlp_run *run)
{
	struct error pe = { 0 };

	if (rd_want(d, f, PB_LEN, PB_VARINT, name) == -1)
		return -1;
	otlp_run_open(pool, run);
	if (pb_repeated_varint(c, f, rd_i64s_add, pool, name, &pe) == -1)
		return error_set(d->err, ERR_INPUT, "OTLP: %s: %.400s", d->msg,
		    pe.msg);
	run->n = pool->n - run->first;
	return 0;
}

/* Sample.timestamps_unix_nano: repeated fixed64, packed or not. */
static int
rd_fixed64s(struct rd *d, const struct pb_field *f, struct otlp_i64s *pool,
    struct otlp_run *run)
{
	size_t i, k;
	uint64_t v;

	if (rd_want(d, f, PB_LEN, PB_FIXED64, "timestamps_unix_nano") == -1)
		return -1;
	otlp_run_open(pool, run);
	if (f->wt == PB_FIXED64)
		otlp_i64s_add(pool, (int64_t)f->v);
	else if (f->len % 8 != 0)
		return error_set(d->err, ERR_INPUT, "OTLP: %s."
		    "timestamps_unix_nano at byte %zu: %zu bytes are not "
		    "packed fixed64 values", d->msg, f->off, f->len);
	else
		for (i = 0; i < f->len; i += 8) {
			for (v = 0, k = 8; k-- > 0;)
				v = v << 8 | f->data[i + k];
			otlp_i64s_add(pool, (int64_t)v);
		}
	run->n = pool->n - run->first;
	return 0;
}

static int
rd_value(struct rd *up, const struct pb *c, const struct pb_field *f,
    struct otlp_value *v)
{
	struct rd d = { up->r, "AnyValue", up->err };
	struct pb s;
	struct pb_field g;
	uint64_t u;
	int rc;

	if (rd_want(up, f, PB_LEN, PB_LEN, "value") == -1)
		return -1;
	pb_sub(c, f, &s);
	/* A oneof: the last one read wins, as protobuf says. */
	while ((rc = rd_next(&d, &s, &g)) == 1) {
		switch (g.num) {
		case 1:
		case 7:
			v->kind = g.num == 1 ? OTLP_V_STR : OTLP_V_BYTES;
			if (rd_bytes(&d, &g, g.num == 1 ? "string_value" :
			    "bytes_value", &v->s) == -1)
				return -1;
			break;
		case 2:
		case 3:
		case 8:
			v->kind = g.num == 2 ? OTLP_V_BOOL : g.num == 3 ?
			    OTLP_V_INT : OTLP_V_STRINDEX;
			if (rd_int(&d, &g, g.num == 2 ? "bool_value" :
			    g.num == 3 ? "int_value" : "string_value_strindex",
			    &v->i) == -1)
				return -1;
			if (g.num == 2)
				v->i = v->i != 0;
			break;
		case 4:
			if (rd_want(&d, &g, PB_FIXED64, PB_FIXED64,
			    "double_value") == -1)
				return -1;
			v->kind = OTLP_V_DOUBLE;
			u = g.v;
			memcpy(&v->d, &u, sizeof v->d);
			break;
		case 5:
		case 6:
			if (rd_want(&d, &g, PB_LEN, PB_LEN, g.num == 5 ?
			    "array_value" : "kvlist_value") == -1)
				return -1;
			v->kind = OTLP_V_OTHER;
			break;
		}
	}
	return rc;
}

/* A KeyValue of a Resource or an InstrumentationScope. */
static int
rd_kv(struct rd *up, const struct pb *c, const struct pb_field *f)
{
	struct rd d = { up->r, "KeyValue", up->err };
	struct otlp_kv *kv;
	struct pb s;
	struct pb_field g;
	int rc;

	if (rd_want(up, f, PB_LEN, PB_LEN, "attributes") == -1 ||
	    (kv = otlp_tab_add(d.r, &d.r->kvs, sizeof *kv, "attributes",
	    d.err)) == NULL)
		return -1;
	pb_sub(c, f, &s);
	while ((rc = rd_next(&d, &s, &g)) == 1) {
		if ((g.num == 1 && rd_bytes(&d, &g, "key", &kv->key) == -1) ||
		    (g.num == 2 && rd_value(&d, &s, &g, &kv->v) == -1) ||
		    (g.num == 3 && rd_int(&d, &g, "key_strindex",
		    &kv->key_strindex) == -1))
			return -1;
	}
	return rc;
}

/* A Resource (scope 0) or an InstrumentationScope (1) into a. */
static int
rd_attrset(struct rd *up, const struct pb *c, const struct pb_field *f,
    int scope, struct otlp_attrset *a)
{
	struct rd d = { up->r, scope ? "InstrumentationScope" : "Resource",
	    up->err };
	struct pb s;
	struct pb_field g;
	int rc;

	if (rd_want(up, f, PB_LEN, PB_LEN, scope ? "scope" : "resource") ==
	    -1)
		return -1;
	pb_sub(c, f, &s);
	while ((rc = rd_next(&d, &s, &g)) == 1) {
		if (g.num == (scope ? 3u : 1u)) {
			if (a->nkv == 0)
				a->kv = d.r->kvs.n;
			else if (a->kv + a->nkv != d.r->kvs.n)
				return error_set(d.err, ERR_INPUT, "OTLP: %s "
				    "at byte %zu: its attributes are split by "
				    "another's", d.msg, g.off);
			if (rd_kv(&d, &s, &g) == -1)
				return -1;
			a->nkv = d.r->kvs.n - a->kv;
		} else if (scope && g.num <= 2 && rd_bytes(&d, &g, g.num == 1 ?
		    "name" : "version", g.num == 1 ? &a->name :
		    &a->version) == -1)
			return -1;
	}
	return rc;
}

static int
rd_vt(struct rd *up, const struct pb *c, const struct pb_field *f,
    const char *name, struct otlp_vt *vt)
{
	struct rd d = { up->r, "ValueType", up->err };
	struct pb s;
	struct pb_field g;
	int rc;

	if (rd_want(up, f, PB_LEN, PB_LEN, name) == -1)
		return -1;
	pb_sub(c, f, &s);
	while ((rc = rd_next(&d, &s, &g)) == 1)
		if ((g.num == 1 && rd_int(&d, &g, "type_strindex",
		    &vt->type) == -1) || (g.num == 2 && rd_int(&d, &g,
		    "unit_strindex", &vt->unit) == -1))
			return -1;
	return rc;
}

static int
rd_sample(struct rd *up, const struct pb *c, const struct pb_field *f)
{
	struct rd d = { up->r, "Sample", up->err };
	struct otlp_sample *sm;
	struct pb s;
	struct pb_field g;
	int rc = 0;

	if (rd_want(up, f, PB_LEN, PB_LEN, "samples") == -1 ||
	    (sm = otlp_tab_add(d.r, &d.r->samples, sizeof *sm, "samples",
	    d.err)) == NULL)
		return -1;
	pb_sub(c, f, &s);
	while (rc == 0 && rd_next(&d, &s, &g) == 1) {
		switch (g.num) {
		case 1:
			rc = rd_int(&d, &g, "stack_index", &sm->stack);
			break;
		case 2:
			rc = rd_ints(&d, &s, &g, "attribute_indices",
			    &d.r->idx, &sm->attrs);
			break;
		case 3:
			rc = rd_int(&d, &g, "link_index", &sm->link);
			break;
		case 4:
			rc = rd_ints(&d, &s, &g, "values", &d.r->vals,
			    &sm->values);
			break;
		case 5:
			rc = rd_fixed64s(&d, &g, &d.r->times, &sm->times);
			break;
		}
	}
	return rc == 0 && d.err->kind == ERR_NONE ? 0 : -1;
}

static int
rd_profile(struct rd *up, const struct pb *c, const struct pb_field *f,
    size_t resource, size_t scope)
{
	struct rd d = { up->r, "Profile", up->err };
	struct otlp_profile *p;
	struct pb s;
	struct pb_field g;
	int64_t v;
	int rc = 0;

	if (rd_want(up, f, PB_LEN, PB_LEN, "profiles") == -1 ||
	    (p = otlp_tab_add(d.r, &d.r->profiles, sizeof *p, "profiles",
	    d.err)) == NULL)
		return -1;
	p->resource = resource;
	p->scope = scope;
	p->sample = d.r->samples.n;
	pb_sub(c, f, &s);
	while (rc == 0 && rd_next(&d, &s, &g) == 1) {
		switch (g.num) {
		case 1:
			rc = rd_vt(&d, &s, &g, "sample_type", &p->sample_type);
			break;
		case 2:
			/* The samples of one Profile are consecutive. */
			p = OTLP_AT(&d.r->profiles, struct otlp_profile,
			    d.r->profiles.n - 1);
			rc = rd_sample(&d, &s, &g);
			p = OTLP_AT(&d.r->profiles, struct otlp_profile,
			    d.r->profiles.n - 1);
			p->nsample = d.r->samples.n - p->sample;
			break;
		case 3:
			rc = rd_want(&d, &g, PB_FIXED64, PB_FIXED64,
			    "time_unix_nano");
			p->time_ns = g.v;
			break;
		case 4:
			rc = rd_u64(&d, &g, "duration_nano", &p->duration_ns);
			break;
		case 5:
			rc = rd_vt(&d, &s, &g, "period_type", &p->period_type);
			break;
		case 6:
			rc = rd_int(&d, &g, "period", &p->period);
			break;
		case 7:
			rc = rd_want(&d, &g, PB_LEN, PB_LEN, "profile_id");
			break;
		case 8:
			rc = rd_int(&d, &g, "dropped_attributes_count", &v);
			break;
		case 9:
			rc = rd_bytes(&d, &g, "original_payload_format",
			    &p->payload_format);
			break;
		case 10:
			rc = rd_bytes(&d, &g, "original_payload", &p->payload);
			break;
		case 11:
			rc = rd_ints(&d, &s, &g, "attribute_indices",
			    &d.r->idx, &p->attrs);
			break;
		}
	}
	return rc == 0 && d.err->kind == ERR_NONE ? 0 : -1;
}

static int
rd_scope_profiles(struct rd *up, const struct pb *c, const struct pb_field *f,
    size_t resource)
{
	struct rd d = { up->r, "ScopeProfiles", up->err };
	struct otlp_attrset *a;
	struct pb s;
	struct pb_field g;
	size_t scope;
	int rc;

	if (rd_want(up, f, PB_LEN, PB_LEN, "scope_profiles") == -1 ||
	    (a = otlp_tab_add(d.r, &d.r->scopes, sizeof *a, "scopes",
	    d.err)) == NULL)
		return -1;
	scope = d.r->scopes.n - 1;
	pb_sub(c, f, &s);
	while ((rc = rd_next(&d, &s, &g)) == 1) {
		a = OTLP_AT(&d.r->scopes, struct otlp_attrset, scope);
		if ((g.num == 1 && rd_attrset(&d, &s, &g, 1, a) == -1) ||
		    (g.num == 2 && rd_profile(&d, &s, &g, resource,
		    scope) == -1) || (g.num == 3 && rd_want(&d, &g, PB_LEN,
		    PB_LEN, "schema_url") == -1))
			return -1;
	}
	return rc;
}

static int
rd_resource_profiles(struct rd *up, const struct pb *c,
    const struct pb_field *f)
{
	struct rd d = { up->r, "ResourceProfiles", up->err };
	struct otlp_attrset *a;
	struct pb s;
	struct pb_field g;
	size_t resource;
	int rc;

	if (rd_want(up, f, PB_LEN, PB_LEN, "resource_profiles") == -1 ||
	    (a = otlp_tab_add(d.r, &d.r->resources, sizeof *a, "resources",
	    d.err)) == NULL)
		return -1;
	resource = d.r->resources.n - 1;
	pb_sub(c, f, &s);
	while ((rc = rd_next(&d, &s, &g)) == 1) {
		a = OTLP_AT(&d.r->resources, struct otlp_attrset, resource);
		if ((g.num == 1 && rd_attrset(&d, &s, &g, 0, a) == -1) ||
		    (g.num == 2 && rd_scope_profiles(&d, &s, &g,
		    resource) == -1) || (g.num == 3 && rd_want(&d, &g, PB_LEN,
		    PB_LEN, "schema_url") == -1))
			return -1;
	}
	return rc;
}

/* ---- the dictionary ---- */

static int
rd_mapping(struct rd *d, const struct pb *c, struct otlp_mapping *m)
{
	struct pb s = *c;
	struct pb_field g;
	int rc = 0;

	while (rc == 0 && rd_next(d, &s, &g) == 1) {
		switch (g.num) {
		case 1:
			rc = rd_u64(d, &g, "memory_start", &m->start);
			break;
		case 2:
			rc = rd_u64(d, &g, "memory_limit", &m->limit);
			break;
		case 3:
			rc = rd_u64(d, &g, "file_offset", &m->offset);
			break;
		case 4:
			rc = rd_int(d, &g, "filename_strindex", &m->file);
			break;
		case 5:
			rc = rd_ints(d, &s, &g, "attribute_indices",
			    &d->r->idx, &m->attrs);
			break;
		}
	}
	return rc == 0 && d->err->kind == ERR_NONE ? 0 : -1;
}

static int
rd_line(struct rd *up, const struct pb *c, const struct pb_field *f,
    struct otlp_location *l)
{
	struct rd d = { up->r, "Line", up->err };
	struct otlp_line *ln;
	struct pb s;
	struct pb_field g;
	int rc = 0;

	if (rd_want(up, f, PB_LEN, PB_LEN, "lines") == -1 ||
	    (ln = otlp_tab_add(d.r, &d.r->lines, sizeof *ln, "lines",
	    d.err)) == NULL)
		return -1;
	/* The lines of one Location are consecutive. */
	if (l->nline == 0)
		l->line = d.r->lines.n - 1;
	l->nline = d.r->lines.n - l->line;
	pb_sub(c, f, &s);
	while (rc == 0 && rd_next(&d, &s, &g) == 1)
		if ((g.num == 1 && rd_int(&d, &g, "function_index",
		    &ln->function) == -1) || (g.num == 2 && rd_int(&d, &g,
		    "line", &ln->line) == -1) || (g.num == 3 && rd_int(&d, &g,
		    "column", &ln->column) == -1))
			rc = -1;
	return rc == 0 && d.err->kind == ERR_NONE ? 0 : -1;
}

static int
rd_location(struct rd *d, const struct pb *c, struct otlp_location *l)
{
	struct pb s = *c;
	struct pb_field g;
	int rc = 0;

	while (rc == 0 && rd_next(d, &s, &g) == 1) {
		switch (g.num) {
		case 1:
			rc = rd_int(d, &g, "mapping_index", &l->mapping);
			break;
		case 2:
			rc = rd_u64(d, &g, "address", &l->address);
			break;
		case 3:
			rc = rd_line(d, &s, &g, l);
			break;
		case 4:
			rc = rd_ints(d, &s, &g, "attribute_indices",
			    &d->r->idx, &l->attrs);
			break;
		}
	}
	return rc == 0 && d->err->kind == ERR_NONE ? 0 : -1;
}

static int
rd_function(struct rd *d, const struct pb *c, struct otlp_function *fn)
{
	struct pb s = *c;
	struct pb_field g;
	int rc = 0;

	while (rc == 0 && rd_next(d, &s, &g) == 1)
		if ((g.num == 1 && rd_int(d, &g, "name_strindex",
		    &fn->name) == -1) || (g.num == 2 && rd_int(d, &g,
		    "system_name_strindex", &fn->system_name) == -1) ||
		    (g.num == 3 && rd_int(d, &g, "filename_strindex",
		    &fn->file) == -1) || (g.num == 4 && rd_int(d, &g,
		    "start_line", &fn->start_line) == -1))
			rc = -1;
	return rc == 0 && d->err->kind == ERR_NONE ? 0 : -1;
}

static int
rd_link(struct rd *d, const struct pb *c, struct otlp_link *k)
{
	struct pb s = *c;
	struct pb_field g;
	int rc = 0;

	while (rc == 0 && rd_next(d, &s, &g) == 1)
		if ((g.num == 1 && rd_bytes(d, &g, "trace_id",
		    &k->trace_id) == -1) || (g.num == 2 && rd_bytes(d, &g,
		    "span_id", &k->span_id) == -1))
			rc = -1;
	return rc == 0 && d->err->kind == ERR_NONE ? 0 : -1;
}

static int
rd_attr(struct rd *d, const struct pb *c, struct otlp_attr *a)
{
	struct pb s = *c;
	struct pb_field g;
	int rc = 0;

	while (rc == 0 && rd_next(d, &s, &g) == 1)
		if ((g.num == 1 && rd_int(d, &g, "key_strindex",
		    &a->key) == -1) || (g.num == 2 && rd_value(d, &s, &g,
		    &a->v) == -1) || (g.num == 3 && rd_int(d, &g,
		    "unit_strindex", &a->unit) == -1))
			rc = -1;
	return rc == 0 && d->err->kind == ERR_NONE ? 0 : -1;
}

static int
rd_stack(struct rd *d, const struct pb *c, struct otlp_run *run)
{
	struct pb s = *c;
	struct pb_field g;
	int rc = 0;

	while (rc == 0 && rd_next(d, &s, &g) == 1)
		if (g.num == 1)
			rc = rd_ints(d, &s, &g, "location_indices",
			    &d->r->idx, run);
	return rc == 0 && d->err->kind == ERR_NONE ? 0 : -1;
}

/* ProfilesDictionary: field n's table, its message's name, its size. */
static const struct {
	const char *field, *msg;
	size_t off, size;
} tables[] = {
	[1] = { "mapping_table", "Mapping", offsetof(struct otlp_req,
	    mappings), sizeof(struct otlp_mapping) },
	[2] = { "location_table", "Location", offsetof(struct otlp_req,
	    locations), sizeof(struct otlp_location) },
	[3] = { "function_table", "Function", offsetof(struct otlp_req,
	    functions), sizeof(struct otlp_function) },
	[4] = { "link_table", "Link", offsetof(struct otlp_req, links),
	    sizeof(struct otlp_link) },
	[5] = { "string_table", "string", offsetof(struct otlp_req,
	    strings), sizeof(struct mstr) },
	[6] = { "attribute_table", "KeyValueAndUnit", offsetof(struct
	    otlp_req, attrs), sizeof(struct otlp_attr) },
	[7] = { "stack_table", "Stack", offsetof(struct otlp_req, stacks),
	    sizeof(struct otlp_run) },
};

static int
rd_dictionary(struct rd *up, const struct pb *c, const struct pb_field *f)
{
	struct rd d = { up->r, "ProfilesDictionary", up->err };
	struct pb s, e;
	struct pb_field g;
	struct otlp_tab *t;
	void *at;
	int rc = 0;

	if (rd_want(up, f, PB_LEN, PB_LEN, "dictionary") == -1)
		return -1;
	pb_sub(c, f, &s);
	while (rc == 0 && rd_next(&d, &s, &g) == 1) {
		if (g.num < 1 || g.num > 7)
			continue;
		if (rd_want(&d, &g, PB_LEN, PB_LEN, tables[g.num].field) ==
		    -1)
			return -1;
		t = (struct otlp_tab *)((char *)d.r + tables[g.num].off);
		if ((at = otlp_tab_add(d.r, t, tables[g.num].size,
		    tables[g.num].field, d.err)) == NULL)
			return -1;
		pb_sub(&s, &g, &e);
		d.msg = tables[g.num].msg;
		switch (g.num) {
		case 1:
			rc = rd_mapping(&d, &e, at);
			break;
		case 2:
			rc = rd_location(&d, &e, at);
			break;
		case 3:
			rc = rd_function(&d, &e, at);
			break;
		case 4:
			rc = rd_link(&d, &e, at);
			break;
		case 5:
			((struct mstr *)at)->p = (const char *)g.data;
			((struct mstr *)at)->n = g.len;
			break;
		case 6:
			rc = rd_attr(&d, &e, at);
			break;
		case 7:
			rc = rd_stack(&d, &e, at);
			break;
		}
		d.msg = "ProfilesDictionary";
	}
	return rc == 0 && d.err->kind == ERR_NONE ? 0 : -1;
}

int
otlp_pb_read(struct otlp_req *r, const uint8_t *data, size_t n,
    struct error *err)
{
	struct rd d = { r, "ExportProfilesServiceRequest", err };
	struct pb c;
	struct pb_field f;
	int rc;

	pb_init(&c, data, n);
	while ((rc = rd_next(&d, &c, &f)) == 1)
		if ((f.num == 1 && rd_resource_profiles(&d, &c, &f) == -1) ||
		    (f.num == 2 && rd_dictionary(&d, &c, &f) == -1))
			return -1;
	return rc;
}
