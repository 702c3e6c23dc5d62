/* stackhash.c: a stack's identity, hashed from its frames (SHA-256, the
 * first 8 bytes): what was shipped to ClickHouse as stack_hash before
 * this file held it, byte for byte, so stacks keep their rows. */
#include <string.h>

#include "csindex.h"
#include "model.h"
#include "sha256.h"
#include "stackhash.h"

uint64_t
stack_hash(const struct csindex *idx, int64_t leaf)
{
	struct sha256 h;
	const char *name, *file, *mapping;
	int64_t c, line, start;
	uint8_t d[32];
	uint64_t k = 0;
	int i;

	sha256_init(&h);
	for (c = leaf; c > 0; c = csindex_parent(idx, c)) {
		name = csindex_name_str(idx, csindex_name(idx, c));
		csindex_source(idx, c, &file, &start, &mapping);
		line = csindex_line(idx, c);
		sha256_update(&h, name, strlen(name) + 1);
		sha256_update(&h, file, strlen(file) + 1);
		sha256_update(&h, &line, sizeof line);
		/* What stack_frames holds is the stack's too: two stacks
		 * that differ only there (an inlined frame, a program built
		 * at another path) were one row, read with one's flags and
		 * mappings for both. */
		sha256_update(&h, &start, sizeof start);
		sha256_update(&h, mapping, strlen(mapping) + 1);
		sha256_update(&h, csindex_flags(idx, c) & FRAME_INLINED ?
		    "1" : "0", 1);
	}
	sha256_final(&h, d);
	for (i = 0; i < 8; i++)
		k = k << 8 | d[i];
	return k;
}
