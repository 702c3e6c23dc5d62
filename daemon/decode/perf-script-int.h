/* perf-script-int.h: what perf-script.c (lines, sample lines, frames) and
 * perf-script-emit.c (the sink: ids, the kept samples, their times, meta)
 * share.  Calls go one way: perf-script.c calls perf-script-emit.c. */
#ifndef PROFD_PERF_SCRIPT_INT_H
#define PROFD_PERF_SCRIPT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "buf.h"
#include "error.h"
#include "hmap.h"
#include "model.h"
#include "stream.h"

/* What a sample line says (struct ps_head.has). */
#define PS_PID		0x01
#define PS_TID		0x02
#define PS_CPU		0x04
#define PS_TIME		0x08
#define PS_PERIOD	0x10

/* A sample line, as offsets into the line. */
struct ps_head {
	size_t comm_b, comm_e;
	size_t ev_b, ev_e;		/* the event without its modifiers */
	size_t rest;			/* what follows the event token */
	int64_t pid, tid, cpu, period;
	int64_t time_ns;		/* perf's clock: since boot, mostly */
	unsigned has;			/* PS_* */
	int record;			/* a PERF_RECORD_* line */
};

/* A frame of the sample being read: its names as offsets into
 * struct perf_script.text (n 0: none). */
struct ps_frame {
	uint64_t addr;
	size_t sym, nsym;
	size_t dso, ndso;
	size_t file, nfile;		/* -F +srcline's */
	int64_t line;
	int inlined;			/* --inline's "(inlined)" */
};

/* A sample kept until its time is known. */
struct ps_sample {
	int64_t stack, labelset, value, time_ns;
	size_t metric;
	int timed;
};

struct perf_script {
	struct stream		*in;
	const struct limits	*lim;
	const struct sink	*sink;
	struct error		*err;
	size_t			 maxline;
	uint64_t		 lineno;
	uint64_t		 off;		/* the line's offset */

	struct hmap		 functions;	/* name, file -> id */
	struct hmap		 mappings;	/* dso -> sink id */
	struct hmap		 frames;	/* ids, address -> id */
	struct hmap		 metrics;	/* event, unit -> index + 1 */
	struct hmap		 labelsets;	/* comm, numbers -> sink id */
	size_t			 nmetrics;

	/* The sample being read. */
	int			 open;
	int			 chain;		/* frames on lines of their own */
	uint64_t		 open_line;
	struct buf		 text;		/* its frames' names */
	struct ps_frame		*fr;
	size_t			 nfr, frcap;
	struct ps_sample	 cur;
	int64_t			*ids;
	size_t			 idcap;

	struct ps_sample	*kept;
	size_t			 nkept, keptcap;
	int64_t			*values;
	uint64_t		 samples, records;
	int			 began;		/* a sample line was read */

	/* perf script --header's: the file's time (its mtime, as perf
	 * prints it with ctime(3)) and its last sample's. */
	int64_t			 captured_s;
	int64_t			 last_ns;
	int			 has_captured, has_last;
};

/* perf-script-emit.c */
/* Fail naming the line and byte col of it, quoting text (n bytes, NULL:
 * nothing) unless the limits say not to. */
int perf_script_fail(struct perf_script *, enum error_kind, size_t col,
    const uint8_t *text, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* The sample line's label set and metric, into ps->cur. */
int perf_script_begin(struct perf_script *, const uint8_t *line,
    const struct ps_head *);
/* The sample read (its frames in ps->fr) made a stack and kept. */
int perf_script_end(struct perf_script *);
/* The kept samples at their wall time, then meta. */
int perf_script_finish(struct perf_script *);
void perf_script_free(struct perf_script *);

#endif
