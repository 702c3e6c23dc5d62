/* fleet-top.c: pprof's top over stacks given by their frames' strings.
 * The frame filters follow stackwalk.c: a location is a run of frames
 * flagged inlined ended by one that is not (leaf first); focus and
 * ignore keep or drop the whole stack by its locations, hide and show
 * drop frames, and the outermost frame left of a location is its own.
 * What stackwalk.c also matches and the fleet has not: mapping files
 * (the shipped frames carry function, file and line). */
#include <stdlib.h>
#include <string.h>

#include "fleet-top.h"
#include "model.h"
#include "rx.h"
#include "selection.h"
#include "util.h"

void
fleet_top_init(struct fleet_top *t, const struct selection *sel,
    int sort_cum, int edges)
{
	memset(t, 0, sizeof *t);
	t->sel = sel;
	t->sort_cum = sort_cum;
	t->edges = edges;
}

void
fleet_top_clear(struct fleet_top *t)
{
	top_result_clear(&t->r);
	top_build_clear(&t->b);
	hmap_clear(&t->rowof);
	hmap_clear(&t->memo);
	free(t->row);
	free(t->flags);
	free(t->keep);
	memset(t, 0, sizeof *t);
}

/* Does filter k match s (never the empty string, as stackwalk.c)? */
static int
ft_match(struct fleet_top *t, int k, const char *s)
{
	size_t n = strlen(s);
	int64_t m;

	if (n == 0)
		return 0;
	m = hmap_get(&t->memo, s, n);
	m = m > 0 ? m - 1 : 0;
	if (!(m & (1 << k))) {
		m |= 1 << k;
		if (rx_match(t->sel->re[k], s, n))
			m |= 1 << (k + FF_COUNT);
		hmap_put(&t->memo, s, n, m + 1);
	}
	return (m & (1 << (k + FF_COUNT))) != 0;
}

static int
ft_frame(struct fleet_top *t, int k, char *const *fn, char *const *file,
    size_t i)
{
	return ft_match(t, k, fn[i]) || ft_match(t, k, file[i]);
}

static int64_t
ft_row(struct fleet_top *t, const char *name)
{
	size_t n = strlen(name);
	int64_t r = hmap_get(&t->rowof, name, n);

	if (r == 0) {
		r = top_build_row(&t->b, &t->r, name) + 1;
		hmap_put(&t->rowof, name, n, r);
	}
	return r - 1;
}

int
fleet_top_stack(struct fleet_top *t, int64_t value, char *const *fn,
    char *const *file, char *const *inl, size_t ninl, size_t n,
    struct error *err)
{
	const struct selection *sel = t->sel;
	size_t a, b, i, keep = 0, first;
	int focused = !sel->have_re[FF_FOCUS];
	int k;

	(void)err;
	/* pprof's total is taken before its frame filters. */
	t->r.total += value < 0 ? -value : value;
	if (value == 0 || n == 0)
		return 0;
	if (n > t->cap) {
		t->cap = n;
		t->row = xreallocarray(t->row, n, sizeof *t->row);
		t->flags = xreallocarray(t->flags, n, sizeof *t->flags);
		t->keep = xreallocarray(t->keep, n, sizeof *t->keep);
	}
	for (i = 0; i < n; i++)
		t->flags[i] = i < ninl && strcmp(inl[i], "0") != 0 ?
		    FRAME_INLINED : 0;
	/* Location by location, leaf first: [a, b). */
	for (a = 0; a < n; a = b) {
		first = keep;
		for (b = a; b < n && (t->flags[b] & FRAME_INLINED); b++)
			;
		b = b < n ? b + 1 : n;
		for (k = FF_FOCUS; k <= FF_IGNORE; k++) {
			if (!sel->have_re[k] || (k == FF_FOCUS && focused))
				continue;
			for (i = a; i < b; i++)
				if (ft_frame(t, k, fn, file, i))
					break;
			if (i == b)
				continue;
			if (k == FF_IGNORE)
				return 0;
			focused = 1;
		}
		for (i = a; i < b; i++) {
			if (sel->have_re[FF_HIDE] &&
			    ft_frame(t, FF_HIDE, fn, file, i))
				continue;
			if (sel->have_re[FF_SHOW] &&
			    !ft_frame(t, FF_SHOW, fn, file, i))
				continue;
			t->keep[keep++] = i;
		}
		/* The outermost frame left ends the location. */
		for (i = first; i < keep; i++)
			t->flags[t->keep[i]] |= FRAME_INLINED;
		if (keep > first)
			t->flags[t->keep[keep - 1]] &= ~(unsigned)FRAME_INLINED;
	}
	if (!focused || keep == 0)
		return 0;
	/* Root first, as top_build_stack takes them.  flags is reused:
	 * keep[] is increasing, so the root-first copy is built aside. */
	{
		unsigned *fl = xreallocarray(NULL, keep, sizeof *fl);

		for (i = 0; i < keep; i++) {
			t->row[i] = ft_row(t, fn[t->keep[keep - 1 - i]]);
			fl[i] = t->flags[t->keep[keep - 1 - i]];
		}
		top_build_stack(&t->b, &t->r, t->row, fl, keep, value,
		    t->nstacks++);
		free(fl);
	}
	return 0;
}

void
fleet_top_finish(struct fleet_top *t, struct top_result *out)
{
	top_build_finish(&t->b, &t->r, t->sort_cum, t->edges);
	*out = t->r;
	memset(&t->r, 0, sizeof t->r);
}
