/* rfc3339.c: times as RFC 3339 text. */
#include <stdio.h>
#include <time.h>

#include "rfc3339.h"

void
format_rfc3339(int64_t ns, char *out, size_t outlen)
{
	time_t secs = (time_t)(ns / 1000000000);
	long frac = (long)(ns % 1000000000);
	struct tm tm;
	size_t n;
	int digits = 9;

	if (frac < 0) {
		frac += 1000000000;
		secs--;
	}
	gmtime_r(&secs, &tm);
	n = strftime(out, outlen, "%Y-%m-%dT%H:%M:%S", &tm);
	if (frac != 0 && n < outlen) {
		while (frac % 10 == 0) {
			frac /= 10;
			digits--;
		}
		n += (size_t)snprintf(out + n, outlen - n, ".%0*ld", digits,
		    frac);
	}
	if (n < outlen)
		snprintf(out + n, outlen - n, "Z");
}

int64_t
rfc3339_days(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}
