/* perfetto-metric.c: the metrics of a trace: each (type, unit) pair sent
 * to the sink once and given an index, the names and units counter
 * descriptors turn into, and the sample's value of each metric, added up
 * without overflow.  The lowest piece of the Perfetto decoder: it calls
 * only the sink and pb. */
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "hmap.h"
#include "model.h"
#include "mstr.h"
#include "nitems.h"
#include "pb.h"
#include "perfetto-int.h"

/* The index of metric (type, unit), added (and sent to the sink) on
 * first use. */
int
pft_metric_get(struct pft *d, struct mstr type, struct mstr unit, int *idx)
{
	int64_t v;

	d->key.n = 0;
	buf_add(&d->key, type.p, type.n);
	buf_add(&d->key, "", 1);
	buf_add(&d->key, unit.p, unit.n);
	if ((v = hmap_get(&d->metrics, d->key.p, d->key.n)) != 0) {
		*idx = (int)(v - 1);
		return 0;
	}
	if (d->nmetrics == PFT_MAX_METRICS)
		return error_set(d->err, ERR_TOO_LARGE, "perfetto: more than "
		    "%d distinct counters (limit) at byte %llu",
		    PFT_MAX_METRICS, (unsigned long long)d->pd.base);
	if (d->sink->metric(d->sink->ctx, type, unit, d->err) == -1)
		return -1;
	hmap_put(&d->metrics, d->key.p, d->key.n, (int64_t)d->nmetrics + 1);
	d->values[d->nmetrics] = 0;
	*idx = (int)d->nmetrics++;
	return 0;
}

/* Metric names keep to a tame alphabet: "wall-time" -> "wall_time". */
struct mstr
pft_metric_name(char *out, size_t size, struct mstr in, const char *dflt)
{
	size_t i, n = in.n < size ? in.n : size;

	if (in.n == 0)
		return mstr_from(dflt);
	for (i = 0; i < n; i++) {
		char c = in.p[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' ? c : '_';
	}
	return (struct mstr){ out, n };
}

static const char *
pft_metric_unit(uint64_t u)
{
	static const char *names[] = {
		"count", "nanoseconds", "cycles", "instructions", "bytes",
		"page_faults", "cache_misses", "cache_references",
		"branch_misses", "count",
	};

	return u < NITEMS(names) ? names[u] : "unknown";
}

int
pft_metric_counter(struct pft *d, const struct pft_ctr *c, int *idx)
{
	char name[PFT_MAX_NAME];
	struct mstr type, unit;

	type = pft_metric_name(name, sizeof name, c->name, "counter");
	if (c->has_unit_str && c->unit_str.n > 0)
		unit = c->unit_str;
	else
		unit = mstr_from(pft_metric_unit(c->unit_enum));
	return pft_metric_get(d, type, unit, idx);
}

/* value += weight * mult, as int64, or a clear error. */
int
pft_metric_add(struct pft *d, int idx, uint64_t weight, uint64_t mult,
    uint64_t off, const char *what)
{
	uint64_t w;
	int64_t sum;

	if (__builtin_mul_overflow(weight, mult, &w) || w > INT64_MAX ||
	    __builtin_add_overflow(d->values[idx], (int64_t)w, &sum))
		return pb_dec_fail(&d->pd, ERR_INPUT, what, off,
		    "weight %llu x %llu overflows", (unsigned long long)weight,
		    (unsigned long long)mult);
	d->values[idx] = sum;
	return 0;
}
