/* sha256.h: SHA-256 (FIPS 180-4), used for the content hash of a pushed
 * blob so the same bytes are stored once per scope. */
#ifndef PROFD_SHA256_H
#define PROFD_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t block[64];
	size_t nblock;
};

void sha256_init(struct sha256 *);
void sha256_update(struct sha256 *, const void *, size_t);
void sha256_final(struct sha256 *, uint8_t out[32]);
/* Use the processor's SHA instructions if it has them (the default);
 * returns 1 if they are used.  For tests of both ways. */
int sha256_hw(int use);

#endif
