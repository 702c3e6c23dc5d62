/* test_rx.c: the RE2 shim: Go's syntax, unanchored and whole matches,
 * lengths not NULs, and the refusals (syntax, size, memory budget). */
#include "rx.h"
#include "testlib.h"

static struct rx *
compile(const char *pattern, int whole)
{
	char why[256];
	struct rx *r;

	r = rx_new(pattern, strlen(pattern), whole, why, sizeof why);
	if (r == NULL)
		fprintf(stderr, "%s: %s\n", pattern, why);
	CHECK(r != NULL);
	return r;
}

/* Refused, with why containing want. */
static void
refused(const char *pattern, size_t n, const char *want)
{
	char why[256] = "";

	CHECK(rx_new(pattern, n, 0, why, sizeof why) == NULL);
	if (!HAS(why, want))
		fprintf(stderr, "%.60s: \"%s\" lacks \"%s\"\n", pattern, why,
		    want);
	CHECK(HAS(why, want));
}

static int
match(const struct rx *r, const char *s)
{
	return rx_match(r, s, strlen(s));
}

static void
test_go_syntax(void)
{
	struct rx *r;

	/* Unanchored, as Go's MatchString. */
	r = compile("main\\.fib", 0);
	CHECK(match(r, "main.fib"));
	CHECK(match(r, "x/main.fibonacci"));
	CHECK(!match(r, "main_fib"));
	rx_free(r);
	/* What POSIX extended regcomp refuses or reads otherwise. */
	r = compile("(?i)^RUNTIME\\.", 0);
	CHECK(match(r, "runtime.mallocgc"));
	CHECK(!match(r, "x.runtime.mallocgc"));
	rx_free(r);
	r = compile("\\pL\\d+$", 0);
	CHECK(match(r, "x12"));
	CHECK(match(r, "\xc3\xa9" "7"));	/* é7: runes, not bytes */
	CHECK(!match(r, "_12"));
	rx_free(r);
	r = compile("a\\Qb.c\\E", 0);
	CHECK(match(r, "ab.c"));
	CHECK(!match(r, "abxc"));
	rx_free(r);
	/* Leftmost-first alternation does not change whether it matches. */
	r = compile("sync\\.\\(\\*Mutex\\)\\.(Lock|Unlock)", 0);
	CHECK(match(r, "sync.(*Mutex).Unlock"));
	rx_free(r);
}

static void
test_whole_and_length(void)
{
	struct rx *r;
	const char s[] = "abc\0abd";

	/* whole: ^(re)$, so the alternation is inside the group. */
	r = compile("b|abc", 1);
	CHECK(match(r, "abc"));
	CHECK(!match(r, "ab"));
	CHECK(!match(r, "xb"));
	rx_free(r);
	/* The length bounds the subject: a NUL is a byte like another. */
	r = compile("abd", 0);
	CHECK(rx_match(r, s, sizeof s - 1));
	CHECK(!rx_match(r, s, 3));
	rx_free(r);
	r = compile("c\\x00a", 0);
	CHECK(rx_match(r, s, sizeof s - 1));
	rx_free(r);
}

#define A1 "((a{1,100}){1,100}){1,20}"
#define A2 "((((((((((a{1,100}){1,100}){1,100}){1,100}){1,100})))))){1,100}"

static void
test_refused(void)
{
	static char big[RX_MAX_PATTERN + 2];

	refused("(unclosed", 9, "missing )");
	refused("(a)\\1", 5, "invalid escape sequence");
	refused("a**", 3, "bad repetition operator");
	/* The two: nested counts past 1000, refused by the parser
	 * at once (glibc stalled 1.6 s on the first, grew to 24 GB on the
	 * second). */
	refused(A1, strlen(A1), "invalid repetition size");
	refused(A2, strlen(A2), "invalid repetition size");
	/* Within the counts, but a program past the budget. */
	refused("\\pL{500}", 8, "too large to compile within 2 MiB");
	/* The size bound is on the pattern's bytes. */
	memset(big, 'a', sizeof big - 1);
	refused(big, RX_MAX_PATTERN + 1, "longer than 4096 bytes");
	rx_free(compile(big + 1, 0));
	/* whole adds ^( )$ after the size check, not before. */
	rx_free(compile(big + 1, 1));
	/* No why: still refused, nothing written. */
	CHECK(rx_new("(", 1, 0, NULL, 0) == NULL);
	rx_free(NULL);
}

int
main(void)
{
	test_go_syntax();
	test_whole_and_length();
	test_refused();
	printf("test_rx: %u checks passed\n", checks);
	return 0;
}
