/* fuzz_folded.c: the folded decoder, as the importer opens a push with
 * format=folded: plain, or gzipped (the harness also decodes a gzip of every
 * plain input and checks both decodes agree).  See fuzz.h for the sink. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_decode_both(data, size, "folded");
}
