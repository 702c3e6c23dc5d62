/* traces.h: a selection's samples with their stacks and labels, as go
 * tool pprof -traces prints them.  The store keeps no order of samples
 * (it merges equal stacks and label sets), so they come by |value|
 * descending, then by stack and label set ids: the largest first, which
 * is what a limit should keep. */
#ifndef PROFD_TRACES_H
#define PROFD_TRACES_H

#include <stddef.h>

#include "error.h"
#include "samples.h"

struct csindex;
struct selection;
struct store;

/* Open the samples and list those the frame filters keep, in order, into
 * *order (indices into sm->s, for the caller to free); samples_walk then
 * gives each one's stack. */
int traces_open(struct store *, struct csindex *, const struct selection *,
    struct samples *, size_t **order, size_t *n, struct error *);

#endif
