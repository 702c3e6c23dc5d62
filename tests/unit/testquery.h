/* testquery.h: what the query tests add to testimport.h: selections made
 * from NULL-ended lists of "key", "value" pairs.  For tests that link the
 * intake and query layers. */
#ifndef PROFD_TESTQUERY_H
#define PROFD_TESTQUERY_H

#include "selection.h"
#include "testimport.h"

/* A checked and compiled selection of NULL-ended "key", "value" pairs. */
static inline void
testquery_sel(struct selection *sel, const char *const *kv)
{
	struct error err = { 0 };

	memset(sel, 0, sizeof *sel);
	for (; kv[0] != NULL; kv += 2)
		if (selection_param(sel, kv[0], kv[1], 0, &err) != 1) {
			fprintf(stderr, "%s=%s: %s\n", kv[0], kv[1], err.msg);
			exit(1);
		}
	CHECK(selection_check(sel, &err) == 0);
	CHECK(selection_compile(sel, &err) == 0);
}

#endif
