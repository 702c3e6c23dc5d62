/* fuzz_reqhead.c: the guard's header-line checks (reqhead.c) and its
 * framing of the body that follows (reqbody.c) on any bytes: never a
 * read past what it was given, and the verdict, and where the body ends,
 * the same whether the bytes come in one piece or split where the input
 * says (the guard sees a connection's bytes in the pieces the socket
 * delivers, and a body's end is where the next pipelined request
 * begins). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reqbody.h"
#include "reqhead.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The body after a whole head h at p (n bytes), fed in pieces of step:
 * the bytes it took, *end, *why. */
static size_t
body(const struct reqhead *h, const uint8_t *p, size_t n, size_t step,
    int *end, const char **why)
{
	struct reqbody b;
	size_t i = 0, k, took;

	reqbody_start(&b, h);
	*end = 0;
	*why = NULL;
	took = reqbody_feed(&b, p, 0, end, why);
	if (took != 0)
		abort();
	while (i < n && !*end && *why == NULL) {
		k = n - i < step ? n - i : step;
		took = reqbody_feed(&b, p + i, k, end, why);
		if (took > k || (took < k && !*end && *why == NULL))
			abort();
		i += took;
	}
	return i;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reqhead a, b;
	const char *wa, *wb = NULL;
	uint8_t *copy;
	size_t cut, i;

	if (size < 1)
		return 0;
	cut = data[0];
	data++;
	size--;
	/* An exact-size copy: ASan sees a read past the end. */
	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	reqhead_init(&a);
	wa = reqhead_feed(&a, copy, size);
	reqhead_init(&b);
	for (i = 0; i < size && wb == NULL; i += cut + 1)
		wb = reqhead_feed(&b, copy + i, size - i < cut + 1 ?
		    size - i : cut + 1);
	if ((wa == NULL) != (wb == NULL) || (wa != NULL && strcmp(wa,
	    wb) != 0))
		abort();
	if (wa == NULL) {
		struct reqhead c;
		size_t headlen = 0, na, nb;
		int ea, eb;
		const char *ba, *bb;

		/* Where the head ends: a byte at a time. */
		reqhead_init(&c);
		while (headlen < size && !c.ended)
			if (reqhead_feed(&c, copy + headlen++, 1) != NULL)
				abort();
		if (c.ended) {
			na = body(&c, copy + headlen, size - headlen,
			    size, &ea, &ba);
			nb = body(&c, copy + headlen, size - headlen,
			    cut + 1, &eb, &bb);
			if (na != nb || ea != eb || (ba == NULL) != (bb ==
			    NULL))
				abort();
		}
	}
	free(copy);
	return 0;
}
