/* querier-req.c: querier.v1's requests, protobuf and proto3 JSON, read
 * through one table of fields (message, number, names, kind, where it
 * goes), so that both encodings accept the same fields with the same
 * bounds.  Written from the public API's .proto files (Grafana
 * Pyroscope's api/querier/v1/querier.proto, api/types/v1/types.proto). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "jsonlim.h"
#include "nitems.h"
#include "pb.h"
#include "querier-req.h"

enum qkind {
	QK_STR,			/* string */
	QK_STRS,		/* repeated string */
	QK_I64,			/* int64 (optional ones too) */
	QK_DOUBLE,
	QK_ENUM,
	QK_UNSUP,		/* set, it changes the answer: not served */
	QK_IGNORE,		/* set or not, the answer is the same */
};

enum qslot {
	S_NONE, S_PROFILE_TYPE, S_SELECTOR, S_NAME, S_MATCHERS,
	S_LABEL_NAMES, S_GROUP_BY, S_START, S_END, S_MAX_NODES, S_FORMAT,
	S_STEP, S_AGGREGATION, S_LIMIT
};

struct qfield {
	enum querier_method m;
	uint32_t num;
	const char *name, *camel;	/* the .proto's, proto3 JSON's */
	enum qkind kind;
	enum qslot slot;
};

#define SELECT_COMMON(m) \
	{ m, 1, "profile_typeID", "profileTypeID", QK_STR, S_PROFILE_TYPE }, \
	{ m, 2, "label_selector", "labelSelector", QK_STR, S_SELECTOR }, \
	{ m, 3, "start", "start", QK_I64, S_START }, \
	{ m, 4, "end", "end", QK_I64, S_END }

static const struct qfield qfields[] = {
	{ QM_PROFILE_TYPES, 1, "start", "start", QK_I64, S_START },
	{ QM_PROFILE_TYPES, 2, "end", "end", QK_I64, S_END },
	{ QM_LABEL_NAMES, 1, "matchers", "matchers", QK_STRS, S_MATCHERS },
	{ QM_LABEL_NAMES, 2, "start", "start", QK_I64, S_START },
	{ QM_LABEL_NAMES, 3, "end", "end", QK_I64, S_END },
	{ QM_LABEL_VALUES, 1, "name", "name", QK_STR, S_NAME },
	{ QM_LABEL_VALUES, 2, "matchers", "matchers", QK_STRS, S_MATCHERS },
	{ QM_LABEL_VALUES, 3, "start", "start", QK_I64, S_START },
	{ QM_LABEL_VALUES, 4, "end", "end", QK_I64, S_END },
	{ QM_SERIES, 1, "matchers", "matchers", QK_STRS, S_MATCHERS },
	{ QM_SERIES, 2, "label_names", "labelNames", QK_STRS, S_LABEL_NAMES },
	{ QM_SERIES, 3, "start", "start", QK_I64, S_START },
	{ QM_SERIES, 4, "end", "end", QK_I64, S_END },
	SELECT_COMMON(QM_SELECT_SERIES),
	{ QM_SELECT_SERIES, 5, "group_by", "groupBy", QK_STRS, S_GROUP_BY },
	{ QM_SELECT_SERIES, 6, "step", "step", QK_DOUBLE, S_STEP },
	{ QM_SELECT_SERIES, 7, "aggregation", "aggregation", QK_ENUM,
	    S_AGGREGATION },
	{ QM_SELECT_SERIES, 8, "stack_trace_selector", "stackTraceSelector",
	    QK_UNSUP, S_NONE },
	{ QM_SELECT_SERIES, 9, "limit", "limit", QK_I64, S_LIMIT },
	/* Exemplars are points' extras: a series without them is whole. */
	{ QM_SELECT_SERIES, 10, "exemplar_type", "exemplarType", QK_IGNORE,
	    S_NONE },
	SELECT_COMMON(QM_SELECT_STACKS),
	{ QM_SELECT_STACKS, 5, "max_nodes", "maxNodes", QK_I64, S_MAX_NODES },
	{ QM_SELECT_STACKS, 6, "format", "format", QK_ENUM, S_FORMAT },
	{ QM_SELECT_STACKS, 7, "stack_trace_selector", "stackTraceSelector",
	    QK_UNSUP, S_NONE },
	{ QM_SELECT_STACKS, 8, "profile_id_selector", "profileIdSelector",
	    QK_UNSUP, S_NONE },
	/* Asynchronous queries are a hint: the answer comes at once. */
	{ QM_SELECT_STACKS, 9, "async", "async", QK_IGNORE, S_NONE },
	{ QM_SELECT_STACKS, 10, "trace_id_selector", "traceIdSelector",
	    QK_UNSUP, S_NONE },
	{ QM_SELECT_STACKS, 11, "span_selector", "spanSelector", QK_UNSUP,
	    S_NONE },
	SELECT_COMMON(QM_SELECT_PROFILE),
	{ QM_SELECT_PROFILE, 5, "max_nodes", "maxNodes", QK_I64,
	    S_MAX_NODES },
	{ QM_SELECT_PROFILE, 6, "stack_trace_selector", "stackTraceSelector",
	    QK_UNSUP, S_NONE },
	{ QM_SELECT_PROFILE, 7, "profile_id_selector", "profileIdSelector",
	    QK_UNSUP, S_NONE },
	{ QM_SELECT_PROFILE, 8, "trace_id_selector", "traceIdSelector",
	    QK_UNSUP, S_NONE },
};

static const char *const qnames[QM_COUNT] = {
	"ProfileTypesRequest", "LabelNamesRequest", "LabelValuesRequest",
	"SeriesRequest", "SelectSeriesRequest",
	"SelectMergeStacktracesRequest", "SelectMergeProfileRequest",
	"GetProfileStatsRequest",
};

/* Enum values by name, per field. */
struct qenum {
	enum qslot slot;
	const char *name;
	int value;
};

static const struct qenum qenums[] = {
	{ S_FORMAT, "PROFILE_FORMAT_UNSPECIFIED", QF_UNSPECIFIED },
	{ S_FORMAT, "PROFILE_FORMAT_FLAMEGRAPH", QF_FLAMEGRAPH },
	{ S_FORMAT, "PROFILE_FORMAT_TREE", QF_TREE },
	{ S_FORMAT, "PROFILE_FORMAT_DOT", QF_DOT },
	{ S_FORMAT, "PROFILE_FORMAT_PPROF", QF_PPROF },
	{ S_AGGREGATION, "TIME_SERIES_AGGREGATION_TYPE_SUM", 0 },
	{ S_AGGREGATION, "TIME_SERIES_AGGREGATION_TYPE_AVERAGE", 1 },
};

const char *
querier_req_name(enum querier_method m)
{
	return m < QM_COUNT ? qnames[m] : "request";
}

void
querier_req_clear(struct querier_req *r)
{
	struct querier_strs *l[] = { &r->matchers, &r->label_names,
	    &r->group_by };
	size_t i, j;

	free(r->profile_type);
	free(r->label_selector);
	free(r->name);
	for (i = 0; i < NITEMS(l); i++) {
		for (j = 0; j < l[i]->n; j++)
			free(l[i]->v[j]);
		free(l[i]->v);
	}
	memset(r, 0, sizeof *r);
}

static struct querier_strs *
qslot_strs(struct querier_req *r, enum qslot s)
{
	return s == S_MATCHERS ? &r->matchers : s == S_LABEL_NAMES ?
	    &r->label_names : &r->group_by;
}

static char **
qslot_str(struct querier_req *r, enum qslot s)
{
	return s == S_PROFILE_TYPE ? &r->profile_type : s == S_SELECTOR ?
	    &r->label_selector : &r->name;
}

/* A string field's bytes: bounded, UTF-8 (proto3's rule for string),
 * without NUL (they are C strings from here on). */
static int
qstr_put(struct querier_req *r, const struct qfield *f, const char *p,
    size_t n, size_t off, struct error *err)
{
	struct querier_strs *l;
	json_t *utf;

	if (n > QUERIER_REQ_MAX_STR)
		return error_set(err, ERR_TOO_LARGE, "%s: %s at byte %zu: "
		    "%zu bytes, at most %d", qnames[r->method], f->name, off,
		    n, QUERIER_REQ_MAX_STR);
	if (memchr(p, '\0', n) != NULL ||
	    (utf = json_stringn(p, n)) == NULL)
		return error_set(err, ERR_INPUT, "%s: %s at byte %zu: not "
		    "UTF-8 text without NUL", qnames[r->method], f->name, off);
	json_decref(utf);
	if (f->kind == QK_STR) {
		free(*qslot_str(r, f->slot));
		*qslot_str(r, f->slot) = xstrndup(p, n);
		return 0;
	}
	l = qslot_strs(r, f->slot);
	if (l->n >= QUERIER_REQ_MAX_LIST)
		return error_set(err, ERR_TOO_LARGE, "%s: %s: more than %d "
		    "values", qnames[r->method], f->name,
		    QUERIER_REQ_MAX_LIST);
	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	l->v[l->n++] = xstrndup(p, n);
	return 0;
}

static void
qint_put(struct querier_req *r, enum qslot s, int64_t v)
{
	switch (s) {
	case S_START:
		r->start_ms = v;
		break;
	case S_END:
		r->end_ms = v;
		break;
	case S_MAX_NODES:
		r->max_nodes = v;
		r->has_max_nodes = 1;
		break;
	case S_FORMAT:
		r->format = (int)v;
		break;
	case S_AGGREGATION:
		r->aggregation = (int)v;
		r->has_aggregation = 1;
		break;
	case S_LIMIT:
		r->limit = v;
		r->has_limit = 1;
		break;
	default:
		break;
	}
}

/* An enum's number: proto3 keeps unknown ones; what they mean is the
 * caller's to refuse.  Bounded to int. */
static int
qenum_put(struct querier_req *r, const struct qfield *f, int64_t v,
    size_t off, struct error *err)
{
	if (v < -2147483647 || v > 2147483647)
		return error_set(err, ERR_INPUT, "%s: %s at byte %zu: %lld is "
		    "not an enum value", qnames[r->method], f->name, off,
		    (long long)v);
	qint_put(r, f->slot, v);
	return 0;
}

static const struct qfield *
qfield_num(enum querier_method m, uint32_t num)
{
	size_t i;

	for (i = 0; i < NITEMS(qfields); i++)
		if (qfields[i].m == m && qfields[i].num == num)
			return &qfields[i];
	return NULL;
}

static int
qwrong(struct querier_req *r, const struct qfield *f,
    const struct pb_field *pf, struct error *err)
{
	enum pb_wire want = f->kind == QK_I64 || f->kind == QK_ENUM ?
	    PB_VARINT : f->kind == QK_DOUBLE ? PB_FIXED64 : PB_LEN;

	return error_set(err, ERR_INPUT, "%s: %s (field %u) at byte %zu: "
	    "sent as %s, not %s", qnames[r->method], f->name, f->num,
	    pf->off, pb_wire_name(pf->wt), pb_wire_name(want));
}

static int
qfield_pb(struct querier_req *r, const struct qfield *f,
    const struct pb_field *pf, struct error *err)
{
	double d;

	switch (f->kind) {
	case QK_STR:
	case QK_STRS:
		if (pf->wt != PB_LEN)
			return qwrong(r, f, pf, err);
		return qstr_put(r, f, (const char *)pf->data, pf->len, pf->off,
		    err);
	case QK_I64:
		if (pf->wt != PB_VARINT)
			return qwrong(r, f, pf, err);
		qint_put(r, f->slot, (int64_t)pf->v);
		return 0;
	case QK_ENUM:
		if (pf->wt != PB_VARINT)
			return qwrong(r, f, pf, err);
		/* An enum's varint is an int32 sign-extended to 64 bits. */
		return qenum_put(r, f, (int64_t)pf->v, pf->off, err);
	case QK_DOUBLE:
		if (pf->wt != PB_FIXED64)
			return qwrong(r, f, pf, err);
		memcpy(&d, &pf->v, sizeof d);
		r->step_s = d;
		return 0;
	case QK_UNSUP:
		if (pf->wt == PB_LEN && pf->len > 0)
			r->unsupported = f->name;
		return 0;
	case QK_IGNORE:
		return 0;
	}
	return 0;
}

int
querier_req_decode(enum querier_method m, const uint8_t *data, size_t n,
    struct querier_req *r, struct error *err)
{
	const struct qfield *f;
	struct pb_field pf;
	struct error pe = { 0 };
	struct pb c;
	int rc;

	memset(r, 0, sizeof *r);
	r->method = m;
	if (n > QUERIER_REQ_MAX_BYTES)
		return error_set(err, ERR_TOO_LARGE, "%s: %zu bytes, at most "
		    "%d", qnames[m], n, QUERIER_REQ_MAX_BYTES);
	pb_init(&c, data, n);
	while ((rc = pb_next(&c, &pf, &pe)) == 1) {
		/* Unknown fields are skipped, as proto3 readers do. */
		if ((f = qfield_num(m, pf.num)) == NULL)
			continue;
		if (qfield_pb(r, f, &pf, err) == -1) {
			querier_req_clear(r);
			return -1;
		}
	}
	if (rc == -1) {
		querier_req_clear(r);
		return error_set(err, ERR_INPUT, "%s: %s", qnames[m], pe.msg);
	}
	return 0;
}

/* ---- proto3 JSON ---- */

static int
qjson_fail(struct querier_req *r, const struct qfield *f, const char *what,
    struct error *err)
{
	return error_set(err, ERR_INPUT, "%s: \"%s\": %s", qnames[r->method],
	    f->camel, what);
}

/* int64 in proto3 JSON: a number or a decimal string. */
static int
qjson_i64(struct querier_req *r, const struct qfield *f, json_t *v,
    int64_t *out, struct error *err)
{
	const char *s;
	char *end;
	double d;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (json_is_real(v)) {
		d = json_real_value(v);
		if (d != floor(d) || !(d >= -9.2e18 && d <= 9.2e18))
			return qjson_fail(r, f, "not an integer", err);
		*out = (int64_t)d;
		return 0;
	}
	if (!json_is_string(v))
		return qjson_fail(r, f, "neither a number nor a string", err);
	s = json_string_value(v);
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0)
		return qjson_fail(r, f, "not a 64-bit integer", err);
	return 0;
}

static int
qjson_double(struct querier_req *r, const struct qfield *f, json_t *v,
    struct error *err)
{
	const char *s;
	char *end;

	if (json_is_number(v)) {
		r->step_s = json_number_value(v);
		return 0;
	}
	if (!json_is_string(v))
		return qjson_fail(r, f, "neither a number nor a string", err);
	s = json_string_value(v);
	errno = 0;
	r->step_s = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno != 0)
		return qjson_fail(r, f, "not a number", err);
	return 0;
}

static int
qjson_enum(struct querier_req *r, const struct qfield *f, json_t *v,
    struct error *err)
{
	int64_t n;
	size_t i;

	if (json_is_string(v)) {
		for (i = 0; i < NITEMS(qenums); i++)
			if (qenums[i].slot == f->slot && strcmp(qenums[i].name,
			    json_string_value(v)) == 0) {
				qint_put(r, f->slot, qenums[i].value);
				return 0;
			}
		return qjson_fail(r, f, "not a value of its enum", err);
	}
	if (qjson_i64(r, f, v, &n, err) == -1)
		return -1;
	return qenum_put(r, f, n, 0, err);
}

static int
qjson_str(struct querier_req *r, const struct qfield *f, json_t *v,
    struct error *err)
{
	if (!json_is_string(v))
		return qjson_fail(r, f, "not a string", err);
	return qstr_put(r, f, json_string_value(v), json_string_length(v), 0,
	    err);
}

static int
qjson_field(struct querier_req *r, const struct qfield *f, json_t *v,
    struct error *err)
{
	json_t *e;
	int64_t n;
	size_t i;

	/* null is the field's default, as proto3 JSON says. */
	if (json_is_null(v))
		return 0;
	switch (f->kind) {
	case QK_STR:
		return qjson_str(r, f, v, err);
	case QK_STRS:
		if (!json_is_array(v))
			return qjson_fail(r, f, "not an array", err);
		json_array_foreach(v, i, e)
			if (qjson_str(r, f, e, err) == -1)
				return -1;
		return 0;
	case QK_I64:
		if (qjson_i64(r, f, v, &n, err) == -1)
			return -1;
		qint_put(r, f->slot, n);
		return 0;
	case QK_DOUBLE:
		return qjson_double(r, f, v, err);
	case QK_ENUM:
		return qjson_enum(r, f, v, err);
	case QK_UNSUP:
		if ((json_is_array(v) && json_array_size(v) > 0) ||
		    (json_is_object(v) && json_object_size(v) > 0) ||
		    (json_is_string(v) && json_string_length(v) > 0))
			r->unsupported = f->name;
		return 0;
	case QK_IGNORE:
		return 0;
	}
	return 0;
}

int
querier_req_decode_json(enum querier_method m, const uint8_t *data,
    size_t n, struct querier_req *r, struct error *err)
{
	/* A request is a few strings and lists of strings. */
	const struct jsonlim lim = { 8, 4 * QUERIER_REQ_MAX_LIST + 64, n };
	struct error lerr = { 0 };
	const struct qfield *f;
	const char *key;
	json_error_t je;
	json_t *root, *v;
	size_t i;
	int rc = 0;

	memset(r, 0, sizeof *r);
	r->method = m;
	if (n > QUERIER_REQ_MAX_BYTES)
		return error_set(err, ERR_TOO_LARGE, "%s: %zu bytes, at most "
		    "%d", qnames[m], n, QUERIER_REQ_MAX_BYTES);
	if (jsonlim_check(data, n, &lim, &lerr) == -1)
		return error_set(err, lerr.kind, "%s: %.400s", qnames[m],
		    lerr.msg);
	if ((root = json_loadb((const char *)data, n, JSON_REJECT_DUPLICATES,
	    &je)) == NULL)
		return error_set(err, ERR_INPUT, "%s: JSON: %s at byte %d",
		    qnames[m], je.text, je.position);
	if (!json_is_object(root)) {
		json_decref(root);
		return error_set(err, ERR_INPUT, "%s: not a JSON object",
		    qnames[m]);
	}
	json_object_foreach(root, key, v) {
		for (i = 0, f = NULL; i < NITEMS(qfields) && f == NULL; i++)
			if (qfields[i].m == m &&
			    (strcmp(key, qfields[i].name) == 0 ||
			    strcmp(key, qfields[i].camel) == 0))
				f = &qfields[i];
		/* Unknown members are skipped, as the protobuf's. */
		if (f != NULL && (rc = qjson_field(r, f, v, err)) == -1)
			break;
	}
	json_decref(root);
	if (rc == -1)
		querier_req_clear(r);
	return rc;
}
