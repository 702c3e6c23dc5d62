/* progress.c: how far long work has come, said to a person: the phrase
 * for the import in flight of GET /v1/status (profctl status prints it,
 * profctl push's live line too) and that live line, redrawn in place on
 * a terminal.  No HTTP here. */
#include <sys/ioctl.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "profctl.h"

/* Redraws closer together than this are skipped: a terminal is read by
 * eyes, and a fast upload would otherwise print thousands of lines. */
#define PROGRESS_REDRAW_NS	100000000LL

/* A count as people read a large one: "950", "12.3 k", "1.2 M". */
const char *
progress_count(int64_t n, char *buf, size_t len)
{
	static const char *const prefix[] = { "k", "M", "G", "T" };
	double	 v = (double)n;
	size_t	 i;

	if (n < 1000 && n > -1000) {
		snprintf(buf, len, "%" PRId64, n);
		return buf;
	}
	for (i = 0, v /= 1000; (v >= 1000 || v <= -1000) &&
	    i + 1 < sizeof prefix / sizeof prefix[0]; i++)
		v /= 1000;
	snprintf(buf, len, "%.1f %s", v, prefix[i]);
	return buf;
}

/* Bytes as pprof's units say them, as all of profctl does: "27.04MB". */
const char *
progress_bytes(int64_t n, char *buf, size_t len)
{
	return units_scaled_label(n, "bytes", "auto", buf, len);
}

/* " (35%)" of done in total, "" when the total is not known.  In
 * doubles and clamped: the numbers are profd's reply, any int64. */
static void
progress_percent(int64_t done, int64_t total, char *buf, size_t len)
{
	buf[0] = '\0';
	if (total > 0)
		snprintf(buf, len, " (%d%%)", done <= 0 ? 0 : done >= total ?
		    100 : (int)((double)done * 100 / (double)total));
}

/* n over secs (> 0) as a whole rate, clamped into int64's range: a
 * conversion of a double past it is undefined. */
int64_t
progress_per_s(int64_t n, double secs)
{
	double	 r = (double)n / secs;

	if (!(r < 9e18))
		return INT64_C(9000000000000000000);
	if (!(r > -9e18))
		return -INT64_C(9000000000000000000);
	return (int64_t)r;
}

/* The import in flight's progress (the importing member of /v1/status):
 * "1.2 M of 3.4 M samples (35%), 160.2 k samples/s" where the decoder
 * knew its samples ahead (pprof), else the bytes of its input: "30MB of
 * 40MB (75%), 8.10MB/s, 1.2 M samples"; "storing 720.0 k samples"
 * at the end.  Rates are since the import began. */
const char *
progress_import(json_t *cur, char *buf, size_t len)
{
	char		 a[UNITS_LABEL_MAX], b[UNITS_LABEL_MAX];
	char		 r[UNITS_LABEL_MAX], pc[16];
	const char	*phase;
	int64_t		 bd, bt, sd, st;
	double		 secs;

	phase = json_string_value(json_object_get(cur, "phase"));
	bd = render_get_int(cur, "bytes_done");
	bt = json_is_integer(json_object_get(cur, "bytes_total")) ?
	    render_get_int(cur, "bytes_total") : -1;
	sd = render_get_int(cur, "samples_done");
	st = json_is_integer(json_object_get(cur, "samples_total")) ?
	    render_get_int(cur, "samples_total") : -1;
	secs = json_number_value(json_object_get(cur, "seconds"));
	if (phase != NULL && strcmp(phase, "storing") == 0) {
		snprintf(buf, len, "storing %s samples",
		    progress_count(sd, a, sizeof a));
		return buf;
	}
	if (st > 0 && phase != NULL && strcmp(phase, "samples") == 0) {
		progress_percent(sd, st, pc, sizeof pc);
		snprintf(buf, len, "%s of %s samples%s", progress_count(sd, a,
		    sizeof a), progress_count(st, b, sizeof b), pc);
		if (secs > 0.5) {
			progress_count(progress_per_s(sd, secs), r,
			    sizeof r);
			snprintf(buf + strlen(buf), len - strlen(buf),
			    ", %s samples/s", r);
		}
		return buf;
	}
	progress_percent(bd, bt, pc, sizeof pc);
	progress_bytes(bd, a, sizeof a);
	if (bt >= 0)
		snprintf(buf, len, "%s of %s%s", a, progress_bytes(bt, b,
		    sizeof b), pc);
	else
		snprintf(buf, len, "%s", a);
	if (secs > 0.5) {
		progress_bytes(progress_per_s(bd, secs), r, sizeof r);
		snprintf(buf + strlen(buf), len - strlen(buf), ", %s/s", r);
	}
	if (sd > 0)
		snprintf(buf + strlen(buf), len - strlen(buf), ", %s samples",
		    progress_count(sd, a, sizeof a));
	return buf;
}

int64_t
progress_now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Columns the line may take: one less than the terminal has (a line that
 * fills it wraps on some terminals, and a wrapped line cannot be redrawn
 * in place), PROGRESS_WIDTH where that is not known. */
static int
progress_width(FILE *f)
{
	struct winsize	 ws;

	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		return ws.ws_col - 1 < PROGRESS_LINE_MAX - 1 ?
		    ws.ws_col - 1 : PROGRESS_LINE_MAX - 1;
	return PROGRESS_WIDTH;
}

/* Redraw the live line with what fmt says, unless it is off or was drawn
 * less than PROGRESS_REDRAW_NS ago (force: draw anyway), cut to the
 * terminal's width. */
void
progress_show(struct progress *p, int force, const char *fmt, ...)
{
	char	 raw[PROGRESS_LINE_MAX], *line;
	va_list	 ap;
	int64_t	 now;
	size_t	 n;

	if (!p->on)
		return;
	now = progress_now_ns();
	if (!force && p->drawn_ns != 0 && now - p->drawn_ns <
	    PROGRESS_REDRAW_NS)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	/* A file's name and profd's words in it: shown, never obeyed, cut
	 * to the columns there are, never in a character. */
	line = termsafe(raw, 0);
	n = termsafe_fit(line, (size_t)progress_width(p->f));
	line[n] = '\0';
	if (strcmp(line, p->last) == 0) {
		free(line);
		return;
	}
	snprintf(p->last, sizeof p->last, "%s", line);
	p->drawn_ns = now;
	/* \r and "erase to the end of the line": the old text goes. */
	fprintf(p->f, "\r\033[K%s", line);
	fflush(p->f);
	free(line);
}

/* The line erased, before what is printed for good. */
void
progress_clear(struct progress *p)
{
	if (!p->on || p->last[0] == '\0')
		return;
	fputs("\r\033[K", p->f);
	fflush(p->f);
	p->last[0] = '\0';
	p->drawn_ns = 0;
}
