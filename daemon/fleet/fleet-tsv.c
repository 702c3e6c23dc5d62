/* fleet-tsv.c: reading ClickHouse's TabSeparated as it arrives.  Escapes
 * are ClickHouse's: \t \n \r \b \f \0 \\ \' \" and \xHH; any other
 * backslash keeps the byte after it.  Inside an array, strings are in
 * single quotes with the same escapes, and the field is not escaped a
 * second time. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "fleet-tsv.h"
#include "hex.h"

void
fleet_tsv_init(struct fleet_tsv *t, size_t max_line,
    int (*row)(void *, struct fleet_tsv_field *, size_t, struct error *),
    void *arg)
{
	memset(t, 0, sizeof *t);
	t->max_line = max_line;
	t->row = row;
	t->arg = arg;
}

void
fleet_tsv_clear(struct fleet_tsv *t)
{
	buf_free(&t->line);
	memset(&t->line, 0, sizeof t->line);
}

/* One whole line (without its newline), split on tabs: an escaped tab is
 * "\t", never a tab byte. */
static int
tsv_line(struct fleet_tsv *t, char *p, size_t n, struct error *err)
{
	struct fleet_tsv_field f[FLEET_TSV_MAX_FIELDS];
	size_t nf = 0;
	char *end = p + n, *tab;

	t->lines++;
	for (;;) {
		if (nf == FLEET_TSV_MAX_FIELDS)
			return error_set(err, ERR_INTERNAL, "ClickHouse's "
			    "reply: line %zu has more than %d fields", t->lines,
			    FLEET_TSV_MAX_FIELDS);
		tab = memchr(p, '\t', (size_t)(end - p));
		f[nf].p = p;
		f[nf].n = (size_t)((tab != NULL ? tab : end) - p);
		nf++;
		if (tab == NULL)
			break;
		p = tab + 1;
	}
	return t->row(t->arg, f, nf, err);
}

int
fleet_tsv_feed(struct fleet_tsv *t, const void *data, size_t n,
    struct error *err)
{
	const char *p = data, *end = p + n, *nl;
	size_t k;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		k = (size_t)((nl != NULL ? nl : end) - p);
		if (t->line.n + k > t->max_line)
			return error_set(err, ERR_TOO_LARGE, "ClickHouse's "
			    "reply: line %zu is longer than %zu bytes",
			    t->lines + 1, t->max_line);
		if (nl == NULL) {
			buf_add(&t->line, p, k);
			break;
		}
		if (t->line.n > 0) {
			buf_add(&t->line, p, k);
			buf_add(&t->line, "", 1);
			if (tsv_line(t, (char *)t->line.p, t->line.n - 1,
			    err) == -1)
				return -1;
			t->line.n = 0;
		} else {
			/* The piece is the caller's: a copy to split. */
			buf_add(&t->line, p, k);
			buf_add(&t->line, "", 1);
			if (tsv_line(t, (char *)t->line.p, k, err) == -1)
				return -1;
			t->line.n = 0;
		}
		p = nl + 1;
	}
	return 0;
}

int
fleet_tsv_end(struct fleet_tsv *t, struct error *err)
{
	if (t->line.n > 0)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply ended "
		    "in the middle of line %zu", t->lines + 1);
	return 0;
}

/* Unescape [p, end) into out (which may be p: never longer); stops at
 * an unescaped stop byte when stop is not 0.  Returns where it stopped. */
static const char *
tsv_unescape(const char *p, const char *end, int stop, struct buf *out)
{
	const char *q;
	char c;
	int h, l;

	while (p < end && (stop == 0 || *p != stop)) {
		if (*p != '\\' || p + 1 == end) {
			/* The bytes up to the next escape or stop at once: a
			 * byte a call was a fleet top's most CPU in profd. */
			for (q = p + 1; q < end && *q != '\\' &&
			    (stop == 0 || *q != stop); q++)
				;
			buf_add(out, p, (size_t)(q - p));
			p = q;
			continue;
		}
		p++;
		switch (*p) {
		case 't': c = '\t'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case '0': c = '\0'; break;
		case 'x':
			if (p + 2 < end && (h = hex_digit(p[1])) >= 0 &&
			    (l = hex_digit(p[2])) >= 0) {
				c = (char)(h << 4 | l);
				p += 2;
			} else
				c = 'x';
			break;
		default: c = *p; break;
		}
		buf_add(out, &c, 1);
		p++;
	}
	return p;
}

char *
fleet_tsv_str(struct fleet_tsv_field *f, size_t *len)
{
	struct buf b = { 0 };

	/* Most fields (numbers, names) have no escape: as they are. */
	if (memchr(f->p, '\\', f->n) == NULL) {
		f->p[f->n] = '\0';
		*len = f->n;
		return f->p;
	}
	tsv_unescape(f->p, f->p + f->n, 0, &b);
	/* Never longer than the escaped text: back into the line. */
	if (b.n > 0)
		memcpy(f->p, b.p, b.n);
	f->p[b.n] = '\0';
	*len = b.n;
	buf_free(&b);
	return f->p;
}

int
fleet_tsv_int(const struct fleet_tsv_field *f, int64_t *v,
    struct error *err)
{
	char tmp[32], *end;
	long long x;

	if (f->n == 0 || f->n >= sizeof tmp)
		goto bad;
	memcpy(tmp, f->p, f->n);
	tmp[f->n] = '\0';
	errno = 0;
	x = strtoll(tmp, &end, 10);
	if (*end != '\0' || errno != 0)
		goto bad;
	*v = (int64_t)x;
	return 0;
bad:
	return error_set(err, ERR_INTERNAL, "ClickHouse's reply: \"%.*s\" is "
	    "not an integer", (int)(f->n > 40 ? 40 : f->n), f->p);
}

/* By hand: a fleet top reads tens of thousands of these, and strtoull
 * on a copy was a tenth of profd's time over a warm call's sums. */
int
fleet_tsv_u64(const struct fleet_tsv_field *f, uint64_t *v,
    struct error *err)
{
	uint64_t x = 0;
	size_t i;

	if (f->n == 0 || f->n > 20)
		goto bad;
	for (i = 0; i < f->n; i++) {
		if (f->p[i] < '0' || f->p[i] > '9' ||
		    x > (UINT64_MAX - (uint64_t)(f->p[i] - '0')) / 10)
			goto bad;
		x = x * 10 + (uint64_t)(f->p[i] - '0');
	}
	*v = x;
	return 0;
bad:
	if (err == NULL)
		return -1;
	return error_set(err, ERR_INTERNAL, "ClickHouse's reply: \"%.*s\" is "
	    "not a 64-bit key", (int)(f->n > 40 ? 40 : f->n), f->p);
}

void
fleet_tsv_array_clear(struct fleet_tsv_array *a)
{
	free(a->v);
	buf_free(&a->text);
	memset(a, 0, sizeof *a);
}

int
fleet_tsv_array(const struct fleet_tsv_field *f, struct fleet_tsv_array *a,
    struct error *err)
{
	const char *p = f->p, *end = f->p + f->n, *q;
	size_t *off = NULL, i;

	a->n = 0;
	a->text.n = 0;
	if (f->n < 2 || p[0] != '[' || end[-1] != ']')
		goto bad;
	p++;
	end--;
	while (p < end) {
		off = xreallocarray(off, a->n + 1, sizeof *off);
		off[a->n++] = a->text.n;
		if (*p == '\'') {
			p = tsv_unescape(p + 1, end, '\'', &a->text);
			if (p == end)
				goto bad;
			p++;
		} else {
			q = memchr(p, ',', (size_t)(end - p));
			q = q != NULL ? q : end;
			buf_add(&a->text, p, (size_t)(q - p));
			p = q;
		}
		buf_add(&a->text, "", 1);
		if (p < end && *p++ != ',')
			goto bad;
		if (p == end && end[-1] == ',')
			goto bad;
	}
	if (a->n > a->cap) {
		a->cap = a->n;
		a->v = xreallocarray(a->v, a->cap, sizeof *a->v);
	}
	for (i = 0; i < a->n; i++)
		a->v[i] = (char *)a->text.p + off[i];
	free(off);
	return 0;
bad:
	free(off);
	a->n = 0;
	return error_set(err, ERR_INTERNAL, "ClickHouse's reply: \"%.*s\" is "
	    "not an array", (int)(f->n > 40 ? 40 : f->n), f->p);
}

void
fleet_tsv_put(struct buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		switch (s[i]) {
		case '\'': buf_add(b, "\\'", 2); break;
		case '\\': buf_add(b, "\\\\", 2); break;
		case '\t': buf_add(b, "\\t", 2); break;
		case '\n': buf_add(b, "\\n", 2); break;
		case '\r': buf_add(b, "\\r", 2); break;
		case '\0': buf_add(b, "\\0", 2); break;
		default: buf_add(b, &s[i], 1);
		}
}

void
fleet_tsv_puts(struct buf *b, const char *s)
{
	fleet_tsv_put(b, s, strlen(s));
}
