/* rfc3339.h: times as RFC 3339 text. */
#ifndef PROFD_RFC3339_H
#define PROFD_RFC3339_H

#include <stddef.h>
#include <stdint.h>

/* RFC 3339 in UTC with nanoseconds trimmed to what is non-zero. */
void format_rfc3339(int64_t ns, char *out, size_t outlen);

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; m 1-12): what
 * the parsers of dates (selection times, Pyroscope's render times) add
 * seconds to. */
int64_t rfc3339_days(int64_t y, unsigned m, unsigned d);

#endif
