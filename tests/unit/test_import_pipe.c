/* test_import_pipe.c: the importer with its decoder on a thread of its
 * own (sinkpipe.c, what it does with an input of 256 KiB and more)
 * stores exactly what it stores decoding on the import thread: two
 * stores, one importing every input through the pipe
 * (importer_set_pipe_min 0), the other none (UINT64_MAX); the four real
 * Go fixtures and 200,000 lines of folded stacks (many chunks of the
 * queue; the sink told the next stack, a callsite made without a lookup
 * under one the last stack made), each pushed into two scopes, the second
 * time into warm caches; then every table that interning and samples
 * fill compared row for row: callsite chunks (ids, parents, frames, in
 * the order made), frames, functions, mappings, strings, label sets,
 * labels, metrics, sample blocks and their data, totals, rollups (a
 * pipe that told the sink a wrong next stack fails here: tried). */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "testimport.h"

static const char *const tables[] = {
	"callsite_chunk", "frame", "function", "mapping", "string",
	"labelset", "label", "metric", "sample_block", "block_data",
	"sample_total", "rollup",
};

/* A hash of every row of a table in rowid order, and their count. */
static uint64_t
table_hash(sqlite3 *db, const char *table, size_t *rows)
{
	char sql[256];
	sqlite3_stmt *st;
	uint64_t h = 0xcbf29ce484222325ull;
	const uint8_t *p;
	int i, n, c;
	size_t k;

	/* Ordered by every column (some tables have no rowid). */
	snprintf(sql, sizeof sql, "SELECT * FROM %s", table);
	CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
	n = sqlite3_column_count(st);
	sqlite3_finalize(st);
	k = strlen(sql);
	for (i = 0; i < n && k + 8 < sizeof sql; i++)
		k += (size_t)snprintf(sql + k, sizeof sql - k, "%s%d",
		    i == 0 ? " ORDER BY " : ", ", i + 1);
	CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
	*rows = 0;
	while ((c = sqlite3_step(st)) == SQLITE_ROW) {
		(*rows)++;
		for (i = 0; i < sqlite3_column_count(st); i++) {
			h = (h ^ (uint64_t)sqlite3_column_type(st, i)) *
			    0x100000001b3ull;
			p = sqlite3_column_blob(st, i);
			n = sqlite3_column_bytes(st, i);
			while (n-- > 0)
				h = (h ^ *p++) * 0x100000001b3ull;
			h = (h ^ 0xff) * 0x100000001b3ull;
		}
	}
	CHECK(c == SQLITE_DONE);
	sqlite3_finalize(st);
	return h;
}

static void
push(struct testimport *t, const char *scope, const uint8_t *data,
    size_t len)
{
	struct import_request req;
	struct import_result res;
	struct error err = { 0 };

	memset(&req, 0, sizeof req);
	req.scope = scope;
	req.format = "auto";
	req.name = "";
	req.fd = -1;
	req.data = data;
	req.len = len;
	/* Folded stacks have no time of their own: the push's, the same
	 * in both stores. */
	req.time_ns = 1765000000000000000ll;
	if (importer_run(t->im, &req, &res, &err) != 0) {
		fprintf(stderr, "import into %s: %s\n", scope, err.msg);
		exit(1);
	}
	CHECK(!res.duplicate);
	import_result_clear(&res);
}

/* Folded stacks of a program: 200,000 lines over a few thousand frames,
 * stacks sharing their outer frames in runs and diverging below. */
static void
folded(struct buf *t)
{
	char line[128];
	size_t i;

	memset(t, 0, sizeof *t);
	for (i = 0; i < 200000; i++) {
		snprintf(line, sizeof line, "main;serve;h%zu;g%zu;k%zu;m%zu "
		    "%zu\n", i / 4000, i % 13, i % 1009, i % 7, i % 5 + 1);
		buf_add(t, line, strlen(line));
	}
}

int
main(void)
{
	static const char *fixtures[] = { "cpu.pprof", "heap.pprof",
	    "block.pprof", "mutex.pprof" };
	struct testimport a, b;
	struct buf text;
	uint8_t *data;
	size_t i, k, len, na, nb;
	char path[160], scope[32];
	sqlite3 *da, *db;

	testimport_open(&a);
	testimport_open(&b);
	importer_set_pipe_min(a.im, 0);
	importer_set_pipe_min(b.im, UINT64_MAX);
	folded(&text);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 4; i++) {
			data = testimport_fixture(fixtures[i], &len);
			snprintf(scope, sizeof scope, "s%zu", k);
			push(&a, scope, data, len);
			push(&b, scope, data, len);
			free(data);
		}
		snprintf(scope, sizeof scope, "f%zu", k);
		push(&a, scope, text.p, text.n);
		push(&b, scope, text.p, text.n);
	}
	buf_free(&text);

	snprintf(path, sizeof path, "%s/profd.db", a.dir);
	CHECK(sqlite3_open_v2(path, &da, SQLITE_OPEN_READONLY, NULL) ==
	    SQLITE_OK);
	snprintf(path, sizeof path, "%s/profd.db", b.dir);
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
	    SQLITE_OK);
	for (i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		CHECK(table_hash(da, tables[i], &na) ==
		    table_hash(db, tables[i], &nb));
		CHECK(na == nb);
		if (strcmp(tables[i], "callsite_chunk") == 0 ||
		    strcmp(tables[i], "frame") == 0)
			CHECK(na > 0);
		printf("ok: %s, %zu rows alike\n", tables[i], na);
	}
	sqlite3_close(da);
	sqlite3_close(db);
	testimport_close(&a);
	testimport_close(&b);
	printf("test_import_pipe: %u checks passed\n", checks);
	return 0;
}
