/* stackwalk.h: one stored stack as a query sees it: its frames root
 * first, after pprof's frame filters (focus and ignore keep or drop the
 * whole stack by its locations; hide and show remove frames), with the
 * inline flags of what is left recomputed per location, as pprof's graph
 * sees them. */
#ifndef PROFD_STACKWALK_H
#define PROFD_STACKWALK_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct csindex;
struct selection;

struct stackwalk {
	const struct csindex *idx;
	const struct selection *sel;
	int granularity;		/* enum granularity of csindex.h */
	int8_t *memo;			/* per name id and filter: -1, 0, 1 */
	size_t nnames;
	/* The frames of the last walk, root first. */
	int64_t *cs;
	uint32_t *name;
	unsigned *flags;
	size_t n, cap;
};

/* Frames are named at the granularity (GRAN_FUNCTION, _LINE, _FILE). */
void stackwalk_init(struct stackwalk *, const struct csindex *,
    const struct selection *, int granularity);
void stackwalk_clear(struct stackwalk *);
/* Walk the stack ending at callsite leaf: 1 with the frames in w, 0 if the
 * filters drop it, -1 (ERR_INTERNAL) if a callsite is not in the index. */
int stackwalk_run(struct stackwalk *, int64_t leaf, struct error *);

#endif
