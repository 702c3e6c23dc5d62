/* test_alloc.c: xappendarray (daemon/base/alloc.c), the append that
 * doubles: every value appended is kept; the array is reallocated only
 * when its length is 0 or a power of two (about log2(n) times for n
 * appends, where growing by one element reallocated it n times: under
 * AddressSanitizer a copy of the whole array each time); a length taken
 * back (dedup, compaction) and grown again keeps every value too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "testlib.h"

#define N	100000

static void
test_append(void)
{
	int64_t *v = NULL, *was;
	size_t n, grown = 0, bad = 0;

	for (n = 0; n < N; n++) {
		was = v;
		v = xappendarray(v, n, sizeof *v);
		/* Not moved unless n is 0 or a power of two. */
		if (v != was && n != 0 && (n & (n - 1)) != 0)
			bad++;
		grown += (n & (n - 1)) == 0;
		v[n] = (int64_t)n * 7;
	}
	CHECK(bad == 0);
	CHECK(grown == 18);		/* 0, 1, 2, 4, ..., 65536 */
	for (n = 0, bad = 0; n < N; n++)
		bad += v[n] != (int64_t)n * 7;
	CHECK(bad == 0);
	/* Taken back to 3 (capacity 131072 kept), then grown past its old
	 * length: the first 3 kept, every new one written where it fits. */
	for (n = 3; n < 2 * N; n++) {
		v = xappendarray(v, n, sizeof *v);
		v[n] = -(int64_t)n;
	}
	CHECK(v[0] == 0 && v[1] == 7 && v[2] == 14);
	for (n = 3, bad = 0; n < 2 * N; n++)
		bad += v[n] != -(int64_t)n;
	CHECK(bad == 0);
	/* Down to none: a fresh start of one element. */
	v = xappendarray(v, 0, sizeof *v);
	v[0] = 42;
	v = xappendarray(v, 1, sizeof *v);
	v[1] = 43;
	CHECK(v[0] == 42 && v[1] == 43);
	free(v);
}

int
main(void)
{
	test_append();
	printf("test_alloc: %u checks\n", checks);
	return 0;
}
