/* otlp.h: OpenTelemetry profiles as OTLP/HTTP sends them: an
 * ExportProfilesServiceRequest of opentelemetry-proto v1.11.0 (package
 * opentelemetry.proto.collector.profiles.v1development; v1.10.0's wire
 * format is the same), in protobuf or in OTLP's JSON form.
 *
 *   ExportProfilesServiceRequest { repeated ResourceProfiles
 *       resource_profiles = 1; ProfilesDictionary dictionary = 2; }
 *   ResourceProfiles { Resource resource = 1; repeated ScopeProfiles
 *       scope_profiles = 2; }
 *   ScopeProfiles { InstrumentationScope scope = 1; repeated Profile
 *       profiles = 2; }
 *
 * and the Profile, Sample and dictionary tables of profiles.proto (the
 * field numbers are in otlp-pb.c, docs/FORMATS.md the rules).  The
 * request is read whole and every index of its dictionary checked
 * before anything is trusted (otlp_req_decode); each Profile is then a
 * profile of its own: its scope and labels are the caller's to take
 * (otlp_profile_*), its samples go onto a sink through the format table
 * (format "otlp", decode_opts.part naming the Profile). */
#ifndef PROFD_OTLP_H
#define PROFD_OTLP_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "error.h"
#include "model.h"
#include "mstr.h"
#include "stream.h"

/* The version profd speaks, for errors and docs. */
#define OTLP_VERSION	"opentelemetry-proto v1.11.0 (profiles v1development)"

/* The JSON form is checked against these before jansson builds its
 * tree (jsonlim.h): a request nests some 10 deep (an attribute's array
 * value more); 2^21 values is a profile of some 200000 samples, a tree
 * of a few hundred MiB at most, on top of the text (max-json). */
#define OTLP_JSON_MAX_DEPTH	64
#define OTLP_JSON_MAX_VALUES	(1u << 21)

struct otlp_req;

/* The request in data (protobuf, or JSON if json): read, its dictionary
 * and its resources' and scopes' attributes checked.  ERR_INPUT naming
 * what and where (a field of the wrong wire type or JSON type as "not
 * OTLP_VERSION's wire format"), ERR_TOO_LARGE past the limits (a table
 * longer than max-strings).  The request points into data (protobuf):
 * data must outlive it. */
int otlp_req_decode(const uint8_t *data, size_t len, int json,
    const struct limits *, struct otlp_req **, struct error *);
void otlp_req_free(struct otlp_req *);
/* Profiles in the request, in order: resource by resource, scope by
 * scope. */
size_t otlp_req_profiles(const struct otlp_req *);

/* Whether Profile i can be stored: 0, or -1 with why in err (ERR_INPUT:
 * an index out of its table, a sample with values and timestamps that do
 * not pair up). */
int otlp_profile_check(struct otlp_req *, size_t i, struct error *);
/* Its resource's service.name (a string value), or -1. */
int otlp_profile_service(struct otlp_req *, size_t i, struct mstr *);
/* Its labels: the resource's attributes but service.name, its scope's
 * and its own, in that order (a later key wins), each whose value has
 * a text (arrays and key-value lists have none). */
void otlp_profile_labels(struct otlp_req *, size_t i,
    void (*fn)(void *, struct mstr key, struct mstr value), void *);
/* Its samples' count, and its original payload and that payload's
 * format ("pprof", "jfr", ...; empty when it has none). */
size_t otlp_profile_samples(const struct otlp_req *, size_t i);
void otlp_profile_payload(const struct otlp_req *, size_t i,
    struct mstr *format, struct mstr *payload);

/* The format table's entry "otlp": the stream read whole (bounded by
 * max_inflated), JSON if it opens with '{', and Profile opts->part (or
 * the only one) onto the sink. */
int otlp_decode_stream(struct stream *, const struct decode_opts *,
    const struct limits *, const struct sink *, struct error *);
/* Never detected: a request's protobuf opens as a pprof's does (fields
 * 1 and 2, length-delimited), so format=otlp is asked for by name. */
int otlp_sniff(const uint8_t *, size_t);

#endif
