/* b64.c: base64 decoding (b64.h). */
#include "b64.h"

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

int
b64_decode(const char *s, size_t n, uint8_t *out, size_t *outlen,
    size_t *bad)
{
	size_t i, k = 0, pad = 0;
	uint32_t acc = 0;
	int v, bits = 0;

	while (n > 0 && s[n - 1] == '=' && pad < 2)
		n--, pad++;
	for (i = 0; i < n; i++) {
		if ((v = b64_value((unsigned char)s[i])) < 0) {
			*bad = i;
			return -1;
		}
		acc = acc << 6 | (uint32_t)v;
		if ((bits += 6) >= 8) {
			bits -= 8;
			out[k++] = (uint8_t)(acc >> bits);
		}
	}
	/* A single leftover character (6 bits) cannot end base64. */
	if (n % 4 == 1) {
		*bad = n;
		return -1;
	}
	*outlen = k;
	return 0;
}
