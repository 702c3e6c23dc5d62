/* kind.c: a metric's kind (kind.h): its names, and the rule that infers it
 * from a profile (docs/TIME.md, "Which kind a metric gets"), shared by the
 * importer and the store's upgrade of profiles stored before kinds. */
#include <stdio.h>
#include <string.h>

#include "kind.h"
#include "nitems.h"

static const char *const kind_names[KIND_COUNT] = {
	[KIND_DELTA] = "delta",
	[KIND_CUMULATIVE] = "cumulative",
	[KIND_GAUGE] = "gauge",
};

/* Go's runtime/pprof sample types that are not deltas when the profile
 * has no duration: counters since the process started (heap and allocs'
 * allocations, mutex and block contention), and states at the moment
 * (heap in use, goroutines, threads created). */
static const struct {
	const char *type;
	enum metric_kind kind;
} kind_go_types[] = {
	{ "alloc_objects", KIND_CUMULATIVE },
	{ "alloc_space", KIND_CUMULATIVE },
	{ "contentions", KIND_CUMULATIVE },
	{ "delay", KIND_CUMULATIVE },
	{ "inuse_objects", KIND_GAUGE },
	{ "inuse_space", KIND_GAUGE },
	{ "goroutine", KIND_GAUGE },
	{ "threadcreate", KIND_GAUGE },
};

static const char *const aggregate_names[AGG_COUNT] = {
	[AGG_DEFAULT] = "",
	[AGG_DELTA] = "delta",
	[AGG_SUM] = "sum",
	[AGG_AVG] = "avg",
	[AGG_LAST] = "last",
	[AGG_MAX] = "max",
};

const char *
aggregate_name(enum metric_aggregate a)
{
	return (unsigned)a < AGG_COUNT ? aggregate_names[a] : "";
}

int
aggregate_parse(const char *s, enum metric_aggregate *a)
{
	int i;

	for (i = 1; i < AGG_COUNT; i++)
		if (strcmp(s, aggregate_names[i]) == 0) {
			*a = (enum metric_aggregate)i;
			return 0;
		}
	return -1;
}

void
aggregate_type_line(char *buf, size_t size, const char *type,
    enum metric_aggregate a, int64_t nprofiles)
{
	static const char *const how[AGG_COUNT] = {
		[AGG_SUM] = "sum", [AGG_AVG] = "average", [AGG_LAST] = "last",
		[AGG_MAX] = "max",
	};

	if ((unsigned)a >= AGG_COUNT || how[a] == NULL)
		snprintf(buf, size, "Type: %s\n", type);
	else if (nprofiles < 0)
		snprintf(buf, size, "Type: %s (%s)\n", type, how[a]);
	else
		snprintf(buf, size, "Type: %s (%s of %lld profile%s)\n", type,
		    how[a], (long long)nprofiles, nprofiles == 1 ? "" : "s");
}

enum metric_aggregate
kind_aggregate(enum metric_kind kind, int named_profiles)
{
	if (named_profiles)
		return AGG_SUM;
	return kind == KIND_GAUGE ? AGG_AVG : AGG_DELTA;
}

const char *
kind_go_type(size_t i, enum metric_kind *kind)
{
	if (i >= NITEMS(kind_go_types))
		return NULL;
	*kind = kind_go_types[i].kind;
	return kind_go_types[i].type;
}

const char *
kind_name(int kind)
{
	if (kind < 0 || kind >= KIND_COUNT)
		return kind_names[KIND_DELTA];
	return kind_names[kind];
}

int
kind_parse(const char *s, size_t n, enum metric_kind *kind)
{
	int i;

	for (i = 0; i < KIND_COUNT; i++)
		if (strlen(kind_names[i]) == n &&
		    memcmp(kind_names[i], s, n) == 0) {
			*kind = (enum metric_kind)i;
			return 0;
		}
	return -1;
}

enum metric_kind
kind_infer(const char *format, const char *type, int64_t duration_ns)
{
	size_t i;

	/* Perfetto's and folded samples happen in time; a pprof (or an
	 * OTLP Profile, pprof's model) with a duration covers an interval
	 * (a CPU profile, or a ?seconds=N fetch, which net/http/pprof
	 * makes the difference of two readings). */
	if (format == NULL || (strcmp(format, "pprof") != 0 &&
	    strcmp(format, "otlp") != 0) || duration_ns > 0)
		return KIND_DELTA;
	for (i = 0; i < NITEMS(kind_go_types); i++)
		if (strcmp(type, kind_go_types[i].type) == 0)
			return kind_go_types[i].kind;
	/* Anything else adds up, as pprof merges it (and as profd did for
	 * every metric before kinds). */
	return KIND_DELTA;
}
