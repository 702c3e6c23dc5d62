/* fuzz_scrape_head.c: the head of a reply read over a Unix socket from a
 * scrape target (scrape_unix_head): any bytes.  Beside not crashing: a
 * head taken has a status of three digits and a length that is -1 or a
 * number the head spelled out; one refused has no status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "scrape-unix.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1), num[32];
	const char *err;
	long long clen;
	int code;

	/* Unterminated, as the evbuffer hands it over. */
	memcpy(copy, data, size);
	err = scrape_unix_head(copy, size, &code, &clen);
	if (err != NULL)
		FZ_CHECK(code == 0);
	else {
		FZ_CHECK(code >= 100 && code <= 599);
		FZ_CHECK(clen >= -1);
		snprintf(num, sizeof num, "%lld", clen);
		FZ_CHECK(clen == -1 || memmem(copy, size, num, strlen(num)) !=
		    NULL);
	}
	free(copy);
	return 0;
}
