/* fuzz_webasset.c: the request headers the UI's file server parses
 * (If-None-Match, Accept-Encoding) and the path, from any bytes: input is
 * path NUL inm NUL ae.  The answer must be one of the four statuses and
 * point into the asset it names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http-accept.h"
#include "webasset.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 3), *inm, *ae;
	struct webasset_reply r;

	memcpy(s, data, size);
	s[size] = s[size + 1] = s[size + 2] = '\0';
	inm = s + strlen(s) + 1;
	if (inm > s + size)
		inm = s + size + 1;
	ae = inm + strlen(inm) + 1;
	if (ae > s + size + 2)
		ae = s + size + 2;
	webasset_answer(s, inm, http_accept_gzip(ae), &r);
	if (r.status == 200 && r.body != r.asset->data && r.body != r.asset->gz)
		abort();
	if (r.status != 200 && r.status != 304 && r.status != 302 &&
	    r.status != 404)
		abort();
	free(s);
	return 0;
}
