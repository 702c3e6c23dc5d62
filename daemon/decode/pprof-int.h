/* pprof-int.h: what the three steps of the pprof decoder share (see
 * pprof.c): the decoder's state, the parsed arrays, and the functions one
 * step calls in another.
 *
 * Calls go one way, down this list (a file calls only files below it, and
 * pb.c; none calls back up).  Emit drives resolve's walk over the samples
 * (the one read of each), handing it the function that sends each one:
 *
 *   pprof.c           entry points, detection
 *   pprof-emit.c      step 3: the checked profile onto the sink
 *   pprof-resolve.c   step 2: ids, strings, drop/keep_frames, samples
 *   pprof-parse.c     step 1: the one pass over the message
 *   pprof-check.c     string indices checked; errors' offsets and quoting */
#ifndef PROFD_PPROF_INT_H
#define PROFD_PPROF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "bounds.h"
#include "error.h"
#include "model.h"
#include "mstr.h"
#include "pb.h"
#include "rx.h"

/* Field numbers of Profile. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_DROP_FRAMES = 7,
	PROFILE_KEEP_FRAMES = 8,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	PROFILE_DOC_URL = 15,
};

/* Bytes of input read before they are given back at once. */
#define PPROF_RELEASE_STEP	(4u << 20)

/* pprof_check_at: find the last occurrence of a field rather than the nth. */
#define PPROF_LAST	((size_t)-1)

struct pprof_vt {
	int64_t			 type, unit;
	size_t			 off;
};

struct pprof_mapping {
	uint64_t		 id, start, limit, offset;
	int64_t			 file, build_id;
	unsigned		 flags;		/* MAPPING_* */
	size_t			 off;
	int64_t			 sink_id;	/* 0 until emitted */
};

struct pprof_function {
	uint64_t		 id;
	int64_t			 name, system_name, file, start_line;
	size_t			 off;
	int64_t			 sink_id;	/* 0 until emitted */
	int			 pruned;	/* 0 unknown, 1 no, 2 yes */
};

struct pprof_line {
	uint64_t		 function;	/* id, then index */
	int64_t			 line, column;
	size_t			 off;
};

struct pprof_location {
	uint64_t		 id, address;
	uint64_t		 mapping;	/* id, then index + 1 */
	size_t			 line, nline;	/* in lines[] */
	size_t			 first;		/* first kept */
	size_t			 off;
	int			 folded;
};

/* What samples need of a location, apart and small: samples hit
 * locations at random, and this keeps those hits in cache. */
struct pprof_hot {
	uint32_t		 frame;		/* in frame_ids[] */
	unsigned		 nframes : 29;	/* after drop_frames */
	unsigned		 prune : 1;	/* pprof's prune[id] */
	unsigned		 beneath : 1;	/* pruneBeneath[id] */
	unsigned		 emitted : 1;
};

/* Bounds that keep pprof_hot small; real profiles are far below. */
#define PPROF_MAX_LINES		((1u << 29) - 1)
#define PPROF_MAX_FRAMES	UINT32_MAX
/* drop_frames/keep_frames: real ones are a few hundred bytes. */
#define PPROF_MAX_REGEX		RX_MAX_PATTERN

struct pprof_label {
	int64_t			 key, str, num, unit;
	size_t			 off;
};

/* A sample's one label, as emitted (str, or num and unit), and the
 * sink's id for it: a heap profile's samples each carry one ("bytes"),
 * of a few hundred values, and asking the sink each time was a sort, a
 * key built and a lookup per sample.  Direct-mapped, this decode's. */
struct pprof_lset {
	int64_t			 key, str, num, unit;
	int64_t			 id;		/* 0: empty */
};

#define PPROF_LSETS		1024		/* a power of two */

/* id -> index + 1: a plain array when ids are dense (Go numbers them
 * 1..N), else an open-addressing hash. */
struct pprof_idmap {
	size_t			*slot;
	uint64_t		*key;		/* NULL: plain array */
	uint64_t		 mask;		/* max id, or cap - 1 */
	int			 identity;	/* id i at index i - 1 */
};

struct pprof {
	const uint8_t		*data;
	size_t			 len;
	/* The decoder's own copy: what the walk over the samples has passed
	 * is given back as it goes (pprof_samples), but the string table,
	 * which the strings point into: [str_lo, str_hi). */
	int			 own;
	size_t			 str_lo, str_hi, released;
	struct limits		 lim;
	const struct sink	*sink;
	struct error		*err;
	struct pb_dec		 pd;

	struct mstr		*strs;
	size_t			 nstrs, capstrs;
	struct pprof_vt		*types;
	size_t			 ntypes, captypes;
	struct pprof_mapping	*maps;
	size_t			 nmaps, capmaps;
	struct pprof_location	*locs;
	size_t			 nlocs, caplocs;
	struct pprof_hot	*hot;		/* per location */
	struct pprof_line	*lines;
	size_t			 nlines, caplines;
	struct pprof_function	*funcs;
	size_t			 nfuncs, capfuncs;
	struct pb_u64s	 comments;
	size_t			 nsamples;

	/* Scalars: the last occurrence wins, as in protobuf. */
	int64_t			 drop, keep, time, duration, period;
	int64_t			 default_type, doc_url;
	size_t			 drop_off, keep_off, default_type_off;
	size_t			 doc_url_off;
	struct pprof_vt		 period_type;
	int			 has_period_type;
	int			 default_metric;

	struct pprof_idmap	 map_ids, loc_ids, func_ids;
	struct rx		*drop_rx, *keep_rx;
	char			*name;		/* simplified name */
	size_t			 namecap;
	int64_t			*frame_ids;	/* see pprof_hot */

	/* The sample being read. */
	struct pb_u64s	 sloc, sval;
	struct pprof_label	*slab;
	size_t			 nslab, capslab;
	size_t			 scut;		/* first kept */
	size_t			 sdepth;	/* frames it makes */
	int64_t			*frames;
	size_t			 capframes;
	struct model_label	*mlabels;
	size_t			 capmlabels;
	struct pprof_lset	*lsets;		/* PPROF_LSETS, or NULL */
};

/* ---- used on every sample, inline ---- */

static inline struct mstr
pprof_str(const struct pprof *p, int64_t idx)
{
	return p->strs[idx];
}

static inline size_t
pprof_loc_nframes(const struct pprof_location *l)
{
	return l->nline != 0 ? l->nline - l->first : 1;
}

/* pb_dec_next for the fields nearly every one is: a one-byte tag
 * (fields 1-15) with a varint or a length, read inline (a pprof is
 * millions of small fields: a call and an error buffer each were a
 * tenth of a heap profile's import).  Anything else, a bad field
 * included, is left to pb_dec_next, which reads it again and says what
 * is wrong; what is read here is what it would have read. */
static inline int
pprof_next(struct pprof *p, struct pb *c, struct pb_field *f,
    const char *what)
{
	const uint8_t *q = c->p, *end = c->end;
	uint64_t v;
	unsigned tag;

	if (end - q < 2 || (tag = *q) >= 0x80 || tag < 8 ||
	    ((tag & 7) != PB_VARINT && (tag & 7) != PB_LEN))
		return pb_dec_next(&p->pd, c, f, what);
	q++;
	if (*q < 0x80)
		v = *q++;
	else if (pb_varint(&q, end, &v) == -1)
		return pb_dec_next(&p->pd, c, f, what);
	f->off = (size_t)(c->p - c->base);
	f->num = tag >> 3;
	f->wt = (enum pb_wire)(tag & 7);
	if (f->wt == PB_VARINT) {
		f->v = v;
		f->data = NULL;
		f->len = 0;
	} else {
		if (v > (uint64_t)(end - q))
			return pb_dec_next(&p->pd, c, f, what);
		f->v = 0;
		f->data = q;
		f->len = (size_t)v;
		q += f->len;
	}
	c->p = q;
	return 1;
}

/* Grow an array so that element n exists. */
static inline void *
pprof_grow(void *v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap != 0 ? *cap * 2 : 16;
	if (*cap <= n)
		*cap = n + 1;
	return xreallocarray(v, *cap, size);
}

/* pprof-check.c */
int pprof_check_str(struct pprof *p, int64_t idx, const char *field,
    size_t msgoff, uint32_t num);
size_t pprof_check_at(const struct pprof *p, size_t off, uint32_t num,
    size_t nth);
size_t pprof_check_at_in(const struct pprof *p, struct pb *c, uint32_t num,
    size_t nth, size_t dflt);
const char *pprof_check_quote(const struct pprof *p, struct mstr s,
    char *buf, size_t size);

/* pprof-parse.c */
int pprof_parse(struct pprof *p);

/* pprof-resolve.c */
void pprof_idmap_free(struct pprof_idmap *m);
int pprof_samples(struct pprof *p, int (*each)(struct pprof *));
int pprof_resolve(struct pprof *p);

/* pprof-emit.c */
int pprof_emit(struct pprof *p);

#endif
