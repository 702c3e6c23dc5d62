/* otlp-val.c: what both of the OTLP decoder's readers fill: tables grown
 * under their bound, the pools of indices, an attribute's value made a
 * label's text, the error for another version's wire format. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "otlp-int.h"

void *
otlp_tab_add(struct otlp_req *r, struct otlp_tab *t, size_t size,
    const char *what, struct error *err)
{
	char *at;

	/* Every table is bounded as the string table is: a request is a
	 * profile's worth of each. */
	if (t->n >= r->lim->max_strings) {
		error_set(err, ERR_TOO_LARGE, "OTLP: more than %" PRIu32
		    " %s (max-strings)", r->lim->max_strings, what);
		return NULL;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xreallocarray(t->v, t->cap, size);
	}
	at = (char *)t->v + t->n * size;
	memset(at, 0, size);
	t->n++;
	return at;
}

void
otlp_i64s_add(struct otlp_i64s *a, int64_t v)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = xreallocarray(a->v, a->cap, sizeof *a->v);
	}
	a->v[a->n++] = v;
}

void
otlp_run_open(struct otlp_i64s *pool, struct otlp_run *run)
{
	size_t i, first = pool->n;

	if (run->n == 0) {
		run->first = pool->n;
		return;
	}
	if (run->first + run->n == pool->n)
		return;
	for (i = 0; i < run->n; i++)
		otlp_i64s_add(pool, pool->v[run->first + i]);
	run->first = first;
}

struct mstr
otlp_str(const struct otlp_req *r, int64_t i)
{
	return *OTLP_AT(&r->strings, struct mstr, i);
}

int
otlp_value_text(const struct otlp_req *r, const struct otlp_value *v,
    char *buf, struct mstr *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	switch (v->kind) {
	case OTLP_V_STR:
		*out = v->s;
		return 0;
	case OTLP_V_STRINDEX:
		*out = otlp_str(r, v->i);
		return 0;
	case OTLP_V_BOOL:
		*out = v->i ? MSTR_LIT("true") : MSTR_LIT("false");
		return 0;
	case OTLP_V_INT:
		snprintf(buf, OTLP_TEXT_MAX, "%" PRId64, v->i);
		break;
	case OTLP_V_DOUBLE:
		snprintf(buf, OTLP_TEXT_MAX, "%.15g", v->d);
		break;
	case OTLP_V_BYTES:
		/* As OTLP's JSON writes ids: hexadecimal. */
		if (v->s.n > 64)
			return -1;
		for (i = 0; i < v->s.n; i++) {
			buf[2 * i] = hex[(uint8_t)v->s.p[i] >> 4];
			buf[2 * i + 1] = hex[(uint8_t)v->s.p[i] & 15];
		}
		buf[2 * v->s.n] = '\0';
		break;
	default:
		return -1;
	}
	*out = mstr_from(buf);
	return 0;
}

int
otlp_wrong_version(struct error *err, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return error_set(err, ERR_INPUT, "not an ExportProfilesServiceRequest "
	    "of " OTLP_VERSION ", which profd speaks: %s", msg);
}
