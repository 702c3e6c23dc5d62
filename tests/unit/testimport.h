/* testimport.h: a store in a temporary directory with the real fixture
 * profiles imported through the importer, as the query tests read it: a
 * write connection for the importer, a read-only one and a callsite index
 * for the queries (as the query threads have them), and the expected
 * reports of go tool pprof -top (fixtures/expected/PROFILE.METRIC.tsv).
 *
 * Header-only, as testlib.h; for tests that link the intake layer
 * (testquery.h adds selections for the query tests). */
#ifndef PROFD_TESTIMPORT_H
#define PROFD_TESTIMPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bounds.h"
#include "csindex.h"
#include "import.h"
#include "store.h"
#include "testlib.h"

struct testimport {
	char dir[64];
	struct store *wr, *rd;
	struct importer *im;
	struct csindex *idx;
	struct limits lim;
};

static inline void
testimport_open(struct testimport *t)
{
	struct error err = { 0 };
	char path[128];

	memset(t, 0, sizeof *t);
	snprintf(t->dir, sizeof t->dir, "/tmp/profd-test.XXXXXX");
	CHECK(mkdtemp(t->dir) != NULL);
	snprintf(path, sizeof path, "%s/profd.db", t->dir);
	bounds_default(&t->lim);
	CHECK((t->wr = store_open(path, 0, &err)) != NULL);
	/* Checkpoints in the background, as profd runs them. */
	CHECK(store_start_threads(t->wr, &err) == 0);
	CHECK((t->rd = store_open(path, 1, &err)) != NULL);
	t->im = importer_new(t->wr, &t->lim);
	t->idx = csindex_new();
}

static inline void
testimport_close(struct testimport *t)
{
	char cmd[128];

	importer_free(t->im);
	csindex_free(t->idx);
	store_close(t->rd);
	store_close(t->wr);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
	CHECK(system(cmd) == 0);
}

/* A file of tests/fixtures, whole. */
static inline uint8_t *
testimport_fixture(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	uint8_t *buf;
	long n;

	snprintf(path, sizeof path, "%s/%s", FIXTURES_DIR, name);
	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "%s: cannot open\n", path);
		exit(1);
	}
	CHECK(fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0);
	CHECK(fseek(f, 0, SEEK_SET) == 0);
	buf = xmalloc((size_t)n + 1);
	CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Imports data as a push would, with the push labels of a NULL-ended
 * list of "key", "value" pairs: the profile id. */
static inline int64_t
testimport_push_data(struct testimport *t, const char *scope,
    const char *format, const void *data, size_t len,
    const struct decode_opts *opts, const char *const *labels)
{
	struct import_request req;
	struct import_result res;
	struct import_label lab[8];
	struct error err = { 0 };
	int64_t id;

	memset(&req, 0, sizeof req);
	for (; labels != NULL && labels[0] != NULL; labels += 2) {
		CHECK(req.nlabels < 8);
		lab[req.nlabels].key = xstrdup(labels[0]);
		lab[req.nlabels++].value = xstrdup(labels[1]);
	}
	req.labels = lab;
	req.scope = scope;
	req.format = format;
	req.name = "";
	req.data = data;
	req.len = len;
	req.fd = -1;
	if (opts != NULL)
		req.opts = *opts;
	if (importer_run(t->im, &req, &res, &err) == -1) {
		fprintf(stderr, "push to %s: %s\n", scope, err.msg);
		exit(1);
	}
	while (req.nlabels-- > 0) {
		free(lab[req.nlabels].key);
		free(lab[req.nlabels].value);
	}
	CHECK(!res.duplicate);
	id = res.profile_id;
	import_result_clear(&res);
	return id;
}

/* Imports tests/fixtures/<name> into scope. */
static inline int64_t
testimport_push(struct testimport *t, const char *scope, const char *name)
{
	uint8_t *buf;
	size_t len;
	int64_t id;

	buf = testimport_fixture(name, &len);
	id = testimport_push_data(t, scope, "auto", buf, len, NULL, NULL);
	free(buf);
	return id;
}

/* go tool pprof -top's report of a profile and sample type. */
struct expected_row {
	char *function;
	int64_t flat, cum;
};

struct expected {
	int64_t total;
	struct expected_row *rows;
	size_t nrows;
};

static inline void
testimport_expected(const char *profile, const char *metric,
    struct expected *e)
{
	char name[256], *text, *line, *next, *tab;
	size_t len;

	memset(e, 0, sizeof *e);
	snprintf(name, sizeof name, "expected/%s.%s.tsv", profile, metric);
	text = (char *)testimport_fixture(name, &len);
	for (line = text; *line != '\0'; line = next) {
		next = line + strcspn(line, "\n");
		if (*next == '\n')
			*next++ = '\0';
		if (strncmp(line, "#total\t", 7) == 0) {
			e->total = strtoll(line + 7, NULL, 10);
			continue;
		}
		e->rows = xreallocarray(e->rows, e->nrows + 1,
		    sizeof *e->rows);
		/* function<TAB>flat<TAB>cum: the name may hold no tab. */
		CHECK((tab = strchr(line, '\t')) != NULL);
		*tab = '\0';
		e->rows[e->nrows].function = xstrdup(line);
		e->rows[e->nrows].flat = strtoll(tab + 1, &tab, 10);
		e->rows[e->nrows].cum = strtoll(tab + 1, NULL, 10);
		e->nrows++;
	}
	CHECK(e->total > 0 && e->nrows > 0);
	free(text);
}

static inline const struct expected_row *
testimport_expected_row(const struct expected *e, const char *function)
{
	size_t i;

	for (i = 0; i < e->nrows; i++)
		if (strcmp(e->rows[i].function, function) == 0)
			return &e->rows[i];
	return NULL;
}

static inline void
testimport_expected_clear(struct expected *e)
{
	size_t i;

	for (i = 0; i < e->nrows; i++)
		free(e->rows[i].function);
	free(e->rows);
	memset(e, 0, sizeof *e);
}

#endif
