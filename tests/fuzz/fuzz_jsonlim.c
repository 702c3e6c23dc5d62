/* fuzz_jsonlim.c: the scanner that bounds a JSON text's tree before
 * jansson parses it (the Connect push's JSON, /ingest's
 * sample_type_config).  Every input is scanned from a copy of its own
 * size (ASan sees a read past the end), then parsed by jansson with its
 * allocations counted:
 *
 *  - a text the scanner passes makes jansson hold at most
 *    FZ_PER_VALUE bytes a value, FZ_PER_BYTE a byte of string, and a
 *    constant: the bound the daemon's memory rests on;
 *  - a tree jansson makes of a passed text is within the value and depth
 *    limits (keys counted as values);
 *  - the counts are exact: a text jansson reads whole whose tree is within
 *    the value and depth limits is passed (string bytes unbounded).
 *
 * The first two bytes pick the limits, so both sides of each are
 * reached. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "fuzz.h"
#include "jsonlim.h"

/* Measured: an empty object in an array is the dearest value, 210 bytes
 * asked of malloc with its array slot; a string's bytes are asked for
 * once in the tree and up to twice more in jansson's token buffer. */
#define FZ_PER_VALUE	512
#define FZ_PER_BYTE	4
#define FZ_FIXED	(64u << 10)

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static size_t held, peak;

/* jansson's allocations, counted: each block carries its size. */
static void *
fz_malloc(size_t n)
{
	size_t *p = malloc(n + 16);

	if (p == NULL)
		return NULL;
	p[0] = n;
	held += n;
	if (held > peak)
		peak = held;
	return (char *)p + 16;
}

static void
fz_free(void *q)
{
	size_t *p;

	if (q == NULL)
		return;
	p = (size_t *)(void *)((char *)q - 16);
	held -= p[0];
	free(p);
}

/* Values (keys counted) and depth of a tree. */
static void
fz_count(json_t *j, uint32_t d, size_t *values, uint32_t *depth)
{
	const char *k;
	json_t *v;
	size_t i;

	++*values;
	if ((json_is_array(j) || json_is_object(j)) && d + 1 > *depth)
		*depth = d + 1;
	if (json_is_array(j))
		json_array_foreach(j, i, v)
			fz_count(v, d + 1, values, depth);
	if (json_is_object(j))
		json_object_foreach(j, k, v) {
			++*values;
			fz_count(v, d + 1, values, depth);
		}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;
	struct jsonlim lim;
	struct error err = { 0 };
	json_error_t je;
	json_t *j;
	char *copy;
	size_t values = 0;
	uint32_t depth = 0;
	int passed, whole;

	if (!init) {
		json_set_alloc_funcs(fz_malloc, fz_free);
		init = 1;
	}
	if (size < 2)
		return 0;
	lim.max_depth = data[0] % 24;
	lim.max_values = (size_t)data[1] * 4;
	lim.max_string_bytes = (size_t)(data[0] / 24) * 128;
	data += 2;
	size -= 2;
	copy = xmalloc(size ? size : 1);
	memcpy(copy, data, size);

	passed = jsonlim_check(copy, size, &lim, &err) == 0;
	if (!passed) {
		FZ_CHECK(err.kind == ERR_TOO_LARGE || err.kind == ERR_INPUT);
		FZ_CHECK(strstr(err.msg, "at byte ") != NULL);
	}
	held = peak = 0;
	j = json_loadb(copy, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (passed)
		FZ_CHECK(peak <= FZ_PER_VALUE * lim.max_values +
		    FZ_PER_BYTE * lim.max_string_bytes + FZ_FIXED);
	whole = j != NULL;
	if (whole)
		fz_count(j, 0, &values, &depth);
	json_decref(j);
	FZ_CHECK(held == 0);
	if (whole && passed)
		FZ_CHECK(values <= lim.max_values && depth <= lim.max_depth);
	if (whole && values <= lim.max_values && depth <= lim.max_depth) {
		lim.max_string_bytes = SIZE_MAX;
		FZ_CHECK(jsonlim_check(copy, size, &lim, &err) == 0);
	}
	free(copy);
	return 0;
}
