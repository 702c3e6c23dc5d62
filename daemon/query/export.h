/* export.h: a selection as a pprof Profile (profile.proto), which go tool
 * pprof reads and reports with the numbers /v1/top gives: every metric of
 * the selected profiles as a sample type (the selection's metric the
 * default), one sample per (stack, label set) after the selection's frame
 * filters, locations rebuilt from the stored frames (a run of inlined
 * frames is one location with several lines), the functions, mappings
 * and sample labels as stored, each profile's push labels as labels of its
 * samples, and the profiles' comments. */
#ifndef PROFD_EXPORT_H
#define PROFD_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct csindex;
struct selection;
struct store;

/* The encoded Profile, not compressed, in *out (for the caller to free).
 * Fails as query_select does for a bad selection. */
int export_pprof(struct store *, struct csindex *, const struct selection *,
    uint8_t **out, size_t *len, struct error *);

#endif
