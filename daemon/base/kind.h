/* kind.h: what a metric's values mean over time (docs/TIME.md): a delta
 * happened within the profile's interval, a cumulative value is a
 * counter since some start (a process's), a gauge is a state at the
 * profile's moment.  A window adds the first up, differences the second
 * and averages the third; the store keeps a kind per profile and metric. */
#ifndef PROFD_KIND_H
#define PROFD_KIND_H

#include <stddef.h>
#include <stdint.h>

/* The values are stored (profile_metric.kind): never renumber. */
enum metric_kind {
	KIND_DELTA = 0,
	KIND_CUMULATIVE = 1,
	KIND_GAUGE = 2
};
#define KIND_COUNT	3

/* How a view combines the profiles of a window (docs/TIME.md): delta
 * sums what each profile counts (a cumulative metric's differences), sum
 * the values as the files give them (pprof's merge), avg, last and max
 * take per series the average, the newest profile, the profile of the
 * largest total, and add those up across series. */
enum metric_aggregate {
	AGG_DEFAULT = 0,		/* by the kind (kind_aggregate) */
	AGG_DELTA,
	AGG_SUM,
	AGG_AVG,
	AGG_LAST,
	AGG_MAX
};
#define AGG_COUNT	6

/* "delta", "sum", "avg", "last", "max" ("" for AGG_DEFAULT). */
const char *aggregate_name(enum metric_aggregate);
/* The aggregate named by s; -1 for anything else. */
int aggregate_parse(const char *s, enum metric_aggregate *);
/* The header's "Type:" line of a view: "Type: inuse_space (average of
 * 13 profiles)\n"; the aggregate (AGG_DELTA: nothing) said for a window
 * that is not a plain sum of what its profiles count (nprofiles < 0: not
 * known, not said). */
void aggregate_type_line(char *buf, size_t size, const char *type,
    enum metric_aggregate, int64_t nprofiles);
/* What a window of a metric of this kind means by default: its growth
 * for delta and cumulative metrics, the average for a gauge; profiles
 * named one by one are merged as pprof merges files (sum). */
enum metric_aggregate kind_aggregate(enum metric_kind, int named_profiles);

/* "delta", "cumulative", "gauge"; "delta" for a value out of range. */
const char *kind_name(int);
/* The kind named by the n bytes at s (exactly one of the names), into
 * *kind; -1 for anything else. */
int kind_parse(const char *s, size_t n, enum metric_kind *kind);
/* The kind a metric of a profile has when its producer did not say:
 * format is the decoder's name ("pprof", "perfetto", "folded"), type the
 * sample type, duration_ns the profile's (0: none). */
enum metric_kind kind_infer(const char *format, const char *type,
    int64_t duration_ns);
/* Go's runtime/pprof sample types kind_infer knows, for a producer that
 * says what became of them: the i-th's name and its kind in a profile
 * without a duration; NULL past the last. */
const char *kind_go_type(size_t i, enum metric_kind *kind);

#endif
