/* pyroquery.h: the parameters of Pyroscope's HTTP render API
 * (/pyroscope/render, /pyroscope/render-diff; api-render.c) as Pyroscope
 * reads them (pkg/querier/http.go: parseSelectProfilesRequest), without
 * HTTP, so that a fuzz harness drives them (tests/fuzz/fuzz_pyroquery.c). */
#ifndef PROFD_PYROQUERY_H
#define PROFD_PYROQUERY_H

#include <stdint.h>

#include "error.h"
#include "labelsel.h"
#include "pyrotype.h"

/* A query: PROFILE_TYPE_ID{selector} (Grafana's, Pyroscope 1.x's), or
 * the form of Pyroscope before 1.0, APP.SUFFIX{selector}
 * (myapp.cpu{env="prod"}), its suffix mapped to a metric as /ingest
 * maps it (api_pyro_suffix) and APP the scope; {__name__="ID", ...}
 * too, as Prometheus writes a selector's name. */
struct pyroquery {
	struct pyrotype type;		/* what selects the metric */
	char *scope;			/* APP of APP.SUFFIX, else NULL */
	struct labelsel ls;
};

/* Parse query q, the parameter named field (for errors): -1 with
 * ERR_INPUT saying what and where (an offset into q).  Patterns are
 * compiled: q is at most LABELSEL_MAX bytes. */
int pyroquery_parse(const char *field, const char *q,
    struct pyroquery *, struct error *);
void pyroquery_clear(struct pyroquery *);

/* A time as Pyroscope's attime reads one: "" (now), now-1h, now-30m
 * (s, m or min, h, d, w, M or mon, y; several: now-1h30m), Unix time in
 * s, ms (13 digits), us (16) or ns (19), or a date YYYYMMDD (UTC).  -1
 * with ERR_INPUT for anything else (Pyroscope reads it as now). */
int pyroquery_time(const char *field, const char *s, int64_t now_ns,
    int64_t *ns, struct error *);

/* maxNodes: "" or 0 for Pyroscope's default (8192), at most 1048576
 * (its max-flamegraph-nodes-max); -1 with ERR_INPUT past it or for a
 * value that is not a count. */
#define PYROQUERY_MAX_NODES_DEFAULT	8192
#define PYROQUERY_MAX_NODES_MAX		1048576
int pyroquery_max_nodes(const char *field, const char *s, int64_t *v,
    struct error *);

/* The timeline's step for [from, until] (ms), in seconds: Pyroscope's
 * (pkg/querier/timeline/calculator.go: the range over 1500 points,
 * rounded to a round interval, at least 15 s). */
int64_t pyroquery_step(int64_t from_ms, int64_t until_ms);

#endif
