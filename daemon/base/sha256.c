/* sha256.c: SHA-256 (FIPS 180-4), streaming.  On x86-64 processors with
 * the SHA extensions the blocks go through them (about ten times faster:
 * an import hashes every byte it reads). */
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#define SHA256_X86	1
#endif

#include "sha256.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n)	(((x) >> (n)) | ((x) << (32 - (n))))

static void
sha256_block_c(uint32_t *hs, const uint8_t *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
		    (w[i - 15] >> 3)) + w[i - 7] + (ROR(w[i - 2], 17) ^
		    ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = hs[0]; b = hs[1]; c = hs[2]; d = hs[3];
	e = hs[4]; f = hs[5]; g = hs[6]; h = hs[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		    ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		    ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	hs[0] += a; hs[1] += b; hs[2] += c; hs[3] += d;
	hs[4] += e; hs[5] += f; hs[6] += g; hs[7] += h;
}

#ifdef SHA256_X86
/* The state is kept as two vectors, ABEF and CDGH (A in the top lane), as
 * SHA256RNDS2 wants them; each call does two rounds and the two vectors
 * swap roles.  W[16..63] come four at a time from SHA256MSG1/MSG2. */
__attribute__((target("sha,sse4.1,ssse3")))
static void
sha256_blocks_ni(uint32_t *hs, const uint8_t *p, size_t n)
{
	const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL,
	    0x0405060700010203ULL);
	__m128i s0, s1, t, save0, save1, wk, m[4];
	int i;

	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&hs[0]), 0xb1);
	s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&hs[4]), 0x1b);
	s0 = _mm_alignr_epi8(t, s1, 8);			/* ABEF */
	s1 = _mm_blend_epi16(s1, t, 0xf0);		/* CDGH */
	for (; n > 0; n--, p += 64) {
		save0 = s0;
		save1 = s1;
		for (i = 0; i < 4; i++)
			m[i] = _mm_shuffle_epi8(_mm_loadu_si128(
			    (const __m128i *)(p + 16 * i)), swap);
#pragma GCC unroll 16
		for (i = 0; i < 16; i++) {
			if (i >= 4) {
				/* W[4i..4i+3] from W[4i-16..4i-1]. */
				t = _mm_sha256msg1_epu32(m[i & 3],
				    m[(i + 1) & 3]);
				t = _mm_add_epi32(t, _mm_alignr_epi8(
				    m[(i + 3) & 3], m[(i + 2) & 3], 4));
				m[i & 3] = _mm_sha256msg2_epu32(t,
				    m[(i + 3) & 3]);
			}
			wk = _mm_add_epi32(m[i & 3], _mm_loadu_si128(
			    (const __m128i *)&K[4 * i]));
			s1 = _mm_sha256rnds2_epu32(s1, s0, wk);
			wk = _mm_shuffle_epi32(wk, 0x0e);
			s0 = _mm_sha256rnds2_epu32(s0, s1, wk);
		}
		s0 = _mm_add_epi32(s0, save0);
		s1 = _mm_add_epi32(s1, save1);
	}
	t = _mm_shuffle_epi32(s0, 0x1b);		/* FEBA */
	s1 = _mm_shuffle_epi32(s1, 0xb1);		/* DCHG */
	_mm_storeu_si128((__m128i *)&hs[0], _mm_blend_epi16(t, s1, 0xf0));
	_mm_storeu_si128((__m128i *)&hs[4], _mm_alignr_epi8(s1, t, 8));
}

/* -1 unknown, 0 no, 1 the processor has the SHA extensions. */
static int sha256_ni_have = -1;
static int sha256_ni_off;

static int
sha256_ni(void)
{
	unsigned a, b, c, d;

	if (sha256_ni_have < 0)
		sha256_ni_have = __get_cpuid_count(7, 0, &a, &b, &c, &d) &&
		    (b & (1u << 29)) != 0 && __get_cpuid(1, &a, &b, &c, &d) &&
		    (c & (1u << 19)) != 0 && (c & (1u << 9)) != 0;
	return sha256_ni_have && !sha256_ni_off;
}
#endif

static void
sha256_blocks(struct sha256 *s, const uint8_t *p, size_t n)
{
#ifdef SHA256_X86
	if (sha256_ni()) {
		sha256_blocks_ni(s->h, p, n);
		return;
	}
#endif
	for (; n > 0; n--, p += 64)
		sha256_block_c(s->h, p);
}

int
sha256_hw(int use)
{
#ifdef SHA256_X86
	sha256_ni_off = !use;
	return sha256_ni();
#else
	(void)use;
	return 0;
#endif
}

void
sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, iv, sizeof iv);
	s->len = 0;
	s->nblock = 0;
}

void
sha256_update(struct sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	size_t take;

	s->len += n;
	if (s->nblock > 0) {
		take = 64 - s->nblock < n ? 64 - s->nblock : n;
		memcpy(s->block + s->nblock, p, take);
		s->nblock += take;
		p += take;
		n -= take;
		if (s->nblock < 64)
			return;
		sha256_blocks(s, s->block, 1);
		s->nblock = 0;
	}
	sha256_blocks(s, p, n / 64);
	p += n / 64 * 64;
	n %= 64;
	memcpy(s->block, p, n);
	s->nblock = n;
}

void
sha256_final(struct sha256 *s, uint8_t out[32])
{
	uint64_t bits = s->len * 8;
	uint8_t pad[72] = { 0x80 };
	size_t padn = (s->nblock < 56 ? 56 : 120) - s->nblock;
	int i;

	for (i = 0; i < 8; i++)
		pad[padn + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, pad, padn + 8);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}
