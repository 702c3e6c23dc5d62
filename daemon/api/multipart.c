/* multipart.c: multipart/form-data bodies (RFC 7578, RFC 2046 5.1).
 *
 * A body is a preamble, then parts each opened by a delimiter line
 * "--BOUNDARY" and ended by the next one's leading CRLF, the last
 * delimiter being "--BOUNDARY--".  A part is header lines, an empty line
 * and its bytes.  Go's mime/multipart (pyroscope-go) writes CRLF
 * throughout; a bare LF is taken too, as Go's reader does.  Only the
 * name of Content-Disposition is read: the parts' own Content-Type and
 * filename say nothing the endpoint needs. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "multipart.h"

int
multipart_is_form(const char *ct)
{
	size_t n = strlen("multipart/form-data");

	if (ct == NULL)
		return 0;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	return strncasecmp(ct, "multipart/form-data", n) == 0 &&
	    (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ' || ct[n] == '\t');
}

/* RFC 2046's bchars: digits, letters and '()+_,-./:=? (a space too, but
 * not last). */
static int
boundary_char(unsigned char c)
{
	return isalnum(c) || strchr("'()+_,-./:=? ", c) != NULL;
}

int
multipart_boundary(const char *ct, char *out, struct error *err)
{
	const char *p;
	size_t n = 0;
	int quoted;

	if (!multipart_is_form(ct))
		return error_set(err, ERR_INPUT, "Content-Type is not "
		    "multipart/form-data");
	for (p = strchr(ct, ';'); p != NULL; p = strchr(p, ';')) {
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncasecmp(p, "boundary=", 9) == 0)
			break;
	}
	if (p == NULL)
		return error_set(err, ERR_INPUT, "multipart/form-data without "
		    "a boundary parameter");
	p += 9;
	if ((quoted = *p == '"'))
		p++;
	while (*p != '\0' && (quoted ? *p != '"' : *p != ';' && *p != ' ' &&
	    *p != '\t')) {
		if (n == MULTIPART_MAX_BOUNDARY || !boundary_char(
		    (unsigned char)*p))
			return error_set(err, ERR_INPUT, "the multipart "
			    "boundary is not 1 to %d of RFC 2046's "
			    "characters", MULTIPART_MAX_BOUNDARY);
		out[n++] = *p++;
	}
	if (n == 0 || (quoted && *p != '"') || out[n - 1] == ' ')
		return error_set(err, ERR_INPUT, "the multipart boundary is "
		    "empty, unterminated or ends in a space");
	out[n] = '\0';
	return 0;
}

/* The name parameter of a Content-Disposition value [v, end). */
static int
part_name(const char *v, const char *end, struct mpart *part)
{
	const char *p = v, *q;
	size_t n;

	while ((p = memchr(p, ';', (size_t)(end - p))) != NULL) {
		p++;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (end - p < 5 || strncasecmp(p, "name=", 5) != 0)
			continue;
		p += 5;
		if (p < end && *p == '"') {
			p++;
			if ((q = memchr(p, '"', (size_t)(end - p))) == NULL)
				return -1;
		} else
			for (q = p; q < end && *q != ';' && *q != ' '; q++)
				;
		n = (size_t)(q - p);
		if (n == 0 || n >= sizeof part->name)
			return -1;
		memcpy(part->name, p, n);
		part->name[n] = '\0';
		return 0;
	}
	return -1;
}

/* The headers of a part in [h, end): its name. */
static int
part_head(const uint8_t *h, const uint8_t *end, struct mpart *part,
    struct error *err)
{
	const uint8_t *eol, *colon;
	const char *cd = "content-disposition";

	part->name[0] = '\0';
	for (; h < end; h = eol + 1) {
		if ((eol = memchr(h, '\n', (size_t)(end - h))) == NULL)
			eol = end;
		colon = memchr(h, ':', (size_t)(eol - h));
		if (colon == NULL || (size_t)(colon - h) != strlen(cd) ||
		    strncasecmp((const char *)h, cd, strlen(cd)) != 0)
			continue;
		if (memchr(colon, '\0', (size_t)(eol - colon)) != NULL ||
		    part_name((const char *)colon + 1, (const char *)(eol >
		    colon + 1 && eol[-1] == '\r' ? eol - 1 : eol), part) == -1)
			return error_set(err, ERR_INPUT, "multipart: a part "
			    "has a Content-Disposition without a usable name "
			    "(1 to %zu bytes)", sizeof part->name - 1);
		return 0;
	}
	return error_set(err, ERR_INPUT, "multipart: a part has no "
	    "Content-Disposition header");
}

int
multipart_parse(const uint8_t *body, size_t n, const char *boundary,
    struct mpart *parts, size_t max, size_t *nparts, struct error *err)
{
	char delim[MULTIPART_MAX_BOUNDARY + 5];
	size_t dn, np = 0;
	const uint8_t *p, *end = body + n, *next, *head_end, *data;

	*nparts = 0;
	dn = (size_t)snprintf(delim, sizeof delim, "\n--%s", boundary);
	/* The first delimiter may open the body, with no line before it. */
	if (n >= dn - 1 && memcmp(body, delim + 1, dn - 1) == 0)
		p = body + dn - 1;
	else if ((p = memmem(body, n, delim, dn)) != NULL)
		p += dn;
	else
		return error_set(err, ERR_INPUT, "multipart: no delimiter "
		    "--%s in the body", boundary);
	for (;;) {
		/* p is just past a delimiter: "--" closes, else a line end. */
		if (end - p >= 2 && p[0] == '-' && p[1] == '-')
			break;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p == '\r')
			p++;
		if (p == end || *p != '\n')
			return error_set(err, ERR_INPUT, "multipart: junk or "
			    "the end of the body after a delimiter");
		p++;
		if (np == max)
			return error_set(err, ERR_INPUT, "multipart: more than "
			    "%zu parts", max);
		/* The headers end at an empty line. */
		head_end = NULL;
		for (data = p; data < end && (size_t)(data - p) <=
		    MULTIPART_MAX_HEAD; data++) {
			if (*data != '\n')
				continue;
			if (data + 1 < end && data[1] == '\n') {
				head_end = data, data += 2;
				break;
			}
			if (data + 2 < end && data[1] == '\r' &&
			    data[2] == '\n') {
				head_end = data, data += 3;
				break;
			}
		}
		if (head_end == NULL)
			return error_set(err, ERR_INPUT, "multipart: a part's "
			    "headers have no end within %d bytes",
			    MULTIPART_MAX_HEAD);
		if (part_head(p, head_end, &parts[np], err) == -1)
			return -1;
		if ((next = memmem(data, (size_t)(end - data), delim,
		    dn)) == NULL)
			return error_set(err, ERR_INPUT, "multipart: part "
			    "\"%s\" has no closing delimiter --%s",
			    parts[np].name, boundary);
		parts[np].data = data;
		parts[np].len = (size_t)(next - data);
		if (parts[np].len > 0 && next[-1] == '\r')
			parts[np].len--;
		np++;
		p = next + dn;
	}
	*nparts = np;
	return 0;
}

const struct mpart *
multipart_find(const struct mpart *parts, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(parts[i].name, name) == 0)
			return &parts[i];
	return NULL;
}
