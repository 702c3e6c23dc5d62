/* http-accept.c: reading Accept-Encoding, a header of outside bytes
 * (tests/fuzz/fuzz_accept.c).  Members are "coding *( OWS ; OWS param )"
 * separated by commas; only the q parameter matters.  "gzip;q=0" refuses
 * gzip even where "*" would take it. */
#include <string.h>
#include <strings.h>

#include "http-accept.h"

/* tchar of RFC 9110 5.6.2, besides letters and digits. */
static int
accept_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr("!#$%&'*+-.^_`|~",
	    c) != NULL);
}

static const char *
accept_ows(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A qvalue ("0", "0.5", "1.000") at p for n bytes: its value in
 * thousandths, or -1 if it is not one. */
static int
accept_qvalue(const char *p, size_t n)
{
	size_t i;
	int v;

	if (n == 0 || (p[0] != '0' && p[0] != '1'))
		return -1;
	v = (p[0] - '0') * 1000;
	if (n == 1)
		return v;
	if (p[1] != '.' || n > 5)
		return -1;
	for (i = 2; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v += (p[i] - '0') * (i == 2 ? 100 : i == 3 ? 10 : 1);
	}
	return v > 1000 ? -1 : v;
}

/* One member from p: its coding (*c, *clen) and q (thousandths, 1000
 * when not given); returns where the next member starts, and *q -1 when
 * the member is malformed. */
static const char *
accept_member(const char *p, const char **c, size_t *clen, int *q)
{
	const char *name, *val;
	size_t nlen, vlen;

	*q = 1000;
	*c = p;
	while (accept_tchar(*p))
		p++;
	*clen = (size_t)(p - *c);
	if (*clen == 0)
		*q = -1;
	for (p = accept_ows(p); *p == ';' && *q != -1; p = accept_ows(p)) {
		name = p = accept_ows(p + 1);
		while (accept_tchar(*p))
			p++;
		nlen = (size_t)(p - name);
		if (nlen == 0 || *p != '=') {
			*q = -1;
			break;
		}
		val = ++p;
		if (*p == '"') {
			/* A quoted value: not a qvalue, skipped whole. */
			for (p++; *p != '\0' && *p != '"'; p++)
				if (*p == '\\' && p[1] != '\0')
					p++;
			if (*p != '"') {
				*q = -1;
				break;
			}
			p++;
			vlen = 0;
		} else {
			while (accept_tchar(*p))
				p++;
			vlen = (size_t)(p - val);
		}
		if (nlen == 1 && (*name == 'q' || *name == 'Q'))
			*q = accept_qvalue(val, vlen);
	}
	/* Anything before the comma that is not the member spoils it. */
	if (*p != ',' && *p != '\0')
		*q = -1;
	while (*p != ',' && *p != '\0')
		p++;
	return p;
}

int
http_accept_gzip(const char *value)
{
	const char *p = value, *c;
	size_t clen;
	int q, gzip = -1, star = -1;

	if (value == NULL)
		return 0;
	while (*p != '\0') {
		p = accept_ows(p);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\0')
			break;
		p = accept_member(p, &c, &clen, &q);
		if (q == -1)
			continue;
		/* Named twice: the higher q counts. */
		if ((clen == 4 && strncasecmp(c, "gzip", 4) == 0) ||
		    (clen == 6 && strncasecmp(c, "x-gzip", 6) == 0)) {
			if (q > gzip)
				gzip = q;
		} else if (clen == 1 && *c == '*') {
			if (q > star)
				star = q;
		}
	}
	return gzip != -1 ? gzip > 0 : star > 0;
}
