/* perfetto-sample.c: the three packets that carry stack samples
 * (StackSample, PerfSample, StreamingProfilePacket), their labels and
 * weights, emitted on the sink. */
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "hmap.h"
#include "mstr.h"
#include "nitems.h"
#include "pb.h"
#include "perfetto-int.h"
#include "perfetto.h"

/* ---- samples ---- */

static void
pft_drop(struct pft *d, enum pft_count why)
{
	d->counts[why]++;
	d->dropped++;
}

static const char *
pft_mode_stack(uint64_t m)
{
	static const char *names[] = { NULL, "user", "kernel", "hypervisor",
	    "guest_user", "guest_kernel" };

	return m < NITEMS(names) ? names[m] : "unknown";
}

/* Profiling.CpuMode numbers kernel and user the other way round. */
static const char *
pft_mode_perf(uint64_t m)
{
	static const char *names[] = { NULL, "kernel", "user", "hypervisor",
	    "guest_kernel", "guest_user" };

	return m < NITEMS(names) ? names[m] : "unknown";
}

static uint64_t
pft_lkey_hash(const struct pft_lkey *k)
{
	uint64_t h = k->pid * 0x9e3779b97f4a7c15ULL;

	h = (h ^ k->tid) * 0xff51afd7ed558ccdULL;
	h = (h ^ k->cpu ^ (k->async << 17)) * 0xc4ceb9fe1a85ec53ULL;
	h ^= k->mode ^ ((uint64_t)k->has << 40) ^ k->proc ^
	    ((uint64_t)k->thread << 20);
	return h ^ (h >> 29);
}

static int64_t
pft_labelset(struct pft *d, struct pft_smp *sm)
{
	struct model_label l[7];
	struct pft_lcache *lc;
	struct pft_lkey k;
	size_t n = 0;
	int64_t v, id;

	memset(&k, 0, sizeof k);
	if (!(sm->has & L_PID) && (sm->has & L_TID) && d->thrpid.n != 0 &&
	    (v = imap_get(&d->thrpid, sm->tid)) != 0 && v != PFT_NO_PID) {
		sm->pid = (uint64_t)(v - 1);
		sm->has |= L_PID;
	}
	k.has = sm->has;
	k.pid = sm->has & L_PID ? sm->pid : 0;
	k.tid = sm->has & L_TID ? sm->tid : 0;
	k.cpu = sm->has & L_CPU ? sm->cpu : 0;
	k.async = sm->has & L_ASYNC ? sm->async : 0;
	k.mode = (uint64_t)(uintptr_t)(sm->has & L_MODE ? sm->mode : NULL);
	if ((sm->has & L_PID) && d->procname.n != 0)
		k.proc = (uint32_t)imap_get(&d->procname, k.pid);
	if ((sm->has & L_TID) && d->thrname.n != 0)
		k.thread = (uint32_t)imap_get(&d->thrname, k.tid);
	if (k.has == 0)
		return 0;
	if (d->lcache == NULL)
		d->lcache = xcalloc(PFT_LCACHE, sizeof *d->lcache);
	lc = &d->lcache[pft_lkey_hash(&k) & (PFT_LCACHE - 1)];
	if (lc->id != 0 && memcmp(&k, &lc->k, sizeof k) == 0)
		return lc->id;
	if ((id = hmap_get(&d->labelsets, &k, sizeof k)) != 0) {
		lc->k = k;
		return lc->id = id;
	}

	memset(l, 0, sizeof l);
	if (k.has & L_PID) {
		l[n].key = MSTR_LIT("pid");
		l[n].num = (int64_t)k.pid;
		l[n++].is_num = 1;
	}
	if (k.has & L_TID) {
		l[n].key = MSTR_LIT("tid");
		l[n].num = (int64_t)k.tid;
		l[n++].is_num = 1;
	}
	if (k.has & L_CPU) {
		l[n].key = MSTR_LIT("cpu");
		l[n].num = (int64_t)k.cpu;
		l[n++].is_num = 1;
	}
	if (k.has & L_ASYNC) {
		l[n].key = MSTR_LIT("async_id");
		l[n].num = (int64_t)k.async;
		l[n++].is_num = 1;
	}
	if (k.has & L_MODE) {
		l[n].key = MSTR_LIT("cpu_mode");
		l[n++].str = mstr_from(sm->mode);
	}
	if (k.proc != 0) {
		l[n].key = MSTR_LIT("process");
		l[n++].str = pft_name(d, k.proc);
	}
	if (k.thread != 0) {
		l[n].key = MSTR_LIT("thread");
		l[n++].str = pft_name(d, k.thread);
	}
	if ((id = d->sink->labelset(d->sink->ctx, l, n, d->err)) < 0)
		return -1;
	hmap_put(&d->labelsets, &k, sizeof k, id);
	lc->k = k;
	return lc->id = id;
}

/* Store the sample with the values accumulated in d->values. */
static int
pft_emit(struct pft *d, struct pft_smp *sm)
{
	struct model_sample ms;
	int64_t ls;
	int rc;

	if ((ls = pft_labelset(d, sm)) < 0)
		return -1;
	d->values[0] = 1;
	memset(&ms, 0, sizeof ms);
	ms.stack = sm->stack;
	ms.labelset = ls;
	ms.values = d->values;
	ms.nvalues = d->nmetrics;
	ms.time_ns = sm->time_ns;
	rc = d->sink->sample(d->sink->ctx, &ms, d->err);
	memset(d->values, 0, d->nmetrics * sizeof *d->values);
	if (rc == -1)
		return -1;
	d->stored++;
	if (sm->time_ns != 0) {
		if (!d->have_time || sm->time_ns < d->tmin)
			d->tmin = sm->time_ns;
		if (!d->have_time || sm->time_ns > d->tmax)
			d->tmax = sm->time_ns;
		d->have_time = 1;
	}
	return 0;
}

static void
pft_smp_init(struct pft *d, struct pft_seq *s, struct pft_smp *sm,
    uint64_t off)
{
	memset(sm, 0, sizeof *sm);
	sm->off = off;
	sm->time_ns = d->has_ts ? d->pkt_ts : 0;
	if (s->has_thread) {
		sm->tid = s->tid;
		sm->has = L_TID;
		if (s->has_thread == 2) {
			sm->pid = s->pid;
			sm->has |= L_PID;
		}
	}
}

static void
pft_task(struct pft_smp *sm, uint64_t pid, uint64_t tid, uint64_t async,
    unsigned has)
{
	if (has & (TASK_PID | TASK_TID | TASK_ASYNC))
		sm->has &= ~(unsigned)(L_PID | L_TID);
	if (has & TASK_PID) {
		sm->pid = pid;
		sm->has |= L_PID;
	}
	if (has & TASK_TID) {
		sm->tid = tid;
		sm->has |= L_TID;
	}
	if (has & TASK_ASYNC) {
		sm->async = async;
		sm->has |= L_ASYNC;
	}
}

static void
pft_exec(struct pft_smp *sm, uint64_t cpu, uint64_t mode, unsigned has)
{
	if (has & EXEC_CPU) {
		sm->cpu = cpu;
		sm->has |= L_CPU;
	}
	if ((has & EXEC_MODE) && (sm->mode = pft_mode_stack(mode)) != NULL)
		sm->has |= L_MODE;
}

static int
pft_counter_use(struct pft *d, struct pft_seq *s, struct pft_ent *e,
    int *idx, uint64_t *mult)
{
	struct pft_ctr c;

	*mult = e->u.ctr.mult;
	if (e->sink != 0 && e->epoch == s->epoch) {
		*idx = (int)e->sink - 1;
		return 0;
	}
	memset(&c, 0, sizeof c);
	c.name = pft_seq_str(s, e->u.ctr.name, e->u.ctr.namelen);
	c.unit_str = pft_seq_str(s, e->u.ctr.unit, e->u.ctr.unitlen);
	c.has_unit_str = e->u.ctr.has_unit_str;
	c.unit_enum = e->u.ctr.unit_enum;
	if (pft_metric_counter(d, &c, idx) == -1)
		return -1;
	e->sink = *idx + 1;
	e->epoch = s->epoch;
	return 0;
}

/* A StackSample's fields, as read: a context, callstack or primary
 * counter comes inline (has_* 1, the field kept) or interned (2, its
 * iid); inline follower descriptors are in d->fields, interned ones in
 * d->u1, their weights in d->u2. */
struct pft_ss {
	struct pb_field	 task, exec, cs, prim;
	uint64_t	 task_iid, exec_iid, cs_iid, prim_iid, weight;
	int		 has_task, has_exec, has_cs, has_prim, has_weight;
	int		 unwind;
};

static const char pft_ss_what[] = "StackSample";

static int
pft_ss_read(struct pft *d, struct pb *sub, struct pft_ss *ss)
{
	const char *what = pft_ss_what;
	struct pb_field g;
	int r;

	while ((r = pb_dec_next(&d->pd, sub, &g, what)) == 1) {
		switch (g.num) {
		case 1:
		case 3:
		case 5:
		case 7:
		case 9:
		case 12:
			if (pb_dec_want(&d->pd, &g, PB_LEN, what) == -1)
				return -1;
			break;
		case 2:
		case 4:
		case 6:
		case 8:
		case 10:
		case 11:
			if (pb_dec_want(&d->pd, &g, PB_VARINT, what) == -1)
				return -1;
			break;
		default:
			break;
		}
		switch (g.num) {
		case 1:
			ss->task = g;
			ss->has_task = 1;
			break;
		case 2:
			ss->task_iid = g.v;
			ss->has_task = 2;
			break;
		case 3:
			ss->exec = g;
			ss->has_exec = 1;
			break;
		case 4:
			ss->exec_iid = g.v;
			ss->has_exec = 2;
			break;
		case 5:
			ss->cs = g;
			ss->has_cs = 1;
			break;
		case 6:
			ss->cs_iid = g.v;
			ss->cs.off = g.off;
			ss->has_cs = 2;
			break;
		case 7:
		case 8:
			ss->unwind = 1;
			break;
		case 9:
			ss->prim = g;
			ss->has_prim = 1;
			break;
		case 10:
			ss->prim_iid = g.v;
			ss->prim.off = g.off;
			ss->has_prim = 2;
			break;
		case 11:
			ss->weight = g.v;
			ss->has_weight = 1;
			break;
		case 12:
			if (d->nfields == d->fieldcap) {
				d->fieldcap = d->fieldcap ? d->fieldcap * 2 : 8;
				d->fields = xreallocarray(d->fields,
				    d->fieldcap, sizeof *d->fields);
			}
			d->fields[d->nfields++] = g;
			break;
		case 13:
			if (pb_dec_repeated(&d->pd, sub, &g, &d->u1,
			    "StackSample.follower_descriptor_iids") == -1)
				return -1;
			break;
		case 14:
			if (pb_dec_repeated(&d->pd, sub, &g, &d->u2,
			    "StackSample.follower_weights") == -1)
				return -1;
			break;
		default:
			break;
		}
	}
	return r;
}

/* Who and where: 0, 1 for an iid the state lacks, -1. */
static int
pft_ss_context(struct pft *d, struct pft_seq *s, const struct pb *sub,
    struct pft_ss *ss, struct pft_smp *sm)
{
	struct pft_ent *e;
	int r;

	if (ss->has_task == 1) {
		uint64_t v[5] = { 0 };
		unsigned has = 0;

		if (pft_varints(d, sub, &ss->task, v, &has, 4,
		    "TaskContext") == -1)
			return -1;
		pft_task(sm, v[2], v[3], v[4],
		    (has & (1u << 2) ? TASK_PID : 0) |
		    (has & (1u << 3) ? TASK_TID : 0) |
		    (has & (1u << 4) ? TASK_ASYNC : 0));
	} else if (ss->has_task == 2 && ss->task_iid != 0) {
		if ((r = pft_lookup(d, s, PK_TASK, ss->task_iid, &e)) != 0)
			return r;
		pft_task(sm, e->u.task.pid, e->u.task.tid, e->u.task.async,
		    e->u.task.has);
	}
	if (ss->has_exec == 1) {
		uint64_t v[4] = { 0 };
		unsigned has = 0;

		if (pft_varints(d, sub, &ss->exec, v, &has, 3,
		    "ExecutionContext") == -1)
			return -1;
		pft_exec(sm, v[2], v[3], (has & (1u << 2) ? EXEC_CPU : 0) |
		    (has & (1u << 3) ? EXEC_MODE : 0));
	} else if (ss->has_exec == 2 && ss->exec_iid != 0) {
		if ((r = pft_lookup(d, s, PK_EXEC, ss->exec_iid, &e)) != 0)
			return r;
		pft_exec(sm, e->u.exec.cpu, e->u.exec.mode, e->u.exec.has);
	}
	return 0;
}

/* The primary counter's metric index (-1: none) and multiplier; the last
 * inline descriptor, which consecutive samples mostly repeat, is cached. */
static int
pft_ss_primary(struct pft *d, struct pft_seq *s, const struct pb *sub,
    const struct pft_ss *ss, int *idx, uint64_t *mult)
{
	const struct pb_field *prim = &ss->prim;
	struct pft_ent *e;
	struct pft_ctr ctr;
	uint64_t iid;

	*idx = -1;
	*mult = 1;
	if (ss->has_prim == 1 && d->lastprim.n == prim->len &&
	    prim->len > 0 &&
	    memcmp(d->lastprim.p, prim->data, prim->len) == 0) {
		*idx = d->lastprim_idx;
		*mult = d->lastprim_mult;
	} else if (ss->has_prim == 1) {
		if (pft_counter_parse(d, sub, prim, &iid, &ctr) == -1 ||
		    pft_metric_counter(d, &ctr, idx) == -1)
			return -1;
		*mult = ctr.mult;
		d->lastprim.n = 0;
		buf_add(&d->lastprim, prim->data, prim->len);
		d->lastprim_idx = *idx;
		d->lastprim_mult = *mult;
	} else if (ss->has_prim == 2 && ss->prim_iid != 0) {
		(void)pft_lookup(d, s, PK_COUNTER, ss->prim_iid, &e);
		if (pft_counter_use(d, s, e, idx, mult) == -1)
			return -1;
	} else if (ss->has_weight && pft_metric_get(d, MSTR_LIT("weight"),
	    MSTR_LIT("count"), idx) == -1)
		return -1;
	return 0;
}

/* Add the weights to d->values: 0, 1 for an iid the state lacks, -1.
 * Every descriptor is resolved before anything is added, so that an
 * unresolved sample leaves d->values clean. */
static int
pft_ss_weights(struct pft *d, struct pft_seq *s, const struct pb *sub,
    const struct pft_ss *ss, uint64_t off)
{
	struct pft_ent *e;
	struct pft_ctr ctr;
	uint64_t mult, iid;
	size_t i, nfollow;
	int r, idx;

	nfollow = d->nfields + d->u1.n;
	if (d->u2.n != nfollow)
		return pb_dec_fail(&d->pd, ERR_INPUT, pft_ss_what, off,
		    "%zu follower_weights for %zu follower descriptors",
		    d->u2.n, nfollow);
	if (ss->has_prim == 2 && ss->prim_iid != 0) {
		if ((r = pft_lookup(d, s, PK_COUNTER, ss->prim_iid, &e)) != 0)
			return r;
	}
	for (i = 0; i < d->u1.n; i++)
		if ((r = pft_lookup(d, s, PK_COUNTER, d->u1.v[i], &e)) != 0)
			return r;

	if (pft_ss_primary(d, s, sub, ss, &idx, &mult) == -1)
		return -1;
	if (idx >= 0) {
		if (d->def_stack == 0)
			d->def_stack = idx + 1;
		if (pft_metric_add(d, idx, ss->weight, mult, off,
		    "StackSample.primary_weight") == -1)
			goto fail;
	}
	for (i = 0; i < d->nfields; i++) {
		if (pft_counter_parse(d, sub, &d->fields[i], &iid, &ctr) ==
		    -1 || pft_metric_counter(d, &ctr, &idx) == -1 ||
		    pft_metric_add(d, idx, d->u2.v[i], ctr.mult, off,
		    "StackSample.follower_weights") == -1)
			goto fail;
	}
	for (i = 0; i < d->u1.n; i++) {
		(void)pft_lookup(d, s, PK_COUNTER, d->u1.v[i], &e);
		if (pft_counter_use(d, s, e, &idx, &mult) == -1 ||
		    pft_metric_add(d, idx, d->u2.v[d->nfields + i], mult,
		    off, "StackSample.follower_weights") == -1)
			goto fail;
	}
	return 0;
fail:
	memset(d->values, 0, d->nmetrics * sizeof *d->values);
	return -1;
}

int
pft_stack_sample(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	struct pft_ss ss;
	struct pb sub;
	struct pft_smp sm;
	int r;

	/* Read, whether it then parses or not (see pft_malformed()). */
	d->samples++;
	memset(&ss, 0, sizeof ss);
	d->nfields = 0;
	d->u1.n = d->u2.n = 0;
	pb_sub(c, f, &sub);
	if (pft_ss_read(d, &sub, &ss) == -1)
		return -1;
	/* The callstack's sink id mostly misses the cache (iids at random
	 * among thousands, the input streaming through): fetched while the
	 * context is resolved. */
	if (ss.has_cs != 1 && ss.cs_iid < s->ncs_sink)
		__builtin_prefetch(&s->cs_sink[ss.cs_iid]);

	pft_smp_init(d, s, &sm, f->off);
	if (pft_needs_state(d, s)) {
		pft_drop(d, PC_NO_STATE);
		return 0;
	}
	if (!ss.has_cs) {
		pft_drop(d, PC_NO_CALLSTACK);
		return 0;
	}
	if ((r = pft_ss_context(d, s, &sub, &ss, &sm)) != 0)
		goto unresolved;
	if (ss.has_cs == 1)
		r = pft_inline_callstack(d, s, &sub, &ss.cs, &sm.stack);
	else
		r = pft_callstack(d, s, ss.cs_iid, ss.cs.off, &sm.stack);
	if (r != 0)
		goto unresolved;
	if ((r = pft_ss_weights(d, s, &sub, &ss, f->off)) != 0)
		goto unresolved;
	if (ss.unwind)
		d->counts[PC_UNWIND_ERROR]++;
	return pft_emit(d, &sm);

unresolved:
	if (r == -1)
		return -1;
	pft_drop(d, PC_UNKNOWN + d->unknown);
	return 0;
}

int
pft_perf_sample(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	static const char what[] = "PerfSample";
	struct pb_field g;
	struct pb sub;
	struct pft_smp sm;
	uint64_t v[19] = { 0 };
	unsigned long has = 0;
	int r, idx;
	size_t i;

	d->u1.n = 0;
	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, what)) == 1) {
		if (g.num == 7) {
			if (pb_dec_repeated(&d->pd, &sub, &g, &d->u1,
			    "PerfSample.follower_counts") == -1)
				return -1;
			continue;
		}
		if (g.num >= NITEMS(v) || (g.num > 7 && g.num < 16))
			continue;
		if (pb_dec_want(&d->pd, &g, PB_VARINT, what) == -1)
			return -1;
		v[g.num] = g.v;
		has |= 1ul << g.num;
	}
	if (r == -1)
		return -1;

	/* Not samples: reports of kernel data loss, or of a skipped one. */
	if (has & (1ul << 17)) {
		d->counts[PC_KERNEL_LOST] += v[17];
		return 0;
	}
	d->samples++;
	if (has & (1ul << 18)) {
		pft_drop(d, PC_SKIPPED);
		return 0;
	}
	pft_smp_init(d, s, &sm, f->off);
	if (pft_needs_state(d, s)) {
		pft_drop(d, PC_NO_STATE);
		return 0;
	}
	if (!(has & (1ul << 4)) || v[4] == 0) {
		pft_drop(d, PC_NO_CALLSTACK);
		return 0;
	}
	if ((r = pft_callstack(d, s, v[4], f->off, &sm.stack)) != 0) {
		if (r == -1)
			return -1;
		pft_drop(d, PC_UNKNOWN + d->unknown);
		return 0;
	}
	/* Unset means UNWIND_ERROR_NONE (1). */
	if ((has & (1ul << 16)) && v[16] != 1)
		d->counts[PC_UNWIND_ERROR]++;

	sm.has = 0;
	if (has & (1ul << 1)) {
		sm.cpu = v[1];
		sm.has |= L_CPU;
	}
	if (has & (1ul << 2)) {
		sm.pid = v[2];
		sm.has |= L_PID;
	}
	if (has & (1ul << 3)) {
		sm.tid = v[3];
		sm.has |= L_TID;
	}
	if ((has & (1ul << 5)) && (sm.mode = pft_mode_perf(v[5])) != NULL)
		sm.has |= L_MODE;

	if (has & (1ul << 6)) {
		if (s->tb_metric == 0) {
			if (s->tb_unit != NULL)
				r = pft_metric_get(d, mstr_from(s->tb_name),
				    mstr_from(s->tb_unit), &idx);
			else
				r = pft_metric_get(d, MSTR_LIT("timebase"),
				    MSTR_LIT("count"), &idx);
			if (r == -1)
				return -1;
			s->tb_metric = idx + 1;
		}
		idx = s->tb_metric - 1;
		if (d->def_perf == 0)
			d->def_perf = idx + 1;
		if (pft_metric_add(d, idx, v[6], 1, f->off,
		    "PerfSample.timebase_count") == -1)
			goto fail;
	}
	for (i = 0; i < d->u1.n; i++) {
		char name[32];

		snprintf(name, sizeof name, "follower_%zu", i);
		if (pft_metric_get(d, mstr_from(name), MSTR_LIT("count"),
		    &idx) == -1 || pft_metric_add(d, idx, d->u1.v[i], 1, f->off,
		    "PerfSample.follower_counts") == -1)
			goto fail;
	}
	return pft_emit(d, &sm);
fail:
	memset(d->values, 0, d->nmetrics * sizeof *d->values);
	return -1;
}

int
pft_streaming(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	static const char what[] = "StreamingProfilePacket";
	struct pb_field g;
	struct pb sub;
	struct pft_smp sm;
	int64_t t, dt;
	size_t i;
	int r;

	d->u1.n = d->u2.n = 0;
	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, what)) == 1) {
		if (g.num == 1 && pb_dec_repeated(&d->pd, &sub, &g, &d->u1,
		    "StreamingProfilePacket.callstack_iid") == -1)
			return -1;
		if (g.num == 2 && pb_dec_repeated(&d->pd, &sub, &g, &d->u2,
		    "StreamingProfilePacket.timestamp_delta_us") == -1)
			return -1;
	}
	if (r == -1)
		return -1;
	if (d->u2.n != 0 && d->u2.n != d->u1.n) {
		d->samples += d->u1.n;
		return pb_dec_fail(&d->pd, ERR_INPUT, what, f->off,
		    "%zu timestamp_delta_us for %zu callstack_iid", d->u2.n,
		    d->u1.n);
	}

	t = d->has_ts ? d->pkt_ts : 0;
	for (i = 0; i < d->u1.n; i++) {
		d->samples++;
		if (d->u2.n != 0) {
			dt = (int64_t)d->u2.v[i];
			if (__builtin_mul_overflow(dt, 1000, &dt) ||
			    __builtin_add_overflow(t, dt, &t))
				return pb_dec_fail(&d->pd, ERR_INPUT, what,
				    f->off, "timestamp delta %lld us overflows",
				    (long long)(int64_t)d->u2.v[i]);
		}
		pft_smp_init(d, s, &sm, f->off);
		sm.time_ns = t;
		if (pft_needs_state(d, s)) {
			pft_drop(d, PC_NO_STATE);
			continue;
		}
		if (d->u1.v[i] == 0) {
			pft_drop(d, PC_NO_CALLSTACK);
			continue;
		}
		if ((r = pft_callstack(d, s, d->u1.v[i], f->off,
		    &sm.stack)) != 0) {
			if (r == -1)
				return -1;
			pft_drop(d, PC_UNKNOWN + d->unknown);
			continue;
		}
		if (pft_emit(d, &sm) == -1)
			return -1;
	}
	return 0;
}
