/* fuzz-init.c: linked into every harness, what makes a run repeatable
 * before its first input. */
#include <jansson.h>
#include <stdint.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *, char ***);
int64_t __wrap_now_ns(void);

/* The wall clock of a harness whose link wraps now_ns
 * (tests/fuzz/CMakeLists.txt), fixed: perf script samples without a file
 * time are placed before the import's time, which must be the same for
 * a plain and a gzipped decode and from run to run, and the store's time
 * of day (fuzz_sql) likewise.  The other harnesses never call it. */
int64_t
__wrap_now_ns(void)
{
	return 1700000000000000000ll;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* jansson seeds its hash function at random: which keys share a
	 * bucket, and so which strings its lookups compare, changed from
	 * run to run, and libFuzzer learns from those compares (they feed
	 * its mutations): run-test's fixed pass of fuzz.pushreq took
	 * another path one run in two. */
	json_object_seed(1);
	/* Descriptors get the same numbers whoever starts the harness
	 * (ctest leaves some open): fuzz_http's sockets index a table and
	 * are compared, and took another path under ctest than from a
	 * shell. */
	closefrom(3);
	return 0;
}
