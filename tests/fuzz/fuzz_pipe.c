/* fuzz_pipe.c: the importer's decode on a thread of its own (sinkpipe.c)
 * against the same decode on the caller's thread: any format (detected),
 * the same result, the same error, and the same calls on the checking
 * sink in the same order (fuzz.h's digest), whatever the bytes; what
 * stack_ahead says of the next stack true; and again with a sink that
 * fails at a call the input picks: its error, no call after it. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct limits lim;
	struct fz_result r;
	uint64_t pick = 0;
	size_t i;

	fz_limits(&lim);
	r = fz_decode_piped(data, size, &lim, 0);
	if (r.calls == 0)
		return 0;
	for (i = 0; i < size; i++)
		pick = pick * 31 + data[i];
	r = fz_decode_piped(data, size, &lim, 1 + pick % r.calls);
	FZ_CHECK(r.rc == -1 && r.kind == ERR_NO_SPACE);
	return 0;
}
