/* otlp-int.h: what the OTLP profiles decoder's files share (see otlp.h):
 * the request as read from either encoding, before any index in it is
 * trusted.
 *
 * Calls go one way, down this list:
 *
 *   otlp.c        entry points: the request checked, a Profile's scope
 *                 and labels, the format table's decoder
 *   otlp-emit.c   one checked Profile onto the sink
 *   otlp-json.c   OTLP's JSON form into the structs below
 *   otlp-pb.c     the protobuf form into the same
 *   otlp-val.c    what both read into: the tables grown under their
 *                 bounds, an attribute's value as a label's text */
#ifndef PROFD_OTLP_INT_H
#define PROFD_OTLP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "error.h"
#include "mstr.h"
#include "otlp.h"

/* What OTLP's messages hold, as far as profd reads them.  Indices are
 * kept as read (int64_t: a negative int32 is caught, not wrapped) and
 * checked in otlp.c before anything follows them. */

enum otlp_vkind {
	OTLP_V_NONE = 0,
	OTLP_V_STR,
	OTLP_V_BOOL,
	OTLP_V_INT,
	OTLP_V_DOUBLE,
	OTLP_V_BYTES,
	OTLP_V_STRINDEX,
	OTLP_V_OTHER,		/* an array or a key-value list */
};

struct otlp_value {
	enum otlp_vkind kind;
	struct mstr s;			/* STR, BYTES */
	int64_t i;			/* BOOL, INT, STRINDEX */
	double d;
};

/* A KeyValue (resource and scope attributes): its key as a string or an
 * index into the string table. */
struct otlp_kv {
	struct mstr key;
	int64_t key_strindex;
	struct otlp_value v;
};

/* A KeyValueAndUnit of the attribute table. */
struct otlp_attr {
	int64_t key, unit;
	struct otlp_value v;
};

/* A run of indices in one of the request's pools (struct otlp_i64s). */
struct otlp_run {
	size_t first, n;
};

struct otlp_i64s {
	int64_t *v;
	size_t n, cap;
};

struct otlp_mapping {
	uint64_t start, limit, offset;
	int64_t file;
	struct otlp_run attrs;
};

struct otlp_line {
	int64_t function, line, column;
};

struct otlp_location {
	int64_t mapping;
	uint64_t address;
	size_t line, nline;		/* into lines */
	struct otlp_run attrs;
};

struct otlp_function {
	int64_t name, system_name, file, start_line;
};

struct otlp_link {
	struct mstr trace_id, span_id;
};

struct otlp_sample {
	int64_t stack, link;
	struct otlp_run attrs;		/* in idx */
	struct otlp_run values;		/* in vals */
	struct otlp_run times;		/* in times */
};

struct otlp_vt {
	int64_t type, unit;
};

struct otlp_profile {
	size_t resource, scope;		/* into resources, scopes */
	struct otlp_vt sample_type, period_type;
	uint64_t time_ns, duration_ns;
	int64_t period;
	struct mstr payload_format, payload;
	struct otlp_run attrs;		/* in idx */
	size_t sample, nsample;		/* into samples */
};

/* A Resource's or an InstrumentationScope's attributes (and the scope's
 * name and version). */
struct otlp_attrset {
	size_t kv, nkv;			/* into kvs */
	struct mstr name, version;
};

/* A growable array of n elements of size bytes, at most max of them. */
struct otlp_tab {
	void *v;
	size_t n, cap;
};

struct otlp_req {
	const struct limits *lim;
	struct otlp_tab mappings, locations, lines, functions, links,
	    strings, attrs, stacks, kvs, resources, scopes, profiles,
	    samples;
	struct otlp_i64s idx;		/* attribute and location indices */
	struct otlp_i64s vals;		/* values */
	struct otlp_i64s times;		/* timestamps */
	/* What the JSON form owns: its tree (strings point into it) and
	 * the bytes its base64 and hex decoded to. */
	void *json;
	uint8_t **owned;
	size_t nowned;
};

/* Room for a value's text: a number, or bytes of up to 64 in hex. */
#define OTLP_TEXT_MAX	160

#define OTLP_AT(t, type, i)	(&((type *)(t)->v)[i])

/* otlp-val.c */
/* One more zeroed element of t, or NULL with err past lim->max_strings
 * (what names t in the error). */
void *otlp_tab_add(struct otlp_req *, struct otlp_tab *, size_t size,
    const char *what, struct error *);
void otlp_i64s_add(struct otlp_i64s *, int64_t);
/* Make run (of pool) end where pool does, to append to it: a repeated
 * field given twice with other runs added between is moved to the end. */
void otlp_run_open(struct otlp_i64s *pool, struct otlp_run *run);
/* The text of a value for a label (strings resolved through the table,
 * numbers as decimal, bytes as hex, made in buf of OTLP_TEXT_MAX bytes);
 * 0, or -1 for a value that has none (an array, a list, nothing, bytes
 * longer than 64). */
int otlp_value_text(const struct otlp_req *, const struct otlp_value *,
    char *buf, struct mstr *);
/* The string at index i (checked already). */
struct mstr otlp_str(const struct otlp_req *, int64_t i);
/* Always -1: err "opentelemetry-proto v1.11.0 ... : fmt" for input that
 * is not this version's wire format. */
int otlp_wrong_version(struct error *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* otlp-pb.c, otlp-json.c: the request's bytes into r (zeroed first;
 * otlp_req_clear frees what either made). */
int otlp_pb_read(struct otlp_req *, const uint8_t *, size_t,
    struct error *);
int otlp_json_read(struct otlp_req *, const uint8_t *, size_t,
    struct error *);

/* otlp-emit.c: Profile i (checked) onto the sink. */
int otlp_emit(struct otlp_req *, size_t i, const struct sink *,
    struct error *);

#endif
