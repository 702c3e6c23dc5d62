/* fuzz_pyroquery.c: the parameters of /pyroscope/render and render-diff
 * (pyroquery.c) as the API hands them over.  The input is three lines:
 * a query, a time, a maxNodes.  Beside not crashing: a query is taken
 * with a profile type whose ID parses back to the same parts, or refused
 * as bad input with a message; a time is taken or refused so, and the
 * timeline's step for the range from it to now is one of Pyroscope's
 * (at least 15 s); maxNodes is a count within the limits or refused. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "fuzz.h"
#include "pyroquery.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* 2026-11-21T15:04:05Z, so relative times are reproducible. */
#define FZ_NOW	1795273445000000000ll

static void
check_query(const char *q)
{
	struct pyroquery rq;
	struct pyrotype again;
	struct error err = { 0 };
	char id[5 * PYROTYPE_PART];

	if (pyroquery_parse("query", q, &rq, &err) == -1) {
		FZ_CHECK(err.kind == ERR_INPUT && err.msg[0] != '\0');
		return;
	}
	pyrotype_id(&rq.type, id, sizeof id);
	FZ_CHECK(pyrotype_parse(id, &again, &err) == 0);
	FZ_CHECK(strcmp(again.type, rq.type.type) == 0 &&
	    strcmp(again.unit, rq.type.unit) == 0 &&
	    strcmp(again.name, rq.type.name) == 0);
	FZ_CHECK(rq.scope == NULL || rq.scope[0] != '\0');
	pyroquery_clear(&rq);
}

static void
check_time(const char *s)
{
	struct error err = { 0 };
	int64_t ns, step;

	if (pyroquery_time("from", s, FZ_NOW, &ns, &err) == -1) {
		FZ_CHECK(err.kind == ERR_INPUT && err.msg[0] != '\0');
		return;
	}
	step = pyroquery_step(ns / 1000000, FZ_NOW / 1000000);
	FZ_CHECK(step >= 15 && step <= 31536000);
	step = pyroquery_step(FZ_NOW / 1000000, ns / 1000000);
	FZ_CHECK(step >= 15 && step <= 31536000);
}

static void
check_max_nodes(const char *s)
{
	struct error err = { 0 };
	int64_t v;

	if (pyroquery_max_nodes("maxNodes", s, &v, &err) == -1) {
		FZ_CHECK(err.kind == ERR_INPUT && err.msg[0] != '\0');
		return;
	}
	FZ_CHECK(v >= 1 && v <= PYROQUERY_MAX_NODES_MAX);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *line[3] = { "", "", "" };
	char *text, *p;
	int i;

	if (size > LABELSEL_MAX)
		return -1;
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	for (i = 0, p = text; i < 3 && p != NULL; i++) {
		line[i] = p;
		if ((p = strchr(p, '\n')) != NULL)
			*p++ = '\0';
	}
	check_query(line[0]);
	check_time(line[1]);
	check_max_nodes(line[2]);
	free(text);
	return 0;
}
