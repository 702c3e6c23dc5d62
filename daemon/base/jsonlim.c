/* jsonlim.c: the one pass over a JSON text that bounds its tree.
 *
 * A tokenizer, not a validator: a string (from a quote to the next quote
 * not escaped), a bracket, or a run of other bytes (a number, a literal,
 * junk) is one value, so every node a parser could make of any prefix
 * of the text was counted, valid or not, and the parser's own errors
 * stay its own. */
#include "jsonlim.h"

static int
jsonlim_is_delim(unsigned char c)
{
	switch (c) {
	case ' ': case '\t': case '\n': case '\r':
	case ',': case ':': case '[': case ']': case '{': case '}': case '"':
		return 1;
	}
	return 0;
}

/* Where the string opened by the quote at p[i] ends: the offset of its
 * closing quote, or n if the text ends first. */
static size_t
jsonlim_string_end(const unsigned char *p, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		if (p[i] == '\\')
			i++;
		else if (p[i] == '"')
			return i;
	}
	return n;
}

int
jsonlim_check(const void *data, size_t n, const struct jsonlim *lim,
    struct error *err)
{
	const unsigned char *p = data;
	size_t i = 0, j, values = 0, sbytes = 0;
	uint32_t depth = 0;

	while (i < n) {
		switch (p[i]) {
		case ' ': case '\t': case '\n': case '\r': case ',': case ':':
			i++;
			continue;
		case ']': case '}':
			if (depth == 0)
				return error_set(err, ERR_INPUT, "JSON: '%c' "
				    "at byte %zu closes nothing", p[i], i);
			depth--;
			i++;
			continue;
		case '[': case '{':
			if (depth == lim->max_depth)
				return error_set(err, ERR_TOO_LARGE, "JSON: "
				    "nested deeper than %u (the limit) at "
				    "byte %zu", lim->max_depth, i);
			depth++;
			j = i + 1;
			break;
		case '"':
			j = jsonlim_string_end(p, n, i);
			sbytes += j - i - 1;
			j += j < n;
			break;
		default:
			for (j = i + 1; j < n && !jsonlim_is_delim(p[j]); j++)
				;
			sbytes += j - i;
			break;
		}
		if (++values > lim->max_values)
			return error_set(err, ERR_TOO_LARGE, "JSON: more than "
			    "%zu values (the limit) at byte %zu",
			    lim->max_values, i);
		if (sbytes > lim->max_string_bytes)
			return error_set(err, ERR_TOO_LARGE, "JSON: more than "
			    "%zu bytes of strings (the limit) at byte %zu",
			    lim->max_string_bytes, i);
		i = j;
	}
	return 0;
}
