/* pyrotype.c: profile type IDs (pyrotype.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "labelsel.h"
#include "pyrotype.h"
#include "selection.h"

/* The sample types Pyroscope's SDKs write, their profile's name and
 * period (pprof's period_type) as its IDs show them: Go's runtime/pprof
 * and godeltaprof, the eBPF agent, Node's @datadog/pprof, Java's
 * async-profiler as Pyroscope's Java agent converts it. */
static const struct known {
	const char *type, *unit, *name, *ptype, *punit;
} known[] = {
	{ "cpu", "nanoseconds", "process_cpu", "cpu", "nanoseconds" },
	{ "samples", "count", "process_cpu", "cpu", "nanoseconds" },
	{ "alloc_objects", "count", "memory", "space", "bytes" },
	{ "alloc_space", "bytes", "memory", "space", "bytes" },
	{ "inuse_objects", "count", "memory", "space", "bytes" },
	{ "inuse_space", "bytes", "memory", "space", "bytes" },
	{ "contentions", "count", "mutex", "contentions", "count" },
	{ "delay", "nanoseconds", "mutex", "contentions", "count" },
	{ "goroutine", "count", "goroutine", "goroutine", "count" },
	{ "goroutines", "count", "goroutines", "goroutine", "count" },
	{ "wall", "nanoseconds", "wall", "wall", "nanoseconds" },
	{ "wall", "microseconds", "wall", "wall", "microseconds" },
	{ "alloc_in_new_tlab_objects", "count", "memory", "alloc_in_new_tlab_"
	    "objects", "count" },
	{ "alloc_in_new_tlab_bytes", "bytes", "memory", "alloc_in_new_tlab_"
	    "bytes", "bytes" },
	{ "lock_count", "count", "mutex", "lock_count", "count" },
	{ "lock_time", "nanoseconds", "mutex", "lock_time", "nanoseconds" },
};

/* Another profile's name for the same metric. */
static const struct alias {
	const char *name, *alias;
} aliases[] = {
	{ "mutex", "block" },
};

static int
pyrotype_part(char *dst, const char *src)
{
	size_t n = strlen(src);

	if (n >= PYROTYPE_PART || strchr(src, ':') != NULL)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

int
pyrotype_of(const char *type, const char *unit, struct pyrotype *t)
{
	const struct known *k = NULL;
	size_t i;

	for (i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(known[i].type, type) == 0 &&
		    strcmp(known[i].unit, unit) == 0)
			k = &known[i];
	if (k != NULL)
		return pyrotype_part(t->name, k->name) |
		    pyrotype_part(t->type, type) |
		    pyrotype_part(t->unit, unit) |
		    pyrotype_part(t->ptype, k->ptype) |
		    pyrotype_part(t->punit, k->punit);
	return pyrotype_part(t->name, type) | pyrotype_part(t->type, type) |
	    pyrotype_part(t->unit, unit) | pyrotype_part(t->ptype, type) |
	    pyrotype_part(t->punit, unit);
}

void
pyrotype_id(const struct pyrotype *t, char *buf, size_t size)
{
	snprintf(buf, size, "%s:%s:%s:%s:%s", t->name, t->type, t->unit,
	    t->ptype, t->punit);
}

int
pyrotype_parse(const char *id, struct pyrotype *t, struct error *err)
{
	char *parts[5] = { t->name, t->type, t->unit, t->ptype, t->punit };
	const char *p = id, *colon;
	size_t i, n;

	for (i = 0; i < 5; i++) {
		colon = strchr(p, ':');
		if ((colon == NULL) != (i == 4))
			goto bad;
		n = colon != NULL ? (size_t)(colon - p) : strlen(p);
		if (n >= PYROTYPE_PART || (n == 0 && i < 3))
			goto bad;
		memcpy(parts[i], p, n);
		parts[i][n] = '\0';
		if (colon != NULL)
			p = colon + 1;
	}
	return 0;
bad:
	return error_set(err, ERR_INPUT, "profile type \"%.200s\" is not "
	    "NAME:SAMPLE_TYPE:SAMPLE_UNIT:PERIOD_TYPE:PERIOD_UNIT (e.g. "
	    "process_cpu:cpu:nanoseconds:cpu:nanoseconds)", id);
}

int
pyrotype_selects(const struct pyrotype *want, const char *type,
    const char *unit)
{
	struct pyrotype t;
	size_t i;

	if (pyrotype_of(type, unit, &t) == -1 ||
	    strcmp(want->type, t.type) != 0 || strcmp(want->unit, t.unit) != 0)
		return 0;
	if (strcmp(want->name, t.name) == 0)
		return 1;
	for (i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcmp(aliases[i].name, t.name) == 0 &&
		    strcmp(aliases[i].alias, want->name) == 0)
			return 1;
	return 0;
}

size_t
pyrotype_select(const struct pyrotype *want, const struct labelsel *ls,
    const char *app, const struct store_scope_info *sc, size_t n,
    struct selection *sel)
{
	const char **names = xcalloc(n ? n : 1, sizeof *names);
	size_t i, j, k = 0;

	for (i = 0; i < n; i++) {
		if (app != NULL && strcmp(app, sc[i].name) != 0)
			continue;
		for (j = 0; j < sc[i].nmetrics; j++)
			if (pyrotype_selects(want, sc[i].metrics[j].type,
			    sc[i].metrics[j].unit))
				break;
		if (j < sc[i].nmetrics)
			names[k++] = sc[i].name;
	}
	labelsel_select(ls, names, k, sel);
	free(names);
	free(sel->metric);
	xasprintf(&sel->metric, "%s/%s", want->type, want->unit);
	return sel->nscopes;
}
