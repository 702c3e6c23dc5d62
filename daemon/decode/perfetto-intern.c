/* perfetto-intern.c: each packet sequence's incremental state: the
 * entries interned by iid (strings, frames, mappings, callstacks, task and
 * execution contexts, counter descriptors) and the PerfSample defaults,
 * valid from a clear until the next clear or loss. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "hmap.h"
#include "mstr.h"
#include "nitems.h"
#include "pb.h"
#include "perfetto-int.h"
#include "perfetto.h"

/* ---- sequences and interned state ---- */

void
pft_seq_reset(struct pft *d, struct pft_seq *s)
{
	int k;

	for (k = 0; k < PK_N; k++) {
		hmap_clear(&s->idx[k]);
		free(s->dense[k]);
		s->dense[k] = NULL;
		s->ndense[k] = s->nkind[k] = 0;
	}
	free(s->ents);
	s->ents = NULL;
	s->nents = s->entcap = 0;
	free(s->cs_sink);
	s->cs_sink = NULL;
	s->ncs_sink = 0;
	buf_free(&s->bytes);
	free(s->ids.v);
	memset(&s->ids, 0, sizeof s->ids);
	d->statemem -= s->mem;
	s->mem = 0;
	s->epoch++;
	s->tb_name[0] = '\0';
	s->tb_unit = NULL;
	s->tb_metric = 0;
}

void
pft_seq_free(struct pft *d, struct pft_seq *s)
{
	if (s == NULL)
		return;
	pft_seq_reset(d, s);
	free(s);
}

int
pft_seq_get(struct pft *d, uint32_t id, struct pft_seq **out)
{
	struct pft_seq *s;
	int64_t v;

	if (d->last != NULL && d->last->id == id) {
		*out = d->last;
		return 0;
	}
	if ((v = hmap_get(&d->seqidx, &id, sizeof id)) != 0) {
		*out = d->last = d->seqs[v - 1];
		return 0;
	}
	if (d->nseqs == PFT_MAX_SEQUENCES)
		return error_set(d->err, ERR_TOO_LARGE, "perfetto: more than "
		    "%d packet sequences (limit) at byte %llu",
		    PFT_MAX_SEQUENCES, (unsigned long long)d->pd.base);
	s = xcalloc(1, sizeof *s);
	s->id = id;
	d->seqs = xreallocarray(d->seqs, d->nseqs + 1, sizeof *d->seqs);
	d->seqs[d->nseqs++] = s;
	hmap_put(&d->seqidx, &id, sizeof id, (int64_t)d->nseqs);
	*out = d->last = s;
	return 0;
}

static int
pft_account(struct pft *d, struct pft_seq *s, size_t bytes, uint64_t off)
{
	s->mem += bytes;
	d->statemem += bytes;
	if (d->statemem > PFT_MAX_STATE)
		return error_set(d->err, ERR_TOO_LARGE, "perfetto: interned "
		    "state passes %u bytes (limit) at byte %llu", PFT_MAX_STATE,
		    (unsigned long long)(d->pd.base + off));
	return 0;
}

/* Where a new entry's index goes: the dense array while the iid is
 * within twice the entries of its kind plus some slack (so a hostile iid
 * cannot make it large), else the hash map. */
static int
pft_slot(struct pft *d, struct pft_seq *s, enum pft_kind k, uint64_t iid,
    int64_t v, uint64_t off)
{
	size_t n;

	if (iid >= s->ndense[k] &&
	    iid < 2 * s->nkind[k] + PFT_DENSE_SLACK) {
		n = s->ndense[k] ? s->ndense[k] : 256;
		while (n <= iid)
			n *= 2;
		s->dense[k] = xreallocarray(s->dense[k], n,
		    sizeof *s->dense[k]);
		memset(s->dense[k] + s->ndense[k], 0,
		    (n - s->ndense[k]) * sizeof *s->dense[k]);
		if (pft_account(d, s, (n - s->ndense[k]) *
		    sizeof *s->dense[k], off) == -1)
			return -1;
		s->ndense[k] = n;
	}
	s->nkind[k]++;
	if (iid < s->ndense[k]) {
		s->dense[k][iid] = (uint32_t)v;
		return 0;
	}
	hmap_put(&s->idx[k], &iid, sizeof iid, v);
	return pft_account(d, s, 2 * sizeof(struct hmap_slot), off);
}

/* Remember the sink stack of a callstack in the dense range (see
 * pft_cs_cached); the array follows the dense one's size. */
int
pft_cs_cache(struct pft *d, struct pft_seq *s, uint64_t iid, int64_t id,
    uint64_t off)
{
	size_t n = s->ndense[PK_CALLSTACK];

	if (iid >= n)
		return 0;
	if (s->cs_epoch != s->epoch) {
		if (s->ncs_sink > 0)
			memset(s->cs_sink, 0, s->ncs_sink * sizeof *s->cs_sink);
		s->cs_epoch = s->epoch;
	}
	if (n > s->ncs_sink) {
		s->cs_sink = xreallocarray(s->cs_sink, n, sizeof *s->cs_sink);
		memset(s->cs_sink + s->ncs_sink, 0,
		    (n - s->ncs_sink) * sizeof *s->cs_sink);
		if (pft_account(d, s, (n - s->ncs_sink) * sizeof *s->cs_sink,
		    off) == -1)
			return -1;
		s->ncs_sink = n;
	}
	s->cs_sink[iid] = id + 1;
	return 0;
}

/* Store an entry under (kind, iid); iid 0 means "not set" and names
 * nothing, so such entries are dropped. */
static int
pft_put(struct pft *d, struct pft_seq *s, enum pft_kind k, uint64_t iid,
    const struct pft_ent *e, uint64_t off)
{
	int64_t v;

	if (iid == 0)
		return 0;
	if ((v = pft_find(s, k, iid)) != 0) {
		/* A redefinition: cached resolutions may be stale. */
		s->ents[v - 1] = *e;
		s->epoch++;
		return 0;
	}
	if (s->nents >= d->limits->max_strings)
		return error_set(d->err, ERR_TOO_LARGE, "perfetto: sequence %u "
		    "interns more than %u entries (limit) at byte %llu", s->id,
		    d->limits->max_strings,
		    (unsigned long long)(d->pd.base + off));
	if (s->nents == s->entcap) {
		s->entcap = s->entcap ? s->entcap * 2 : 64;
		s->ents = xreallocarray(s->ents, s->entcap, sizeof *s->ents);
	}
	s->ents[s->nents++] = *e;
	if (pft_slot(d, s, k, iid, (int64_t)s->nents, off) == -1)
		return -1;
	return pft_account(d, s, sizeof *e, off);
}

static size_t
pft_seq_keep(struct pft_seq *s, struct mstr m)
{
	size_t off = s->bytes.n;

	buf_add(&s->bytes, m.p, m.n);
	return off;
}

static int
pft_intern_string(struct pft *d, struct pft_seq *s, enum pft_kind k,
    const struct pb *c, const struct pb_field *f)
{
	struct pft_ent e;
	struct pb_field g;
	struct pb sub;
	uint64_t iid = 0;
	struct mstr str = { "", 0 };
	int r;

	memset(&e, 0, sizeof e);
	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, "InternedString")) == 1) {
		if (g.num == 1) {
			if (pb_dec_want(&d->pd, &g, PB_VARINT,
			    "InternedString") == -1)
				return -1;
			iid = g.v;
		} else if (g.num == 2) {
			if (pb_dec_want(&d->pd, &g, PB_LEN,
			    "InternedString") == -1)
				return -1;
			str = (struct mstr){ (const char *)g.data, g.len };
		}
	}
	if (r == -1)
		return -1;
	if (str.n > d->limits->max_string_len)
		return error_set(d->err, ERR_TOO_LARGE, "perfetto: interned "
		    "string at byte %llu has %zu bytes (limit %u)",
		    (unsigned long long)(d->pd.base + f->off), str.n,
		    d->limits->max_string_len);
	if (iid == 0)
		return 0;
	e.u.str.off = pft_seq_keep(s, str);
	e.u.str.len = str.n;
	if (pft_account(d, s, str.n, f->off) == -1)
		return -1;
	return pft_put(d, s, k, iid, &e, f->off);
}

/* Varint fields 1..max of a small message, into v[]; others skipped. */
int
pft_varints(struct pft *d, const struct pb *c, const struct pb_field *f,
    uint64_t *v, unsigned *has, unsigned max, const char *what)
{
	struct pb_field g;
	struct pb sub;
	int r;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, what)) == 1) {
		if (g.num > max)
			continue;
		if (pb_dec_want(&d->pd, &g, PB_VARINT, what) == -1)
			return -1;
		v[g.num] = g.v;
		*has |= 1u << g.num;
	}
	return r;
}

static int
pft_intern_frame(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	uint64_t v[7] = { 0 };
	unsigned has = 0;
	struct pft_ent e;

	if (pft_varints(d, c, f, v, &has, 6, "Frame") == -1)
		return -1;
	memset(&e, 0, sizeof e);
	e.u.frame.name = v[2];
	e.u.frame.mapping = v[3];
	e.u.frame.pc = v[4];
	e.u.frame.src = v[5];
	e.u.frame.line = v[6];
	return pft_put(d, s, PK_FRAME, v[1], &e, f->off);
}

static int
pft_intern_task(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	uint64_t v[5] = { 0 };
	unsigned has = 0;
	struct pft_ent e;

	if (pft_varints(d, c, f, v, &has, 4, "TaskContext") == -1)
		return -1;
	memset(&e, 0, sizeof e);
	e.u.task.pid = v[2];
	e.u.task.tid = v[3];
	e.u.task.async = v[4];
	e.u.task.has = (has & (1u << 2) ? TASK_PID : 0) |
	    (has & (1u << 3) ? TASK_TID : 0) |
	    (has & (1u << 4) ? TASK_ASYNC : 0);
	return pft_put(d, s, PK_TASK, v[1], &e, f->off);
}

static int
pft_intern_exec(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	uint64_t v[4] = { 0 };
	unsigned has = 0;
	struct pft_ent e;

	if (pft_varints(d, c, f, v, &has, 3, "ExecutionContext") == -1)
		return -1;
	memset(&e, 0, sizeof e);
	e.u.exec.cpu = v[2];
	e.u.exec.mode = v[3];
	e.u.exec.has = (has & (1u << 2) ? EXEC_CPU : 0) |
	    (has & (1u << 3) ? EXEC_MODE : 0);
	return pft_put(d, s, PK_EXEC, v[1], &e, f->off);
}

/* Callstack (iid = 1, frame_ids = 2) or Mapping (path_string_ids = 7):
 * messages with one repeated varint field kept in the id arena. */
static int
pft_intern_ids(struct pft *d, struct pft_seq *s, enum pft_kind k,
    const struct pb *c, const struct pb_field *f)
{
	const char *what = k == PK_CALLSTACK ? "Callstack" : "Mapping";
	uint32_t idsnum = k == PK_CALLSTACK ? 2 : 7;
	uint64_t v[9] = { 0 };
	struct pb_field g;
	struct pft_ent e;
	struct pb sub;
	size_t first = s->ids.n;
	int r;

	memset(&e, 0, sizeof e);
	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, what)) == 1) {
		if (g.num == idsnum) {
			if (pb_dec_repeated(&d->pd, &sub, &g, &s->ids,
			    what) == -1)
				return -1;
			continue;
		}
		if (g.num >= NITEMS(v))
			continue;
		if (pb_dec_want(&d->pd, &g, PB_VARINT, what) == -1)
			return -1;
		v[g.num] = g.v;
	}
	if (r == -1)
		return -1;
	if (k == PK_CALLSTACK) {
		e.u.cs.ids = first;
		e.u.cs.nids = s->ids.n - first;
	} else {
		e.u.map.ids = first;
		e.u.map.nids = s->ids.n - first;
		e.u.map.build_id = v[2];
		e.u.map.start = v[4];
		e.u.map.end = v[5];
		/* exact_offset is the offset of this mapping in the file,
		 * which is what pprof's file_offset means. */
		e.u.map.offset = v[8] != 0 ? v[8] : v[3];
	}
	if (pft_account(d, s, (s->ids.n - first) * sizeof(uint64_t),
	    f->off) == -1)
		return -1;
	return pft_put(d, s, k, v[1], &e, f->off);
}

/* CounterDescriptor: iid, name, unit | unit_str, unit_multiplier. */
int
pft_counter_parse(struct pft *d, const struct pb *c, const struct pb_field *f,
    uint64_t *iid, struct pft_ctr *out)
{
	struct pb_field g;
	struct pb sub;
	int r;

	memset(out, 0, sizeof *out);
	out->name = out->unit_str = (struct mstr){ "", 0 };
	out->mult = 1;
	*iid = 0;
	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, "CounterDescriptor")) == 1) {
		switch (g.num) {
		case 1:
		case 3:
		case 5:
			if (pb_dec_want(&d->pd, &g, PB_VARINT,
			    "CounterDescriptor") ==
			    -1)
				return -1;
			if (g.num == 1)
				*iid = g.v;
			else if (g.num == 3) {
				out->unit_enum = g.v;
				out->has_unit_str = 0;
			} else
				out->mult = g.v != 0 ? g.v : 1;
			break;
		case 2:
		case 4:
			if (pb_dec_want(&d->pd, &g, PB_LEN,
			    "CounterDescriptor") == -1)
				return -1;
			if (g.num == 2)
				out->name = (struct mstr){
				    (const char *)g.data, g.len };
			else {
				out->unit_str = (struct mstr){
				    (const char *)g.data, g.len };
				out->has_unit_str = 1;
			}
			break;
		default:
			break;
		}
	}
	return r;
}

static int
pft_intern_counter(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	struct pft_ctr ctr;
	struct pft_ent e;
	uint64_t iid;

	if (pft_counter_parse(d, c, f, &iid, &ctr) == -1)
		return -1;
	if (iid == 0)
		return 0;
	memset(&e, 0, sizeof e);
	e.u.ctr.name = pft_seq_keep(s, ctr.name);
	e.u.ctr.namelen = ctr.name.n;
	e.u.ctr.unit = pft_seq_keep(s, ctr.unit_str);
	e.u.ctr.unitlen = ctr.unit_str.n;
	e.u.ctr.has_unit_str = ctr.has_unit_str;
	e.u.ctr.unit_enum = ctr.unit_enum;
	e.u.ctr.mult = ctr.mult;
	if (pft_account(d, s, ctr.name.n + ctr.unit_str.n, f->off) == -1)
		return -1;
	return pft_put(d, s, PK_COUNTER, iid, &e, f->off);
}

int
pft_interned(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	struct pb_field g;
	struct pb sub;
	int r, rc;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, "InternedData")) == 1) {
		switch (g.num) {
		case 5:
		case 6:
		case 7:
		case 16:
		case 17:
		case 18:
		case 19:
		case 48:
		case 49:
		case 50:
			break;
		/* The numbers upstream's StackSampleInternedData extension
		 * gives the same three tables. */
		case 2000:
		case 2001:
		case 2002:
			break;
		default:
			continue;
		}
		if (pb_dec_want(&d->pd, &g, PB_LEN, "InternedData") == -1)
			return -1;
		switch (g.num >= 2000 ? g.num - 2000 + 48 : g.num) {
		case 5:
			rc = pft_intern_string(d, s, PK_FUNCTION_NAME, &sub,
			    &g);
			break;
		case 16:
			rc = pft_intern_string(d, s, PK_BUILD_ID, &sub, &g);
			break;
		case 17:
			rc = pft_intern_string(d, s, PK_MAPPING_PATH, &sub, &g);
			break;
		case 18:
			rc = pft_intern_string(d, s, PK_SOURCE_PATH, &sub, &g);
			break;
		case 6:
			rc = pft_intern_frame(d, s, &sub, &g);
			break;
		case 7:
			rc = pft_intern_ids(d, s, PK_CALLSTACK, &sub, &g);
			break;
		case 19:
			rc = pft_intern_ids(d, s, PK_MAPPING, &sub, &g);
			break;
		case 48:
			rc = pft_intern_task(d, s, &sub, &g);
			break;
		case 49:
			rc = pft_intern_exec(d, s, &sub, &g);
			break;
		default:
			rc = pft_intern_counter(d, s, &sub, &g);
			break;
		}
		if (rc == -1)
			return -1;
	}
	return r;
}

/* ---- PerfSample defaults (TracePacketDefaults.perf_sample_defaults) ---- */

static const char *
pft_perf_counter_name(uint64_t c)
{
	static const char *names[] = {
		NULL, "cpu-clock", "page-faults", "task-clock",
		"context-switches", "cpu-migrations", "minor-faults",
		"major-faults", "alignment-faults", "emulation-faults",
		"cpu-cycles", "instructions", "cache-references",
		"cache-misses", "branch-instructions", "branch-misses",
		"bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles", "dummy",
	};

	return c < NITEMS(names) ? names[c] : NULL;
}

/* PerfEvents.Tracepoint.name (1). */
static int
pft_tracepoint(struct pft *d, const struct pb *c, const struct pb_field *f,
    struct mstr *name)
{
	struct pb_field g;
	struct pb sub;
	int r;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, "Tracepoint")) == 1)
		if (g.num == 1 && g.wt == PB_LEN)
			*name = (struct mstr){ (const char *)g.data, g.len };
	return r;
}

int
pft_defaults(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	struct pb_field g, h, t;
	struct pb sub, psd, tb;
	struct mstr name = { "", 0 }, tpname = { "", 0 };
	const char *cname = NULL, *unit = "count";
	char buf[PFT_MAX_NAME];
	struct mstr m;
	int r;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g,
	    "TracePacketDefaults")) == 1) {
		if (g.num != 12)
			continue;
		if (pb_dec_want(&d->pd, &g, PB_LEN, "PerfSampleDefaults") == -1)
			return -1;
		pb_sub(&sub, &g, &psd);
		while ((r = pb_dec_next(&d->pd, &psd, &h,
		    "PerfSampleDefaults")) == 1) {
			if (h.num != 1)
				continue;
			if (pb_dec_want(&d->pd, &h, PB_LEN, "Timebase") == -1)
				return -1;
			pb_sub(&psd, &h, &tb);
			while ((r = pb_dec_next(&d->pd, &tb, &t,
			    "Timebase")) == 1) {
				if (t.num == 10 && t.wt == PB_LEN)
					name = (struct mstr){
					    (const char *)t.data, t.len };
				else if (t.num == 4 && t.wt == PB_VARINT) {
					cname = pft_perf_counter_name(t.v);
					if (t.v == 1 || t.v == 3)
						unit = "nanoseconds";
				} else if (t.num == 3 && t.wt == PB_LEN &&
				    pft_tracepoint(d, &tb, &t, &tpname) == -1)
					return -1;
			}
			if (r == -1)
				return -1;
		}
		if (r == -1)
			return -1;
	}
	if (r == -1)
		return -1;
	if (name.n == 0 && cname != NULL)
		name = mstr_from(cname);
	if (name.n == 0)
		name = tpname;
	if (name.n == 0)
		return 0;
	m = pft_metric_name(buf, sizeof buf - 1, name, "timebase");
	memcpy(s->tb_name, m.p, m.n);
	s->tb_name[m.n] = '\0';
	s->tb_unit = unit;
	s->tb_metric = 0;
	return 0;
}
