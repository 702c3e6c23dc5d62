/* test_sha256.c: SHA-256 against the FIPS 180-4 examples and a long
 * message, in one call and split at every offset, with the processor's
 * SHA instructions and without; both ways agree on random lengths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "sha256.h"
#include "testlib.h"

static void
hex(const uint8_t h[32], char out[65])
{
	int i;

	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
}

static void
check(const void *data, size_t n, const char *want)
{
	struct sha256 s;
	uint8_t h[32];
	char got[65];
	size_t cut;

	sha256_init(&s);
	sha256_update(&s, data, n);
	sha256_final(&s, h);
	hex(h, got);
	CHECK(strcmp(got, want) == 0);
	for (cut = 0; cut <= n && cut < 200; cut++) {
		sha256_init(&s);
		sha256_update(&s, data, cut);
		sha256_update(&s, (const uint8_t *)data + cut, n - cut);
		sha256_final(&s, h);
		hex(h, got);
		CHECK(strcmp(got, want) == 0);
	}
}

static void
vectors(void)
{
	static const char two[] =
	    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char *million = xmalloc(1000000);

	check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b"
	    "7852b855");
	check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff"
	    "61f20015ad");
	check(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2"
	    "167f6ecedd419db06c1");
	memset(million, 'a', 1000000);
	check(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a4972"
	    "00e046d39ccc7112cd0");
	free(million);
}

int
main(void)
{
	uint8_t *buf = xmalloc(5000), a[32], b[32];
	struct sha256 s;
	size_t i, n;
	int hw = sha256_hw(1);

	vectors();
	CHECK(sha256_hw(0) == 0);
	vectors();
	for (i = 0; i < 5000; i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	for (n = 0; n < 5000; n += 97) {
		sha256_hw(1);
		sha256_init(&s);
		sha256_update(&s, buf, n);
		sha256_final(&s, a);
		sha256_hw(0);
		sha256_init(&s);
		sha256_update(&s, buf, n);
		sha256_final(&s, b);
		CHECK(memcmp(a, b, 32) == 0);
	}
	free(buf);
	printf("test_sha256: %u checks (SHA instructions %s)\n", checks,
	    hw ? "used" : "not available");
	return 0;
}
