/* bounds.h: the limits applied to every pushed blob; all configurable. */
#ifndef PROFD_BOUNDS_H
#define PROFD_BOUNDS_H

#include <stddef.h>
#include <stdint.h>

struct limits {
	size_t max_body;		/* bytes of one pushed blob */
	size_t max_inflated;		/* bytes after gunzip */
	uint32_t max_inflate_ratio;	/* inflated / compressed */
	/* bytes of a JSON text (a Connect push's), gzipped or not: parsed
	 * whole, it is held twice, as text and as a tree */
	size_t max_json;
	uint32_t max_stack_depth;	/* frames in one stack */
	uint32_t max_strings;		/* entries of a string table */
	uint32_t max_string_len;	/* bytes of one string */
	uint64_t max_upload;		/* bytes of one chunked upload */
	/* Errors name offsets only and never quote the input: a spool
	 * file may hold what its dropper could not read (0: a push's
	 * errors may quote the sender's own bytes). */
	int no_quote;
};

void bounds_default(struct limits *);

#endif
