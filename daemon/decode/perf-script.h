/* perf-script.h: decoder for the text of Linux perf's `perf script`, what
 * flamegraph.pl's stackcollapse-perf, inferno, speedscope and the Firefox
 * profiler read. */
#ifndef PROFD_PERF_SCRIPT_H
#define PROFD_PERF_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "error.h"
#include "model.h"
#include "stream.h"

/* 1 if the head of an input is perf script text: text only (no NUL or
 * other control byte but tab, CR and LF; valid UTF-8), and after any
 * '#' lines (perf script --header) and blank lines, its first line is a
 * sample line ("COMM PID[/TID] [CPU] [TIME:] [PERIOD] EVENT: ...", as
 * perf_script_head reads it) followed, when the head holds more, by a
 * frame line (a tab, then a hexadecimal address), a blank line or
 * another sample line.  A head of '#' lines alone is perf script text
 * when it holds perf's "# captured on" or "# perf version". */
int perf_script_sniff(const uint8_t *head, size_t n);

/* Read the samples one at a time: each sample line starts a sample, its
 * frames (leaf first) follow on lines of their own and a blank line ends
 * it.  One metric per event (its name without modifiers), a function per
 * symbol, a mapping per DSO, a frame per (function, mapping, address,
 * source line), a label set per (comm, pid, tid, cpu); the samples are
 * kept (ids, value, time) until the end, when their wall time is known,
 * and handed to the sink then, before meta.  docs/FORMATS.md has the
 * rules; errors name the line, the byte offset and the text. */
int perf_script_decode(struct stream *, const struct decode_opts *,
    const struct limits *, const struct sink *, struct error *);

#endif
