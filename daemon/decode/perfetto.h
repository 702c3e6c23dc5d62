/* perfetto.h: streaming decoder for Perfetto traces (perfetto.protos.Trace,
 * already inflated) that emits their stack samples (StackSample,
 * PerfSample, StreamingProfilePacket) on a sink. */
#ifndef PROFD_PERFETTO_H
#define PROFD_PERFETTO_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "bounds.h"
#include "model.h"
#include "stream.h"

/* The largest TracePacket accepted (ERR_TOO_LARGE past it). */
#define PERFETTO_MAX_PACKET	(64u << 20)

/* 1 if the first bytes of an input look like a Trace: see perfetto.c for
 * the rule, which never claims a pprof Profile. */
int perfetto_sniff(const uint8_t *head, size_t n);

/* Read the trace packet by packet, holding one packet and the interned
 * state of each sequence, and emit metrics, frames, stacks, label sets and
 * timed samples on the sink, then meta.  Returns 0, or -1 with err naming
 * what was wrong and the byte offset in the stream. */
int perfetto_decode(struct stream *, const struct decode_opts *,
    const struct limits *, const struct sink *, struct error *);

#endif
