/* clienttest.h: what the client's unit tests of renderers share: a count
 * of failed string checks (so one run reports them all), a renderer run
 * on a canned JSON reply, and the check of a reply's status and body. Header-only, as testlib.h, since each
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
	return out;
}

/* rc and r are what a request or a parse gave: 0, and a reply of this
 * status whose body is these len bytes with a NUL after them. r is cleared
 * after. */
static inline void
expect_body(const char *what, int rc, const char *cause,
    struct http_reply *r, long status, const char *body, size_t len)
{
	if (rc != 0) {
		fprintf(stderr, "FAIL %s: %s\n", what, cause);
		exit(1);
	}
	if (r->status != status || r->len != len ||
	    memcmp(r->body, body, len) != 0 || r->body[len] != '\0') {
		fprintf(stderr, "FAIL %s: HTTP %ld, %zu bytes [%.*s]\n", what,
		    r->status, r->len, r->len > 200 ? 200 : (int)r->len,
		    r->body);
		exit(1);
	}
	http_reply_clear(r);
	assert(r->body == NULL && r->json == NULL);
}

/* main's return: 1 if any expect_str failed. */
static inline int
finish(void)
{
	if (failures != 0) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}

#endif
