/* folded.c: decoder for folded stacks (flamegraph.pl, inferno, speedscope).
 *
 * One stack per line, frames root first separated by ';', then a space and
 * a decimal count: "main;serve;parse 42".  The last space (or tab) before
 * the count separates it, so frame names may hold spaces; ';' is always a
 * separator.  Names are kept verbatim, annotations such as perf's and
 * inferno's "_[k]", "_[j]" included; only blanks around the stack and the
 * count are dropped.  Rules:
 *
 *  - blank lines (spaces, tabs, a CR) are skipped; a CR before the '\n'
 *    (CRLF files), blanks at either end of a line and a UTF-8 byte order
 *    mark at the start of the input are dropped; the last line needs no
 *    '\n';
 *  - the count is 0..INT64_MAX in decimal: a missing, negative,
 *    fractional or overflowing count, or junk after it, is ERR_INPUT;
 *  - an empty frame name ("a;;b 3", ";a 1", "a; 2") is ERR_INPUT: it is a
 *    broken collapse, and guessing would merge unrelated stacks; so are a
 *    NUL byte and invalid UTF-8 (names end up in JSON replies);
 *  - a line is at most 4 * max_string_len bytes, a name max_string_len
 *    bytes, a stack max_stack_depth frames: ERR_TOO_LARGE.
 *
 * Errors read 'folded: line N, byte B: what: "text"', B the stream offset
 * of the offending byte and text the escaped, truncated input.
 *
 * Lines are read one at a time from the stream and emitted as they come;
 * the importer's transaction keeps a failed blob out of the store.  Each
 * distinct name becomes one function (name = system name) and one frame,
 * cached here; each line with a stack is one sample whose value is its
 * count (meta.samples counts these lines).  Repeated stacks are summed by
 * the sink. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bounds.h"
#include "error.h"
#include "folded.h"
#include "hmap.h"
#include "model.h"
#include "mstr.h"
#include "stream.h"

/* Bytes asked of the stream for a line at first; doubled for longer ones.
 * Small, so a short input needs no large buffer (the stream still reads
 * in large pieces once the input is large). */
#define FOLDED_WINDOW		(4u * 1024)
/* Complete lines the sniffer checks. */
#define FOLDED_SNIFF_LINES	8

#define FOLDED_BOM		"\xef\xbb\xbf"

struct folded {
	struct stream		*in;
	const struct limits	*lim;
	const struct sink	*sink;
	struct error		*err;
	struct hmap		 names;		/* frame name -> sink frame id */
	int64_t			*ids;		/* frames of the current line */
	size_t			 nids, cap;
	size_t			 maxline;
	uint64_t		 lineno;
	uint64_t		 off;		/* stream offset of the line */
	uint64_t		 samples;
	int64_t			 scale;		/* decode_opts.scale */
};

static int
folded_blank(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int
folded_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

int
folded_utf8(const uint8_t *p, size_t n)
{
	uint8_t c = p[0], lo = 0x80, hi = 0xbf;
	int i, len;

	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return 0;
	if (c < 0xe0)
		len = 2;
	else if (c < 0xf0) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (c < 0xf5) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* past U+10FFFF */
	} else
		return 0;
	for (i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return -1;
		if (p[i] < lo || p[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}

const char *
folded_quote(const uint8_t *p, size_t n, char *buf, size_t size)
{
	size_t i, o = 0;

	for (i = 0; i < n && i < FOLDED_QUOTE && o + 8 < size; i++) {
		if (p[i] == '"' || p[i] == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)p[i];
		} else if (p[i] == '\t') {
			buf[o++] = '\\';
			buf[o++] = 't';
		} else if (p[i] >= 0x20 && p[i] < 0x7f)
			buf[o++] = (char)p[i];
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x",
			    p[i]);
	}
	if (i < n) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

/* Fail naming the line and the offset of byte col of the line; text (n
 * bytes, may be NULL) is quoted after the message unless no_quote. */
static int
folded_fail(struct folded *f, enum error_kind kind, size_t col,
    const uint8_t *text, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

int
folded_error(struct error *err, enum error_kind kind, const char *format,
    uint64_t lineno, uint64_t at, const uint8_t *text, size_t n,
    const char *what)
{
	char q[FOLDED_QUOTE * 4 + 8];

	if (text == NULL)
		return error_set(err, kind, "%s: line %llu, byte %llu: %s",
		    format, (unsigned long long)lineno,
		    (unsigned long long)at, what);
	return error_set(err, kind, "%s: line %llu, byte %llu: %s: \"%s\"",
	    format, (unsigned long long)lineno, (unsigned long long)at, what,
	    folded_quote(text, n, q, sizeof q));
}

static int
folded_fail(struct folded *f, enum error_kind kind, size_t col,
    const uint8_t *text, size_t n, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return folded_error(f->err, kind, "folded", f->lineno, f->off + col,
	    f->lim->no_quote ? NULL : text, n, what);
}

/* A sink call failed: it should have said why. */
static int
folded_sink_fail(struct folded *f, const char *what)
{
	return error_set(f->err, ERR_INTERNAL, "folded: line %llu: sink %s "
	    "failed", (unsigned long long)f->lineno, what);
}

/* The next line at *p, *len bytes without its '\n'; *take counts the '\n'
 * too and is 0 at the end of the input. */
static int
folded_next(struct folded *f, const uint8_t **p, size_t *len, size_t *take)
{
	const uint8_t *nl;
	size_t want = FOLDED_WINDOW, got, scanned = 0;

	if (want > f->maxline + 1)
		want = f->maxline + 1;
	for (;;) {
		if (stream_peek(f->in, want, p, &got, f->err) == -1)
			return -1;
		nl = memchr(*p + scanned, '\n', got - scanned);
		if (nl != NULL) {
			*len = (size_t)(nl - *p);
			*take = *len + 1;
			break;
		}
		if (got < want) {		/* the end of the input */
			*len = *take = got;
			break;
		}
		if (want > f->maxline) {
			*len = *take = got;
			break;
		}
		scanned = got;
		want = want > f->maxline / 2 ? f->maxline + 1 : want * 2;
	}
	if (*len > f->maxline)
		return folded_fail(f, ERR_TOO_LARGE, 0, *p, *len, "a line "
		    "longer than %zu bytes (limit: 4 times the longest string)",
		    f->maxline);
	return 0;
}

/* The count in p[b..e), which is not empty and has no blanks. */
static int
folded_count(struct folded *f, const uint8_t *p, size_t b, size_t e,
    int64_t *v)
{
	uint64_t x = 0;
	size_t i;
	unsigned d;

	if (p[b] == '-' && e - b > 1 && folded_digit(p[b + 1]))
		return folded_fail(f, ERR_INPUT, b, p + b, e - b,
		    "negative count");
	for (i = b; i < e && folded_digit(p[i]); i++) {
		d = p[i] - '0';
		if (x > (uint64_t)(INT64_MAX - d) / 10)
			return folded_fail(f, ERR_INPUT, b, p + b, e - b,
			    "count past %lld", (long long)INT64_MAX);
		x = x * 10 + d;
	}
	if (i == b || (i < e && p[i] == '.'))
		return folded_fail(f, ERR_INPUT, b, p + b, e - b,
		    "count is not an integer");
	if (i < e)
		return folded_fail(f, ERR_INPUT, i, p + b, e - b,
		    "junk after the count");
	*v = (int64_t)x;
	return 0;
}

/* The sink frame id of the name p[b..e), emitting its function and frame
 * the first time it is seen. */
static int
folded_frame(struct folded *f, const uint8_t *p, size_t b, size_t e,
    size_t lb, size_t le)
{
	struct model_function fn;
	struct model_frame fr;
	size_t i, n = e - b;
	int64_t id;
	int r;

	if (n == 0)
		return folded_fail(f, ERR_INPUT, b, p + lb, le - lb,
		    "empty frame name (frame %zu)", f->nids + 1);
	if (f->nids >= f->lim->max_stack_depth)
		return folded_fail(f, ERR_TOO_LARGE, b, NULL, 0, "a stack "
		    "deeper than %u frames (limit)", f->lim->max_stack_depth);
	if ((id = hmap_get(&f->names, p + b, n)) == 0) {
		if (n > f->lim->max_string_len)
			return folded_fail(f, ERR_TOO_LARGE, b, p + b, n,
			    "a frame name of %zu bytes (limit %u)", n,
			    f->lim->max_string_len);
		for (i = b; i < e; i += (size_t)r) {
			if (p[i] == '\0')
				return folded_fail(f, ERR_INPUT, i, p + b, n,
				    "NUL byte in a frame name");
			if ((r = folded_utf8(p + i, e - i)) <= 0)
				return folded_fail(f, ERR_INPUT, i, p + b, n,
				    "invalid UTF-8 in a frame name");
		}
		memset(&fn, 0, sizeof fn);
		fn.name.p = (const char *)p + b;
		fn.name.n = n;
		fn.system_name = fn.name;
		fn.file = MSTR_LIT("");
		memset(&fr, 0, sizeof fr);
		fr.function = f->sink->function(f->sink->ctx, &fn, f->err);
		if (fr.function <= 0)
			return folded_sink_fail(f, "function");
		if ((id = f->sink->frame(f->sink->ctx, &fr, f->err)) <= 0)
			return folded_sink_fail(f, "frame");
		hmap_put(&f->names, p + b, n, id);
	}
	if (f->nids == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->ids = xreallocarray(f->ids, f->cap, sizeof *f->ids);
	}
	f->ids[f->nids++] = id;
	return 0;
}

/* One line, n bytes without its '\n'. */
static int
folded_line(struct folded *f, const uint8_t *p, size_t n)
{
	struct model_sample s;
	size_t b = 0, e = n, sep, se, i, start;
	int64_t count, t;

	if (f->off == 0 && n >= 3 && memcmp(p, FOLDED_BOM, 3) == 0)
		b = 3;
	while (b < e && folded_blank(p[b]))
		b++;
	while (e > b && folded_blank(p[e - 1]))
		e--;
	if (b == e)
		return 0;
	for (sep = e; sep > b && p[sep - 1] != ' ' && p[sep - 1] != '\t';
	    sep--)
		/* nothing */;
	if (sep == b)
		return folded_fail(f, ERR_INPUT, e, p + b, e - b, "no count "
		    "(a line is \"root;...;leaf COUNT\")");
	if (folded_count(f, p, sep, e, &count) == -1)
		return -1;
	if (f->scale > 1) {
		if (count > INT64_MAX / f->scale)
			return folded_fail(f, ERR_INPUT, sep, p + sep, e - sep,
			    "count times %lld (the sampling period) is past "
			    "%lld", (long long)f->scale, (long long)INT64_MAX);
		count *= f->scale;
	}
	/* p[b] is not blank, p[sep - 1] is: the stack is not empty. */
	for (se = sep - 1; se > b && folded_blank(p[se - 1]); se--)
		/* nothing */;

	f->nids = 0;
	for (i = start = b;; i++) {
		if (i == se || p[i] == ';') {
			if (folded_frame(f, p, start, i, b, e) == -1)
				return -1;
			if (i == se)
				break;
			start = i + 1;
		}
	}
	for (i = 0; i < f->nids / 2; i++) {	/* the sink wants leaf first */
		t = f->ids[i];
		f->ids[i] = f->ids[f->nids - 1 - i];
		f->ids[f->nids - 1 - i] = t;
	}

	memset(&s, 0, sizeof s);
	s.stack = f->sink->stack(f->sink->ctx, f->ids, f->nids, f->err);
	if (s.stack <= 0)
		return folded_sink_fail(f, "stack");
	s.values = &count;
	s.nvalues = 1;
	if (f->sink->sample(f->sink->ctx, &s, f->err) == -1)
		return folded_sink_fail(f, "sample");
	f->samples++;
	return 0;
}

int
folded_decode(struct stream *in, const struct decode_opts *opts,
    const struct limits *lim, const struct sink *sink, struct error *err)
{
	struct folded f;
	struct model_meta meta;
	struct mstr type = MSTR_LIT("samples"), unit = MSTR_LIT("count");
	const uint8_t *p;
	size_t len, take;
	uint64_t maxline;
	int rc = -1;

	memset(&f, 0, sizeof f);
	f.in = in;
	f.lim = lim;
	f.sink = sink;
	f.err = err;
	maxline = (uint64_t)lim->max_string_len * 4;
	f.maxline = maxline < SIZE_MAX / 2 ? (size_t)maxline : SIZE_MAX / 2;
	if (opts != NULL && opts->metric_type.n > 0)
		type = opts->metric_type;
	if (opts != NULL && opts->metric_unit.n > 0)
		unit = opts->metric_unit;
	f.scale = opts != NULL ? opts->scale : 0;

	if (sink->metric(sink->ctx, type, unit, err) == -1) {
		folded_sink_fail(&f, "metric");
		goto out;
	}
	for (;;) {
		f.lineno++;
		f.off = stream_offset(in);
		if (folded_next(&f, &p, &len, &take) == -1)
			goto out;
		if (take == 0)
			break;
		if (folded_line(&f, p, len) == -1 ||
		    stream_take(in, take, &p, "folded line", err) == -1)
			goto out;
	}
	if (f.samples == 0) {
		error_set(err, ERR_INPUT, "folded: no stacks in the input "
		    "(%llu lines)", (unsigned long long)(f.lineno - 1));
		goto out;
	}

	memset(&meta, 0, sizeof meta);
	meta.default_metric = 0;
	meta.samples = f.samples;
	if (sink->meta(sink->ctx, &meta, err) == -1) {
		folded_sink_fail(&f, "meta");
		goto out;
	}
	rc = 0;
out:
	hmap_clear(&f.names);
	free(f.ids);
	return rc;
}

/* "STACK COUNT": a non-blank stack, a blank, digits, then only blanks. */
static int
folded_sniff_line(const uint8_t *p, size_t n)
{
	size_t d, i;

	while (n > 0 && folded_blank(p[n - 1]))
		n--;
	for (d = n; d > 0 && folded_digit(p[d - 1]); d--)
		/* nothing */;
	if (d == n || d == 0 || (p[d - 1] != ' ' && p[d - 1] != '\t'))
		return 0;
	for (i = 0; i + 1 < d; i++)
		if (!folded_blank(p[i]))
			return 1;
	return 0;
}

int
folded_sniff(const uint8_t *head, size_t n)
{
	const uint8_t *nl;
	size_t i, skip = 0, start, lines = 0, whole = n;
	int r;

	if (head == NULL || n == 0)
		return 0;
	if (n >= 3 && memcmp(head, FOLDED_BOM, 3) == 0)
		skip = 3;
	/* Text only: this is what keeps pprof and Perfetto out, whose
	 * first bytes are tags and lengths below 0x20. */
	for (i = skip; i < n; i += (size_t)r) {
		if ((head[i] < 0x20 && head[i] != '\t' && head[i] != '\n' &&
		    head[i] != '\r') || head[i] == 0x7f)
			return 0;
		if ((r = folded_utf8(head + i, n - i)) == 0)
			return 0;
		if (r == -1) {		/* cut by the end of the head */
			n = i;
			break;
		}
	}
	for (start = skip; start < n && lines < FOLDED_SNIFF_LINES;
	    start = (size_t)(nl - head) + 1) {
		if ((nl = memchr(head + start, '\n', n - start)) == NULL)
			break;
		for (i = start; i < (size_t)(nl - head); i++)
			if (!folded_blank(head[i]))
				break;
		if (i == (size_t)(nl - head))
			continue;	/* a blank line */
		if (!folded_sniff_line(head + start, (size_t)(nl - head) -
		    start))
			return 0;
		lines++;
	}
	if (lines > 0)
		return 1;
	if (start >= n)
		return 0;
	/* The whole of a short input, without a final newline. */
	if (whole < FORMAT_SNIFF_BYTES)
		return folded_sniff_line(head + start, n - start);
	/* A first line longer than the head (deep Java stacks). */
	return memchr(head + start, ';', n - start) != NULL;
}
