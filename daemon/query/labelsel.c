/* labelsel.c: Prometheus label selectors (labelsel.h), parsed by hand:
 * the grammar is four operators and Go's string literals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "hex.h"
#include "buf.h"
#include "labelsel.h"
#include "rx.h"
#include "selection.h"

struct lsp {
	const char *s;
	size_t n, i;
	struct error *err;
};

static int
lsp_fail(struct lsp *p, const char *what)
{
	return error_set(p->err, ERR_INPUT, "label selector: %s at offset "
	    "%zu", what, p->i);
}

static void
lsp_space(struct lsp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
	    p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static int
lsp_name_char(char c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    (!first && ((c >= '0' && c <= '9') || c == '.'));
}

/* A code point as UTF-8 into out. */
static void
lsp_utf8(struct buf *out, unsigned long cp)
{
	unsigned char b[4];
	size_t n;

	if (cp < 0x80)
		b[0] = (unsigned char)cp, n = 1;
	else if (cp < 0x800)
		b[0] = (unsigned char)(0xc0 | cp >> 6),
		b[1] = (unsigned char)(0x80 | (cp & 63)), n = 2;
	else if (cp < 0x10000)
		b[0] = (unsigned char)(0xe0 | cp >> 12),
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 63)),
		b[2] = (unsigned char)(0x80 | (cp & 63)), n = 3;
	else
		b[0] = (unsigned char)(0xf0 | cp >> 18),
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 63)),
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 63)),
		b[3] = (unsigned char)(0x80 | (cp & 63)), n = 4;
	buf_add(out, b, n);
}

/* One escape after the backslash at p->i (Go's: \a \b \f \n \r \t \v \\
 * \' \" \xHH \uHHHH \UHHHHHHHH \OOO). */
static int
lsp_escape(struct lsp *p, char quote, struct buf *out)
{
	static const char from[] = "abfnrtv\\'\"", to[] = "\a\b\f\n\r\t\v\\'\"";
	const char *at;
	unsigned long cp = 0;
	int digits, d, k;
	char c;

	if (++p->i >= p->n)
		return lsp_fail(p, "the string ends in an escape");
	c = p->s[p->i];
	if ((at = strchr(from, c)) != NULL && c != '\0') {
		if ((c == '\'' || c == '"') && c != quote)
			return lsp_fail(p, "an escaped quote of the other kind");
		buf_add(out, &to[at - from], 1);
		p->i++;
		return 0;
	}
	if (c >= '0' && c <= '7') {
		for (k = 0; k < 3; k++, p->i++) {
			if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '7')
				return lsp_fail(p, "an octal escape of fewer "
				    "than 3 digits");
			cp = cp * 8 + (unsigned long)(p->s[p->i] - '0');
		}
		if (cp > 255)
			return lsp_fail(p, "an octal escape over 255");
		buf_add(out, &(unsigned char){ (unsigned char)cp }, 1);
		return 0;
	}
	digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
	if (digits == 0)
		return lsp_fail(p, "an unknown escape");
	p->i++;
	for (k = 0; k < digits; k++, p->i++) {
		if (p->i >= p->n || (d = hex_digit(p->s[p->i])) == -1)
			return lsp_fail(p, "a hexadecimal escape too short");
		cp = cp * 16 + (unsigned long)d;
	}
	if (digits == 2)
		buf_add(out, &(unsigned char){ (unsigned char)cp }, 1);
	else if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
		return lsp_fail(p, "an escape of no Unicode code point");
	else
		lsp_utf8(out, cp);
	return 0;
}

/* A quoted string at p->i into *value. */
static int
lsp_string(struct lsp *p, char **value)
{
	struct buf out = { 0 };
	char quote;

	if (p->i >= p->n || (p->s[p->i] != '"' && p->s[p->i] != '\'' &&
	    p->s[p->i] != '`'))
		return lsp_fail(p, "expected a quoted value");
	quote = p->s[p->i++];
	for (;;) {
		if (p->i >= p->n) {
			buf_free(&out);
			return lsp_fail(p, "the string is not closed");
		}
		if (p->s[p->i] == quote) {
			p->i++;
			break;
		}
		if (p->s[p->i] == '\0' || (p->s[p->i] == '\n' && quote != '`')) {
			buf_free(&out);
			return lsp_fail(p, "a NUL byte or line break in a "
			    "string");
		}
		if (p->s[p->i] == '\\' && quote != '`') {
			if (lsp_escape(p, quote, &out) == -1) {
				buf_free(&out);
				return -1;
			}
			continue;
		}
		buf_add(&out, &p->s[p->i++], 1);
	}
	/* An empty string has no buffer yet (memchr of NULL is undefined,
	 * even for 0 bytes). */
	if (out.n > 0 && memchr(out.p, 0, out.n) != NULL) {
		buf_free(&out);
		return lsp_fail(p, "a value holds a NUL byte");
	}
	buf_add(&out, "", 1);
	*value = (char *)out.p;
	return 0;
}

static int
lsp_matcher(struct lsp *p, struct labelsel *ls)
{
	struct labelsel_matcher m = { 0 };
	char why[256];
	size_t start = p->i;

	while (p->i < p->n && lsp_name_char(p->s[p->i], p->i == start))
		p->i++;
	if (p->i == start)
		return lsp_fail(p, "expected a label name");
	m.name = xstrndup(p->s + start, p->i - start);
	lsp_space(p);
	if (p->i + 1 < p->n && p->s[p->i] == '=' && p->s[p->i + 1] == '~')
		m.op = LS_RE, p->i += 2;
	else if (p->i + 1 < p->n && p->s[p->i] == '!' && p->s[p->i + 1] == '~')
		m.op = LS_NRE, p->i += 2;
	else if (p->i + 1 < p->n && p->s[p->i] == '!' && p->s[p->i + 1] == '=')
		m.op = LS_NE, p->i += 2;
	else if (p->i < p->n && p->s[p->i] == '=')
		m.op = LS_EQ, p->i++;
	else {
		free(m.name);
		return lsp_fail(p, "expected =, !=, =~ or !~");
	}
	lsp_space(p);
	if (lsp_string(p, &m.value) == -1) {
		free(m.name);
		return -1;
	}
	if (m.op == LS_RE || m.op == LS_NRE) {
		if (strlen(m.value) > RX_MAX_PATTERN ||
		    (m.rx = rx_new(m.value, strlen(m.value), 1, why,
		    sizeof why)) == NULL) {
			if (strlen(m.value) > RX_MAX_PATTERN)
				snprintf(why, sizeof why, "longer than %d "
				    "bytes", RX_MAX_PATTERN);
			error_set(p->err, ERR_INPUT, "label selector: the "
			    "pattern of %s: %s", m.name, why);
			free(m.name);
			free(m.value);
			return -1;
		}
	}
	ls->v = xreallocarray(ls->v, ls->n + 1, sizeof *ls->v);
	ls->v[ls->n++] = m;
	return 0;
}

int
labelsel_parse(const char *s, size_t n, struct labelsel *ls,
    struct error *err)
{
	struct lsp p = { s, n, 0, err };

	memset(ls, 0, sizeof *ls);
	if (n > LABELSEL_MAX)
		return error_set(err, ERR_INPUT, "label selector: %zu bytes, "
		    "more than %d", n, LABELSEL_MAX);
	lsp_space(&p);
	if (p.i == n)
		return 0;
	if (s[p.i] != '{')
		return lsp_fail(&p, "expected {");
	p.i++;
	lsp_space(&p);
	while (p.i < n && s[p.i] != '}') {
		if (lsp_matcher(&p, ls) == -1)
			goto fail;
		lsp_space(&p);
		if (p.i < n && s[p.i] == ',') {
			p.i++;
			lsp_space(&p);
		} else if (p.i < n && s[p.i] != '}') {
			lsp_fail(&p, "expected , or }");
			goto fail;
		}
	}
	if (p.i >= n) {
		lsp_fail(&p, "expected }");
		goto fail;
	}
	p.i++;
	lsp_space(&p);
	if (p.i != n) {
		lsp_fail(&p, "text after }");
		goto fail;
	}
	return 0;
fail:
	labelsel_clear(ls);
	return -1;
}

void
labelsel_clear(struct labelsel *ls)
{
	size_t i;

	for (i = 0; i < ls->n; i++) {
		free(ls->v[i].name);
		free(ls->v[i].value);
		rx_free(ls->v[i].rx);
	}
	free(ls->v);
	memset(ls, 0, sizeof *ls);
}

int
labelsel_match(const struct labelsel_matcher *m, const char *value)
{
	if (value == NULL)
		value = "";
	switch (m->op) {
	case LS_EQ:
		return strcmp(value, m->value) == 0;
	case LS_NE:
		return strcmp(value, m->value) != 0;
	case LS_RE:
		return rx_match(m->rx, value, strlen(value));
	default:
		return !rx_match(m->rx, value, strlen(value));
	}
}

int
labelsel_scope(const struct labelsel *ls, const char *scope)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		if (strcmp(ls->v[i].name, "service_name") == 0 &&
		    !labelsel_match(&ls->v[i], scope))
			return 0;
	return 1;
}

const char *
labelsel_get(const struct labelsel *ls, const char *name)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		if (ls->v[i].op == LS_EQ && strcmp(ls->v[i].name, name) == 0)
			return ls->v[i].value;
	return NULL;
}

void
labelsel_select(const struct labelsel *ls, const char *const *scopes,
    size_t n, struct selection *sel)
{
	struct label_filter *lf;
	const struct labelsel_matcher *m;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!labelsel_scope(ls, scopes[i]))
			continue;
		sel->scopes = xreallocarray(sel->scopes, sel->nscopes + 1,
		    sizeof *sel->scopes);
		sel->scopes[sel->nscopes++] = xstrdup(scopes[i]);
	}
	for (i = 0; i < ls->n; i++) {
		m = &ls->v[i];
		if (strcmp(m->name, "service_name") == 0 ||
		    strcmp(m->name, "__name__") == 0 ||
		    strcmp(m->name, "__profile_type__") == 0)
			continue;
		sel->labels = xreallocarray(sel->labels, sel->nlabels + 1,
		    sizeof *sel->labels);
		lf = &sel->labels[sel->nlabels++];
		lf->key = xstrdup(m->name);
		lf->negate = m->op == LS_NE || m->op == LS_NRE;
		lf->regex = m->op == LS_RE || m->op == LS_NRE;
		/* k="" keeps only the samples without k, as a pattern: the
		 * store's plain filters compare stored values. */
		if (!lf->regex && m->value[0] == '\0') {
			lf->value = xstrdup(".+");
			lf->regex = 1;
			lf->negate = !lf->negate;
		} else
			lf->value = xstrdup(m->value);
	}
}
