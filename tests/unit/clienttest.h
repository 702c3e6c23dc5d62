/* clienttest.h: what the client's unit tests of renderers share: a count
 * of failed string checks (so one run reports them all) and a renderer run
 * on a canned JSON reply. Header-only, as testlib.h, since each
 * tests/unit/test_*.c is an executable of its own. */
#ifndef PROFCTL_CLIENTTEST_H
#define PROFCTL_CLIENTTEST_H

/* The checks are asserts: keep them in release builds. */
#undef NDEBUG

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"

static int failures;

static inline void
expect_str(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return;
	failures++;
	fprintf(stderr, "FAIL %s:\n--- want ---\n%s\n--- got ---\n%s\n",
	    what, want, got);
}

/* Run a renderer of a JSON text into a string. */
static inline char *
render(int (*fn)(FILE *, json_t *, char **), const char *text, int want_rc)
{
	json_error_t	 jerr;
	json_t		*j;
	FILE		*f;
	char		*out = NULL, *cause = NULL;
	size_t		 len = 0;
	int		 rc;

	j = json_loads(text, 0, &jerr);
	if (j == NULL) {
		fprintf(stderr, "bad test JSON: %s\n", jerr.text);
		abort();
	}
	f = open_memstream(&out, &len);
	rc = fn(f, j, &cause);
	fclose(f);
	json_decref(j);
	assert(rc == want_rc);
	if (rc != 0)
		assert(cause != NULL);
	free(cause);
	return (out);
}

/* main's return: 1 if any expect_str failed. */
static inline int
finish(void)
{
	if (failures != 0) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return (1);
	}
	printf("ok\n");
	return (0);
}

#endif
