/* pyrotype.h: Pyroscope's profile type IDs for profd's metrics.  An ID
 * is NAME:SAMPLE_TYPE:SAMPLE_UNIT:PERIOD_TYPE:PERIOD_UNIT, as Pyroscope
 * writes them ("process_cpu:cpu:nanoseconds:cpu:nanoseconds",
 * "memory:inuse_space:bytes:space:bytes"); Grafana's Pyroscope data
 * source lists them (ProfileTypes) and names one in every query.
 *
 * profd keeps a metric per scope as TYPE/UNIT, not the profile's name
 * or period type: the name and the period are Go's, Java's and Node's
 * (Pyroscope's SDKs') for the sample types they write, and TYPE:UNIT for
 * any other.  Go's block and mutex profiles share their sample types
 * (contentions/count, delay/nanoseconds): in one scope they are one
 * metric, listed as mutex:..., and block:... IDs select it too. */
#ifndef PROFD_PYROTYPE_H
#define PROFD_PYROTYPE_H

#include <stddef.h>

#include "error.h"

#define PYROTYPE_PART	128

struct pyrotype {
	char name[PYROTYPE_PART], type[PYROTYPE_PART], unit[PYROTYPE_PART];
	char ptype[PYROTYPE_PART], punit[PYROTYPE_PART];
};

/* The type of metric TYPE/UNIT into *t; -1 if it has none (a part with
 * a ':', or longer than PYROTYPE_PART - 1 bytes). */
int pyrotype_of(const char *type, const char *unit, struct pyrotype *t);
/* Its ID into buf (5 * PYROTYPE_PART bytes hold any). */
void pyrotype_id(const struct pyrotype *, char *buf, size_t size);
/* Split an ID into its five parts; -1 with ERR_INPUT if it is not one. */
int pyrotype_parse(const char *id, struct pyrotype *, struct error *);
/* Does the ID parsed into want select metric TYPE/UNIT?  Its sample type
 * and unit are the metric's, its name the metric's or an alias of it
 * (block for mutex). */
int pyrotype_selects(const struct pyrotype *want, const char *type,
    const char *unit);

struct labelsel;
struct selection;
struct store_scope_info;

/* Into sel, for a query of want over a label selector (Grafana's calls,
 * /pyroscope/render): the scopes among the n of sc that pass the
 * selector's service_name matchers, are named app (NULL: any name) and
 * have a metric want selects; the selector's other matchers as label
 * filters (labelsel_select); the metric as want's TYPE/UNIT.  The
 * number of scopes kept (0: the caller answers an empty reply). */
size_t pyrotype_select(const struct pyrotype *want, const struct labelsel *,
    const char *app, const struct store_scope_info *sc, size_t n,
    struct selection *sel);

#endif
