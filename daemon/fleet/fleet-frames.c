/* fleet-frames.c: stackwalk.c's filters over frames given as strings. */
#include <stdlib.h>
#include <string.h>

#include "fleet-frames.h"
#include "model.h"
#include "rx.h"
#include "selection.h"
#include "util.h"

void
fleet_frames_init(struct fleet_frames *w, const struct selection *sel)
{
	memset(w, 0, sizeof *w);
	w->sel = sel;
}

void
fleet_frames_clear(struct fleet_frames *w)
{
	hmap_clear(&w->memo);
	free(w->at);
	free(w->flags);
	memset(w, 0, sizeof *w);
}

/* Does filter k match s (never the empty string, as stackwalk.c)? */
static int
ff_match(struct fleet_frames *w, int k, const char *s)
{
	size_t n = strlen(s);
	int64_t m;

	if (n == 0)
		return 0;
	m = hmap_get(&w->memo, s, n);
	m = m > 0 ? m - 1 : 0;
	if (!(m & (1 << k))) {
		m |= 1 << k;
		if (rx_match(w->sel->re[k], s, n))
			m |= 1 << (k + FF_COUNT);
		hmap_put(&w->memo, s, n, m + 1);
	}
	return (m & (1 << (k + FF_COUNT))) != 0;
}

static int
ff_frame(struct fleet_frames *w, int k, const struct fleet_stack *s,
    size_t i)
{
	return ff_match(w, k, s->fn[i]) || ff_match(w, k, s->file[i]);
}

int
fleet_frames_walk(struct fleet_frames *w, const struct fleet_stack *s)
{
	const struct selection *sel = w->sel;
	size_t a, b, i, n = s->n, keep = 0, first;
	int focused = !sel->have_re[FF_FOCUS];
	int filters = selection_frame_filters(sel);
	unsigned *fl;
	int k;

	if (n == 0)
		return 0;
	if (2 * n > w->cap) {
		w->cap = 2 * n;
		w->at = xreallocarray(w->at, w->cap, sizeof *w->at);
		w->flags = xreallocarray(w->flags, w->cap, sizeof *w->flags);
	}
	/* Leaf first in the upper half, by the stack's index. */
	fl = w->flags + n;
	for (i = 0; i < n; i++)
		fl[i] = s->inlined != NULL && strcmp(s->inlined[i], "0") != 0 ?
		    FRAME_INLINED : 0;
	/* Location by location, leaf first: [a, b). */
	for (a = 0; a < n; a = b) {
		first = keep;
		for (b = a; b < n && (fl[b] & FRAME_INLINED); b++)
			;
		b = b < n ? b + 1 : n;
		if (!filters) {
			for (i = a; i < b; i++)
				w->at[keep++] = i;
			continue;
		}
		for (k = FF_FOCUS; k <= FF_IGNORE; k++) {
			if (!sel->have_re[k] || (k == FF_FOCUS && focused))
				continue;
			for (i = a; i < b; i++)
				if (ff_frame(w, k, s, i))
					break;
			if (i == b)
				continue;
			if (k == FF_IGNORE)
				return 0;
			focused = 1;
		}
		for (i = a; i < b; i++) {
			if (sel->have_re[FF_HIDE] && ff_frame(w, FF_HIDE, s, i))
				continue;
			if (sel->have_re[FF_SHOW] &&
			    !ff_frame(w, FF_SHOW, s, i))
				continue;
			w->at[keep++] = i;
		}
		/* The outermost frame left ends the location. */
		for (i = first; i < keep; i++)
			fl[w->at[i]] |= FRAME_INLINED;
		if (keep > first)
			fl[w->at[keep - 1]] &= ~(unsigned)FRAME_INLINED;
	}
	if (!focused || keep == 0)
		return 0;
	/* Root first. */
	for (i = 0; i < keep / 2; i++) {
		size_t t = w->at[i];

		w->at[i] = w->at[keep - 1 - i];
		w->at[keep - 1 - i] = t;
	}
	for (i = 0; i < keep; i++)
		w->flags[i] = fl[w->at[i]];
	w->n = keep;
	return 1;
}
