/* querier-reply.h: querier.v1's replies in the call's encoding: the
 * protobuf message, or its proto3 JSON form (lowerCamelCase names, int64
 * as strings).  Written from the public API's .proto files. */
#ifndef PROFD_QUERIER_REPLY_H
#define PROFD_QUERIER_REPLY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct flame;
struct pyrotype;
struct series_label;

struct querier_reply {
	int json;
	struct buf pb;			/* !json: the message */
	json_t *js;			/* json: the message */
	/* json: the message's text is in pb instead (a time series':
	 * a tree would cost hundreds of bytes a point) */
	int text;
};

struct querier_point {
	int64_t ms;
	double value;
};

/* A series of SelectSeries, or (no points) a label set of Series. */
struct querier_series {
	struct series_label *labels;	/* borrowed, by name */
	size_t nlabels;
	struct querier_point *points;
	size_t npoints;
};

void querier_reply_init(struct querier_reply *, int json);
void querier_reply_clear(struct querier_reply *);
/* ProfileTypesResponse */
void querier_reply_types(struct querier_reply *, const struct pyrotype *,
    size_t);
/* LabelNamesResponse, LabelValuesResponse: names */
void querier_reply_names(struct querier_reply *, char *const *, size_t);
/* SeriesResponse (labels_set) and SelectSeriesResponse (series) */
void querier_reply_label_sets(struct querier_reply *,
    const struct querier_series *, size_t);
void querier_reply_series(struct querier_reply *,
    const struct querier_series *, size_t);
/* GetProfileStatsResponse: is there any profile, the oldest's and the
 * newest's times (ms) */
void querier_reply_stats(struct querier_reply *, int ingested,
    int64_t oldest_ms, int64_t newest_ms);
/* SelectMergeStacktracesResponse with its flamegraph */
void querier_reply_flame(struct querier_reply *, const struct flame *);

#endif
