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
 *   stack had an unwind error; kernel_records_lost sums PerfSample's
 *   lost kernel records, which are not samples and not in meta.samples.
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

#include "alloc.h"
#include "buf.h"
#include "hmap.h"
#include "mstr.h"
#include "nitems.h"
#include "pb.h"
#include "perfetto-int.h"
#include "perfetto.h"

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
	imap_clear(&d->procname);
	imap_clear(&d->thrname);
	imap_clear(&d->thrpid);
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
	if (pft_metric_get(d, MSTR_LIT("samples"), MSTR_LIT("count"),
	    &idx) == -1)
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
