/* api-pyro.h: what the Pyroscope-compatible endpoints share (api-ingest.c,
 * POST /ingest; api-connect.c, POST /push.v1.PusherService/Push): a push
 * of theirs is stored exactly as POST /v1/profiles stores one, through
 * push_run() (intake/push.c) on the import thread. */
#ifndef PROFD_API_PYRO_H
#define PROFD_API_PYRO_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "import.h"
#include "push.h"

/* Pyroscope's rule for a label name: [A-Za-z_][A-Za-z0-9_.]*, at most
 * 1024 bytes. */
int api_pyro_label_name_valid(const char *, size_t);
/* Import p (its data and len, or its body) as any push (on the import
 * thread): counted and shown as a push activity.  0 with *res
 * (import_result_clear it) or -1 with err. */
int api_pyro_import(struct api_call *, void *worker, struct push *,
    struct import_result *, struct error *);

/* api-ingest.c: the metric TYPE/UNIT /ingest stores a folded body of
 * APP.SUFFIX as (cpu: cpu/nanoseconds, alloc_space: alloc_space/bytes,
 * ...; a pprof pushed so keeps its own, of the same names for the
 * suffixes of Go's profiles), for /pyroscope/render's APP.SUFFIX
 * queries; -1 for a suffix that is none of Pyroscope's clients'. */
int api_pyro_suffix(const char *suffix, const char **type,
    const char **unit);

/* Where Grafana's reads (querier.v1, /pyroscope/render) read: the
 * fleet's source when grafana-source says fleet and this profd has a
 * fleet, else this host's store.  For api_view_submit. */
void api_pyro_source(struct api_call *, struct api_fleet_params *);

#endif
