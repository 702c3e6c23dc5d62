/* perfetto-int.h: what the pieces of the Perfetto decoder share: the
 * decoder's state, each sequence's interned state, and the functions one
 * piece calls in another.  The rules (what is kept, dropped and counted,
 * and why) are in perfetto.c's opening comment.
 *
 * Calls go one way, down this list (a file calls only files below it, and
 * pb.c; none calls back up):
 *
 *   perfetto.c          the Trace and TracePacket framing, meta, detection
 *   perfetto-sample.c   StackSample, PerfSample, StreamingProfilePacket
 *   perfetto-stack.c    functions, mappings, frames and callstacks
 *   perfetto-names.c    process and thread names
 *   perfetto-intern.c   sequences and their interned state, defaults
 *   perfetto-metric.c   the trace's metrics and the sample's values */
#ifndef PROFD_PERFETTO_INT_H
#define PROFD_PERFETTO_INT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "hmap.h"
#include "model.h"
#include "mstr.h"
#include "pb.h"

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

#define PFT_NO_PID	INT64_MIN

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
	/* Sink stack id + 1 by callstack iid (the dense ones), valid for
	 * cs_epoch: a sample's one lookup in a small array, where the entry
	 * (72 bytes, among all of the sequence's) mostly missed the cache. */
	int64_t		*cs_sink;
	size_t		 ncs_sink;
	uint64_t	 cs_epoch;
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
	/* pid, tid -> name + 1; tid -> pid + 1 (PFT_NO_PID: none, when
	 * pid + 1 wraps to 0): looked up per sample. */
	struct imap		 procname, thrname, thrpid;

	int64_t			 tmin, tmax;
	int			 have_time;
	uint64_t		 samples, dropped, stored;
	uint64_t		 counts[PC_N];
	enum pft_kind		 unknown;	/* of the last failed lookup */
};

/* ---- lookups on every sample, inline ---- */

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

static inline struct mstr
pft_seq_str(const struct pft_seq *s, size_t off, size_t len)
{
	if (len == 0)
		return (struct mstr){ "", 0 };
	return (struct mstr){ (const char *)s->bytes.p + off, len };
}

/* 0: *e found; 1: the sequence's current state does not define it (lost
 * with the packets of a wrapped ring buffer, or before a clear), which
 * d->unknown names for the count.  Never -1: callers pass other errors on
 * with the same convention. */
static inline int
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

/* The sink stack of callstack iid if known: 0 and *out set, else 1. */
static inline int
pft_cs_cached(const struct pft_seq *s, uint64_t iid, int64_t *out)
{
	if (iid >= s->ncs_sink || s->cs_epoch != s->epoch ||
	    s->state == PS_LOST || s->cs_sink[iid] == 0)
		return 1;
	*out = s->cs_sink[iid] - 1;
	return 0;
}

/* A sample flagged as needing state on a sequence that has none. */
static inline int
pft_needs_state(const struct pft *d, const struct pft_seq *s)
{
	return (d->flags & SEQ_NEEDS_INCREMENTAL_STATE) &&
	    s->state != PS_VALID;
}

/* perfetto-metric.c */
int pft_metric_get(struct pft *d, struct mstr type, struct mstr unit,
    int *idx);
struct mstr pft_metric_name(char *out, size_t size, struct mstr in,
    const char *dflt);
int pft_metric_counter(struct pft *d, const struct pft_ctr *c, int *idx);
int pft_metric_add(struct pft *d, int idx, uint64_t weight, uint64_t mult,
    uint64_t off, const char *what);

/* perfetto-intern.c */
void pft_seq_reset(struct pft *d, struct pft_seq *s);
void pft_seq_free(struct pft *d, struct pft_seq *s);
int pft_seq_get(struct pft *d, uint32_t id, struct pft_seq **out);
int pft_cs_cache(struct pft *d, struct pft_seq *s, uint64_t iid, int64_t id,
    uint64_t off);
int pft_varints(struct pft *d, const struct pb *c, const struct pb_field *f,
    uint64_t *v, unsigned *has, unsigned max, const char *what);
int pft_counter_parse(struct pft *d, const struct pb *c,
    const struct pb_field *f,
    uint64_t *iid, struct pft_ctr *out);
int pft_interned(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f);
int pft_defaults(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f);

/* perfetto-names.c */
struct mstr pft_name(const struct pft *d, uint32_t idx);
int pft_process(struct pft *d, const struct pb *c, const struct pb_field *f,
    uint32_t cmdnum, const char *what);
int pft_thread(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f, int descriptor, uint64_t tgid_dflt);
int pft_process_tree(struct pft *d, const struct pb *c,
    const struct pb_field *f);
int pft_track_descriptor(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f);

/* perfetto-stack.c */
int pft_callstack(struct pft *d, struct pft_seq *s, uint64_t iid, uint64_t off,
    int64_t *out);
int pft_inline_callstack(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f, int64_t *out);

/* perfetto-sample.c */
int pft_stack_sample(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f);
int pft_perf_sample(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f);
int pft_streaming(struct pft *d, struct pft_seq *s, const struct pb *c,
    const struct pb_field *f);

#endif
