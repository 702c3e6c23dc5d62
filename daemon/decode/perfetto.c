/* perfetto.c: a streaming decoder for Perfetto traces.
 *
 * A trace is a run of TracePackets (Trace.packet = 1) that can be
 * gigabytes long, so it is read packet by packet from the stream; only one
 * packet and the interned state of each packet sequence are held.  Three
 * packet kinds carry stack samples: StackSample (135), PerfSample (66) and
 * StreamingProfilePacket (54).  Their callstacks, frames, mappings,
 * strings, task and execution contexts and counter descriptors are interned
 * per trusted_packet_sequence_id and valid from a packet that clears the
 * sequence's incremental state until the next clear or loss.
 *
 * Policy on what cannot be resolved: never guess, never give up on the
 * rest.  A ring-buffer trace that wrapped has lost packets, interning ones
 * among them, so what survives is kept and the losses counted, as
 * trace_processor does (its tokenizer_skipped_packets and
 * stackprofile_invalid_*_id stats):
 * - a packet flagged SEQ_NEEDS_INCREMENTAL_STATE on a sequence whose state
 *   is not valid (no clear seen yet, or previous_packet_dropped since the
 *   last one) is skipped whole and counted (packets_skipped_no_state); the
 *   samples it held are dropped as unresolved_no_state;
 * - a sample naming an iid (callstack, frame, function name, mapping, ...)
 *   that the sequence's current state does not define is dropped and
 *   counted by the first such iid's kind (unknown_<kind>_iid);
 * - a packet whose framing is sound but whose contents are not (a message
 *   inside it that does not parse, weights that overflow, counts that
 *   disagree) is skipped and counted (malformed_packets), its samples
 *   dropped as malformed; broken interned data also leaves its sequence
 *   without a valid state until the next clear.
 * Only broken framing (a Trace or TracePacket field's length or wire type)
 * fails the decode, with the byte offset; so do the limits and the sink's
 * errors.
 *
 * Choices documented here rather than guessed by readers:
 * - Metric 0 is samples/count (1 per sample).  A counter descriptor
 *   becomes the metric (name, unit): the name with characters outside
 *   [A-Za-z0-9_.] turned into '_' ("wall-time" -> "wall_time", "counter"
 *   if unnamed), the unit from unit_str or the Unit enum (nanoseconds,
 *   cycles, instructions, bytes, page_faults, cache_misses,
 *   cache_references, branch_misses, count; "count" if unspecified,
 *   "unknown" for values past the enum); unit_multiplier scales weights
 *   (absent or 0 means 1).  A primary_weight without any descriptor goes
 *   to weight/count.  PerfSample.timebase_count goes to the timebase of
 *   the sequence's TracePacketDefaults (its name, else the perf counter's
 *   name, else the tracepoint's; nanoseconds for cpu-clock and task-clock,
 *   count otherwise), or timebase/count when there are no defaults;
 *   follower_counts go to follower_<i>/count.
 * - default_metric: the primary counter of the first StackSample that has
 *   one, else the timebase of the first PerfSample with a timebase_count,
 *   else samples.
 * - Labels: pid, tid, cpu, async_id (numbers), cpu_mode (string: user,
 *   kernel, hypervisor, guest_user, guest_kernel; "unknown" past the
 *   enum), process and thread names (strings) from ProcessTree and
 *   Track/Process/ThreadDescriptors as known when the sample is read (a
 *   name that arrives later does not relabel earlier samples).  A missing
 *   pid is inferred from the thread's process when that is known.
 *   Samples without a task context (and StreamingProfilePackets, which
 *   have none) take pid and tid from the sequence's thread descriptor.
 * - Time: packet timestamps are taken as nanoseconds of the trace clock;
 *   timestamp_clock_id and ClockSnapshots are not applied (a trace from
 *   one machine's boot clock keeps its order and durations).
 *   meta.time_ns is the earliest sample time, duration the span to the
 *   latest.
 * - Counts: unresolved_no_state, unknown_*_iid, malformed, no_callstack
 *   and skipped are samples read and not stored (their sum is
 *   meta.dropped_samples); packets_skipped_no_state and malformed_packets
 *   count packets; unwind_error counts stored samples whose (partial)
 *   stack had an unwind error; kernel_records_lost sums PerfSample's lost kernel records, which are
 *   not samples and not in meta.samples.
 * - Mapping paths join path_string_ids with a '/' in front of each part
 *   that lacks one; build ids are hex-encoded unless printable.
 * - StackSample.callstack is read both as InlineCallstack (frames = 1,
 *   root first) and as a Callstack (frame_ids = 2, root first), which
 *   revisions of the proto have used; the wire types tell them apart.
 *   Likewise task contexts, execution contexts and counter descriptors
 *   are interned at InternedData 48, 49, 50 or at 2000, 2001, 2002. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "pb.h"
#include "perfetto.h"
#include "util.h"

#define PFT_MAX_METRICS		256
#define PFT_MAX_SEQUENCES	65536
#define PFT_MAX_STATE		(512u << 20)	/* interned, all sequences */
#define PFT_MAX_NAME		128		/* bytes of a metric name */
#define PFT_DENSE_SLACK		4096		/* see pft_slot() */
#define PFT_LCACHE		1024		/* a power of two */

/* TracePacket fields. */
#define TP_PROCESS_TREE		2
#define TP_TIMESTAMP		8
#define TP_SEQUENCE_ID		10
#define TP_INTERNED_DATA	12
#define TP_SEQUENCE_FLAGS	13
#define TP_STATE_CLEARED	41
#define TP_PACKET_DROPPED	42
#define TP_PROCESS_DESCRIPTOR	43
#define TP_THREAD_DESCRIPTOR	44
#define TP_STREAMING_PROFILE	54
#define TP_DEFAULTS		59
#define TP_TRACK_DESCRIPTOR	60
#define TP_PERF_SAMPLE		66
#define TP_STACK_SAMPLE		135

#define SEQ_INCREMENTAL_STATE_CLEARED	1
#define SEQ_NEEDS_INCREMENTAL_STATE	2

/* What an iid can name, per sequence. */
enum pft_kind {
	PK_FUNCTION_NAME,
	PK_FRAME,
	PK_CALLSTACK,
	PK_BUILD_ID,
	PK_MAPPING_PATH,
	PK_SOURCE_PATH,
	PK_MAPPING,
	PK_TASK,
	PK_EXEC,
	PK_COUNTER,
	PK_N
};

/* Why samples were not stored (or were stored incomplete); PC_UNKNOWN + k
 * is a sample dropped for an iid of kind k its sequence does not define. */
enum pft_count {
	PC_NO_STATE,
	PC_NO_CALLSTACK,
	PC_SKIPPED,
	PC_UNWIND_ERROR,
	PC_KERNEL_LOST,
	PC_PACKETS_SKIPPED,
	PC_MALFORMED,
	PC_MALFORMED_PACKETS,
	PC_UNKNOWN,
	PC_N = PC_UNKNOWN + PK_N
};

static const char *pft_count_names[PC_N] = {
	"unresolved_no_state", "no_callstack", "skipped", "unwind_error",
	"kernel_records_lost", "packets_skipped_no_state", "malformed",
	"malformed_packets",
	"unknown_function_name_iid", "unknown_frame_iid",
	"unknown_callstack_iid", "unknown_build_id_iid",
	"unknown_mapping_path_iid", "unknown_source_path_iid",
	"unknown_mapping_iid", "unknown_task_context_iid",
	"unknown_execution_context_iid", "unknown_counter_descriptor_iid",
};

#define TASK_PID	0x1
#define TASK_TID	0x2
#define TASK_ASYNC	0x4
#define EXEC_CPU	0x1
#define EXEC_MODE	0x2

/* One interned entry; strings and id lists live in the sequence's arenas. */
struct pft_ent {
	uint64_t	 epoch;		/* of sink, below */
	int64_t		 sink;		/* cached sink id or metric index + 1 */
	union {
		struct {
			size_t		 off, len;
		}		 str;
		struct {
			uint64_t	 name, mapping, pc, src, line;
		}		 frame;
		struct {
			uint64_t	 build_id, start, end, offset;
			size_t		 ids, nids;
		}		 map;
		struct {
			size_t		 ids, nids;
		}		 cs;
		struct {
			uint64_t	 pid, tid, async;
			unsigned	 has;
		}		 task;
		struct {
			uint64_t	 cpu, mode;
			unsigned	 has;
		}		 exec;
		struct {
			size_t		 name, namelen, unit, unitlen;
			uint64_t	 unit_enum, mult;
			int		 has_unit_str;
		}		 ctr;
	} u;
};

enum pft_state {
	PS_NONE,		/* no clear seen yet */
	PS_VALID,		/* cleared, nothing lost since */
	PS_LOST,		/* packets lost since the last clear */
};

struct pft_seq {
	uint32_t	 id;
	enum pft_state	 state;
	uint64_t	 epoch;		/* bumped when an iid is redefined */
	/* iid -> index + 1 into ents: producers count iids up from 1, so
	 * most live in a plain array; the rest in a hash map. */
	uint32_t	*dense[PK_N];
	size_t		 ndense[PK_N], nkind[PK_N];
	struct hmap	 idx[PK_N];
	struct pft_ent	*ents;
	size_t		 nents, entcap;
	struct buf	 bytes;
	struct pb_u64s	 ids;
	size_t		 mem;		/* bytes accounted to the state */

	/* The sequence's thread (a TrackDescriptor or ThreadDescriptor). */
	uint64_t	 pid, tid;
	int		 has_thread;

	/* PerfSample timebase from TracePacketDefaults (incremental). */
	char		 tb_name[PFT_MAX_NAME];
	const char	*tb_unit;
	int		 tb_metric;	/* index + 1, 0 = not resolved */
};

/* A parsed counter descriptor; strings point into a packet or an arena. */
struct pft_ctr {
	struct mstr	 name, unit_str;
	int		 has_unit_str;
	uint64_t	 unit_enum, mult;
};

/* A sample being assembled. */
struct pft_smp {
	uint64_t	 off;		/* byte of the sample, for errors */
	int64_t		 time_ns;
	int64_t		 stack;
	uint64_t	 pid, tid, cpu, async;
	unsigned	 has;		/* L_* */
	const char	*mode;
};

#define L_PID		0x1
#define L_TID		0x2
#define L_CPU		0x4
#define L_ASYNC		0x8
#define L_MODE		0x10

/* Label-set cache key: fixed size, no padding. */
struct pft_lkey {
	uint64_t	 pid, tid, cpu, async;
	uint64_t	 mode;		/* pointer value of the static string */
	uint32_t	 has, proc, thread, pad;
};

struct pft_name {
	size_t		 off, len;
};

struct pft {
	const struct sink	*sink;
	const struct limits	*limits;
	struct error		*err;
	struct pb_dec		 pd;	/* base: stream offset of packet */
	uint64_t		 flags;		/* of the current packet */
	int64_t			 pkt_ts;
	int			 has_ts;

	struct hmap		 seqidx;
	struct pft_seq		**seqs;
	size_t			 nseqs;
	struct pft_seq		*last;
	size_t			 statemem;

	struct hmap		 metrics;
	size_t			 nmetrics;
	int64_t			 values[PFT_MAX_METRICS];
	int			 def_stack, def_perf;	/* index + 1 */

	/* Content caches: sink ids are global, so these outlive resets. */
	struct hmap		 functions, mappings, frames, stacks;
	struct hmap		 labelsets;
	/* Label sets recently used, in front of the map (whose byte-wise
	 * hash costs more than the rest of a sample), allocated on first use
	 * (zeroing its 64 kB was most of the cost of decoding a tiny trace);
	 * and the last inline primary descriptor, which consecutive samples
	 * mostly repeat. */
	struct pft_lcache {
		struct pft_lkey	 k;
		int64_t		 id;
	}			*lcache;
	struct buf		 lastprim;
	int			 lastprim_idx;
	uint64_t		 lastprim_mult;
	struct buf		 key, tmp, hex;
	int64_t			*stackbuf;
	size_t			 stackcap;
	/* Scratch repeated fields: u1, u2 of samples, u3 of callstacks. */
	struct pb_u64s		 u1, u2, u3;
	struct pb_field		*fields;	/* scratch: followers */
	size_t			 nfields, fieldcap;

	/* Process and thread names, global across sequences. */
	struct hmap		 names;		/* bytes -> index + 1 */
	struct buf		 namebytes;
	struct pft_name		*namev;
	size_t			 nnames, namecap;
	struct hmap		 procname, thrname, thrpid;

	int64_t			 tmin, tmax;
	int			 have_time;
	uint64_t		 samples, dropped, stored;
	uint64_t		 counts[PC_N];
	enum pft_kind		 unknown;	/* of the last failed lookup */
};

/* ---- metrics ---- */

static int
pft_metric(struct pft *d, struct mstr type, struct mstr unit, int *idx)
{
	int64_t v;

	d->key.n = 0;
	buf_add(&d->key, type.p, type.n);
	buf_add(&d->key, "", 1);
	buf_add(&d->key, unit.p, unit.n);
	if ((v = hmap_get(&d->metrics, d->key.p, d->key.n)) != 0) {
		*idx = (int)(v - 1);
		return 0;
	}
	if (d->nmetrics == PFT_MAX_METRICS)
		return error_set(d->err, ERR_TOO_LARGE, "perfetto: more than "
		    "%d distinct counters (limit) at byte %llu",
		    PFT_MAX_METRICS, (unsigned long long)d->pd.base);
	if (d->sink->metric(d->sink->ctx, type, unit, d->err) == -1)
		return -1;
	hmap_put(&d->metrics, d->key.p, d->key.n, (int64_t)d->nmetrics + 1);
	d->values[d->nmetrics] = 0;
	*idx = (int)d->nmetrics++;
	return 0;
}

/* Metric names keep to a tame alphabet: "wall-time" -> "wall_time". */
static struct mstr
pft_metric_name(char *out, size_t size, struct mstr in, const char *dflt)
{
	size_t i, n = in.n < size ? in.n : size;

	if (in.n == 0)
		return mstr_from(dflt);
	for (i = 0; i < n; i++) {
		char c = in.p[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' ? c : '_';
	}
	return (struct mstr){ out, n };
}

static const char *
pft_unit_name(uint64_t u)
{
	static const char *names[] = {
		"count", "nanoseconds", "cycles", "instructions", "bytes",
		"page_faults", "cache_misses", "cache_references",
		"branch_misses", "count",
	};

	return u < NITEMS(names) ? names[u] : "unknown";
}

static int
pft_counter_metric(struct pft *d, const struct pft_ctr *c, int *idx)
{
	char name[PFT_MAX_NAME];
	struct mstr type, unit;

	type = pft_metric_name(name, sizeof name, c->name, "counter");
	if (c->has_unit_str && c->unit_str.n > 0)
		unit = c->unit_str;
	else
		unit = mstr_from(pft_unit_name(c->unit_enum));
	return pft_metric(d, type, unit, idx);
}

/* value += weight * mult, as int64, or a clear error. */
static int
pft_add_weight(struct pft *d, int idx, uint64_t weight, uint64_t mult,
    uint64_t off, const char *what)
{
	uint64_t w;
	int64_t sum;

	if (__builtin_mul_overflow(weight, mult, &w) || w > INT64_MAX ||
	    __builtin_add_overflow(d->values[idx], (int64_t)w, &sum))
		return pb_dec_fail(&d->pd, ERR_INPUT, what, off,
		    "weight %llu x %llu overflows", (unsigned long long)weight,
		    (unsigned long long)mult);
	d->values[idx] = sum;
	return 0;
}

/* ---- sequences and interned state ---- */

static void
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

static void
pft_seq_free(struct pft *d, struct pft_seq *s)
{
	if (s == NULL)
		return;
	pft_seq_reset(d, s);
	free(s);
}

static int
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

/* The index + 1 of the entry (kind, iid), 0 if none. */
static inline int64_t
pft_find(const struct pft_seq *s, enum pft_kind k, uint64_t iid)
{
	if (iid < s->ndense[k])
		return s->dense[k][iid];
	if (s->idx[k].n == 0)
		return 0;
	return hmap_get(&s->idx[k], &iid, sizeof iid);
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

static struct mstr
pft_seq_str(const struct pft_seq *s, size_t off, size_t len)
{
	if (len == 0)
		return (struct mstr){ "", 0 };
	return (struct mstr){ (const char *)s->bytes.p + off, len };
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
static int
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
static int
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

static int
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

/* 0: *e found; 1: the sequence's current state does not define it (lost
 * with the packets of a wrapped ring buffer, or before a clear), which
 * d->unknown names for the count.  Never -1: callers pass other errors on
 * with the same convention. */
static int
pft_lookup(struct pft *d, struct pft_seq *s, enum pft_kind k, uint64_t iid,
    struct pft_ent **e)
{
	int64_t v;

	*e = NULL;
	if (s->state != PS_LOST && (v = pft_find(s, k, iid)) != 0) {
		*e = &s->ents[v - 1];
		return 0;
	}
	d->unknown = k;
	return 1;
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

static int
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

/* ---- names of processes and threads ---- */

static uint32_t
pft_name_intern(struct pft *d, struct mstr name)
{
	int64_t v;

	if ((v = hmap_get(&d->names, name.p, name.n)) != 0)
		return (uint32_t)v;
	if (d->nnames == d->namecap) {
		d->namecap = d->namecap ? d->namecap * 2 : 64;
		d->namev = xreallocarray(d->namev, d->namecap,
		    sizeof *d->namev);
	}
	d->namev[d->nnames].off = d->namebytes.n;
	d->namev[d->nnames].len = name.n;
	buf_add(&d->namebytes, name.p, name.n);
	d->nnames++;
	hmap_put(&d->names, name.p, name.n, (int64_t)d->nnames);
	return (uint32_t)d->nnames;
}

static void
pft_name_set(struct pft *d, struct hmap *m, uint64_t id, struct mstr name)
{
	if (name.n == 0 || name.n > d->limits->max_string_len)
		return;
	hmap_put(m, &id, sizeof id, pft_name_intern(d, name));
}

static struct mstr
pft_name(const struct pft *d, uint32_t idx)
{
	const struct pft_name *n = &d->namev[idx - 1];

	return (struct mstr){ (const char *)d->namebytes.p + n->off, n->len };
}

/* ProcessTree.Process, ProcessDescriptor: pid = 1, cmdline = 2 or 3
 * (first entry), process_name = 6 (preferred). */
static int
pft_process(struct pft *d, const struct pb *c, const struct pb_field *f,
    uint32_t cmdnum, const char *what)
{
	struct mstr cmd = { "", 0 }, name = { "", 0 };
	struct pb_field g;
	struct pb sub;
	uint64_t pid = 0;
	int r, has_pid = 0, ncmd = 0;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, what)) == 1) {
		if (g.num == 1 && g.wt == PB_VARINT) {
			pid = g.v;
			has_pid = 1;
		} else if (g.num == cmdnum && g.wt == PB_LEN && ncmd++ == 0)
			cmd = (struct mstr){ (const char *)g.data, g.len };
		else if (g.num == 6 && cmdnum == 2 && g.wt == PB_LEN)
			name = (struct mstr){ (const char *)g.data, g.len };
	}
	if (r == -1)
		return -1;
	if (has_pid)
		pft_name_set(d, &d->procname, (uint64_t)(int32_t)pid,
		    name.n ? name : cmd);
	return 0;
}

/* ProcessTree.Thread (tid 1, name 2, tgid 3) or ThreadDescriptor (pid 1,
 * tid 2, thread_name 5); a descriptor also names its sequence's thread. */
static int
pft_thread(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f, int descriptor, uint64_t tgid_dflt)
{
	struct mstr name = { "", 0 };
	struct pb_field g;
	struct pb sub;
	uint64_t tid = 0, pid = tgid_dflt;
	int r, has_tid = 0, has_pid = tgid_dflt != 0;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, "Thread")) == 1) {
		if (g.wt == PB_VARINT && g.num == (descriptor ? 2u : 1u)) {
			tid = (uint64_t)(int32_t)g.v;
			has_tid = 1;
		} else if (g.wt == PB_VARINT &&
		    g.num == (descriptor ? 1u : 3u)) {
			pid = (uint64_t)(int32_t)g.v;
			has_pid = 1;
		} else if (g.wt == PB_LEN && g.num == (descriptor ? 5u : 2u))
			name = (struct mstr){ (const char *)g.data, g.len };
	}
	if (r == -1 || !has_tid)
		return r;
	pft_name_set(d, &d->thrname, tid, name);
	if (has_pid)
		hmap_put(&d->thrpid, &tid, sizeof tid, (int64_t)pid + 1);
	if (descriptor && s != NULL) {
		s->tid = tid;
		s->pid = pid;
		s->has_thread = has_pid ? 2 : 1;
	}
	return 0;
}

static int
pft_process_tree(struct pft *d, const struct pb *c, const struct pb_field *f)
{
	struct pb_field g, h;
	struct pb sub, ps;
	int r;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, "ProcessTree")) == 1) {
		if (g.num == 1 && g.wt == PB_LEN) {
			uint64_t pid = 0;

			if (pft_process(d, &sub, &g, 3, "ProcessTree.Process")
			    == -1)
				return -1;
			/* threads_deprecated (4) belong to this process. */
			pb_sub(&sub, &g, &ps);
			while ((r = pb_dec_next(&d->pd, &ps, &h,
			    "Process")) == 1)
				if (h.num == 1 && h.wt == PB_VARINT)
					pid = (uint64_t)(int32_t)h.v;
			pb_sub(&sub, &g, &ps);
			while ((r = pb_dec_next(&d->pd, &ps, &h,
			    "Process")) == 1)
				if (h.num == 4 && h.wt == PB_LEN &&
				    pft_thread(d, NULL, &ps, &h, 0, pid) == -1)
					return -1;
			if (r == -1)
				return -1;
		} else if (g.num == 2 && g.wt == PB_LEN) {
			if (pft_thread(d, NULL, &sub, &g, 0, 0) == -1)
				return -1;
		}
	}
	return r;
}

static int
pft_track_descriptor(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	struct pb_field g;
	struct pb sub;
	int r;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, "TrackDescriptor")) == 1) {
		if (g.num == 3 && g.wt == PB_LEN) {
			if (pft_process(d, &sub, &g, 2, "ProcessDescriptor") ==
			    -1)
				return -1;
		} else if (g.num == 4 && g.wt == PB_LEN) {
			if (pft_thread(d, s, &sub, &g, 1, 0) == -1)
				return -1;
		}
	}
	return r;
}

/* ---- frames, mappings, stacks ---- */

static int64_t
pft_function(struct pft *d, struct mstr name, struct mstr file)
{
	struct model_function fn;
	uint32_t n = (uint32_t)name.n;
	int64_t id;

	d->key.n = 0;
	buf_add(&d->key, &n, sizeof n);
	buf_add(&d->key, name.p, name.n);
	buf_add(&d->key, file.p, file.n);
	if ((id = hmap_get(&d->functions, d->key.p, d->key.n)) != 0)
		return id;
	memset(&fn, 0, sizeof fn);
	fn.name = name;
	fn.system_name = name;
	fn.file = file;
	if ((id = d->sink->function(d->sink->ctx, &fn, d->err)) < 0)
		return -1;
	hmap_put(&d->functions, d->key.p, d->key.n, id);
	return id;
}

static int64_t
pft_frame_id(struct pft *d, int64_t function, int64_t mapping,
    uint64_t address, int64_t line)
{
	struct model_frame fr;
	int64_t key[4] = { function, mapping, (int64_t)address, line }, id;

	if ((id = hmap_get(&d->frames, key, sizeof key)) != 0)
		return id;
	memset(&fr, 0, sizeof fr);
	fr.function = function;
	fr.mapping = mapping;
	fr.address = address;
	fr.line = line;
	if ((id = d->sink->frame(d->sink->ctx, &fr, d->err)) < 0)
		return -1;
	hmap_put(&d->frames, key, sizeof key, id);
	return id;
}

/* Build ids are raw bytes in traces; pprof and profd show them as hex. */
static struct mstr
pft_build_id(struct pft *d, struct mstr b)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < b.n; i++)
		if ((unsigned char)b.p[i] < 0x20 ||
		    (unsigned char)b.p[i] > 0x7e)
			break;
	if (i == b.n)
		return b;
	d->hex.n = 0;
	for (i = 0; i < b.n; i++) {
		buf_add(&d->hex, &hex[(unsigned char)b.p[i] >> 4], 1);
		buf_add(&d->hex, &hex[(unsigned char)b.p[i] & 0xf], 1);
	}
	return (struct mstr){ (const char *)d->hex.p, d->hex.n };
}

static int
pft_mapping(struct pft *d, struct pft_seq *s, struct pft_ent *m,
    int64_t *out)
{
	struct model_mapping mm;
	struct pft_ent *e;
	struct mstr bid = { "", 0 };
	size_t i;
	int64_t id;
	int r;

	if (m->sink != 0 && m->epoch == s->epoch) {
		*out = m->sink;
		return 0;
	}
	if (m->u.map.build_id != 0) {
		if ((r = pft_lookup(d, s, PK_BUILD_ID, m->u.map.build_id,
		    &e)) != 0)
			return r;
		bid = pft_build_id(d, pft_seq_str(s, e->u.str.off,
		    e->u.str.len));
	}
	d->tmp.n = 0;
	for (i = 0; i < m->u.map.nids; i++) {
		struct mstr part;

		if ((r = pft_lookup(d, s, PK_MAPPING_PATH,
		    s->ids.v[m->u.map.ids + i], &e)) != 0)
			return r;
		part = pft_seq_str(s, e->u.str.off, e->u.str.len);
		if (part.n == 0 || part.p[0] != '/')
			buf_add(&d->tmp, "/", 1);
		buf_add(&d->tmp, part.p, part.n);
	}
	memset(&mm, 0, sizeof mm);
	mm.start = m->u.map.start;
	mm.limit = m->u.map.end;
	mm.offset = m->u.map.offset;
	mm.file = (struct mstr){ d->tmp.n ? (const char *)d->tmp.p : "",
	    d->tmp.n };
	mm.build_id = bid;

	d->key.n = 0;
	buf_add(&d->key, &mm.start, sizeof mm.start);
	buf_add(&d->key, &mm.limit, sizeof mm.limit);
	buf_add(&d->key, &mm.offset, sizeof mm.offset);
	buf_add(&d->key, &mm.file.n, sizeof mm.file.n);
	buf_add(&d->key, mm.file.p, mm.file.n);
	buf_add(&d->key, bid.p, bid.n);
	if ((id = hmap_get(&d->mappings, d->key.p, d->key.n)) == 0) {
		if ((id = d->sink->mapping(d->sink->ctx, &mm, d->err)) < 0)
			return -1;
		hmap_put(&d->mappings, d->key.p, d->key.n, id);
	}
	m->sink = id;
	m->epoch = s->epoch;
	*out = id;
	return 0;
}

/* An interned Frame as a sink frame id: 0, 1 (unresolved, as pft_lookup)
 * or -1 (an error). */
static int
pft_frame(struct pft *d, struct pft_seq *s, uint64_t iid, int64_t *out)
{
	struct pft_ent *fr, *e;
	struct mstr name = { "", 0 }, file = { "", 0 };
	int64_t function = 0, mapping = 0, id;
	int r;

	if ((r = pft_lookup(d, s, PK_FRAME, iid, &fr)) != 0)
		return r;
	if (fr->sink != 0 && fr->epoch == s->epoch) {
		*out = fr->sink;
		return 0;
	}
	if (fr->u.frame.name != 0) {
		if ((r = pft_lookup(d, s, PK_FUNCTION_NAME, fr->u.frame.name,
		    &e)) != 0)
			return r;
		name = pft_seq_str(s, e->u.str.off, e->u.str.len);
	}
	if (fr->u.frame.src != 0) {
		if ((r = pft_lookup(d, s, PK_SOURCE_PATH, fr->u.frame.src,
		    &e)) != 0)
			return r;
		file = pft_seq_str(s, e->u.str.off, e->u.str.len);
	}
	if (fr->u.frame.mapping != 0) {
		if ((r = pft_lookup(d, s, PK_MAPPING, fr->u.frame.mapping,
		    &e)) != 0)
			return r;
		if ((r = pft_mapping(d, s, e, &mapping)) != 0)
			return r;
	}
	if ((name.n != 0 || file.n != 0) &&
	    (function = pft_function(d, name, file)) < 0)
		return -1;
	if ((id = pft_frame_id(d, function, mapping,
	    fr->u.frame.mapping != 0 ? fr->u.frame.pc : 0,
	    (int64_t)fr->u.frame.line)) < 0)
		return -1;
	fr->sink = id;
	fr->epoch = s->epoch;
	*out = id;
	return 0;
}

static int
pft_stack_push(struct pft *d, size_t n, int64_t id, uint64_t off)
{
	if (n >= d->limits->max_stack_depth)
		return error_set(d->err, ERR_TOO_LARGE, "perfetto: callstack "
		    "at byte %llu has more than %u frames (limit)",
		    (unsigned long long)(d->pd.base + off),
		    d->limits->max_stack_depth);
	if (n == d->stackcap) {
		d->stackcap = d->stackcap ? d->stackcap * 2 : 64;
		d->stackbuf = xreallocarray(d->stackbuf, d->stackcap,
		    sizeof *d->stackbuf);
	}
	d->stackbuf[n] = id;
	return 0;
}

/* stackbuf[0..n) holds frames root first: reverse to leaf first and make
 * it a sink stack. */
static int
pft_stack_emit(struct pft *d, size_t n, int64_t *out)
{
	size_t i;
	int64_t t, id;

	if (n == 0) {
		*out = 0;
		return 0;
	}
	for (i = 0; i < n / 2; i++) {
		t = d->stackbuf[i];
		d->stackbuf[i] = d->stackbuf[n - 1 - i];
		d->stackbuf[n - 1 - i] = t;
	}
	if ((id = hmap_get(&d->stacks, d->stackbuf, n * sizeof *d->stackbuf))
	    == 0) {
		if ((id = d->sink->stack(d->sink->ctx, d->stackbuf, n,
		    d->err)) < 0)
			return -1;
		hmap_put(&d->stacks, d->stackbuf, n * sizeof *d->stackbuf, id);
	}
	*out = id;
	return 0;
}

static int
pft_callstack(struct pft *d, struct pft_seq *s, uint64_t iid, uint64_t off,
    int64_t *out)
{
	struct pft_ent *cs;
	size_t i, n;
	int64_t id;
	int r;

	if ((r = pft_lookup(d, s, PK_CALLSTACK, iid, &cs)) != 0)
		return r;
	if (cs->sink != 0 && cs->epoch == s->epoch) {
		*out = cs->sink - 1;
		return 0;
	}
	n = cs->u.cs.nids;
	for (i = 0; i < n; i++) {
		if ((r = pft_frame(d, s, s->ids.v[cs->u.cs.ids + i], &id)) !=
		    0)
			return r;
		if (pft_stack_push(d, i, id, off) == -1)
			return -1;
	}
	if (pft_stack_emit(d, n, &id) == -1)
		return -1;
	/* + 1 so that an empty stack (id 0) is cached too. */
	cs->sink = id + 1;
	cs->epoch = s->epoch;
	*out = id;
	return 0;
}

/* InlineCallstack.Frame: function_name = 1, source_file = 2, line = 3. */
static int
pft_inline_frame(struct pft *d, const struct pb *c, const struct pb_field *f,
    int64_t *out)
{
	struct mstr name = { "", 0 }, file = { "", 0 };
	struct pb_field g;
	struct pb sub;
	int64_t function = 0, line = 0;
	int r;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g,
	    "InlineCallstack.Frame")) == 1) {
		if (g.num == 1 || g.num == 2) {
			if (pb_dec_want(&d->pd, &g, PB_LEN,
			    "InlineCallstack.Frame") ==
			    -1)
				return -1;
			if (g.num == 1)
				name = (struct mstr){ (const char *)g.data,
				    g.len };
			else
				file = (struct mstr){ (const char *)g.data,
				    g.len };
		} else if (g.num == 3) {
			if (pb_dec_want(&d->pd, &g, PB_VARINT,
			    "InlineCallstack.Frame") == -1)
				return -1;
			line = (int64_t)(uint32_t)g.v;
		}
	}
	if (r == -1)
		return -1;
	if ((name.n != 0 || file.n != 0) &&
	    (function = pft_function(d, name, file)) < 0)
		return -1;
	return (*out = pft_frame_id(d, function, 0, 0, line)) < 0 ? -1 : 0;
}

/* StackSample.callstack: InlineCallstack frames (1, length-delimited) or
 * Callstack frame_ids (2, interned frames); both root first. */
static int
pft_inline_callstack(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f, int64_t *out)
{
	struct pb_field g;
	struct pb sub;
	size_t n = 0, i;
	int64_t id;
	int r, rc;

	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g,
	    "StackSample.callstack")) == 1) {
		if (g.num == 1 && g.wt == PB_LEN) {
			if (pft_inline_frame(d, &sub, &g, &id) == -1 ||
			    pft_stack_push(d, n++, id, g.off) == -1)
				return -1;
		} else if (g.num == 2) {
			d->u3.n = 0;
			if (pb_dec_repeated(&d->pd, &sub, &g, &d->u3,
			    "Callstack.frame_ids") == -1)
				return -1;
			for (i = 0; i < d->u3.n; i++) {
				if ((rc = pft_frame(d, s, d->u3.v[i], &id)) !=
				    0)
					return rc;
				if (pft_stack_push(d, n++, id, g.off) == -1)
					return -1;
			}
		} else if (g.num == 1 && g.wt != PB_VARINT)
			return pb_dec_want(&d->pd, &g, PB_LEN,
			    "StackSample.callstack");
	}
	if (r == -1)
		return -1;
	return pft_stack_emit(d, n, out);
}

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
	    (v = hmap_get(&d->thrpid, &sm->tid, sizeof sm->tid)) != 0) {
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
		k.proc = (uint32_t)hmap_get(&d->procname, &k.pid, sizeof k.pid);
	if ((sm->has & L_TID) && d->thrname.n != 0)
		k.thread = (uint32_t)hmap_get(&d->thrname, &k.tid,
		    sizeof k.tid);
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

/* A sample flagged as needing state on a sequence that has none. */
static int
pft_needs_state(const struct pft *d, const struct pft_seq *s)
{
	return (d->flags & SEQ_NEEDS_INCREMENTAL_STATE) &&
	    s->state != PS_VALID;
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
	if (pft_counter_metric(d, &c, idx) == -1)
		return -1;
	e->sink = *idx + 1;
	e->epoch = s->epoch;
	return 0;
}

static int
pft_stack_sample(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f)
{
	static const char what[] = "StackSample";
	struct pb_field g, task, exec, cs, prim;
	struct pb sub;
	struct pft_smp sm;
	struct pft_ent *e;
	struct pft_ctr ctr;
	uint64_t cs_iid = 0, task_iid = 0, exec_iid = 0, prim_iid = 0;
	uint64_t weight = 0, mult, iid;
	int r, has_task = 0, has_exec = 0, has_cs = 0, has_prim = 0;
	int has_weight = 0, unwind = 0, idx;
	size_t i, nfollow;

	/* Read, whether it then parses or not (see pft_malformed()). */
	d->samples++;
	memset(&task, 0, sizeof task);
	exec = cs = prim = task;
	d->nfields = 0;
	d->u1.n = d->u2.n = 0;
	pb_sub(c, f, &sub);
	while ((r = pb_dec_next(&d->pd, &sub, &g, what)) == 1) {
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
			task = g;
			has_task = 1;
			break;
		case 2:
			task_iid = g.v;
			has_task = 2;
			break;
		case 3:
			exec = g;
			has_exec = 1;
			break;
		case 4:
			exec_iid = g.v;
			has_exec = 2;
			break;
		case 5:
			cs = g;
			has_cs = 1;
			break;
		case 6:
			cs_iid = g.v;
			cs.off = g.off;
			has_cs = 2;
			break;
		case 7:
		case 8:
			unwind = 1;
			break;
		case 9:
			prim = g;
			has_prim = 1;
			break;
		case 10:
			prim_iid = g.v;
			prim.off = g.off;
			has_prim = 2;
			break;
		case 11:
			weight = g.v;
			has_weight = 1;
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
			if (pb_dec_repeated(&d->pd, &sub, &g, &d->u1,
			    "StackSample.follower_descriptor_iids") == -1)
				return -1;
			break;
		case 14:
			if (pb_dec_repeated(&d->pd, &sub, &g, &d->u2,
			    "StackSample.follower_weights") == -1)
				return -1;
			break;
		default:
			break;
		}
	}
	if (r == -1)
		return -1;

	pft_smp_init(d, s, &sm, f->off);
	if (pft_needs_state(d, s)) {
		pft_drop(d, PC_NO_STATE);
		return 0;
	}
	if (!has_cs) {
		pft_drop(d, PC_NO_CALLSTACK);
		return 0;
	}

	/* Who and where. */
	if (has_task == 1) {
		uint64_t v[5] = { 0 };
		unsigned has = 0;

		if (pft_varints(d, &sub, &task, v, &has, 4, "TaskContext") ==
		    -1)
			return -1;
		pft_task(&sm, v[2], v[3], v[4],
		    (has & (1u << 2) ? TASK_PID : 0) |
		    (has & (1u << 3) ? TASK_TID : 0) |
		    (has & (1u << 4) ? TASK_ASYNC : 0));
	} else if (has_task == 2 && task_iid != 0) {
		if ((r = pft_lookup(d, s, PK_TASK, task_iid, &e)) != 0)
			goto unresolved;
		pft_task(&sm, e->u.task.pid, e->u.task.tid, e->u.task.async,
		    e->u.task.has);
	}
	if (has_exec == 1) {
		uint64_t v[4] = { 0 };
		unsigned has = 0;

		if (pft_varints(d, &sub, &exec, v, &has, 3,
		    "ExecutionContext") == -1)
			return -1;
		pft_exec(&sm, v[2], v[3], (has & (1u << 2) ? EXEC_CPU : 0) |
		    (has & (1u << 3) ? EXEC_MODE : 0));
	} else if (has_exec == 2 && exec_iid != 0) {
		if ((r = pft_lookup(d, s, PK_EXEC, exec_iid, &e)) != 0)
			goto unresolved;
		pft_exec(&sm, e->u.exec.cpu, e->u.exec.mode, e->u.exec.has);
	}

	/* The stack. */
	if (has_cs == 1)
		r = pft_inline_callstack(d, s, &sub, &cs, &sm.stack);
	else
		r = pft_callstack(d, s, cs_iid, cs.off, &sm.stack);
	if (r != 0)
		goto unresolved;

	/* The weights: resolve every descriptor before adding anything, so
	 * that an unresolved sample leaves d->values clean. */
	nfollow = d->nfields + d->u1.n;
	if (d->u2.n != nfollow)
		return pb_dec_fail(&d->pd, ERR_INPUT, what, f->off,
		    "%zu follower_weights for %zu follower descriptors",
		    d->u2.n, nfollow);
	if (has_prim == 2 && prim_iid != 0) {
		if ((r = pft_lookup(d, s, PK_COUNTER, prim_iid, &e)) != 0)
			goto unresolved;
	}
	for (i = 0; i < d->u1.n; i++)
		if ((r = pft_lookup(d, s, PK_COUNTER, d->u1.v[i], &e)) != 0)
			goto unresolved;

	idx = -1;
	mult = 1;
	if (has_prim == 1 && d->lastprim.n == prim.len && prim.len > 0 &&
	    memcmp(d->lastprim.p, prim.data, prim.len) == 0) {
		idx = d->lastprim_idx;
		mult = d->lastprim_mult;
	} else if (has_prim == 1) {
		if (pft_counter_parse(d, &sub, &prim, &iid, &ctr) == -1 ||
		    pft_counter_metric(d, &ctr, &idx) == -1)
			return -1;
		mult = ctr.mult;
		d->lastprim.n = 0;
		buf_add(&d->lastprim, prim.data, prim.len);
		d->lastprim_idx = idx;
		d->lastprim_mult = mult;
	} else if (has_prim == 2 && prim_iid != 0) {
		(void)pft_lookup(d, s, PK_COUNTER, prim_iid, &e);
		if (pft_counter_use(d, s, e, &idx, &mult) == -1)
			return -1;
	} else if (has_weight &&
	    pft_metric(d, MSTR_LIT("weight"), MSTR_LIT("count"), &idx) == -1)
		return -1;
	if (idx >= 0) {
		if (d->def_stack == 0)
			d->def_stack = idx + 1;
		if (pft_add_weight(d, idx, weight, mult, f->off,
		    "StackSample.primary_weight") == -1)
			goto fail;
	}
	for (i = 0; i < d->nfields; i++) {
		if (pft_counter_parse(d, &sub, &d->fields[i], &iid, &ctr) ==
		    -1 || pft_counter_metric(d, &ctr, &idx) == -1 ||
		    pft_add_weight(d, idx, d->u2.v[i], ctr.mult, f->off,
		    "StackSample.follower_weights") == -1)
			goto fail;
	}
	for (i = 0; i < d->u1.n; i++) {
		(void)pft_lookup(d, s, PK_COUNTER, d->u1.v[i], &e);
		if (pft_counter_use(d, s, e, &idx, &mult) == -1 ||
		    pft_add_weight(d, idx, d->u2.v[d->nfields + i], mult,
		    f->off, "StackSample.follower_weights") == -1)
			goto fail;
	}
	if (unwind)
		d->counts[PC_UNWIND_ERROR]++;
	return pft_emit(d, &sm);

unresolved:
	if (r == -1)
		return -1;
	pft_drop(d, PC_UNKNOWN + d->unknown);
	return 0;
fail:
	memset(d->values, 0, d->nmetrics * sizeof *d->values);
	return -1;
}

static int
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
				r = pft_metric(d, mstr_from(s->tb_name),
				    mstr_from(s->tb_unit), &idx);
			else
				r = pft_metric(d, MSTR_LIT("timebase"),
				    MSTR_LIT("count"), &idx);
			if (r == -1)
				return -1;
			s->tb_metric = idx + 1;
		}
		idx = s->tb_metric - 1;
		if (d->def_perf == 0)
			d->def_perf = idx + 1;
		if (pft_add_weight(d, idx, v[6], 1, f->off,
		    "PerfSample.timebase_count") == -1)
			goto fail;
	}
	for (i = 0; i < d->u1.n; i++) {
		char name[32];

		snprintf(name, sizeof name, "follower_%zu", i);
		if (pft_metric(d, mstr_from(name), MSTR_LIT("count"), &idx) ==
		    -1 || pft_add_weight(d, idx, d->u1.v[i], 1, f->off,
		    "PerfSample.follower_counts") == -1)
			goto fail;
	}
	return pft_emit(d, &sm);
fail:
	memset(d->values, 0, d->nmetrics * sizeof *d->values);
	return -1;
}

static int
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

/* ---- packets ---- */

static int
pft_payload(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *payload)
{
	switch (payload->num) {
	case TP_STACK_SAMPLE:
		return pft_stack_sample(d, s, c, payload);
	case TP_PERF_SAMPLE:
		return pft_perf_sample(d, s, c, payload);
	case TP_STREAMING_PROFILE:
		return pft_streaming(d, s, c, payload);
	case TP_PROCESS_TREE:
		return pft_process_tree(d, c, payload);
	case TP_TRACK_DESCRIPTOR:
		return pft_track_descriptor(d, s, c, payload);
	case TP_PROCESS_DESCRIPTOR:
		return pft_process(d, c, payload, 2, "ProcessDescriptor");
	case TP_THREAD_DESCRIPTOR:
		return pft_thread(d, s, c, payload, 1, 0);
	}
	return 0;
}

/* Sample counters when a packet's contents began. */
struct pft_mark {
	uint64_t	 samples, stored, dropped;
};

/* A message inside a packet whose framing was sound does not parse, or
 * holds what cannot be used (weights that overflow, counts that
 * disagree): the rest of the trace can still be read, as trace_processor
 * reads it.  The packet is skipped and counted; its samples counted as
 * read and neither stored nor dropped yet are dropped as malformed; when
 * its interned data was broken, its sequence's state is incomplete until
 * the next clear.  Limits and the sink's errors stay errors. */
static int
pft_malformed(struct pft *d, struct pft_seq *s, int in_state,
    const struct pft_mark *m)
{
	uint64_t lost;

	/* Not an ERR_INPUT of the sink's. */
	if (d->err->kind != ERR_INPUT || !d->pd.bad)
		return -1;
	error_clear(d->err);
	d->pd.bad = 0;
	memset(d->values, 0, d->nmetrics * sizeof *d->values);
	d->counts[PC_MALFORMED_PACKETS]++;
	if (in_state) {
		pft_seq_reset(d, s);
		s->state = PS_LOST;
	}
	lost = (d->samples - m->samples) - (d->stored - m->stored) -
	    (d->dropped - m->dropped);
	d->counts[PC_MALFORMED] += lost;
	d->dropped += lost;
	return 0;
}

static int
pft_packet(struct pft *d, const uint8_t *data, size_t len)
{
	struct pb c, c2;
	struct pb_field f, payload;
	struct pft_seq *s = NULL;
	struct pft_mark mark;
	uint32_t seqid = 0;
	uint64_t dropped = 0;
	int r, cleared = 0, has_payload = 0, has_state = 0;

	d->flags = 0;
	d->has_ts = 0;
	d->pkt_ts = 0;
	memset(&payload, 0, sizeof payload);
	pb_init(&c, data, len);
	while ((r = pb_dec_next(&d->pd, &c, &f, "TracePacket")) == 1) {
		switch (f.num) {
		case TP_TIMESTAMP:
		case TP_SEQUENCE_ID:
		case TP_SEQUENCE_FLAGS:
		case TP_STATE_CLEARED:
		case TP_PACKET_DROPPED:
			if (pb_dec_want(&d->pd, &f, PB_VARINT,
			    "TracePacket") == -1)
				return -1;
			break;
		case TP_PROCESS_TREE:
		case TP_INTERNED_DATA:
		case TP_PROCESS_DESCRIPTOR:
		case TP_THREAD_DESCRIPTOR:
		case TP_STREAMING_PROFILE:
		case TP_DEFAULTS:
		case TP_TRACK_DESCRIPTOR:
		case TP_PERF_SAMPLE:
		case TP_STACK_SAMPLE:
			if (pb_dec_want(&d->pd, &f, PB_LEN,
			    "TracePacket") == -1)
				return -1;
			break;
		default:
			continue;
		}
		switch (f.num) {
		case TP_TIMESTAMP:
			if (f.v > INT64_MAX)
				return pb_dec_fail(&d->pd, ERR_INPUT,
				    "TracePacket", f.off,
				    "timestamp %llu is out of range",
				    (unsigned long long)f.v);
			d->pkt_ts = (int64_t)f.v;
			d->has_ts = 1;
			break;
		case TP_SEQUENCE_ID:
			seqid = (uint32_t)f.v;
			break;
		case TP_SEQUENCE_FLAGS:
			d->flags = f.v;
			break;
		case TP_STATE_CLEARED:
			cleared |= f.v != 0;
			break;
		case TP_PACKET_DROPPED:
			dropped = f.v;
			break;
		case TP_INTERNED_DATA:
		case TP_DEFAULTS:
			has_state = 1;
			break;
		default:
			payload = f;
			has_payload = 1;
			break;
		}
	}
	if (r == -1)
		return -1;
	if (d->flags & SEQ_INCREMENTAL_STATE_CLEARED)
		cleared = 1;
	if (!cleared && !dropped && !has_state && !has_payload)
		return 0;
	if (pft_seq_get(d, seqid, &s) == -1)
		return -1;
	mark.samples = d->samples;
	mark.stored = d->stored;
	mark.dropped = d->dropped;

	/* A loss invalidates the state; a clear in the same packet (as on
	 * the first packet of a sequence) makes a new one at once. */
	if (dropped) {
		pft_seq_reset(d, s);
		s->state = PS_LOST;
	}
	if (cleared) {
		pft_seq_reset(d, s);
		s->state = PS_VALID;
	}
	/* A packet that needs a state its sequence lacks is skipped whole,
	 * as trace_processor does; its samples are still read, to be counted
	 * (the handlers see pft_needs_state()).  Interned data after a loss
	 * is incomplete until the next clear, flagged or not. */
	if (pft_needs_state(d, s)) {
		d->counts[PC_PACKETS_SKIPPED]++;
		switch (payload.num) {
		case TP_STACK_SAMPLE:
		case TP_PERF_SAMPLE:
		case TP_STREAMING_PROFILE:
			break;
		default:
			return 0;
		}
		has_state = 0;
	}
	/* The packet's own framing is sound from here on: what is wrong
	 * inside it costs the packet, not the trace. */
	if (has_state && s->state != PS_LOST) {
		pb_init(&c2, data, len);
		while ((r = pb_dec_next(&d->pd, &c2, &f, "TracePacket")) == 1) {
			if (f.num == TP_INTERNED_DATA &&
			    pft_interned(d, s, &c2, &f) == -1)
				return pft_malformed(d, s, 1, &mark);
			if (f.num == TP_DEFAULTS &&
			    pft_defaults(d, s, &c2, &f) == -1)
				return pft_malformed(d, s, 1, &mark);
		}
		if (r == -1)
			return -1;
	}
	if (has_payload && pft_payload(d, s, &c, &payload) == -1)
		return pft_malformed(d, s, 0, &mark);
	return 0;
}

/* Skip a Trace field other than packet, by wire type. */
static int
pft_skip(struct stream *in, unsigned wt, uint64_t off, struct error *err)
{
	const uint8_t *p;
	uint64_t v;
	int end;

	switch (wt) {
	case PB_VARINT:
		if (stream_varint(in, &v, &end, "perfetto: Trace field", err) ==
		    -1)
			return -1;
		if (end)
			return error_set(err, ERR_INPUT, "perfetto: Trace "
			    "field at byte %llu: the input ends before its "
			    "value",
			    (unsigned long long)off);
		return 0;
	case PB_FIXED64:
		return stream_take(in, 8, &p, "perfetto: Trace field", err);
	case PB_FIXED32:
		return stream_take(in, 4, &p, "perfetto: Trace field", err);
	case PB_LEN:
		if (stream_varint(in, &v, &end, "perfetto: Trace field length",
		    err) == -1)
			return -1;
		if (end)
			return error_set(err, ERR_INPUT, "perfetto: Trace "
			    "field at byte %llu: the input ends before its "
			    "length",
			    (unsigned long long)off);
		while (v > 0) {
			size_t n = v > (1u << 20) ? (1u << 20) : (size_t)v;

			if (stream_take(in, n, &p, "perfetto: Trace field",
			    err) == -1)
				return -1;
			v -= n;
		}
		return 0;
	}
	return error_set(err, ERR_INPUT, "perfetto: Trace field at byte %llu: "
	    "wire type %u is not supported", (unsigned long long)off, wt);
}

static int
pft_meta(struct pft *d)
{
	struct model_count counts[PC_N];
	struct model_meta m;
	size_t n = 0;
	int i;

	for (i = 0; i < PC_N; i++)
		if (d->counts[i] != 0) {
			counts[n].name = pft_count_names[i];
			counts[n++].n = d->counts[i];
		}
	memset(&m, 0, sizeof m);
	if (d->have_time) {
		m.time_ns = d->tmin;
		m.duration_ns = d->tmax - d->tmin;
	}
	m.period_type = m.period_unit = m.doc_url = (struct mstr){ "", 0 };
	m.default_metric = d->def_stack ? d->def_stack - 1 :
	    d->def_perf ? d->def_perf - 1 : 0;
	m.samples = d->samples;
	m.dropped_samples = d->dropped;
	m.counts = counts;
	m.ncounts = n;
	return d->sink->meta(d->sink->ctx, &m, d->err);
}

static void
pft_free(struct pft *d)
{
	size_t i;

	for (i = 0; i < d->nseqs; i++)
		pft_seq_free(d, d->seqs[i]);
	free(d->seqs);
	hmap_clear(&d->seqidx);
	hmap_clear(&d->metrics);
	hmap_clear(&d->functions);
	hmap_clear(&d->mappings);
	hmap_clear(&d->frames);
	hmap_clear(&d->stacks);
	hmap_clear(&d->labelsets);
	hmap_clear(&d->names);
	hmap_clear(&d->procname);
	hmap_clear(&d->thrname);
	hmap_clear(&d->thrpid);
	buf_free(&d->key);
	buf_free(&d->tmp);
	buf_free(&d->hex);
	buf_free(&d->lastprim);
	buf_free(&d->namebytes);
	free(d->namev);
	free(d->lcache);
	free(d->stackbuf);
	free(d->u1.v);
	free(d->u2.v);
	free(d->u3.v);
	free(d->fields);
}

int
perfetto_decode(struct stream *in, const struct decode_opts *opts,
    const struct limits *limits, const struct sink *sink, struct error *err)
{
	struct pft *d = xcalloc(1, sizeof *d);
	const uint8_t *p;
	uint64_t tag, len, off;
	int end, idx, rc = -1;

	d->sink = sink;
	d->limits = limits;
	d->err = err;
	d->pd.name = "perfetto";
	d->pd.err = err;
	if (pft_metric(d, MSTR_LIT("samples"), MSTR_LIT("count"), &idx) == -1)
		goto out;
	for (;;) {
		off = stream_offset(in);
		if (stream_varint(in, &tag, &end, "perfetto: Trace field tag",
		    err) == -1)
			goto out;
		if (end)
			break;
		if (tag >> 3 == 0) {
			error_set(err, ERR_INPUT, "perfetto: Trace field at "
			    "byte %llu: field number 0",
			    (unsigned long long)off);
			goto out;
		}
		if (tag >> 3 != 1) {
			if (pft_skip(in, (unsigned)(tag & 7), off, err) == -1)
				goto out;
			continue;
		}
		if ((tag & 7) != PB_LEN) {
			error_set(err, ERR_INPUT, "perfetto: Trace.packet at "
			    "byte %llu: wire type %u, expected "
			    "length-delimited",
			    (unsigned long long)off, (unsigned)(tag & 7));
			goto out;
		}
		if (stream_varint(in, &len, &end,
		    "perfetto: TracePacket length", err) == -1)
			goto out;
		if (end) {
			error_set(err, ERR_INPUT, "perfetto: TracePacket at "
			    "byte %llu: the input ends before its length",
			    (unsigned long long)off);
			goto out;
		}
		if (len > PERFETTO_MAX_PACKET) {
			error_set(err, ERR_TOO_LARGE, "perfetto: TracePacket "
			    "at byte %llu: %llu bytes (limit %u)",
			    (unsigned long long)off, (unsigned long long)len,
			    PERFETTO_MAX_PACKET);
			goto out;
		}
		d->pd.base = stream_offset(in);
		if (stream_take(in, (size_t)len, &p, "perfetto: TracePacket",
		    err) == -1)
			goto out;
		if (pft_packet(d, p, (size_t)len) == -1)
			goto out;
	}
	rc = pft_meta(d);
out:
	pft_free(d);
	free(d);
	return rc;
}

/* ---- detection ----
 *
 * The rule: the input starts with tag 0x0a (field 1, length-delimited)
 * and a length of 1 byte to PERFETTO_MAX_PACKET; the first packet's
 * fields (as far as the head shows them) are well-formed protobuf; every
 * one of them that is a well-known TracePacket field has that field's
 * wire type, and at least one is such a field; and if the head shows the
 * byte after the packet, it is 0x0a again.  A pprof Profile also starts
 * with 0x0a (sample_type), but a ValueType holds only varint fields 1 and
 * 2, and no well-known TracePacket field is a varint numbered 1 or 2: so
 * no pprof blob is claimed, whatever order format detection tries. */

static const struct {
	uint32_t	 num;
	enum pb_wire	 wt;
} pft_known[] = {
	{ 1, PB_LEN },		/* ftrace_events */
	{ 2, PB_LEN },		/* process_tree */
	{ 3, PB_VARINT },	/* trusted_uid */
	{ 6, PB_LEN },		/* clock_snapshot */
	{ 8, PB_VARINT },	/* timestamp */
	{ 9, PB_LEN },		/* process_stats */
	{ 10, PB_VARINT },	/* trusted_packet_sequence_id */
	{ 11, PB_LEN },		/* track_event */
	{ 12, PB_LEN },		/* interned_data */
	{ 13, PB_VARINT },	/* sequence_flags */
	{ 33, PB_LEN },		/* trace_config */
	{ 35, PB_LEN },		/* trace_stats */
	{ 36, PB_LEN },		/* synchronization_marker */
	{ 37, PB_LEN },		/* profile_packet */
	{ 41, PB_VARINT },	/* incremental_state_cleared */
	{ 42, PB_VARINT },	/* previous_packet_dropped */
	{ 43, PB_LEN },		/* process_descriptor */
	{ 44, PB_LEN },		/* thread_descriptor */
	{ 45, PB_LEN },		/* system_info */
	{ 54, PB_LEN },		/* streaming_profile_packet */
	{ 58, PB_VARINT },	/* timestamp_clock_id */
	{ 59, PB_LEN },		/* trace_packet_defaults */
	{ 60, PB_LEN },		/* track_descriptor */
	{ 66, PB_LEN },		/* perf_sample */
	{ 69, PB_LEN },		/* service_event */
	{ 79, PB_VARINT },	/* trusted_pid */
	{ 87, PB_VARINT },	/* first_packet_on_sequence */
	{ 89, PB_LEN },		/* trace_uuid */
	{ 135, PB_LEN },	/* stack_sample */
};

int
perfetto_sniff(const uint8_t *head, size_t n)
{
	const uint8_t *p, *end, *pkt_end;
	uint64_t len, tag, v;
	unsigned wt, known = 0;
	size_t i;
	int whole;

	if (head == NULL || n < 2 || head[0] != 0x0a)
		return 0;
	p = head + 1;
	end = head + n;
	if (pb_varint(&p, end, &len) == -1 || len == 0 ||
	    len > PERFETTO_MAX_PACKET)
		return 0;
	whole = len <= (uint64_t)(end - p);
	pkt_end = whole ? p + len : end;
	while (p < pkt_end) {
		if (pb_varint(&p, pkt_end, &tag) == -1)
			return whole ? 0 : known > 0;
		wt = (unsigned)(tag & 7);
		if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
			return 0;
		for (i = 0; i < NITEMS(pft_known); i++)
			if (pft_known[i].num == tag >> 3) {
				if (pft_known[i].wt != wt)
					return 0;
				known++;
				break;
			}
		switch (wt) {
		case PB_VARINT:
			if (pb_varint(&p, pkt_end, &v) == -1)
				return whole ? 0 : known > 0;
			break;
		case PB_FIXED64:
		case PB_FIXED32:
			v = wt == PB_FIXED64 ? 8 : 4;
			if ((uint64_t)(pkt_end - p) < v)
				return whole ? 0 : known > 0;
			p += v;
			break;
		case PB_LEN:
			if (pb_varint(&p, pkt_end, &v) == -1)
				return whole ? 0 : known > 0;
			if (v > (uint64_t)(pkt_end - p))
				return whole ? 0 : known > 0;
			p += v;
			break;
		default:
			return 0;
		}
	}
	if (known == 0)
		return 0;
	if (whole && pkt_end < end && *pkt_end != 0x0a)
		return 0;
	return 1;
}
