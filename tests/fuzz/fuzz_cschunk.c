/* fuzz_cschunk.c: the callsite chunk decoder (cschunk.c) on a blob read
 * from the store, with the row's first_id, last_id and count taken from
 * the input's first 6 bytes.  What it accepts must hold the chunk's
 * invariants and encode back to a blob that decodes to the same, plain
 * and packed (cschunk_pack, which the input may be too: a first byte 0). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cschunk.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cschunk c = { 0 }, d = { 0 };
	struct error err = { 0 };
	struct buf b = { 0 }, pk = { 0 };
	int64_t first, last, count;
	ptrdiff_t k;
	size_t i;

	if (size < 6)
		return 0;
	first = 1 + (data[0] | data[1] << 8);
	last = first + (data[2] | data[3] << 8);
	count = data[4] | data[5] << 8;
	if (cschunk_decode(&c, data + 6, size - 6, first, last, count,
	    &err) == 0) {
		if (c.n != (size_t)count || c.id[0] != first ||
		    c.id[c.n - 1] != last)
			abort();
		for (i = 0; i < c.n; i++) {
			if ((i > 0 && c.id[i] <= c.id[i - 1]) ||
			    c.parent[i] >= c.id[i] || c.parent[i] < 0 ||
			    c.frame[i] < 1 || c.depth[i] < 0 ||
			    (c.parent[i] == 0) != (c.depth[i] == 0))
				abort();
			if (c.parent[i] >= first && ((k = cschunk_find(&c,
			    c.parent[i])) < 0 || c.depth[k] + 1 != c.depth[i]))
				abort();
		}
		cschunk_encode(&c, 0, c.n, &b);
		if (cschunk_decode(&d, b.p, b.n, first, last, count, &err) !=
		    0 || d.n != c.n ||
		    memcmp(d.id, c.id, c.n * sizeof *c.id) != 0 ||
		    memcmp(d.parent, c.parent, c.n * sizeof *c.parent) != 0 ||
		    memcmp(d.frame, c.frame, c.n * sizeof *c.frame) != 0 ||
		    memcmp(d.depth, c.depth, c.n * sizeof *c.depth) != 0)
			abort();
		cschunk_pack(&pk, b.p, b.n, first);
		if (pk.n > b.n || cschunk_decode(&d, pk.p, pk.n, first, last,
		    count, &err) != 0 || d.n != c.n ||
		    memcmp(d.id, c.id, c.n * sizeof *c.id) != 0 ||
		    memcmp(d.parent, c.parent, c.n * sizeof *c.parent) != 0 ||
		    memcmp(d.frame, c.frame, c.n * sizeof *c.frame) != 0 ||
		    memcmp(d.depth, c.depth, c.n * sizeof *c.depth) != 0)
			abort();
	} else if (err.msg[0] == '\0')
		abort();
	cschunk_free(&c);
	cschunk_free(&d);
	buf_free(&b);
	buf_free(&pk);
	return 0;
}
