/* fuzz_multipart.c: the multipart/form-data reader of POST /ingest.  The
 * input's first line is the Content-Type, the rest the body.  Every part
 * must lie inside the body, in order, and be named; a body that parsed
 * must parse the same again (no state outside the call). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "fuzz.h"
#include "multipart.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mpart parts[MULTIPART_MAX_PARTS], again[MULTIPART_MAX_PARTS];
	char boundary[MULTIPART_MAX_BOUNDARY + 1], *ct;
	const uint8_t *nl = memchr(data, '\n', size), *body, *prev;
	struct error err = { 0 };
	size_t n, n2, blen, i;

	if (nl == NULL)
		return 0;
	ct = xstrndup((const char *)data, (size_t)(nl - data));
	/* A copy of its own, so ASan sees a read past the body. */
	blen = size - (size_t)(nl + 1 - data);
	body = blen ? memcpy(xmalloc(blen), nl + 1, blen) : NULL;
	if (multipart_boundary(ct, boundary, &err) == 0) {
		FZ_CHECK(strlen(boundary) >= 1 &&
		    strlen(boundary) <= MULTIPART_MAX_BOUNDARY);
		if (multipart_parse(body ? body : (const uint8_t *)"", blen,
		    boundary, parts, MULTIPART_MAX_PARTS, &n, &err) == 0) {
			FZ_CHECK(n <= MULTIPART_MAX_PARTS);
			prev = body;
			for (i = 0; i < n; i++) {
				FZ_CHECK(parts[i].name[0] != '\0');
				FZ_CHECK(parts[i].data >= prev);
				FZ_CHECK(parts[i].data + parts[i].len <=
				    body + blen);
				prev = parts[i].data + parts[i].len;
				FZ_CHECK(multipart_find(parts, n,
				    parts[i].name) != NULL);
			}
			FZ_CHECK(multipart_parse(body, blen, boundary, again,
			    MULTIPART_MAX_PARTS, &n2, &err) == 0 && n2 == n);
			for (i = 0; i < n; i++)
				FZ_CHECK(again[i].data == parts[i].data &&
				    again[i].len == parts[i].len);
		} else
			FZ_CHECK(err.kind == ERR_INPUT);
	} else
		FZ_CHECK(err.kind == ERR_INPUT);
	free(ct);
	free((void *)(uintptr_t)body);
	return 0;
}
