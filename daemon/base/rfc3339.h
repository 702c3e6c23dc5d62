/* rfc3339.h: times as RFC 3339 text. */
#ifndef PROFD_RFC3339_H
#define PROFD_RFC3339_H

#include <stddef.h>
#include <stdint.h>

/* RFC 3339 in UTC with nanoseconds trimmed to what is non-zero. */
void format_rfc3339(int64_t ns, char *out, size_t outlen);

#endif
