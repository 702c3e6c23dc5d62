/* termcheck.h: is a text what a terminal shows as it is (valid UTF-8,
 * RFC 3629: no overlong form, surrogate or code point past U+10FFFF; no
 * C0 control but the newline and tab the flags keep, no DEL, no C1
 * control)?  The unit test and the fuzz harness of termsafe.c both ask,
 * independently of termsafe.c itself. */
#ifndef PROFD_TERMCHECK_H
#define PROFD_TERMCHECK_H

#include <stddef.h>

#include "profctl.h"

static inline int
termcheck_shows_only(const unsigned char *p, size_t n, int flags)
{
	size_t	 i = 0, k, len;

	while (i < n) {
		if (p[i] < 0x80) {
			if (p[i] == 0x7f || (p[i] < 0x20 &&
			    !(p[i] == '\n' && (flags & TERMSAFE_NL)) &&
			    !(p[i] == '\t' && (flags & TERMSAFE_TAB))))
				return 0;
			i++;
			continue;
		}
		if (p[i] == 0xc2 && i + 1 < n && p[i + 1] <= 0x9f)
			return 0;	/* a C1 control */
		if (p[i] >= 0xc2 && p[i] <= 0xdf)
			len = 2;
		else if (p[i] >= 0xe0 && p[i] <= 0xef)
			len = 3;
		else if (p[i] >= 0xf0 && p[i] <= 0xf4)
			len = 4;
		else
			return 0;
		if (i + len > n)
			return 0;
		for (k = 1; k < len; k++)
			if ((p[i + k] & 0xc0) != 0x80)
				return 0;
		/* Overlong, surrogate, past U+10FFFF. */
		if ((p[i] == 0xe0 && p[i + 1] < 0xa0) ||
		    (p[i] == 0xed && p[i + 1] > 0x9f) ||
		    (p[i] == 0xf0 && p[i + 1] < 0x90) ||
		    (p[i] == 0xf4 && p[i + 1] > 0x8f))
			return 0;
		i += len;
	}
	return 1;
}

#endif
