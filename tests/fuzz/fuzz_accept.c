/* fuzz_accept.c: Accept-Encoding values as clients send them (any bytes
 * up to the header's end), through http_accept_gzip(), which decides
 * whether a reply is gzipped.  Beside not crashing or reading past the
 * value: the answer is 0 or 1; where no quoted string can swallow what
 * follows, a member added after a comma decides as RFC 9110 says: "gzip"
 * makes it 1, "gzip;q=0" after "gzip;q=0" leaves it 0, and "identity"
 * changes nothing. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "http-accept.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The answer for the value with tail appended. */
static int
with(const char *v, size_t n, const char *tail)
{
	size_t tn = strlen(tail);
	char *s = malloc(n + tn + 1);
	int rc;

	memcpy(s, v, n);
	memcpy(s + n, tail, tn + 1);
	rc = http_accept_gzip(s);
	free(s);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *v;
	int rc;

	if (size > 4096)
		return -1;
	/* Exactly size bytes, so that a read past the end is ASan's. */
	v = malloc(size + 1);
	memcpy(v, data, size);
	v[size] = '\0';
	rc = http_accept_gzip(v);
	FZ_CHECK(rc == 0 || rc == 1);
	if (memchr(v, '"', size) == NULL && strlen(v) == size) {
		FZ_CHECK(with(v, size, ",gzip") == 1);
		FZ_CHECK(with(v, size, ", identity") == rc);
		FZ_CHECK(with(v, size, ",gzip;q=0,*;q=1,gzip;q=0") ==
		    with(v, size, ",gzip;q=0"));
	}
	free(v);
	return 0;
}
