/* jsonlim.h: a bound on what a JSON text can make a tree parser hold,
 * checked before the parser sees the text.
 *
 * jansson builds a node for every value (a few dozen bytes to a few
 * hundred for an empty object), so two bytes of "{}" can cost a hundred
 * times their size: a size limit on the text bounds bytes, not the tree.
 * jsonlim_check() walks the text once, allocates nothing and refuses
 * past these limits, so that the tree of a text it passes is bounded by
 * max_values nodes and max_string_bytes of string. */
#ifndef PROFD_JSONLIM_H
#define PROFD_JSONLIM_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct jsonlim {
	uint32_t max_depth;		/* arrays and objects nested */
	size_t max_values;		/* values, member names included */
	size_t max_string_bytes;	/* of strings and numbers, as written */
};

/* 0 if the text stays within the limits; -1 with ERR_TOO_LARGE naming
 * the limit and the byte offset past it, or ERR_INPUT for a bracket that
 * closes nothing.  Other syntax is the parser's to judge: whatever the
 * text, every value a parser can make of it was counted. */
int jsonlim_check(const void *, size_t, const struct jsonlim *,
    struct error *);

#endif
