/* querier-req.h: the requests of Grafana Pyroscope's querier.v1
 * QuerierService (ProfileTypes, LabelNames, LabelValues, Series,
 * SelectSeries, SelectMergeStacktraces, SelectMergeProfile,
 * GetProfileStats) as Connect
 * unary calls carry them: a protobuf message or its proto3 JSON form
 * (field names as in the .proto or in lowerCamelCase, int64 as a number
 * or a string, enums by name or number).  Every message is read into one
 * struct: the fields a method has not stay empty. */
#ifndef PROFD_QUERIER_REQ_H
#define PROFD_QUERIER_REQ_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum querier_method {
	QM_PROFILE_TYPES,		/* querier.v1.ProfileTypesRequest */
	QM_LABEL_NAMES,			/* types.v1.LabelNamesRequest */
	QM_LABEL_VALUES,		/* types.v1.LabelValuesRequest */
	QM_SERIES,			/* querier.v1.SeriesRequest */
	QM_SELECT_SERIES,		/* querier.v1.SelectSeriesRequest */
	QM_SELECT_STACKS,		/* ...SelectMergeStacktracesRequest */
	QM_SELECT_PROFILE,		/* ...SelectMergeProfileRequest */
	QM_PROFILE_STATS,		/* types.v1.GetProfileStatsRequest */
	QM_COUNT
};

/* querier.v1.ProfileFormat */
enum querier_format {
	QF_UNSPECIFIED, QF_FLAMEGRAPH, QF_TREE, QF_DOT, QF_PPROF
};

/* Bounds on what a request may hold: its strings (a selector is at most
 * LABELSEL_MAX bytes, query/labelsel.h) and its lists. */
#define QUERIER_REQ_MAX_STR	16384
#define QUERIER_REQ_MAX_LIST	256
/* Of a whole request's bytes, after gunzip: requests are small. */
#define QUERIER_REQ_MAX_BYTES	(1024 * 1024)

struct querier_strs {
	char **v;
	size_t n;
};

struct querier_req {
	enum querier_method method;
	char *profile_type;		/* profile_typeID */
	char *label_selector;
	char *name;			/* LabelValues' label */
	struct querier_strs matchers, label_names, group_by;
	int64_t start_ms, end_ms;
	int64_t max_nodes;		/* when has_max_nodes */
	int has_max_nodes;
	int format;			/* enum querier_format */
	double step_s;			/* SelectSeries */
	int aggregation;		/* types.v1.TimeSeriesAggregationType */
	int has_aggregation;
	int64_t limit;			/* SelectSeries' top series */
	int has_limit;
	/* A field profd does not serve that changes the answer (a stack
	 * trace selector, profile, trace or span ids): its name, for an
	 * "unimplemented" reply; NULL if none is set. */
	const char *unsupported;
};

/* Decode the n bytes at data as method's request into *r (cleared first;
 * querier_req_clear it after a 0).  -1 with ERR_INPUT saying what and
 * where (the field, the byte offset), or ERR_TOO_LARGE past a bound. */
int querier_req_decode(enum querier_method, const uint8_t *data, size_t n,
    struct querier_req *, struct error *);
int querier_req_decode_json(enum querier_method, const uint8_t *data,
    size_t n, struct querier_req *, struct error *);
void querier_req_clear(struct querier_req *);
/* The message's name ("SelectSeriesRequest") for errors. */
const char *querier_req_name(enum querier_method);

#endif
