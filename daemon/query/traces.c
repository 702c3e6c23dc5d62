/* traces.c: which samples -traces prints and in which order. */
#include <stdint.h>
#include <stdlib.h>

#include "alloc.h"
#include "selection.h"
#include "traces.h"

static int
trace_cmp(const void *a, const void *b, void *arg)
{
	const struct sample *s = arg;
	const struct sample *x = &s[*(const size_t *)a];
	const struct sample *y = &s[*(const size_t *)b];
	int64_t xv = x->value < 0 ? -x->value : x->value;
	int64_t yv = y->value < 0 ? -y->value : y->value;

	if (xv != yv)
		return xv > yv ? -1 : 1;
	if (x->callsite != y->callsite)
		return x->callsite < y->callsite ? -1 : 1;
	return x->labelset < y->labelset ? -1 : x->labelset > y->labelset;
}

int
traces_open(struct store *s, struct csindex *idx, const struct selection *sel,
    struct samples *sm, size_t **order, size_t *n, struct error *err)
{
	int64_t last_cs = -1;
	size_t i;
	int kept = 0;

	*order = NULL;
	*n = 0;
	if (samples_open(s, idx, sel, sm, err) == -1)
		return -1;
	*order = xreallocarray(NULL, sm->n ? sm->n : 1, sizeof **order);
	/* Without frame filters every stack is kept: no walk to know it. */
	if (!selection_frame_filters(sel)) {
		for (i = 0; i < sm->n; i++)
			(*order)[i] = i;
		*n = sm->n;
	}
	for (i = 0; selection_frame_filters(sel) && i < sm->n; i++) {
		/* Samples come by callsite: walk each stack once. */
		if (sm->s[i].callsite != last_cs) {
			if ((kept = samples_walk(sm, i, err)) == -1) {
				free(*order);
				*order = NULL;
				samples_close(sm);
				return -1;
			}
			last_cs = sm->s[i].callsite;
		}
		if (kept)
			(*order)[(*n)++] = i;
	}
	if (*n > 1)
		qsort_r(*order, *n, sizeof **order, trace_cmp, sm->s);
	return 0;
}
