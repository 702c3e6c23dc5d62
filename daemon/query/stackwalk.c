/* stackwalk.c: pprof's FilterSamplesByName on one stack.  A location is a
 * run of frames flagged FRAME_INLINED ended by one that is not (leaf
 * first); a location matches an expression when one of its frames' function
 * name or source file does, or its mapping file does. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cancel.h"
#include "csindex.h"
#include "model.h"
#include "rx.h"
#include "selection.h"
#include "stackwalk.h"

void
stackwalk_init(struct stackwalk *w, const struct csindex *idx,
    const struct selection *sel, int granularity)
{
	memset(w, 0, sizeof *w);
	w->idx = idx;
	w->sel = sel;
	w->granularity = granularity;
	w->nnames = csindex_nnames(idx);
	w->memo = xmalloc(w->nnames * FF_COUNT + 1);
	memset(w->memo, -1, w->nnames * FF_COUNT + 1);
}

void
stackwalk_clear(struct stackwalk *w)
{
	free(w->memo);
	free(w->cs);
	free(w->name);
	free(w->flags);
	memset(w, 0, sizeof *w);
}

/* Does expression k match the name with this id? */
static int
sw_match(struct stackwalk *w, int k, uint32_t id)
{
	int8_t *m = &w->memo[(size_t)id * FF_COUNT + (size_t)k];
	const char *s;

	if (*m < 0) {
		s = csindex_name_str(w->idx, id);
		*m = s[0] != '\0' && rx_match(w->sel->re[k], s, strlen(s));
	}
	return *m;
}

/* The frame matches by function name or source file. */
static int
frame_match(struct stackwalk *w, int k, int64_t cs)
{
	return sw_match(w, k, csindex_name(w->idx, cs)) ||
	    sw_match(w, k, csindex_file_id(w->idx, cs));
}

/* The location of frames [a, b) (leaf first) matches. */
static int
loc_match(struct stackwalk *w, int k, size_t a, size_t b)
{
	size_t i;

	if (sw_match(w, k, csindex_mapping_id(w->idx, w->cs[b - 1])))
		return 1;
	for (i = a; i < b; i++)
		if (frame_match(w, k, w->cs[i]))
			return 1;
	return 0;
}

int
stackwalk_run(struct stackwalk *w, int64_t leaf, struct error *err)
{
	const struct selection *sel = w->sel;
	int64_t cs;
	size_t i, a, b, n = 0, keep;
	int focused = !sel->have_re[FF_FOCUS];
	int filters = sel->have_re[FF_FOCUS] || sel->have_re[FF_IGNORE] ||
	    sel->have_re[FF_HIDE] || sel->have_re[FF_SHOW];
	int k;

	/* Every view walks its stacks here: where it stops when its call
	 * is cancelled (cancel.h). */
	if (cancel_poll(err) == -1)
		return -1;
	for (k = 0; k < FF_COUNT; k++)
		if (sel->have_re[k] && sel->re[k] == NULL)
			return error_set(err, ERR_INTERNAL, "frame filters "
			    "used before selection_compile");

	/* Leaf first into the arrays. */
	for (cs = leaf; cs > 0; cs = csindex_parent(w->idx, cs)) {
		if (csindex_parent(w->idx, cs) < 0)
			return error_set(err, ERR_INTERNAL, "callsite %lld is "
			    "not in the store", (long long)cs);
		if (n == w->cap) {
			w->cap = w->cap ? w->cap * 2 : 64;
			w->cs = xreallocarray(w->cs, w->cap, sizeof *w->cs);
			w->name = xreallocarray(w->name, w->cap,
			    sizeof *w->name);
			w->flags = xreallocarray(w->flags, w->cap,
			    sizeof *w->flags);
		}
		w->cs[n] = cs;
		w->name[n] = csindex_name_at(w->idx, cs,
		    (enum granularity)w->granularity);
		w->flags[n] = csindex_flags(w->idx, cs);
		n++;
	}
	if (filters) {
		/* Location by location, leaf first: [a, b). */
		keep = 0;
		for (a = 0; a < n; a = b) {
			size_t first = keep;

			for (b = a; b < n && (w->flags[b] & FRAME_INLINED); b++)
				;
			b = b < n ? b + 1 : n;
			if (sel->have_re[FF_IGNORE] &&
			    loc_match(w, FF_IGNORE, a, b))
				return 0;
			if (sel->have_re[FF_FOCUS] && !focused &&
			    loc_match(w, FF_FOCUS, a, b))
				focused = 1;
			for (i = a; i < b; i++) {
				int64_t mcs = w->cs[b - 1];

				if (sel->have_re[FF_HIDE] && (sw_match(w,
				    FF_HIDE, csindex_mapping_id(w->idx, mcs)) ||
				    frame_match(w, FF_HIDE, w->cs[i])))
					continue;
				if (sel->have_re[FF_SHOW] && !sw_match(w,
				    FF_SHOW, csindex_mapping_id(w->idx, mcs)) &&
				    !frame_match(w, FF_SHOW, w->cs[i]))
					continue;
				w->cs[keep] = w->cs[i];
				w->name[keep] = w->name[i];
				w->flags[keep] = w->flags[i] | FRAME_INLINED;
				keep++;
			}
			/* The outermost line left ends the location. */
			if (keep > first)
				w->flags[keep - 1] &= ~(unsigned)FRAME_INLINED;
		}
		if (!focused || keep == 0)
			return 0;
		n = keep;
	}
	/* Root first. */
	for (i = 0; i < n / 2; i++) {
		int64_t c = w->cs[i];
		uint32_t nm = w->name[i];
		unsigned f = w->flags[i];

		w->cs[i] = w->cs[n - 1 - i];
		w->name[i] = w->name[n - 1 - i];
		w->flags[i] = w->flags[n - 1 - i];
		w->cs[n - 1 - i] = c;
		w->name[n - 1 - i] = nm;
		w->flags[n - 1 - i] = f;
	}
	w->n = n;
	return 1;
}
