/* test_jsonlim.c: the scanner that bounds a JSON text's tree before
 * jansson builds it.  Each limit refuses one past it, naming the limit
 * and the byte; the counts are exact on valid JSON (random trees written
 * by jansson: values and keys, depth, string bytes as read back); text
 * that is not JSON is counted too, and a cut-off text is never read past
 * its end (the tests run under ASan in CI). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "alloc.h"
#include "jsonlim.h"
#include "testlib.h"

#define BIG	((size_t)-1)

/* jsonlim_check over a copy of exactly n bytes (ASan sees a read past
 * it). */
static int
scan(const char *s, size_t n, uint32_t depth, size_t values, size_t bytes,
    struct error *err)
{
	const struct jsonlim lim = { depth, values, bytes };
	char *copy = xmalloc(n ? n : 1);
	int rc;

	memcpy(copy, s, n);
	memset(err, 0, sizeof *err);
	rc = jsonlim_check(copy, n, &lim, err);
	free(copy);
	return rc;
}

static int
scan_s(const char *s, uint32_t depth, size_t values, size_t bytes,
    struct error *err)
{
	return scan(s, strlen(s), depth, values, bytes, err);
}

static void
limits(void)
{
	struct error err;
	/* {, "a", [, 1, "x", true, null, {: 8 values, 3 deep, 1+1+1+4+4
	 * bytes of strings and numbers. */
	const char *t = "{\"a\": [1, \"x\", true, null, {}]}";

	CHECK(scan_s(t, 3, 8, 11, &err) == 0);
	CHECK(scan_s(t, 3, 7, BIG, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE);
	CHECK(HAS(err.msg, "more than 7 values") && HAS(err.msg, "byte 27"));
	CHECK(scan_s(t, 2, BIG, BIG, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE);
	CHECK(HAS(err.msg, "deeper than 2") && HAS(err.msg, "byte 27"));
	CHECK(scan_s(t, 3, BIG, 10, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE);
	CHECK(HAS(err.msg, "more than 10 bytes") && HAS(err.msg, "byte 21"));

	/* Strings count as written, escapes included; the quotes do not. */
	CHECK(scan_s("[\"ab\\\"c\", 12345]", 1, 3, 10, &err) == 0);
	CHECK(scan_s("[\"ab\\\"c\", 12345]", 1, 3, 9, &err) == -1);
	CHECK(scan_s("[\"\\u00e9\\\\\"]", 1, 2, 8, &err) == 0);
	CHECK(scan_s("[\"\\u00e9\\\\\"]", 1, 2, 7, &err) == -1);

	/* Nothing, or only blanks: no value. */
	CHECK(scan("", 0, 0, 0, 0, &err) == 0);
	CHECK(scan_s(" \t\r\n", 0, 0, 0, &err) == 0);
	CHECK(scan_s("[]", 0, BIG, BIG, &err) == -1);
	CHECK(scan_s("[]", 1, 0, BIG, &err) == -1);
	CHECK(scan_s("[[], [], []]", 2, 4, 0, &err) == 0);
}

static void
not_json(void)
{
	struct error err;

	/* A bracket that closes nothing is refused where it is. */
	CHECK(scan_s("]", 8, BIG, BIG, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "byte 0"));
	CHECK(scan_s("[1]}", 8, BIG, BIG, &err) == -1);
	CHECK(err.kind == ERR_INPUT && HAS(err.msg, "'}' at byte 3"));
	/* Other syntax is jansson's to refuse, but counted all the same. */
	CHECK(scan_s("[}", 8, BIG, BIG, &err) == 0);
	CHECK(scan_s("1 2 3 4", 0, 4, BIG, &err) == 0);
	CHECK(scan_s("1 2 3 4", 0, 3, BIG, &err) == -1);
	CHECK(scan_s("truefalse@#x", 0, 1, 12, &err) == 0);
	CHECK(scan_s("truefalse@#x", 0, 1, 11, &err) == -1);
	CHECK(scan_s("[1,,,,2:::3]", 1, 4, BIG, &err) == 0);
	/* A text cut short: in a string, after a backslash, in a number. */
	CHECK(scan_s("[\"abc", 1, 2, 3, &err) == 0);
	CHECK(scan_s("[\"abc", 1, 2, 2, &err) == -1);
	CHECK(scan("[\"\\", 3, 1, 2, 1, &err) == 0);
	CHECK(scan("\"\\\"", 3, 0, 1, 2, &err) == 0);
	CHECK(scan_s("[-12.5e", 1, 2, 6, &err) == 0);
	/* NUL and bytes past ASCII are a string's bytes like any. */
	CHECK(scan("[\"a\0\xff\"]", 7, 1, 2, 3, &err) == 0);
}

/* The bombs of issue 25: each refused long before its end. */
static void
bombs(void)
{
	size_t n = 1u << 20, i;
	char *t = xmalloc(n);
	struct error err;

	t[0] = '[';
	for (i = 1; i + 1 < n; i += 2) {
		t[i] = '1';
		t[i + 1] = ',';
	}
	CHECK(scan(t, n, 32, 1u << 17, BIG, &err) == -1);
	CHECK(err.kind == ERR_TOO_LARGE);
	CHECK(HAS(err.msg, "more than 131072 values (the limit) at byte "
	    "262143"));
	memset(t, '[', n);
	CHECK(scan(t, n, 32, BIG, BIG, &err) == -1);
	CHECK(HAS(err.msg, "deeper than 32 (the limit) at byte 32"));
	for (i = 0; i < n; i += 2)
		memcpy(t + i, "{}", 2);
	CHECK(scan(t, n, 32, 1000, BIG, &err) == -1);
	CHECK(HAS(err.msg, "at byte 2000"));
	memset(t, '"', 1);
	memset(t + 1, 'A', n - 1);
	CHECK(scan(t, n, 32, BIG, 1u << 16, &err) == -1);
	CHECK(HAS(err.msg, "more than 65536 bytes") && HAS(err.msg, "byte 0"));
	free(t);
}

/* A random tree of at most *budget nodes, depth at most d. */
static json_t *
tree(uint64_t *rng, int d, int *budget)
{
	json_t *j;
	char key[16];
	int i, n;

	--*budget;
	switch (d > 0 && *budget > 0 ? xorshift64(rng) % 7 : xorshift64(rng) % 5) {
	case 0:
		return json_integer((json_int_t)(xorshift64(rng) % 100000) -
		    50000);
	case 1:
		return json_real((double)(xorshift64(rng) % 1000) / 7);
	case 2:
		n = (int)(xorshift64(rng) % 12);
		for (i = 0; i < n; i++)
			key[i] = "a\"\\\n\x01/\xc3\xa9 zZ"[xorshift64(rng) % 11];
		key[n] = '\0';
		/* Half an é is not UTF-8, which jansson refuses. */
		j = json_stringn(key, (size_t)n);
		return j != NULL ? j : json_string("s");
	case 3:
		return xorshift64(rng) % 2 ? json_true() : json_null();
	case 4:
		return json_false();
	case 5:
		j = json_array();
		n = (int)(xorshift64(rng) % 6);
		for (i = 0; i < n && *budget > 0; i++)
			json_array_append_new(j, tree(rng, d - 1, budget));
		return j;
	default:
		j = json_object();
		n = (int)(xorshift64(rng) % 6);
		for (i = 0; i < n && *budget > 0; i++) {
			snprintf(key, sizeof key, "k%d\\\"", i);
			json_object_set_new(j, key, tree(rng, d - 1, budget));
		}
		return j;
	}
}

/* Values (keys counted), depth and bytes of strings and numbers as
 * jansson writes them (compact, no escaped slash: JSON_COMPACT). */
static void
count(json_t *j, int d, size_t *values, int *depth)
{
	const char *k;
	json_t *v;
	size_t i;

	++*values;
	if (json_is_array(j) || json_is_object(j))
		if (d + 1 > *depth)
			*depth = d + 1;
	if (json_is_array(j))
		json_array_foreach(j, i, v)
			count(v, d + 1, values, depth);
	if (json_is_object(j))
		json_object_foreach(j, k, v) {
			++*values;
			count(v, d + 1, values, depth);
		}
}

static void
random_trees(void)
{
	uint64_t rng = 25;
	struct error err;
	int round;

	for (round = 0; round < 2000; round++) {
		int budget = 1 + (int)(xorshift64(&rng) % 300), depth = 0;
		json_t *j = json_array(), *back;
		size_t values = 0, n;
		char *text;

		json_array_append_new(j, tree(&rng, 1 + (int)(xorshift64(&rng) %
		    12), &budget));
		count(j, 0, &values, &depth);
		text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
		n = strlen(text);
		/* Exact on valid JSON: at the counts it passes, one under
		 * each it does not. */
		CHECK(scan(text, n, (uint32_t)depth, values, n, &err) == 0);
		CHECK(scan(text, n, (uint32_t)depth - 1, values, n, &err) ==
		    -1 && HAS(err.msg, "deeper"));
		CHECK(scan(text, n, (uint32_t)depth, values - 1, n, &err) ==
		    -1 && HAS(err.msg, "values"));
		/* And what passed is what jansson reads. */
		CHECK((back = json_loads(text, 0, NULL)) != NULL);
		CHECK(json_equal(back, j));
		json_decref(back);
		/* Every prefix of it stays in bounds and is counted no
		 * more than the whole. */
		CHECK(scan(text, xorshift64(&rng) % (n + 1), (uint32_t)depth,
		    values, n, &err) == 0);
		free(text);
		json_decref(j);
	}
}

int
main(void)
{
	limits();
	not_json();
	bombs();
	random_trees();
	printf("test_jsonlim: %u checks\n", checks);
	return 0;
}
