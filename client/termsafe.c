/* termsafe.c: the one rule for every string profctl prints that it did
 * not write itself (profd's replies, a profile's names and labels, a
 * file's name, a source file's lines): nothing in it may act on the
 * terminal that shows it.  A pprof pushed with a writer's token must not
 * clear the reader's screen, set the clipboard (OSC 52) or overwrite a
 * line with a CR.
 *
 * Valid UTF-8 passes unchanged.  What a terminal would obey is shown as
 * an escape instead: the C0 controls and DEL as \u00XX (tab, newline and
 * CR as \t, \n, \r), the C1 controls U+0080..U+009F (CSI, OSC, ... when
 * they come as UTF-8) as \u0080..\u009f, and a byte that is not part of
 * valid UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF) as \xHH.  A field on a line of a table keeps no newline or
 * tab (a function name must not break its row); text of many lines keeps
 * both (TERMSAFE_TEXT).  The escapes of characters are JSON's, so the
 * text of --json goes through the same rule and stays valid JSON of the
 * same value: jansson writes valid UTF-8 and escapes C0 itself, and
 * \u009b says what a raw U+009B said.  Described in profctl(1). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "profctl.h"

/* The longest escape one byte of input can become: "\u001b" for a byte,
 * "\u009b" for two. */
#define TERMSAFE_GROW	6

typedef void	(*termsafe_put_fn)(void *, const char *, size_t);

/*
 * The UTF-8 sequence at p (n > 0 bytes there): its length, with its code
 * point in *cp; 0 if p does not start one; -1 if p holds the start of one
 * that n bytes cut short.
 */
static int
termsafe_utf8(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned char	 lo = 0x80, hi = 0xbf;
	size_t		 len, i;
	uint32_t	 c;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		c = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		c = p[0] & 0x0f;
		if (p[0] == 0xe0)
			lo = 0xa0;	/* overlong below */
		else if (p[0] == 0xed)
			hi = 0x9f;	/* surrogates above */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		c = p[0] & 0x07;
		if (p[0] == 0xf0)
			lo = 0x90;
		else if (p[0] == 0xf4)
			hi = 0x8f;	/* past U+10FFFF above */
	} else
		return 0;
	for (i = 1; i < len; i++) {
		if (i == n)
			return -1;
		if (p[i] < lo || p[i] > hi)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = c;
	return (int)len;
}

/* Would a terminal act on the character rather than show it? */
static int
termsafe_acts(uint32_t cp, int flags)
{
	if (cp == '\n')
		return !(flags & TERMSAFE_NL);
	if (cp == '\t')
		return !(flags & TERMSAFE_TAB);
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

static void
termsafe_escape(uint32_t cp, char *buf, size_t len)
{
	switch (cp) {
	case '\t':
		snprintf(buf, len, "\\t");
		break;
	case '\n':
		snprintf(buf, len, "\\n");
		break;
	case '\r':
		snprintf(buf, len, "\\r");
		break;
	default:
		snprintf(buf, len, "\\u%04x", (unsigned)cp);
	}
}

/*
 * The safe text of s[0..n) handed to put, runs of it at a time. more: n
 * is not the end, and a UTF-8 sequence cut short at the end is left for
 * the next call. Returns the bytes taken.
 */
static size_t
termsafe_run(const char *s, size_t n, int flags, int more,
    termsafe_put_fn put, void *arg)
{
	const unsigned char	*p = (const unsigned char *)s, *end = p + n;
	const unsigned char	*run = p;
	char			 esc[8];
	uint32_t		 cp = 0;
	int			 len;

	while (p < end) {
		len = termsafe_utf8(p, (size_t)(end - p), &cp);
		if (len == -1 && more)
			break;
		if (len > 0 && !termsafe_acts(cp, flags)) {
			p += len;
			continue;
		}
		if (p > run)
			put(arg, (const char *)run, (size_t)(p - run));
		if (len > 0)
			termsafe_escape(cp, esc, sizeof esc);
		else {
			snprintf(esc, sizeof esc, "\\x%02x", *p);
			len = 1;
		}
		put(arg, esc, strlen(esc));
		p += len;
		run = p;
	}
	if (p > run)
		put(arg, (const char *)run, (size_t)(p - run));
	return (size_t)(p - (const unsigned char *)s);
}

/* Is s[0..n) printed as it is? */
static int
termsafe_is_safe(const char *s, size_t n, int flags)
{
	const unsigned char	*p = (const unsigned char *)s, *end = p + n;
	uint32_t		 cp = 0;
	int			 len;

	while (p < end) {
		/* The common case, plain ASCII, without the decoder. */
		if (*p >= 0x20 && *p < 0x7f) {
			p++;
			continue;
		}
		len = termsafe_utf8(p, (size_t)(end - p), &cp);
		if (len <= 0 || termsafe_acts(cp, flags))
			return 0;
		p += len;
	}
	return 1;
}

struct termsafe_mem {
	char	*p;
	size_t	 n;
};

static void
termsafe_mem_put(void *arg, const char *p, size_t n)
{
	struct termsafe_mem	*m = arg;

	memcpy(m->p + m->n, p, n);
	m->n += n;
}

/* The safe text of s[0..n) (NUL bytes in it included), NUL-terminated;
 * *outlen (if not NULL) its length. Freed by the caller. */
char *
termsafe_mem(const char *s, size_t n, int flags, size_t *outlen)
{
	struct termsafe_mem	 m;

	m.p = xreallocarray(NULL, n + 1, TERMSAFE_GROW);
	m.n = 0;
	termsafe_run(s, n, flags, 0, termsafe_mem_put, &m);
	m.p[m.n] = '\0';
	if (outlen != NULL)
		*outlen = m.n;
	return m.p;
}

/* The safe text of the string s (NULL: ""), freed by the caller. */
char *
termsafe(const char *s, int flags)
{
	if (s == NULL)
		return xstrdup("");
	if (termsafe_is_safe(s, strlen(s), flags))
		return xstrdup(s);
	return termsafe_mem(s, strlen(s), flags, NULL);
}

static void
termsafe_file_put(void *arg, const char *p, size_t n)
{
	fwrite(p, 1, n, arg);
}

/* s[0..n), whole (what ends it cut short is shown escaped), to f. */
void
termsafe_write(FILE *f, const char *s, size_t n, int flags)
{
	termsafe_run(s, n, flags, 0, termsafe_file_put, f);
}

/* A line formatted as printf does, shown safe as one line (a newline in
 * a part of it escaped), then its newline: a message whose parts come
 * from anywhere (a file's name, profd's words). */
void
termsafe_vline(FILE *f, const char *fmt, va_list ap)
{
	char	*s;
	int	 n;

	if ((n = vasprintf(&s, fmt, ap)) < 0)
		abort();	/* out of memory, as xasprintf would */
	termsafe_write(f, s, (size_t)n, 0);
	fputc('\n', f);
	free(s);
}

void
termsafe_line(FILE *f, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	termsafe_vline(f, fmt, ap);
	va_end(ap);
}

/*
 * Text that comes in pieces (a reply as it streams in): a UTF-8 sequence
 * split between two pieces is held until the rest comes, so it is passed
 * on whole, not shown as bytes.
 */
void
termsafe_out_init(struct termsafe_out *o, FILE *f, int flags)
{
	memset(o, 0, sizeof *o);
	o->f = f;
	o->flags = flags;
}

void
termsafe_out_write(struct termsafe_out *o, const char *p, size_t n)
{
	uint32_t	 cp;
	size_t		 taken;
	int		 len;

	/* A sequence held from before: completed a byte at a time. One
	 * that turns out not to be is one byte shown, and the next may
	 * begin one (held, or in p). */
	while (o->nheld > 0) {
		len = termsafe_utf8((const unsigned char *)o->held,
		    o->nheld, &cp);
		if (len == -1) {
			if (n == 0)
				return;
			o->held[o->nheld++] = *p++;
			n--;
			continue;
		}
		if (len == 0)
			len = 1;
		termsafe_run(o->held, (size_t)len, o->flags, 0,
		    termsafe_file_put, o->f);
		o->nheld -= (size_t)len;
		memmove(o->held, o->held + len, o->nheld);
	}
	if (n == 0)
		return;
	taken = termsafe_run(p, n, o->flags, 1, termsafe_file_put, o->f);
	/* At most 3 bytes: the start of a 4-byte sequence. */
	memcpy(o->held, p + taken, n - taken);
	o->nheld = n - taken;
}

/* The text ended: what is held is shown as the bytes it is. */
void
termsafe_out_end(struct termsafe_out *o)
{
	if (o->nheld > 0)
		termsafe_run(o->held, o->nheld, o->flags, 0,
		    termsafe_file_put, o->f);
	o->nheld = 0;
}

/* Every string and member name of a reply made safe, in place, as fields
 * (no newlines, no tabs): what the text views print of it. */
void
termsafe_json(json_t *v)
{
	const char	*key;
	json_t		*m, *copy;
	char		*s;
	size_t		 i, n;

	switch (json_typeof(v)) {
	case JSON_STRING:
		n = json_string_length(v);
		if (termsafe_is_safe(json_string_value(v), n, 0))
			return;
		s = termsafe_mem(json_string_value(v), n, 0, &n);
		json_string_setn(v, s, n);
		free(s);
		return;
	case JSON_ARRAY:
		json_array_foreach(v, i, m)
			termsafe_json(m);
		return;
	case JSON_OBJECT:
		json_object_foreach(v, key, m)
			termsafe_json(m);
		json_object_foreach(v, key, m) {
			if (!termsafe_is_safe(key, strlen(key), 0))
				break;
		}
		if (key == NULL)
			return;
		/* A name to change: the members set again, in their
		 * order (a label's k=v are printed in it). */
		copy = json_copy(v);
		json_object_clear(v);
		json_object_foreach(copy, key, m) {
			s = termsafe(key, 0);
			json_object_set(v, s, m);
			free(s);
		}
		json_decref(copy);
		return;
	default:
		return;
	}
}

/* Characters a terminal draws two columns wide (East Asian Wide and
 * Fullwidth, emoji) and none wide (combining marks, zero-width spaces,
 * variation selectors): the common ranges, as Markus Kuhn's wcwidth
 * counts them, so a table of Japanese names stays aligned. */
static const uint32_t termsafe_wide[][2] = {
	{ 0x1100, 0x115f }, { 0x231a, 0x231b }, { 0x2329, 0x232a },
	{ 0x23e9, 0x23ec }, { 0x25fd, 0x25fe }, { 0x2614, 0x2615 },
	{ 0x2648, 0x2653 }, { 0x26a1, 0x26a1 }, { 0x26aa, 0x26ab },
	{ 0x26bd, 0x26be }, { 0x26c4, 0x26c5 }, { 0x26ce, 0x26ce },
	{ 0x26d4, 0x26d4 }, { 0x26ea, 0x26ea }, { 0x26f2, 0x26f5 },
	{ 0x26fa, 0x26fa }, { 0x26fd, 0x26fd }, { 0x2705, 0x2705 },
	{ 0x270a, 0x270b }, { 0x2728, 0x2728 }, { 0x274c, 0x274c },
	{ 0x2753, 0x2755 }, { 0x2757, 0x2757 }, { 0x2795, 0x2797 },
	{ 0x27b0, 0x27b0 }, { 0x27bf, 0x27bf }, { 0x2b1b, 0x2b1c },
	{ 0x2b50, 0x2b50 }, { 0x2b55, 0x2b55 }, { 0x2e80, 0x303e },
	{ 0x3041, 0x33ff }, { 0x3400, 0x4dbf }, { 0x4e00, 0x9fff },
	{ 0xa000, 0xa4cf }, { 0xa960, 0xa97f }, { 0xac00, 0xd7a3 },
	{ 0xf900, 0xfaff }, { 0xfe10, 0xfe19 }, { 0xfe30, 0xfe6f },
	{ 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x16fe0, 0x16fe4 },
	{ 0x17000, 0x18cff }, { 0x1b000, 0x1b2ff }, { 0x1f004, 0x1f004 },
	{ 0x1f0cf, 0x1f0cf }, { 0x1f18e, 0x1f18e }, { 0x1f191, 0x1f19a },
	{ 0x1f200, 0x1f2ff }, { 0x1f300, 0x1f64f }, { 0x1f680, 0x1f6ff },
	{ 0x1f7e0, 0x1f7eb }, { 0x1f90c, 0x1f9ff }, { 0x1fa70, 0x1faff },
	{ 0x20000, 0x2fffd }, { 0x30000, 0x3fffd }
};
static const uint32_t termsafe_zero[][2] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
	{ 0x0610, 0x061a }, { 0x064b, 0x065f }, { 0x0e31, 0x0e31 },
	{ 0x0e34, 0x0e3a }, { 0x0e47, 0x0e4e }, { 0x1ab0, 0x1aff },
	{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x2028, 0x202e },
	{ 0x2060, 0x2064 }, { 0x20d0, 0x20ff }, { 0x3099, 0x309a },
	{ 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff },
	{ 0xe0100, 0xe01ef }
};

static int
termsafe_in(uint32_t cp, const uint32_t (*t)[2], size_t n)
{
	size_t	 lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cp < t[mid][0])
			hi = mid;
		else if (cp > t[mid][1])
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/* The columns the character at s takes; *len its bytes. */
static size_t
termsafe_cols(const char *s, size_t n, size_t *len)
{
	uint32_t	 cp = 0;
	int		 l;

	if ((l = termsafe_utf8((const unsigned char *)s, n, &cp)) <= 0) {
		*len = 1;	/* not safe text: a byte, shown as one */
		return 1;
	}
	*len = (size_t)l;
	if (termsafe_in(cp, termsafe_zero, sizeof termsafe_zero /
	    sizeof termsafe_zero[0]))
		return 0;
	if (termsafe_in(cp, termsafe_wide, sizeof termsafe_wide /
	    sizeof termsafe_wide[0]))
		return 2;
	return 1;
}

/* The columns safe text takes on a terminal: what a table's column is
 * padded by, not its bytes. */
size_t
termsafe_width(const char *s)
{
	size_t	 n = strlen(s), w = 0, len;

	while (n > 0) {
		w += termsafe_cols(s, n, &len);
		s += len;
		n -= len;
	}
	return w;
}

/* The bytes of the longest start of safe text s that takes at most cols
 * columns, never half a character. */
size_t
termsafe_fit(const char *s, size_t cols)
{
	size_t	 n = strlen(s), at = 0, w = 0, c, len;

	while (at < n) {
		c = termsafe_cols(s + at, n - at, &len);
		if (w + c > cols)
			break;
		w += c;
		at += len;
	}
	return at;
}

/* s printed in a column width wide, padded with blanks on the left
 * (right) or the right. */
void
termsafe_pad(FILE *f, const char *s, size_t width, int right)
{
	size_t	 w = termsafe_width(s);

	if (right)
		for (; w < width; w++)
			fputc(' ', f);
	fputs(s, f);
	if (!right)
		for (; w < width; w++)
			fputc(' ', f);
}
