/* pftenc.h: building Perfetto traces by hand for tests, on top of pbw.h.
 *
 * A trace is TracePackets in Trace.packet (field 1): pftenc_packet()
 * opens one and returns the mark for pbw_end().  The other helpers write
 * the messages the decoder reads, with the field numbers of the public
 * protos; optional fields are left out when given PFTENC_NONE. */
#ifndef PROFD_PFTENC_H
#define PROFD_PFTENC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "pbw.h"

#define PFTENC_NONE	UINT64_MAX

/* TracePacket fields. */
#define PFT_TIMESTAMP		8
#define PFT_SEQUENCE_ID		10
#define PFT_INTERNED_DATA	12
#define PFT_SEQUENCE_FLAGS	13
#define PFT_STATE_CLEARED	41
#define PFT_PACKET_DROPPED	42
#define PFT_PROCESS_TREE	2
#define PFT_STREAMING_PROFILE	54
#define PFT_DEFAULTS		59
#define PFT_TRACK_DESCRIPTOR	60
#define PFT_PERF_SAMPLE		66
#define PFT_STACK_SAMPLE	135

#define PFT_SEQ_CLEARED		1
#define PFT_SEQ_NEEDS		2

/* InternedData fields. */
#define PFT_I_FUNCTION_NAMES	5
#define PFT_I_FRAMES		6
#define PFT_I_CALLSTACKS	7
#define PFT_I_BUILD_IDS		16
#define PFT_I_MAPPING_PATHS	17
#define PFT_I_SOURCE_PATHS	18
#define PFT_I_MAPPINGS		19
#define PFT_I_TASKS		48
#define PFT_I_EXECS		49
#define PFT_I_COUNTERS		50

static inline size_t
pftenc_packet(struct buf *e)
{
	return pbw_begin(e, 1);
}

/* timestamp, trusted_packet_sequence_id and sequence_flags (each only if
 * not PFTENC_NONE). */
static inline void
pftenc_header(struct buf *e, uint64_t ts, uint64_t seq, uint64_t flags)
{
	if (ts != PFTENC_NONE)
		pbw_uint(e, PFT_TIMESTAMP, ts);
	if (seq != PFTENC_NONE)
		pbw_uint(e, PFT_SEQUENCE_ID, seq);
	if (flags != PFTENC_NONE)
		pbw_uint(e, PFT_SEQUENCE_FLAGS, flags);
}

/* InternedString (iid 1, str 2) as InternedData field `field`. */
static inline void
pftenc_istring(struct buf *e, uint32_t field, uint64_t iid, const char *s)
{
	size_t m = pbw_begin(e, field);

	pbw_uint(e, 1, iid);
	pbw_bytes(e, 2, s, strlen(s));
	pbw_end(e, m);
}

/* Frame: iid 1, function_name_id 2, mapping_id 3, rel_pc 4,
 * source_path_iid 5, line_number 6. */
static inline void
pftenc_frame(struct buf *e, uint64_t iid, uint64_t name, uint64_t mapping,
    uint64_t pc, uint64_t src, uint64_t line)
{
	size_t m = pbw_begin(e, PFT_I_FRAMES);

	pbw_uint(e, 1, iid);
	if (name != PFTENC_NONE)
		pbw_uint(e, 2, name);
	if (mapping != PFTENC_NONE)
		pbw_uint(e, 3, mapping);
	if (pc != PFTENC_NONE)
		pbw_uint(e, 4, pc);
	if (src != PFTENC_NONE)
		pbw_uint(e, 5, src);
	if (line != PFTENC_NONE)
		pbw_uint(e, 6, line);
	pbw_end(e, m);
}

/* Callstack: iid 1, frame_ids 2 (root first), packed or not. */
static inline void
pftenc_callstack(struct buf *e, uint64_t iid, const uint64_t *frames,
    size_t n, int packed)
{
	size_t m = pbw_begin(e, PFT_I_CALLSTACKS);

	pbw_uint(e, 1, iid);
	if (packed)
		pbw_packed(e, 2, frames, n);
	else
		pbw_unpacked(e, 2, frames, n);
	pbw_end(e, m);
}

/* Mapping: iid 1, build_id 2, start_offset 3, start 4, end 5,
 * path_string_ids 7. */
static inline void
pftenc_mapping(struct buf *e, uint64_t iid, uint64_t build_id,
    uint64_t start, uint64_t end, uint64_t offset, const uint64_t *paths,
    size_t n)
{
	size_t m = pbw_begin(e, PFT_I_MAPPINGS);

	pbw_uint(e, 1, iid);
	if (build_id != PFTENC_NONE)
		pbw_uint(e, 2, build_id);
	pbw_uint(e, 3, offset);
	pbw_uint(e, 4, start);
	pbw_uint(e, 5, end);
	pbw_packed(e, 7, paths, n);
	pbw_end(e, m);
}

/* StackSample.TaskContext: iid 1, pid 2, tid 3, async_id 4. */
static inline void
pftenc_task(struct buf *e, uint32_t field, uint64_t iid, uint64_t pid,
    uint64_t tid, uint64_t async)
{
	size_t m = pbw_begin(e, field);

	if (iid != PFTENC_NONE)
		pbw_uint(e, 1, iid);
	if (pid != PFTENC_NONE)
		pbw_uint(e, 2, pid);
	if (tid != PFTENC_NONE)
		pbw_uint(e, 3, tid);
	if (async != PFTENC_NONE)
		pbw_uint(e, 4, async);
	pbw_end(e, m);
}

/* StackSample.ExecutionContext: iid 1, cpu 2, mode 3. */
static inline void
pftenc_exec(struct buf *e, uint32_t field, uint64_t iid, uint64_t cpu,
    uint64_t mode)
{
	size_t m = pbw_begin(e, field);

	if (iid != PFTENC_NONE)
		pbw_uint(e, 1, iid);
	if (cpu != PFTENC_NONE)
		pbw_uint(e, 2, cpu);
	if (mode != PFTENC_NONE)
		pbw_uint(e, 3, mode);
	pbw_end(e, m);
}

/* StackSample.CounterDescriptor: iid 1, name 2, unit 3 | unit_str 4,
 * unit_multiplier 5; name and unit_str may be NULL. */
static inline void
pftenc_counter(struct buf *e, uint32_t field, uint64_t iid,
    const char *name, uint64_t unit, const char *unit_str, uint64_t mult)
{
	size_t m = pbw_begin(e, field);

	if (iid != PFTENC_NONE)
		pbw_uint(e, 1, iid);
	if (name != NULL)
		pbw_str(e, 2, name);
	if (unit != PFTENC_NONE)
		pbw_uint(e, 3, unit);
	if (unit_str != NULL)
		pbw_str(e, 4, unit_str);
	if (mult != PFTENC_NONE)
		pbw_uint(e, 5, mult);
	pbw_end(e, m);
}

/* InlineCallstack.Frame (function_name 1, source_file 2, line 3) inside an
 * open InlineCallstack. */
static inline void
pftenc_inline_frame(struct buf *e, const char *name, const char *file,
    uint64_t line)
{
	size_t m = pbw_begin(e, 1);

	if (name != NULL)
		pbw_str(e, 1, name);
	if (file != NULL)
		pbw_str(e, 2, file);
	if (line != PFTENC_NONE)
		pbw_uint(e, 3, line);
	pbw_end(e, m);
}

/* A whole packet holding one StackSample with interned references only:
 * callstack_iid 6, task_context_iid 2, execution_context_iid 4,
 * primary_descriptor_iid 10, primary_weight 11. */
static inline void
pftenc_stack_sample_iids(struct buf *e, uint64_t ts, uint64_t seq,
    uint64_t flags, uint64_t cs, uint64_t task, uint64_t exec, uint64_t ctr,
    uint64_t weight)
{
	size_t p = pftenc_packet(e), m;

	pftenc_header(e, ts, seq, flags);
	m = pbw_begin(e, PFT_STACK_SAMPLE);
	if (task != PFTENC_NONE)
		pbw_uint(e, 2, task);
	if (exec != PFTENC_NONE)
		pbw_uint(e, 4, exec);
	if (cs != PFTENC_NONE)
		pbw_uint(e, 6, cs);
	if (ctr != PFTENC_NONE)
		pbw_uint(e, 10, ctr);
	if (weight != PFTENC_NONE)
		pbw_uint(e, 11, weight);
	pbw_end(e, m);
	pbw_end(e, p);
}

/* A whole packet holding one PerfSample (cpu 1, pid 2, tid 3,
 * callstack_iid 4, cpu_mode 5, timebase_count 6). */
static inline void
pftenc_perf_sample(struct buf *e, uint64_t ts, uint64_t seq, uint64_t flags,
    uint64_t cpu, uint64_t pid, uint64_t tid, uint64_t cs, uint64_t mode,
    uint64_t count)
{
	size_t p = pftenc_packet(e), m;

	pftenc_header(e, ts, seq, flags);
	m = pbw_begin(e, PFT_PERF_SAMPLE);
	if (cpu != PFTENC_NONE)
		pbw_uint(e, 1, cpu);
	if (pid != PFTENC_NONE)
		pbw_uint(e, 2, pid);
	if (tid != PFTENC_NONE)
		pbw_uint(e, 3, tid);
	if (cs != PFTENC_NONE)
		pbw_uint(e, 4, cs);
	if (mode != PFTENC_NONE)
		pbw_uint(e, 5, mode);
	if (count != PFTENC_NONE)
		pbw_uint(e, 6, count);
	pbw_end(e, m);
	pbw_end(e, p);
}

#endif
