/* fuzz-init.c: linked into every harness, what makes a run repeatable
 * before its first input.  jansson seeds its hash function at random:
 * which keys share a bucket, and so which strings its lookups compare,
 * changed from run to run, and libFuzzer learns from those compares (its
 * table of recent compares feeds the mutations), so run-test's fixed
 * pass took another path now and then (fuzz.pushreq, 1 run in 2). */
#include <jansson.h>

int LLVMFuzzerInitialize(int *, char ***);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	json_object_seed(1);
	return 0;
}
