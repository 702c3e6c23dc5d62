/* fleet-top.h: top built from the fleet's stacks as ClickHouse sums them
 * (one row per distinct stack: its value, its frames' functions, files
 * and inline flags, leaf first), with pprof's frame filters applied as
 * stackwalk.c applies them to stored stacks, so that the result is the
 * one top_query gives over the same profiles in one store.  Knows no
 * HTTP and no SQL. */
#ifndef PROFD_FLEET_TOP_H
#define PROFD_FLEET_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "hmap.h"
#include "top.h"

struct selection;

struct fleet_top {
	const struct selection *sel;	/* compiled */
	int sort_cum;
	int edges;
	struct top_result r;
	struct top_build b;
	struct hmap rowof;		/* function name -> 1 + row */
	struct hmap memo;		/* string -> 1 + match bits */
	size_t nstacks;
	int64_t *row;
	unsigned *flags;
	size_t *keep;
	size_t cap;
};

void fleet_top_init(struct fleet_top *, const struct selection *,
    int sort_cum, int edges);
/* One stack: its value and n frames, leaf first (inl NULL or empty:
 * none inlined). */
int fleet_top_stack(struct fleet_top *, int64_t value, char *const *fn,
    char *const *file, char *const *inl, size_t ninl, size_t n,
    struct error *);
/* The rows in order, the result taken into *out. */
void fleet_top_finish(struct fleet_top *, struct top_result *out);
void fleet_top_clear(struct fleet_top *);

#endif
