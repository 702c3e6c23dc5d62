/* test_jsonw.c: the JSON text writer that /v1/top, /v1/tree and /v1/query
 * answer with.  Every string that can come out of a profile (quotes,
 * backslashes, control characters, multibyte UTF-8, bytes that are not
 * UTF-8: overlong, surrogates, past U+10FFFF, cut short) must come out as
 * JSON that jansson reads back; valid text must read back unchanged and
 * invalid bytes as U+FFFD.  Integers and reals read back as the same
 * numbers, reals as reals. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "alloc.h"
#include "buf.h"
#include "jsonw.h"
#include "nitems.h"
#include "testlib.h"

/* jsonw_strn of n bytes, read back by jansson: the string, or NULL. */
static char *
roundtrip(const char *s, size_t n)
{
	struct buf b = { 0 };
	json_error_t e;
	json_t *j;
	char *out = NULL;

	jsonw_raw(&b, "[");
	jsonw_strn(&b, s, n);
	jsonw_raw(&b, "]");
	if ((j = json_loadb((const char *)b.p, b.n, 0, &e)) != NULL &&
	    json_is_string(json_array_get(j, 0)))
		out = xstrdup(json_string_value(json_array_get(j, 0)));
	else
		fprintf(stderr, "jansson: %s in %.*s\n", e.text, (int)b.n,
		    (const char *)b.p);
	json_decref(j);
	buf_free(&b);
	return out;
}

static void
same(const char *in, const char *want)
{
	char *got = roundtrip(in, strlen(in));

	CHECK(got != NULL && strcmp(got, want) == 0);
	free(got);
}

/* A NUL byte is \u0000: JSON, which jansson reads when allowed to. */
static void
nul(void)
{
	struct buf b = { 0 };
	json_t *j;

	jsonw_strn(&b, "a\0b", 3);
	CHECK(b.n == 10 && memcmp(b.p, "\"a\\u0000b\"", 10) == 0);
	j = json_loadb((const char *)b.p, b.n, JSON_DECODE_ANY |
	    JSON_ALLOW_NUL, NULL);
	CHECK(j != NULL && json_string_length(j) == 3 &&
	    memcmp(json_string_value(j), "a\0b", 3) == 0);
	json_decref(j);
	buf_free(&b);
}

static void
strings(void)
{
	char ctl[33];
	int i;

	same("", "");
	same("main.(*workload).run", "main.(*workload).run");
	same("a\"b\\c/d", "a\"b\\c/d");
	same("tab\tnl\ncr\r", "tab\tnl\ncr\r");
	/* 2, 3 and 4 bytes, and the largest code point. */
	same("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 \xf4\x8f\xbf\xbf",
	    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 \xf4\x8f\xbf\xbf");
	/* Not UTF-8: a lone continuation byte, 0xff, an overlong '/', a
	 * surrogate, past U+10FFFF, and a sequence cut by the end. */
	same("a\x80" "b", "a\xef\xbf\xbd" "b");
	same("\xff", "\xef\xbf\xbd");
	same("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");
	same("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	same("\xf4\x90\x80\x80",
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	same("end\xe2\x82", "end\xef\xbf\xbd\xef\xbf\xbd");

	/* Every control character, and a NUL inside the string. */
	for (i = 0; i < 32; i++)
		ctl[i] = (char)(i + 1 == 32 ? 1 : i + 1);
	ctl[32] = '\0';
	same(ctl, ctl);
	nul();
}

static void
numbers(void)
{
	static const double reals[] = { 0, 0.005, 1, -2.5, 1e300, 1.0 / 3,
	    5e-324 };
	struct buf b = { 0 };
	json_t *j;
	size_t i;

	jsonw_raw(&b, "{");
	jsonw_key(&b, "min");
	jsonw_int(&b, INT64_MIN);
	jsonw_raw(&b, ",");
	jsonw_key(&b, "max");
	jsonw_int(&b, INT64_MAX);
	jsonw_raw(&b, ",");
	jsonw_key(&b, "nan");
	jsonw_real(&b, NAN);
	jsonw_raw(&b, ",");
	jsonw_key(&b, "hex");
	jsonw_hex(&b, "\x00\xab\xff", 3);
	for (i = 0; i < NITEMS(reals); i++) {
		char key[8];

		snprintf(key, sizeof key, "r%zu", i);
		jsonw_raw(&b, ",");
		jsonw_key(&b, key);
		jsonw_real(&b, reals[i]);
	}
	jsonw_raw(&b, "}");
	j = json_loadb((const char *)b.p, b.n, 0, NULL);
	CHECK(j != NULL);
	CHECK(json_integer_value(json_object_get(j, "min")) == INT64_MIN);
	CHECK(json_integer_value(json_object_get(j, "max")) == INT64_MAX);
	CHECK(json_is_null(json_object_get(j, "nan")));
	CHECK(STREQ(json_string_value(json_object_get(j, "hex")), "00abff"));
	for (i = 0; i < NITEMS(reals); i++) {
		char key[8];
		json_t *r;

		snprintf(key, sizeof key, "r%zu", i);
		r = json_object_get(j, key);
		CHECK(json_is_real(r) && json_real_value(r) == reals[i]);
	}
	/* The shortest form: 0.005, not 0.0050000000000000001. */
	CHECK(HAS((const char *)b.p, "\"r1\":0.005,"));
	json_decref(j);
	buf_free(&b);
}

/* A string written in pieces cut by jsonw_utf8_cut (as /v1/query streams
 * a long value) comes out byte for byte as jsonw_strn writes it whole,
 * whatever the bytes and wherever the cuts fall. */
static void
pieces(void)
{
	static const unsigned char alphabet[] = {
		'a', '"', '\\', 0x01, 0x7f, 0xc3, 0xa9, 0xe2, 0x82, 0xac,
		0xf0, 0x9f, 0x98, 0x80, 0x80, 0xbf, 0xc0, 0xed, 0xa0, 0xf4,
		0x90, 0xff,
	};
	uint64_t seed = 11;
	unsigned char in[300];
	struct buf whole = { 0 }, cut = { 0 };
	size_t n, i, off, k, want;
	int round;

	for (round = 0; round < 3000; round++) {
		n = (size_t)(xorshift64(&seed) % sizeof in);
		for (i = 0; i < n; i++)
			in[i] = alphabet[xorshift64(&seed) % sizeof alphabet];
		want = 4 + (size_t)(xorshift64(&seed) % 9);
		whole.n = cut.n = 0;
		jsonw_strn(&whole, in, n);
		buf_add(&cut, "\"", 1);
		for (off = 0; off < n; off += k) {
			k = jsonw_utf8_cut(in + off, n - off, want);
			CHECK(k > 0 && k <= want && k <= n - off);
			CHECK(k == n - off || k + 3 >= want);
			jsonw_esc(&cut, in + off, k);
		}
		buf_add(&cut, "\"", 1);
		CHECK(cut.n == whole.n && memcmp(cut.p, whole.p, cut.n) == 0);
	}
	buf_free(&whole);
	buf_free(&cut);
}

int
main(void)
{
	strings();
	numbers();
	pieces();
	printf("test_jsonw: %u checks\n", checks);
	return 0;
}
