/* pprof-check.c: what step 2's checks share (see pprof.c): a string
 * index checked against the table, and what an error shows of a failed
 * check: where (the field's offset, found by reading its message again)
 * and what (the input text, quoted).  The lowest piece of the pprof
 * decoder: it calls only pb. */
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "error.h"
#include "model.h"
#include "mstr.h"
#include "pb.h"
#include "pprof-int.h"

/* Input text shown in an error: quoted, printable, short; with no_quote
 * only its length. */
const char *
pprof_check_quote(const struct pprof *p, struct mstr s, char *buf, size_t size)
{
	size_t i, n = 0;

	if (p->lim.no_quote) {
		snprintf(buf, size, "a string of %zu bytes", s.n);
		return buf;
	}
	buf[n++] = '"';
	for (i = 0; i < s.n && n + 5 < size; i++) {
		if (s.p[i] >= 0x20 && s.p[i] < 0x7f)
			buf[n++] = s.p[i];
		else
			buf[n++] = '?';
	}
	if (i < s.n) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n++] = '"';
	buf[n] = '\0';
	return buf;
}

/* Offset of the nth value (counting packed elements one by one) or the
 * last occurrence of field num in the message c walks; dflt if absent. */
size_t
pprof_check_at_in(const struct pprof *p, struct pb *c, uint32_t num,
    size_t nth, size_t dflt)
{
	struct pb_field f;
	struct error e;
	const uint8_t *q, *end;
	uint64_t v;
	size_t k = 0, found = dflt;

	error_clear(&e);
	while (pb_next(c, &f, &e) == 1) {
		if (f.num != num)
			continue;
		if (nth == PPROF_LAST) {
			found = f.off;
			continue;
		}
		if (f.wt != PB_LEN) {
			if (k++ == nth)
				return f.off;
			continue;
		}
		q = f.data;
		end = f.data + f.len;
		while (q < end) {
			if (k++ == nth)
				return (size_t)(q - p->data);
			if (pb_varint(&q, end, &v) == -1)
				break;
		}
	}
	return found;
}

/* The same inside the sub-message whose tag is at off. */
size_t
pprof_check_at(const struct pprof *p, size_t off, uint32_t num, size_t nth)
{
	struct pb c, sub;
	struct pb_field f;
	struct error e;

	error_clear(&e);
	pb_init(&c, p->data, p->len);
	c.p = p->data + off;
	if (pb_next(&c, &f, &e) != 1 || f.wt != PB_LEN)
		return off;
	pb_sub(&c, &f, &sub);
	return pprof_check_at_in(p, &sub, num, nth, off);
}

/* Check a string index: field num of the message at msgoff or, with num
 * 0, a field whose offset is msgoff itself. */
int
pprof_check_str(struct pprof *p, int64_t idx, const char *field,
    size_t msgoff, uint32_t num)
{
	size_t off = msgoff;

	if (idx >= 0 && (uint64_t)idx < p->nstrs)
		return 0;
	if (num != 0)
		off = pprof_check_at(p, msgoff, num, PPROF_LAST);
	return pb_dec_fail(&p->pd, ERR_INPUT, field, off,
	    "string index %lld out of range (string_table has %zu entries)",
	    (long long)idx, p->nstrs);
}
