/* perf-script.c: decoder for `perf script` text (Linux perf), line by line.
 *
 * perf script prints a sample as a sample line, then (perf record -g) its
 * call chain leaf first, a frame a line, then a blank line:
 *
 *   hot 13970/13970 [001] 22167.244294:    1001001 cpu-clock:ppp:
 *   \t            1172 burn+0x39 (/tmp/hot)
 *   \t           2724a __libc_start_call_main+0x7a (/usr/lib/.../libc.so.6)
 *   (blank)
 *
 * The sample line is "COMM PID[/TID] [CPU] [TIME:] [PERIOD] EVENT:" and,
 * without a call chain, the sample's own "ADDR SYM+OFF (DSO)" after it.
 * COMM may hold blanks ("V8 WorkerThread"): the first split at which the
 * rest reads as the fields above is taken.  A lone number is the thread
 * id (perf script's default prints the tid alone; -F +pid gives
 * "PID/TID").  A frame line is a tab, the address in hexadecimal, the
 * symbol with its "+0xOFF", the DSO in parentheses, and "(inlined)" for
 * perf script --inline's inlined frames (which have no DSO of their own);
 * a line "  FILE:LINE" after a frame is its srcline (-F +srcline).
 * PERF_RECORD_* lines (--show-mmap-events and the like) are skipped and
 * counted.  Whatever follows the event on a sample line that is not an
 * address (tracepoint arguments, brstack) is not read.
 *
 * Refused whole (ERR_INPUT, naming the line and its byte offset): a line
 * that is none of these, a frame outside a sample, a '#' line after the
 * first sample, a sample with frames not ended by a blank line (perf
 * always ends one so: without it, the text was cut), a last line without
 * its newline, NUL bytes and invalid UTF-8, no samples at all.
 * ERR_TOO_LARGE past the limits (a line of 4 times the longest string, a
 * name, a stack's depth). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "folded.h"
#include "perf-script-int.h"
#include "perf-script.h"

/* Bytes asked of the stream for a line at first; doubled for longer. */
#define PS_WINDOW	(4u * 1024)
/* Blank-separated words a sample line's comm may span (the kernel's
 * comm is at most 15 bytes), and the fields after it. */
#define PS_COMM_WORDS	8
#define PS_WORDS	(PS_COMM_WORDS + 6)

static int
ps_blank(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int
ps_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static int
ps_hex(uint8_t c)
{
	return ps_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A decimal number in p[b..e), at most 18 digits, after an optional '-'
 * when neg. */
static int
ps_number(const uint8_t *p, size_t b, size_t e, int neg, int64_t *v)
{
	int64_t x = 0;
	int minus = 0;

	if (neg && b < e && p[b] == '-') {
		minus = 1;
		b++;
	}
	if (b == e || e - b > 18)
		return -1;
	for (; b < e; b++) {
		if (!ps_digit(p[b]))
			return -1;
		x = x * 10 + (p[b] - '0');
	}
	*v = minus ? -x : x;
	return 0;
}

/* "SECONDS.FRACTION:" (perf prints 6 digits, 9 with --ns) as ns. */
static int
ps_time(const uint8_t *p, size_t b, size_t e, int64_t *ns)
{
	size_t dot, i;
	int64_t s, f = 0;

	if (e - b < 4 || p[e - 1] != ':')
		return -1;
	e--;
	for (dot = b; dot < e && p[dot] != '.'; dot++)
		;
	if (dot == e || dot == b || e - dot - 1 > 9 || e - dot - 1 == 0 ||
	    ps_number(p, b, dot, 0, &s) == -1 || s > INT64_MAX / 1000000000 - 1)
		return -1;
	for (i = dot + 1; i < e; i++) {
		if (!ps_digit(p[i]))
			return -1;
		f = f * 10 + (p[i] - '0');
	}
	for (i = e - dot - 1; i < 9; i++)
		f *= 10;
	*ns = s * 1000000000 + f;
	return 0;
}

/* The fields of a sample line after its comm, from word i on; 0 if they
 * read as such. */
static int
ps_head_at(const uint8_t *p, const size_t (*w)[2], size_t nw, size_t i,
    struct ps_head *h)
{
	const char *mods = "ukhIGHpPSDWebR";
	size_t b, e, slash, c, k;

	memset(h, 0, sizeof *h);
	h->comm_b = w[0][0];
	h->comm_e = w[i - 1][1];
	b = w[i][0];
	e = w[i][1];
	for (slash = b; slash < e && p[slash] != '/'; slash++)
		;
	if (slash < e) {
		if (ps_number(p, b, slash, 1, &h->pid) == -1 ||
		    ps_number(p, slash + 1, e, 1, &h->tid) == -1)
			return -1;
		h->has |= PS_PID | PS_TID;
	} else {
		if (ps_number(p, b, e, 1, &h->tid) == -1)
			return -1;
		h->has |= PS_TID;
	}
	if (++i < nw && p[w[i][0]] == '[' && p[w[i][1] - 1] == ']') {
		if (ps_number(p, w[i][0] + 1, w[i][1] - 1, 0, &h->cpu) == -1)
			return -1;
		h->has |= PS_CPU;
		i++;
	}
	if (i < nw && ps_time(p, w[i][0], w[i][1], &h->time_ns) == 0) {
		h->has |= PS_TIME;
		i++;
	}
	if (i < nw && ps_number(p, w[i][0], w[i][1], 0, &h->period) == 0) {
		h->has |= PS_PERIOD;
		i++;
	}
	if (i == nw)
		return -1;
	b = w[i][0];
	e = w[i][1];
	if (e - b > 12 && memcmp(p + b, "PERF_RECORD_", 12) == 0) {
		h->record = 1;
		return 0;
	}
	if (e - b < 2 || p[e - 1] != ':')
		return -1;
	h->rest = e;
	e--;
	/* "cpu-clock:ppp" is cpu-clock; "sched:sched_switch" stays. */
	for (c = e; c > b && p[c - 1] != ':'; c--)
		;
	for (k = c; k < e && p[k] != '\0' && strchr(mods, p[k]) != NULL; k++)
		;
	if (c > b + 1 && c < e && k == e)
		e = c - 1;
	h->ev_b = b;
	h->ev_e = e;
	return 0;
}

/* A sample line: 0 and *h, or -1 if the line is not one. */
static int
ps_head(const uint8_t *p, size_t n, struct ps_head *h)
{
	size_t w[PS_WORDS][2], nw = 0, i = 0, k;

	while (nw < PS_WORDS) {
		while (i < n && ps_blank(p[i]))
			i++;
		if (i == n)
			break;
		w[nw][0] = i;
		while (i < n && !ps_blank(p[i]))
			i++;
		w[nw++][1] = i;
	}
	for (k = 1; k < nw && k <= PS_COMM_WORDS; k++)
		if (ps_head_at(p, (const size_t (*)[2])w, nw, k, h) == 0)
			return 0;
	return -1;
}

/* The frame "ADDR [SYM[+0xOFF]] [(DSO)] [(inlined)]" at p[b..e), its
 * names copied to ps->text. */
static int
ps_frame(struct perf_script *ps, const uint8_t *p, size_t b, size_t e)
{
	struct ps_frame *f;
	size_t a = b, s, d, plus;
	int depth;

	while (e > b && ps_blank(p[e - 1]))
		e--;
	while (a < e && ps_hex(p[a]))
		a++;
	if (a == b || a - b > 16 || (a < e && !ps_blank(p[a])))
		return perf_script_fail(ps, ERR_INPUT, b, p + b, e - b,
		    "a frame does not start with its address in hexadecimal");
	if (ps->nfr == ps->frcap) {
		ps->frcap = ps->frcap ? ps->frcap * 2 : 32;
		ps->fr = xreallocarray(ps->fr, ps->frcap, sizeof *ps->fr);
	}
	if (ps->nfr >= ps->lim->max_stack_depth)
		return perf_script_fail(ps, ERR_TOO_LARGE, b, NULL, 0, "a "
		    "stack deeper than %u frames (limit)",
		    ps->lim->max_stack_depth);
	f = &ps->fr[ps->nfr];
	memset(f, 0, sizeof *f);
	for (s = b; s < a; s++)
		f->addr = f->addr << 4 | (uint64_t)(ps_digit(p[s]) ?
		    p[s] - '0' : (p[s] | 0x20) - 'a' + 10);
	for (s = a; s < e && ps_blank(p[s]); s++)
		;
	if (e - s >= 9 && memcmp(p + e - 9, "(inlined)", 9) == 0 &&
	    (e - s == 9 || p[e - 10] == ' ')) {
		f->inlined = 1;
		for (e -= 9; e > s && ps_blank(p[e - 1]); e--)
			;
	}
	/* The DSO: the "(...)" that ends the line, its parentheses
	 * matched ("(/opt/x (new)/lib.so)"), after a blank or first; a C++
	 * symbol's "f(int)" has no blank before its '('. */
	if (e > s && p[e - 1] == ')') {
		for (d = e - 1, depth = 1; d > s && depth > 0;)
			depth += p[--d] == ')' ? 1 : p[d] == '(' ? -1 : 0;
		if (depth == 0 && (d == s || ps_blank(p[d - 1]))) {
			f->dso = ps->text.n;
			f->ndso = e - 1 - (d + 1);
			buf_add(&ps->text, p + d + 1, f->ndso);
			for (e = d; e > s && ps_blank(p[e - 1]); e--)
				;
		}
	}
	/* perf's "+0xOFF" is the address within the symbol: the function
	 * is the symbol, as pprof shows functions. */
	for (plus = e; plus > s && p[plus - 1] != '+'; plus--)
		;
	if (plus > s + 1 && e - plus > 2 && p[plus] == '0' &&
	    p[plus + 1] == 'x') {
		for (d = plus + 2; d < e && ps_hex(p[d]); d++)
			;
		if (d == e)
			e = plus - 1;
	}
	if (e - s > ps->lim->max_string_len ||
	    f->ndso > ps->lim->max_string_len)
		return perf_script_fail(ps, ERR_TOO_LARGE, s, NULL, 0, "a "
		    "name longer than %u bytes (limit)",
		    ps->lim->max_string_len);
	f->sym = ps->text.n;
	f->nsym = e - s;
	buf_add(&ps->text, p + s, f->nsym);
	ps->nfr++;
	return 0;
}

/* "  FILE:LINE" after a frame (perf script -F +srcline): 1 if it was. */
static int
ps_srcline(struct perf_script *ps, const uint8_t *p, size_t n)
{
	struct ps_frame *f;
	size_t b = 0, e = n, c, i;
	int64_t line = 0;

	if (ps->nfr == 0 || !ps->chain || n < 3 || p[0] != ' ' || p[1] != ' ')
		return 0;
	while (b < e && ps_blank(p[b]))
		b++;
	while (e > b && ps_blank(p[e - 1]))
		e--;
	for (i = b; i < e; i++)
		if (ps_blank(p[i]))
			return 0;
	for (c = e; c > b && p[c - 1] != ':'; c--)
		;
	if (c <= b + 1)
		return 0;
	if (ps_number(p, c, e, 0, &line) == -1 && !(e - c == 1 &&
	    p[c] == '?'))
		return 0;
	f = &ps->fr[ps->nfr - 1];
	if (c - 1 - b > ps->lim->max_string_len)
		return perf_script_fail(ps, ERR_TOO_LARGE, b, NULL, 0, "a "
		    "file name longer than %u bytes (limit)",
		    ps->lim->max_string_len);
	if (!(c - 1 - b == 2 && memcmp(p + b, "??", 2) == 0)) {
		f->file = ps->text.n;
		f->nfile = c - 1 - b;
		buf_add(&ps->text, p + b, f->nfile);
		f->line = line;
	}
	return 1;
}

/* ctime(3)'s "Mon Dec  7 03:37:57 2026" in the local time zone (perf
 * script's; profd reads it in its own, the host's). */
static int
ps_ctime(const uint8_t *p, size_t n, int64_t *t)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	char s[40];
	struct tm tm;
	int day, h, m, sec, year, k;
	char mon[4];
	const char *at;
	time_t r;

	if (n >= sizeof s)
		return -1;
	memcpy(s, p, n);
	s[n] = '\0';
	if (sscanf(s, "%*3s %3s %d %d:%d:%d %d%n", mon, &day, &h, &m, &sec,
	    &year, &k) != 6 || (size_t)k != n || strlen(mon) != 3 ||
	    (at = strstr(months, mon)) == NULL || (at - months) % 3 != 0)
		return -1;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = year - 1900;
	tm.tm_mon = (int)((at - months) / 3);
	tm.tm_mday = day;
	tm.tm_hour = h;
	tm.tm_min = m;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	if (year < 1970 || year > 9999 || (r = mktime(&tm)) == (time_t)-1)
		return -1;
	*t = (int64_t)r;
	return 0;
}

/* A '#' line of perf script --header: the two times it may give. */
static void
ps_comment(struct perf_script *ps, const uint8_t *p, size_t n)
{
	size_t b, e, c;
	int64_t v;

	for (c = 1; c < n && p[c] != ':'; c++)
		;
	if (c == n)
		return;
	for (b = 1; b < c && p[b] == ' '; b++)
		;
	for (e = c; e > b && p[e - 1] == ' '; e--)
		;
	c++;
	while (c < n && ps_blank(p[c]))
		c++;
	while (n > c && ps_blank(p[n - 1]))
		n--;
	if (e - b == 11 && memcmp(p + b, "captured on", 11) == 0 &&
	    ps_ctime(p + c, n - c, &v) == 0) {
		ps->captured_s = v;
		ps->has_captured = 1;
	} else if (e - b == 19 && memcmp(p + b, "time of last sample", 19) ==
	    0 && n - c < 40) {
		uint8_t t[48];

		memcpy(t, p + c, n - c);
		t[n - c] = ':';
		if (ps_time(t, 0, n - c + 1, &v) == 0) {
			ps->last_ns = v;
			ps->has_last = 1;
		}
	}
}

/* The next line at *p, *len bytes without its '\n'; *take counts the '\n'
 * too and is 0 at the end of the input. */
static int
ps_next(struct perf_script *ps, const uint8_t **p, size_t *len, size_t *take)
{
	const uint8_t *nl;
	size_t want = PS_WINDOW, got, scanned = 0, i;
	int r;

	if (want > ps->maxline + 1)
		want = ps->maxline + 1;
	for (;;) {
		if (stream_peek(ps->in, want, p, &got, ps->err) == -1)
			return -1;
		if ((nl = memchr(*p + scanned, '\n', got - scanned)) != NULL) {
			*len = (size_t)(nl - *p);
			*take = *len + 1;
			break;
		}
		if (got < want || want > ps->maxline) {
			*len = *take = got;
			if (got > 0 && got <= ps->maxline)
				return perf_script_fail(ps, ERR_INPUT, got,
				    NULL, 0, "the text ends inside a line (no "
				    "newline after it): cut short");
			break;
		}
		scanned = got;
		want = want > ps->maxline / 2 ? ps->maxline + 1 : want * 2;
	}
	if (*len > ps->maxline)
		return perf_script_fail(ps, ERR_TOO_LARGE, 0, NULL, 0, "a line "
		    "longer than %zu bytes (limit: 4 times the longest "
		    "string)", ps->maxline);
	for (i = 0; i < *len; i += (size_t)r) {
		if ((*p)[i] == '\0')
			return perf_script_fail(ps, ERR_INPUT, i, NULL, 0,
			    "a NUL byte");
		if ((r = folded_utf8(*p + i, *len - i)) <= 0)
			return perf_script_fail(ps, ERR_INPUT, i, NULL, 0,
			    "invalid UTF-8");
	}
	return 0;
}

/* The open sample, if any, ended. */
static int
ps_close(struct perf_script *ps)
{
	if (!ps->open)
		return 0;
	ps->open = 0;
	return perf_script_end(ps);
}

/* One line, n bytes without its '\n' (and without a CR before it). */
static int
ps_line(struct perf_script *ps, const uint8_t *p, size_t n)
{
	struct ps_head h;
	size_t i;
	int r;

	for (i = 0; i < n && ps_blank(p[i]); i++)
		;
	if (i == n)			/* a blank line ends a sample */
		return ps_close(ps);
	if (p[0] == '\t') {
		if (!ps->open || (!ps->chain && ps->nfr > 0))
			return perf_script_fail(ps, ERR_INPUT, 0, p, n,
			    "a frame line outside a sample");
		ps->chain = 1;
		return ps_frame(ps, p, i, n);
	}
	if (p[0] == '#') {
		if (ps->began)
			return perf_script_fail(ps, ERR_INPUT, 0, p, n, "a "
			    "'#' line after the samples began");
		ps_comment(ps, p, n);
		return 0;
	}
	if (ps->open && ps->chain && (r = ps_srcline(ps, p, n)) != 0)
		return r == 1 ? 0 : -1;
	if (ps_head(p, n, &h) == -1)
		return perf_script_fail(ps, ERR_INPUT, 0, p, n, "not a sample "
		    "line (COMM PID[/TID] [CPU] [TIME:] [PERIOD] EVENT:), a "
		    "frame (a tab, ADDRESS SYMBOL (DSO)) or a blank line");
	if (ps->open && ps->chain)
		return perf_script_fail(ps, ERR_INPUT, 0, p, n, "a sample's "
		    "frames not ended by a blank line (the sample of line "
		    "%llu)", (unsigned long long)ps->open_line);
	if (ps_close(ps) == -1)
		return -1;
	ps->began = 1;
	if (h.record) {
		ps->records++;
		return 0;
	}
	ps->open = 1;
	ps->chain = 0;
	ps->open_line = ps->lineno;
	ps->nfr = 0;
	ps->text.n = 0;
	if (perf_script_begin(ps, p, &h) == -1)
		return -1;
	/* Without a call chain, the sample's own address follows. */
	for (i = h.rest; i < n && ps_blank(p[i]); i++)
		;
	if (i < n && ps_hex(p[i])) {
		size_t a = i;

		while (a < n && ps_hex(p[a]))
			a++;
		if (a == n || ps_blank(p[a]))
			return ps_frame(ps, p, i, n);
	}
	return 0;
}

int
perf_script_decode(struct stream *in, const struct decode_opts *opts,
    const struct limits *lim, const struct sink *sink, struct error *err)
{
	struct perf_script ps;
	const uint8_t *p;
	size_t len, take, n;
	uint64_t maxline;
	int rc = -1;

	(void)opts;
	memset(&ps, 0, sizeof ps);
	ps.in = in;
	ps.lim = lim;
	ps.sink = sink;
	ps.err = err;
	maxline = (uint64_t)lim->max_string_len * 4;
	ps.maxline = maxline < SIZE_MAX / 2 ? (size_t)maxline : SIZE_MAX / 2;
	/* Names are offsets into text: its buffer is never NULL. */
	buf_reserve(&ps.text, 1024);
	for (;;) {
		ps.lineno++;
		ps.off = stream_offset(in);
		if (ps_next(&ps, &p, &len, &take) == -1)
			goto out;
		if (take == 0)
			break;
		n = len > 0 && p[len - 1] == '\r' ? len - 1 : len;
		if (ps_line(&ps, p, n) == -1 ||
		    stream_take(in, take, &p, "perf script line", err) == -1)
			goto out;
	}
	ps.lineno--;
	if (ps.open && ps.chain) {
		perf_script_fail(&ps, ERR_INPUT, 0, NULL, 0, "the text ends "
		    "inside the sample of line %llu (perf ends each with a "
		    "blank line): cut short",
		    (unsigned long long)ps.open_line);
		goto out;
	}
	if (ps_close(&ps) == -1)
		goto out;
	if (ps.samples == 0) {
		error_set(err, ERR_INPUT, "perf-script: no samples in the "
		    "input (%llu lines)", (unsigned long long)ps.lineno);
		goto out;
	}
	rc = perf_script_finish(&ps);
out:
	perf_script_free(&ps);
	return rc;
}

/* The kind of a whole line of the head: 'h' a sample line, 'f' a frame,
 * 'b' blank, '#' a comment, 0 none of these. */
static int
ps_sniff_line(const uint8_t *p, size_t n)
{
	struct ps_head h;
	size_t i;

	if (n > 0 && p[n - 1] == '\r')
		n--;
	for (i = 0; i < n && ps_blank(p[i]); i++)
		;
	if (i == n)
		return 'b';
	if (p[0] == '#')
		return '#';
	if (p[0] == '\t')
		return ps_hex(p[i]) ? 'f' : 0;
	return ps_head(p, n, &h) == 0 ? 'h' : 0;
}

int
perf_script_sniff(const uint8_t *head, size_t n)
{
	const uint8_t *nl, *q;
	size_t i, start = 0, len;
	int r, k, heads = 0, perfhdr = 0;

	if (head == NULL || n == 0)
		return 0;
	for (i = 0; i < n; i += (size_t)r) {
		if ((head[i] < 0x20 && head[i] != '\t' && head[i] != '\n' &&
		    head[i] != '\r') || head[i] == 0x7f)
			return 0;
		if ((r = folded_utf8(head + i, n - i)) == 0)
			return 0;
		if (r == -1) {
			n = i;
			break;
		}
	}
	for (; start < n; start = (size_t)(nl - head) + 1) {
		q = head + start;
		if ((nl = memchr(q, '\n', n - start)) == NULL) {
			/* A short input's last line without its newline
			 * is refused by the decoder, which says why. */
			if (heads == 0 && n < FORMAT_SNIFF_BYTES)
				return ps_sniff_line(q, n - start) == 'h';
			break;
		}
		len = (size_t)(nl - q);
		k = ps_sniff_line(q, len);
		if (k == '#') {
			if (heads > 0)
				return 0;
			perfhdr |= (len >= 13 && memcmp(q, "# captured on",
			    13) == 0) || (len >= 14 && memcmp(q,
			    "# perf version", 14) == 0);
			continue;
		}
		if (k == 0 || (heads == 0 && k == 'f'))
			return 0;
		if (k == 'h' && heads == 0)
			heads = 1;
		else if (heads > 0 && k != 'b')
			return 1;
	}
	return heads > 0 || perfhdr;
}
