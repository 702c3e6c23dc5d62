/* fleet-frames.h: one of the fleet's stacks as the views see it, with
 * pprof's frame filters applied as stackwalk.c applies them to stored
 * stacks: a location is a run of frames flagged inlined ended by one
 * that is not (leaf first); focus and ignore keep or drop the whole
 * stack by its locations, hide and show drop frames, and the outermost
 * frame left of a location is its own.  What stackwalk.c also matches
 * and this does not: mapping files, which the stacks table has not (the
 * views show them from stack_frames, filters match as shipped before). */
#ifndef PROFD_FLEET_FRAMES_H
#define PROFD_FLEET_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "hmap.h"

struct selection;

/* A stack as ClickHouse sends it: n frames, leaf first; the arrays of
 * stack_frames NULL when it has no row (shipped before version 2). */
struct fleet_stack {
	int64_t value;
	size_t n;
	char *const *fn, *const *file, *const *line;
	char *const *inlined, *const *start, *const *mapping;
};

struct fleet_frames {
	const struct selection *sel;	/* compiled */
	struct hmap memo;		/* string -> 1 + match bits */
	/* The last walk: frames kept, root first (indices into the
	 * stack's arrays), with their flags. */
	size_t *at;
	unsigned *flags;
	size_t n, cap;
};

void fleet_frames_init(struct fleet_frames *, const struct selection *);
/* 1 with the frames kept in w, 0 if the filters drop the stack. */
int fleet_frames_walk(struct fleet_frames *, const struct fleet_stack *);
void fleet_frames_clear(struct fleet_frames *);

#endif
