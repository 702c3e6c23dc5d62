/* scopename.c: what a scope may be named. */
#include <ctype.h>
#include <string.h>

#include "scopename.h"

int
scope_name_valid(const char *s)
{
	size_t n = 0;

	for (; s[n] != '\0'; n++) {
		if (!isalnum((unsigned char)s[n]) && s[n] != '.' &&
		    s[n] != '_' && s[n] != '-')
			return 0;
		if (n >= 128)
			return 0;
	}
	/* Every scope can be a spool directory: not one of the two that
	 * every directory has. */
	return n >= 1 && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

void
scope_name_from(const char *v, size_t n, char out[129])
{
	size_t i;

	if (n > 128)
		n = 128;
	for (i = 0; i < n; i++)
		out[i] = isalnum((unsigned char)v[i]) || v[i] == '.' ||
		    v[i] == '_' || v[i] == '-' ? v[i] : '_';
	out[n] = '\0';
	if (!scope_name_valid(out))	/* "." or ".." */
		out[0] = '_';
}
