/* fuzz_perf_script.c: the perf script decoder, as the importer opens a push
 * with format=perf-script: plain, or gzipped (the harness also decodes a
 * gzip of every plain input and checks both decodes agree).  See fuzz.h
 * for the sink. */
#include <stdlib.h>
#include <time.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int zoned;

	/* "# captured on" is read in the local time zone: a fixed one. */
	if (!zoned) {
		setenv("TZ", "UTC0", 1);
		tzset();
		zoned = 1;
	}
	return fz_decode_both(data, size, "perf-script");
}
