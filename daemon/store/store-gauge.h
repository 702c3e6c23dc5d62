/* store-gauge.h: several reads of one commit (store-gauge.c). */
#ifndef PROFD_STORE_GAUGE_H
#define PROFD_STORE_GAUGE_H

#include "error.h"
#include "store.h"

/* A read transaction opened for the reads that follow, unless one is
 * open already (*held 0: then nothing to release).  A gauge's window is
 * read in several reads (its profiles per series, their totals, the
 * window's sums) whose numbers must come from the same commit. */
int store_gauge_hold(struct store *, int *held, struct error *);
/* Its end; after a failed read too (the transaction may be gone). */
int store_gauge_release(struct store *, int held, struct error *);

#endif
