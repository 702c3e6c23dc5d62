/* test_client_termsafe.c: termsafe.c, the one rule for what profctl prints
 * that it did not write: valid UTF-8 as it is, C0 controls, DEL and C1
 * controls as \u escapes, bytes that are not UTF-8 as \x; the same text
 * whether it comes whole or in pieces; a reply's strings and member names
 * made safe in place; the columns safe text takes. */
#include <stdint.h>

#include "clienttest.h"
#include "termcheck.h"

static void
safe(const char *what, const char *in, size_t n, int flags, const char *want)
{
	char	*got = termsafe_mem(in, n, flags, NULL);

	expect_str(what, got, want);
	free(got);
}

/* The text of in written to a termsafe_out cut at every place. */
static void
pieces(const char *what, const char *in, size_t n, int flags)
{
	struct termsafe_out	 o;
	FILE			*f;
	char			*whole, *got;
	size_t			 len, cut, cut2;

	whole = termsafe_mem(in, n, flags, NULL);
	for (cut = 0; cut <= n; cut++) {
		for (cut2 = cut; cut2 <= n; cut2++) {
			f = open_memstream(&got, &len);
			termsafe_out_init(&o, f, flags);
			termsafe_out_write(&o, in, cut);
			termsafe_out_write(&o, in + cut, cut2 - cut);
			termsafe_out_write(&o, in + cut2, n - cut2);
			termsafe_out_end(&o);
			fclose(f);
			expect_str(what, got, whole);
			free(got);
		}
	}
	free(whole);
}

/* Random bytes with a fixed seed (xorshift): what comes out shows only. */
static void
random_bytes(void)
{
	uint64_t	 x = 0x9e3779b97f4a7c15ULL;
	char		 in[64], *out;
	size_t		 i, k, n, len;
	FILE		*f;
	struct termsafe_out o;
	int		 flags;

	for (i = 0; i < 20000; i++) {
		n = (size_t)(x % sizeof in);
		for (k = 0; k < n; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* Mostly the bytes that matter. */
			in[k] = (char)(x % 3 == 0 ? 0x80 + x % 0x80 :
			    x % 3 == 1 ? x % 0x20 : 0xc2 + x % 0x33);
		}
		x ^= x << 13;
		flags = (int)(x % 4);
		out = termsafe_mem(in, n, flags, &len);
		if (!termcheck_shows_only((const unsigned char *)out, len,
		    TERMSAFE_TEXT) || strlen(out) != len) {
			fprintf(stderr, "FAIL random %zu: not safe\n", i);
			failures++;
		}
		if (!(flags & TERMSAFE_NL))
			assert(memchr(out, '\n', len) == NULL);
		if (!(flags & TERMSAFE_TAB))
			assert(memchr(out, '\t', len) == NULL);
		free(out);
		/* In two pieces: the same. */
		f = open_memstream(&out, &len);
		termsafe_out_init(&o, f, flags);
		termsafe_out_write(&o, in, n / 2);
		termsafe_out_write(&o, in + n / 2, n - n / 2);
		termsafe_out_end(&o);
		fclose(f);
		assert(termcheck_shows_only((const unsigned char *)out, len,
		    TERMSAFE_TEXT));
		free(out);
	}
}

static void
json(void)
{
	json_t	*j;
	char	*s;

	j = json_pack("{s:s, s:[s, i, {s:s}], s:s%}", "fn",
	    "main.\x1b[2J\xc2\x9b", "a", "ok", 3, "k\xc2\x9dv", "\x07",
	    "nul", "a\0b", (size_t)3);
	assert(j != NULL);
	json_object_set_new(j, "z\rkey", json_string("v"));
	json_object_set_new(j, "last", json_string("日本語"));
	termsafe_json(j);
	s = json_dumps(j, JSON_COMPACT);
	/* Member names too, in their order. */
	expect_str("json", s, "{\"fn\":\"main.\\\\u001b[2J\\\\u009b\","
	    "\"a\":[\"ok\",3,{\"k\\\\u009dv\":\"\\\\u0007\"}],"
	    "\"nul\":\"a\\\\u0000b\",\"z\\\\rkey\":\"v\",\"last\":\"日本語\"}");
	free(s);
	json_decref(j);
}

int
main(void)
{
	static const char	 all[] = "a\x1b[2J\x1b]52;c;aGk=\x07\r\x7f"
	    "\xc2\x9b\xc2\x9d\xff\xc0\x80\xe0\x80\x80\xed\xa0\x80"
	    "\xf4\x90\x80\x80 関数\xf0\x9f\x94\xa5\tx\ny\xe3\x81";
	char	*s;

	/* Valid UTF-8, and nothing that acts, as it is. */
	safe("ascii", "main.f (x.go:12)", 16, 0, "main.f (x.go:12)");
	safe("japanese", "関数名", strlen("関数名"), 0, "関数名");
	safe("emoji", "🔥", strlen("🔥"), 0, "🔥");
	safe("latin1 letter", "\xc2\xa0\xc3\xa9", 4, 0, "\xc2\xa0\xc3\xa9");
	safe("max", "\xf4\x8f\xbf\xbf", 4, 0, "\xf4\x8f\xbf\xbf");

	/* Controls as escapes: C0 (named for tab, newline, CR), DEL, C1. */
	safe("esc", "\x1b[2J", 4, 0, "\\u001b[2J");
	safe("osc 52", "\x1b]52;c;aGk=\x07", 12, 0,
	    "\\u001b]52;c;aGk=\\u0007");
	safe("cr", "a\rb", 3, 0, "a\\rb");
	safe("nul", "a\0b", 3, 0, "a\\u0000b");
	safe("del", "\x7f", 1, 0, "\\u007f");
	safe("c1 csi", "\xc2\x9b" "2J", 4, 0, "\\u009b2J");
	safe("c1 osc", "\xc2\x9d", 2, 0, "\\u009d");
	safe("c1 first", "\xc2\x80", 2, 0, "\\u0080");
	safe("field", "a\tb\nc", 5, 0, "a\\tb\\nc");
	safe("text", "a\tb\nc\r", 6, TERMSAFE_TEXT, "a\tb\nc\\r");
	safe("tab only", "a\tb\n", 4, TERMSAFE_TAB, "a\tb\\n");

	/* Not UTF-8: each byte that begins nothing shown by its value. */
	safe("lone ff", "\xff", 1, 0, "\\xff");
	safe("overlong /", "\xc0\xaf", 2, 0, "\\xc0\\xaf");
	safe("overlong 3", "\xe0\x80\x80", 3, 0, "\\xe0\\x80\\x80");
	safe("surrogate", "\xed\xa0\x80", 3, 0, "\\xed\\xa0\\x80");
	safe("past max", "\xf4\x90\x80\x80", 4, 0,
	    "\\xf4\\x90\\x80\\x80");
	safe("cut short", "ok\xe3\x81", 4, 0, "ok\\xe3\\x81");
	safe("lone continuation", "\x80x", 2, 0, "\\x80x");
	safe("c2 then ascii", "\xc2" "A", 2, 0, "\\xc2A");

	/* termsafe: NULL is "", safe text a copy. */
	s = termsafe(NULL, 0);
	expect_str("null", s, "");
	free(s);
	s = termsafe("plain", 0);
	expect_str("copy", s, "plain");
	free(s);

	/* In pieces, cut anywhere: as whole. */
	pieces("pieces field", all, sizeof all - 1, 0);
	pieces("pieces text", all, sizeof all - 1, TERMSAFE_TEXT);
	/* A 4-byte sequence cut short, then a 2-byte one whole: the second
	 * is not lost with the first (fuzz_client_termsafe's find). */
	pieces("cut then whole", "\xf0\xa3\xb7\xd4\xa3x\xe3\x81\xf0", 9, 0);
	random_bytes();
	json();

	/* Columns: wide CJK and emoji two, combining marks none. */
	assert(termsafe_width("abc") == 3);
	assert(termsafe_width("関数") == 4);
	assert(termsafe_width("🔥x") == 3);
	assert(termsafe_width("e\xcc\x81") == 1);
	assert(termsafe_width("\\u001b") == 6);
	assert(termsafe_fit("関数名", 5) == strlen("関数"));
	assert(termsafe_fit("関数名", 6) == strlen("関数名"));
	assert(termsafe_fit("abc", 0) == 0);
	return failures != 0;
}
