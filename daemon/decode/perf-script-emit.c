/* perf-script-emit.c: the samples perf-script.c reads, made sink calls.
 *
 * - Metric: one per event, named as perf names it without modifiers
 *   ("cpu-clock:ppp" is cpu-clock, "cycles:u" cycles).  Where perf prints
 *   the period, a sample's value is its period: nanoseconds for cpu-clock
 *   and task-clock, count for every other event (cycles, instructions,
 *   cache misses, page faults: events counted); where it does not, each
 *   sample is 1 of the unit "samples".  The first event read is the
 *   default metric.
 * - Labels: comm (a string), pid, tid and cpu (numbers) as the sample
 *   line gives them.
 * - Frames: a symbol is a function (its "+0xOFF" dropped), a DSO a
 *   mapping (its file); "[unknown]" is neither, so an unresolved frame
 *   keeps its address and its DSO's mapping as pprof keeps unsymbolized
 *   locations, and is named by its mapping ("[libc.so.6]") in the views.
 *   An inlined frame takes the mapping of the frame it was inlined into
 *   and FRAME_INLINED.
 * - Time: perf prints a sample's time in seconds of its clock, the time
 *   since boot by default.  Times past 10^9 s are taken as Unix times
 *   (perf record -k CLOCK_REALTIME).  Others are placed so that the last
 *   sample is at the file's time ("# captured on" with "# time of last
 *   sample" of perf script --header; perf prints the perf.data file's
 *   modification time, in the local time zone, which profd reads in its
 *   own), else at the time of the import; never after the import's
 *   time.  So samples are kept until the end of the text, when the
 *   times are known: 48 bytes a sample, where its text took some 200. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "clock.h"
#include "folded.h"
#include "perf-script-int.h"

/* Perf clocks past this are Unix times, not times since a boot. */
#define PS_UNIX_NS	(1000000000ll * 1000000000ll)

int
perf_script_fail(struct perf_script *ps, enum error_kind kind, size_t col,
    const uint8_t *text, size_t n, const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return folded_error(ps->err, kind, "perf-script", ps->lineno,
	    ps->off + col, ps->lim->no_quote ? NULL : text, n, what);
}

static int
ps_sink_fail(struct perf_script *ps, const char *what)
{
	if (ps->err->kind != ERR_NONE)
		return -1;
	return error_set(ps->err, ERR_INTERNAL, "perf-script: line %llu: "
	    "sink %s failed", (unsigned long long)ps->lineno, what);
}

static struct mstr
ps_mstr(const uint8_t *p, size_t n)
{
	struct mstr m = { (const char *)p, n };

	return m;
}

static int
ps_metric(struct perf_script *ps, const uint8_t *line,
    const struct ps_head *h)
{
	struct mstr type = ps_mstr(line + h->ev_b, h->ev_e - h->ev_b), unit;
	struct buf key = { 0 };
	int64_t id;

	if (!(h->has & PS_PERIOD))
		unit = MSTR_LIT("samples");
	else if (mstr_eqs(type, "cpu-clock") || mstr_eqs(type, "task-clock"))
		unit = MSTR_LIT("nanoseconds");
	else
		unit = MSTR_LIT("count");
	buf_add(&key, type.p, type.n);
	buf_add(&key, "", 1);
	buf_add(&key, unit.p, unit.n);
	if ((id = hmap_get(&ps->metrics, key.p, key.n)) == 0) {
		if (type.n > ps->lim->max_string_len) {
			buf_free(&key);
			return perf_script_fail(ps, ERR_TOO_LARGE, h->ev_b,
			    NULL, 0, "an event name longer than %u bytes "
			    "(limit)", ps->lim->max_string_len);
		}
		if (ps->sink->metric(ps->sink->ctx, type, unit, ps->err) ==
		    -1) {
			buf_free(&key);
			return ps_sink_fail(ps, "metric");
		}
		id = (int64_t)++ps->nmetrics;
		hmap_put(&ps->metrics, key.p, key.n, id);
		ps->values = xreallocarray(ps->values, ps->nmetrics,
		    sizeof *ps->values);
	}
	buf_free(&key);
	ps->cur.metric = (size_t)id - 1;
	return 0;
}

static int
ps_labelset(struct perf_script *ps, const uint8_t *line,
    const struct ps_head *h)
{
	struct model_label l[4];
	struct buf key = { 0 };
	int64_t nums[4] = { h->has, h->pid, h->tid, h->cpu }, id;
	size_t n = 0;

	buf_add(&key, nums, sizeof nums);
	buf_add(&key, line + h->comm_b, h->comm_e - h->comm_b);
	if ((id = hmap_get(&ps->labelsets, key.p, key.n)) == 0) {
		memset(l, 0, sizeof l);
		l[n].key = MSTR_LIT("comm");
		l[n++].str = ps_mstr(line + h->comm_b, h->comm_e - h->comm_b);
		if (h->has & PS_PID) {
			l[n].key = MSTR_LIT("pid");
			l[n].is_num = 1;
			l[n++].num = h->pid;
		}
		if (h->has & PS_TID) {
			l[n].key = MSTR_LIT("tid");
			l[n].is_num = 1;
			l[n++].num = h->tid;
		}
		if (h->has & PS_CPU) {
			l[n].key = MSTR_LIT("cpu");
			l[n].is_num = 1;
			l[n++].num = h->cpu;
		}
		id = ps->sink->labelset(ps->sink->ctx, l, n, ps->err);
		if (id <= 0) {
			buf_free(&key);
			return ps_sink_fail(ps, "labelset");
		}
		hmap_put(&ps->labelsets, key.p, key.n, id);
	}
	buf_free(&key);
	ps->cur.labelset = id;
	return 0;
}

int
perf_script_begin(struct perf_script *ps, const uint8_t *line,
    const struct ps_head *h)
{
	memset(&ps->cur, 0, sizeof ps->cur);
	if (ps_metric(ps, line, h) == -1 || ps_labelset(ps, line, h) == -1)
		return -1;
	ps->cur.value = h->has & PS_PERIOD ? h->period : 1;
	ps->cur.timed = (h->has & PS_TIME) != 0;
	ps->cur.time_ns = h->time_ns;
	return 0;
}

/* "[unknown]" is what perf prints for a symbol or DSO it has not. */
static int
ps_known(const uint8_t *p, size_t n)
{
	return n > 0 && !(n == 9 && memcmp(p, "[unknown]", 9) == 0);
}

static int64_t
ps_mapping(struct perf_script *ps, const struct ps_frame *f)
{
	const uint8_t *dso = ps->text.p + f->dso;
	struct model_mapping m;
	int64_t id;

	if (!ps_known(dso, f->ndso))
		return 0;
	if ((id = hmap_get(&ps->mappings, dso, f->ndso)) != 0)
		return id;
	memset(&m, 0, sizeof m);
	m.file = ps_mstr(dso, f->ndso);
	m.build_id = MSTR_LIT("");
	if ((id = ps->sink->mapping(ps->sink->ctx, &m, ps->err)) <= 0)
		return ps_sink_fail(ps, "mapping");
	hmap_put(&ps->mappings, dso, f->ndso, id);
	return id;
}

static int64_t
ps_function(struct perf_script *ps, const struct ps_frame *f)
{
	const uint8_t *sym = ps->text.p + f->sym;
	struct model_function fn;
	struct buf key = { 0 };
	int64_t id;

	if (!ps_known(sym, f->nsym))
		return 0;
	buf_add(&key, sym, f->nsym);
	buf_add(&key, "", 1);
	buf_add(&key, ps->text.p + f->file, f->nfile);
	if ((id = hmap_get(&ps->functions, key.p, key.n)) == 0) {
		memset(&fn, 0, sizeof fn);
		fn.name = fn.system_name = ps_mstr(sym, f->nsym);
		fn.file = ps_mstr(ps->text.p + f->file, f->nfile);
		if (f->nfile == 0)
			fn.file = MSTR_LIT("");
		id = ps->sink->function(ps->sink->ctx, &fn, ps->err);
		if (id <= 0)
			id = ps_sink_fail(ps, "function");
		else
			hmap_put(&ps->functions, key.p, key.n, id);
	}
	buf_free(&key);
	return id;
}

static int64_t
ps_frame_id(struct perf_script *ps, const struct ps_frame *f,
    int64_t mapping)
{
	struct model_frame fr;
	int64_t key[5], id;

	memset(&fr, 0, sizeof fr);
	if ((fr.function = ps_function(ps, f)) < 0)
		return -1;
	fr.mapping = mapping;
	fr.address = f->addr;
	fr.line = f->line;
	fr.flags = f->inlined ? FRAME_INLINED : 0;
	key[0] = fr.function;
	key[1] = fr.mapping;
	key[2] = (int64_t)fr.address;
	key[3] = fr.line;
	key[4] = (int64_t)fr.flags;
	if ((id = hmap_get(&ps->frames, key, sizeof key)) != 0)
		return id;
	if ((id = ps->sink->frame(ps->sink->ctx, &fr, ps->err)) <= 0)
		return ps_sink_fail(ps, "frame");
	hmap_put(&ps->frames, key, sizeof key, id);
	return id;
}

int
perf_script_end(struct perf_script *ps)
{
	size_t i, j;
	int64_t m;

	if (ps->nfr > ps->idcap) {
		ps->idcap = ps->nfr;
		ps->ids = xreallocarray(ps->ids, ps->idcap, sizeof *ps->ids);
	}
	for (i = 0; i < ps->nfr; i++) {
		/* An inlined frame is at its caller's address and DSO. */
		for (j = i; j + 1 < ps->nfr && ps->fr[j].inlined; j++)
			;
		if ((m = ps_mapping(ps, &ps->fr[j])) < 0 ||
		    (ps->ids[i] = ps_frame_id(ps, &ps->fr[i], m)) < 0)
			return -1;
	}
	ps->cur.stack = 0;
	if (ps->nfr > 0 && (ps->cur.stack = ps->sink->stack(ps->sink->ctx,
	    ps->ids, ps->nfr, ps->err)) <= 0)
		return ps_sink_fail(ps, "stack");
	if (ps->nkept == ps->keptcap) {
		ps->keptcap = ps->keptcap ? ps->keptcap * 2 : 1024;
		ps->kept = xreallocarray(ps->kept, ps->keptcap,
		    sizeof *ps->kept);
	}
	ps->kept[ps->nkept++] = ps->cur;
	ps->samples++;
	return 0;
}

/* What is added to a perf clock time to make it a Unix time. */
static int64_t
ps_offset(const struct perf_script *ps, int64_t tmax)
{
	int64_t now = now_ns(), off;

	if (tmax >= PS_UNIX_NS)
		return 0;
	if (ps->has_captured && ps->has_last &&
	    ps->captured_s < INT64_MAX / 1000000000)
		off = ps->captured_s * 1000000000 - ps->last_ns;
	else
		off = now - tmax;
	/* A time zone other than the one perf printed it in, or a copied
	 * file, must not place samples in the future. */
	return tmax + off > now ? now - tmax : off;
}

int
perf_script_finish(struct perf_script *ps)
{
	struct model_sample s;
	struct model_meta meta;
	struct model_count count = { "records_skipped", ps->records };
	int64_t tmin = INT64_MAX, tmax = INT64_MIN, off = 0;
	size_t i;

	for (i = 0; i < ps->nkept; i++)
		if (ps->kept[i].timed) {
			if (ps->kept[i].time_ns < tmin)
				tmin = ps->kept[i].time_ns;
			if (ps->kept[i].time_ns > tmax)
				tmax = ps->kept[i].time_ns;
		}
	if (tmax != INT64_MIN)
		off = ps_offset(ps, tmax);
	memset(ps->values, 0, ps->nmetrics * sizeof *ps->values);
	for (i = 0; i < ps->nkept; i++) {
		const struct ps_sample *k = &ps->kept[i];

		memset(&s, 0, sizeof s);
		s.stack = k->stack;
		s.labelset = k->labelset;
		ps->values[k->metric] = k->value;
		s.values = ps->values;
		s.nvalues = ps->nmetrics;
		if (k->timed && k->time_ns + off > 0)
			s.time_ns = k->time_ns + off;
		if (ps->sink->sample(ps->sink->ctx, &s, ps->err) == -1)
			return ps_sink_fail(ps, "sample");
		ps->values[k->metric] = 0;
	}
	memset(&meta, 0, sizeof meta);
	if (tmax != INT64_MIN && tmin + off > 0) {
		meta.time_ns = tmin + off;
		meta.duration_ns = tmax - tmin;
	}
	meta.period_type = meta.period_unit = meta.doc_url = MSTR_LIT("");
	meta.default_metric = 0;
	meta.samples = ps->samples;
	if (ps->records > 0) {
		meta.counts = &count;
		meta.ncounts = 1;
	}
	if (ps->sink->meta(ps->sink->ctx, &meta, ps->err) == -1)
		return ps_sink_fail(ps, "meta");
	return 0;
}

void
perf_script_free(struct perf_script *ps)
{
	hmap_clear(&ps->functions);
	hmap_clear(&ps->mappings);
	hmap_clear(&ps->frames);
	hmap_clear(&ps->metrics);
	hmap_clear(&ps->labelsets);
	buf_free(&ps->text);
	free(ps->fr);
	free(ps->ids);
	free(ps->kept);
	free(ps->values);
}
