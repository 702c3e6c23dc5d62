/* pushreq.h: Pyroscope's push.v1.PushRequest, what Grafana Alloy's
 * pyroscope.write sends to /push.v1.PusherService/Push, in its protobuf
 * or its Connect JSON (protojson) form:
 *
 *   PushRequest      { repeated RawProfileSeries series = 1; }
 *   RawProfileSeries { repeated types.v1.LabelPair labels = 1;
 *                      repeated RawSample samples = 2;
 *                      repeated ProfileAnnotation annotations = 3; }
 *   RawSample        { bytes raw_profile = 1; string ID = 2; }
 *   LabelPair        { string name = 1; string value = 2; }
 *
 * (grafana/pyroscope api/push/v1/push.proto, api/types/v1/types.proto).
 * Annotations are skipped, as Pyroscope drops those a client sends.
 * Strings are copied out of the input; the protobuf form's raw profiles
 * point into it (a push holds its profiles once, not twice), so the
 * input must outlive the request. */
#ifndef PROFD_PUSHREQ_H
#define PROFD_PUSHREQ_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Bounds on one request, past which it is refused (ERR_TOO_LARGE). */
#define PUSHREQ_MAX_SERIES	4096
#define PUSHREQ_MAX_LABELS	256	/* of one series */
#define PUSHREQ_MAX_SAMPLES	4096	/* in the whole request */
/* The JSON form is checked against these before jansson builds its tree
 * (jsonlim.h): real pushes nest 6 deep, and a series of 30 labels and a
 * sample is about 160 values (keys counted; Alloy sends one series a
 * push), so 2^16 values is some 400 such series, and jansson's nodes (at
 * most some 300 bytes a value, for "{}") stay under 20 MiB.  The base64
 * profiles are string bytes, bounded by the text's own size, which is
 * the caller's (max-json). */
#define PUSHREQ_JSON_MAX_DEPTH	32
#define PUSHREQ_JSON_MAX_VALUES	(1u << 16)

struct pushreq_label {
	char *name, *value;
};

struct pushreq_sample {
	const uint8_t *raw;		/* the pprof, gzipped or not */
	size_t len;
	uint8_t *own;			/* raw, if decoded from base64 */
	char *id;
};

struct pushreq_series {
	struct pushreq_label *labels;
	size_t nlabels;
	struct pushreq_sample *samples;
	size_t nsamples;
};

struct pushreq {
	struct pushreq_series *series;
	size_t nseries;
	size_t nsamples;		/* over all series */
};

/* ERR_INPUT for bytes that are not a PushRequest (or a string that is
 * not UTF-8 or holds a NUL), ERR_TOO_LARGE past the bounds.  *r is
 * cleared on error.  Its samples' raw point into the input. */
int pushreq_decode(const uint8_t *, size_t, struct pushreq *,
    struct error *);
/* The same request as JSON: {"series": [{"labels": [{"name", "value"}],
 * "samples": [{"rawProfile" (or "raw_profile"): base64, "ID"}]}]}; past
 * PUSHREQ_JSON_MAX_DEPTH or _VALUES, ERR_TOO_LARGE before any of it is
 * parsed.  Its samples own their bytes. */
int pushreq_decode_json(const uint8_t *, size_t, struct pushreq *,
    struct error *);
void pushreq_clear(struct pushreq *);
/* The value of the label name in s, or NULL. */
const char *pushreq_label(const struct pushreq_series *, const char *name);

#endif
