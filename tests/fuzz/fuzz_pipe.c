/* fuzz_pipe.c: the importer's decode on a thread of its own (sinkpipe.c)
 * against the same decode on the caller's thread: any format (detected),
 * the same result, the same error, and the same calls on the checking
 * sink in the same order (fuzz.h's digest), whatever the bytes. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct limits lim;
	struct fz_result a, b;

	fz_limits(&lim);
	a = fz_decode_via(stream_mem(data, size), "auto", &lim, 0);
	b = fz_decode_via(stream_mem(data, size), "auto", &lim, 1);
	FZ_CHECK(a.rc == b.rc);
	FZ_CHECK(a.kind == b.kind);
	FZ_CHECK(a.digest == b.digest);
	FZ_CHECK(a.format == b.format);
	FZ_CHECK(strcmp(a.msg, b.msg) == 0);
	return 0;
}
