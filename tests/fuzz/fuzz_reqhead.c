/* fuzz_reqhead.c: the guard's header-line checks (reqhead.c) on any
 * bytes: never a read past what it was given, and the verdict the same
 * whether the head comes in one piece or split where the input says (the
 * guard sees a head in the pieces the socket delivers). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reqhead.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

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
	free(copy);
	return 0;
}
