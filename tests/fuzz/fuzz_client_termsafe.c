/* fuzz_client_termsafe.c: profctl's one rule for what it prints and did
 * not write (termsafe.c), on any bytes.  The first byte picks the flags
 * and where the rest is cut in two.  What comes out must be valid UTF-8
 * holding no C0 control (but the newline and tab the flags keep), no DEL
 * and no C1 control; the bytes written in two pieces must come out as
 * they do whole; a fit of the whole width keeps every byte. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profctl.h"
#include "../unit/termcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct termsafe_out	 o;
	const char		*in;
	char			*whole, *two = NULL;
	size_t			 n, len, twolen = 0, cut;
	FILE			*f;
	int			 flags;

	if (size < 1 || size > 4096)
		return -1;
	flags = data[0] & 3;
	in = (const char *)data + 1;
	n = size - 1;
	cut = n > 0 ? data[0] % (n + 1) : 0;

	whole = termsafe_mem(in, n, flags, &len);
	if (!termcheck_shows_only((const unsigned char *)whole, len, flags) ||
	    strlen(whole) != len)
		abort();
	if (termsafe_fit(whole, termsafe_width(whole)) != len)
		abort();

	if ((f = open_memstream(&two, &twolen)) == NULL)
		abort();
	termsafe_out_init(&o, f, flags);
	termsafe_out_write(&o, in, cut);
	termsafe_out_write(&o, in + cut, n - cut);
	termsafe_out_end(&o);
	fclose(f);
	if (twolen != len || memcmp(two, whole, len) != 0)
		abort();
	free(two);
	free(whole);
	return 0;
}
