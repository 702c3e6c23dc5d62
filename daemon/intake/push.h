/* push.h: one blob imported as a push, on the import thread: what POST
 * /v1/profiles, the Pyroscope endpoints (/ingest, the Connect push) and
 * the scraper hand over alike.  It knows no HTTP: the body is libevent's
 * buffer as it was read, and what a push uses of the process around it
 * comes through struct push_env, which the API fills. */
#ifndef PROFD_PUSH_H
#define PROFD_PUSH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "import.h"
#include "kind.h"

struct activity;
struct evbuffer;
struct uploads;

struct push {
	char *scope, *format, *name;
	char *metric_type, *metric_unit;	/* folded: what counts are */
	int64_t scale;			/* folded: each count times this */
	int64_t bucket_ns;
	/* otlp: which Profile of the request (decode_opts.part). */
	int64_t part;
	struct otlp_req *otlp;		/* otlp: the request, decoded */
	const uint8_t *digest;		/* otlp: the request's SHA-256 */
	/* If the profile has none: its time (0: now) and duration. */
	int64_t time_ns, duration_ns;
	struct import_label *labels;
	size_t nlabels;
	struct import_kind *kinds;	/* what the push says of metrics */
	size_t nkinds;
	struct import_metric *keep;	/* if any: the metrics stored */
	size_t nkeep;
	struct evbuffer *body;	/* moved out of the request, no copy */
	char *upload;		/* or the id of a chunked upload */
	const uint8_t *data;	/* or bytes the caller holds */
	size_t len;
	int source;		/* enum activity_source, if not an upload */
};

/* What a push uses of the process: set before the first push, read on
 * the import thread. */
struct push_env {
	struct uploads *uploads;	/* where upload= names its file */
	struct activity *activity;	/* what /v1/status shows */
	/* Imports finished, counted on any thread (/v1/health). */
	atomic_uint_fast64_t *done, *failed;
};

/* On the import thread: p imported, counted, its activity recorded; 0
 * with *res (import_result_clear it) or -1 with err.  An upload is
 * removed once stored or refused. */
int push_run(const struct push_env *, struct import_worker *, struct push *,
    struct import_result *, struct error *);
/* Add a label (copied); a key already there gets the new value. */
void push_label(struct push *, const char *key, size_t keylen,
    const char *value, size_t valuelen);
/* Add a metric's kind from "TYPE[/UNIT]:KIND" (kind=, --kind); -1 with
 * err (ERR_INPUT) naming what is wrong.  The last for a metric wins. */
int push_kind(struct push *, const char *spec, struct error *);
/* The same from its parts (copied): the metrics of type (typelen bytes)
 * and unit (NULL: any) are of this kind. */
void push_kind_set(struct push *, const char *type, size_t typelen,
    const char *unit, enum metric_kind);
/* The producer made Go's counters (alloc_*, contentions, delay)
 * differences itself, and left its states (inuse_*, goroutine,
 * threadcreate) as they were: the first deltas, the others gauges, even
 * in a profile given a duration (Alloy's, docs/INTAKE.md "Kinds"). */
void push_kind_go_differenced(struct push *);
/* Keep a metric, "TYPE[/UNIT]" (keep=): once one is named, the
 * profile's metrics none names are not stored; -1 with err (ERR_INPUT). */
int push_keep(struct push *, const char *spec, struct error *);
/* The same from its parts (copied; unit NULL: any). */
void push_keep_set(struct push *, const char *type, size_t typelen,
    const char *unit);
/* What p holds freed, p zeroed; push_free frees p too. */
void push_clear(struct push *);
void push_free(void *);

#endif
