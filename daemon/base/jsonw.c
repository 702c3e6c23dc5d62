/* jsonw.c: JSON text into a buf (see jsonw.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsonw.h"

void
jsonw_raw(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if none. */
static size_t
utf8_len(const unsigned char *p, size_t n)
{
	uint32_t c;
	size_t len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

/* Runs of characters that need no escape are copied whole. */
void
jsonw_esc(struct buf *b, const void *v, size_t n)
{
	const unsigned char *p = v, *end = p + n, *run;
	char esc[8];
	size_t len;

	while (p < end) {
		for (run = p; p < end && *p >= 0x20 && *p < 0x80 &&
		    *p != '"' && *p != '\\'; p++)
			;
		if (p > run)
			buf_add(b, run, (size_t)(p - run));
		if (p == end)
			break;
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			buf_add(b, esc, 2);
			p++;
		} else if (*p < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", *p);
			buf_add(b, esc, 6);
			p++;
		} else if ((len = utf8_len(p, (size_t)(end - p))) == 0) {
			buf_add(b, "\xef\xbf\xbd", 3);
			p++;
		} else {
			buf_add(b, p, len);
			p += len;
		}
	}
}

void
jsonw_strn(struct buf *b, const void *v, size_t n)
{
	buf_add(b, "\"", 1);
	jsonw_esc(b, v, n);
	buf_add(b, "\"", 1);
}

/* No valid sequence crosses a byte that is not a continuation byte, nor a
 * continuation byte with no lead byte in the three before it: cutting
 * there changes nothing in what jsonw_esc writes. */
size_t
jsonw_utf8_cut(const void *v, size_t n, size_t want)
{
	const unsigned char *p = v;
	size_t k;

	if (want < 4)
		want = 4;
	if (want >= n)
		return n;
	if ((p[want] & 0xc0) != 0x80)
		return want;
	for (k = want - 1; k + 3 >= want; k--) {
		if ((p[k] & 0xc0) != 0x80)
			return p[k] >= 0xc0 ? k : want;
	}
	return want;
}

/* The shortest form that reads back as the same double. */
void
jsonw_real(struct buf *b, double d)
{
	char s[40];

	if (!isfinite(d)) {
		jsonw_raw(b, "null");
		return;
	}
	snprintf(s, sizeof s, "%.15g", d);
	if (strtod(s, NULL) != d)
		snprintf(s, sizeof s, "%.17g", d);
	/* Keep a real a real for clients that tell 1 from 1.0. */
	if (strpbrk(s, ".eEn") == NULL)
		strcat(s, ".0");
	jsonw_raw(b, s);
}

void
jsonw_hex(struct buf *b, const void *v, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = v;
	char pair[2];
	size_t i;

	buf_add(b, "\"", 1);
	for (i = 0; i < n; i++) {
		pair[0] = hex[p[i] >> 4];
		pair[1] = hex[p[i] & 0xf];
		buf_add(b, pair, 2);
	}
	buf_add(b, "\"", 1);
}

void
jsonw_str(struct buf *b, const char *s)
{
	jsonw_strn(b, s, strlen(s));
}

void
jsonw_key(struct buf *b, const char *key)
{
	jsonw_strn(b, key, strlen(key));
	buf_add(b, ":", 1);
}

/* Digits by hand: snprintf was a tenth of a tree reply. */
void
jsonw_int(struct buf *b, int64_t v)
{
	char s[24], *p = s + sizeof s;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		*--p = '-';
	buf_add(b, p, (size_t)(s + sizeof s - p));
}

void
jsonw_mstr(struct buf *b, const char *key, const char *s)
{
	buf_add(b, ",", 1);
	jsonw_key(b, key);
	jsonw_str(b, s);
}

void
jsonw_mint(struct buf *b, const char *key, int64_t v)
{
	buf_add(b, ",", 1);
	jsonw_key(b, key);
	jsonw_int(b, v);
}
