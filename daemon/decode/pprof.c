/* pprof.c: decoder for perftools.profiles.Profile (already inflated).
 *
 * Go writes the string table last, so nothing can be resolved while
 * reading.  Three steps:
 *
 *  1. parse: one pass over the message; sample types, mappings, locations
 *     (their lines in one flat array), functions and strings go into
 *     arrays; samples are only counted.
 *  2. resolve: every string index, id and reference is checked, ids are
 *     turned into array indices, drop_frames/keep_frames are applied to
 *     the locations, and every sample is read once from the input and
 *     checked.  Samples are never held in memory all at once: one is read
 *     at a time, here and again in step 3.
 *  3. emit: only a profile that passed step 2 reaches the sink, so a bad
 *     blob never leaves half an import behind.
 *
 * Errors name the message and field and the byte offset of the offending
 * field.  Offsets of nested fields are not kept: on an error the enclosing
 * message is read again to find the field (errors are rare, offsets would
 * cost memory on every location and line). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "bounds.h"
#include "model.h"
#include "pb.h"
#include "pprof.h"
#include "rx.h"
#include "util.h"

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

/* pprof_locate: find the last occurrence of a field rather than the nth. */
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

struct pprof_u64s {
	uint64_t		*v;
	size_t			 n, cap;
};

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
	struct limits		 lim;
	const struct sink	*sink;
	struct error		*err;

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
	struct pprof_u64s	 comments;
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
	struct pprof_u64s	 sloc, sval;
	struct pprof_label	*slab;
	size_t			 nslab, capslab;
	size_t			 scut;		/* first kept */
	size_t			 sdepth;	/* frames it makes */
	int64_t			*frames;
	size_t			 capframes;
	struct model_label	*mlabels;
	size_t			 capmlabels;
};

static int	pprof_fail(struct pprof *, enum error_kind, const char *,
		    size_t, const char *, ...)
		    __attribute__((format(printf, 5, 6)));
static int	pprof_sample_emit(struct pprof *);

/* Grow an array so that element n exists. */
static void *
pprof_grow(void *v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap != 0 ? *cap * 2 : 16;
	if (*cap <= n)
		*cap = n + 1;
	return xreallocarray(v, *cap, size);
}

static int
pprof_u64s_add(void *arg, uint64_t v)
{
	struct pprof_u64s *a = arg;

	a->v = pprof_grow(a->v, &a->cap, a->n, sizeof *a->v);
	a->v[a->n++] = v;
	return 0;
}

static int
pprof_fail(struct pprof *p, enum error_kind kind, const char *field,
    size_t off, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return error_set(p->err, kind, "pprof: %s at byte %zu: %s", field, off,
	    buf);
}

/* Input text shown in an error: quoted, printable, short; with no_quote
 * only its length. */
static const char *
pprof_quote(const struct pprof *p, struct mstr s, char *buf, size_t size)
{
	size_t i, n = 0;

	if (p->lim.no_quote) {
		snprintf(buf, size, "a string of %zu bytes", s.n);
		return buf;
	}
	buf[n++] = '"';
	for (i = 0; i < s.n && n + 5 < size; i++) {
		if (s.p[i] >= 0x20 && s.p[i] < 0x7f)
			buf[n++] = s.p[i];
		else
			buf[n++] = '?';
	}
	if (i < s.n) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n++] = '"';
	buf[n] = '\0';
	return buf;
}

/* pb_next with the message's name in front of a wire error. */
static int
pprof_next(struct pprof *p, struct pb *c, struct pb_field *f,
    const char *msg)
{
	struct error e;
	int r;

	error_clear(&e);
	if ((r = pb_next(c, f, &e)) == -1)
		error_set(p->err, e.kind, "pprof: %s: %s", msg, e.msg);
	return r;
}

static int
pprof_want(struct pprof *p, const struct pb_field *f, enum pb_wire wt,
    const char *field)
{
	if (f->wt == wt)
		return 0;
	return pprof_fail(p, ERR_INPUT, field, f->off,
	    "wire type %u, expected %s", (unsigned)f->wt,
	    wt == PB_LEN ? "length-delimited" : "varint");
}

static int
pprof_varint(struct pprof *p, const struct pb_field *f, const char *field,
    uint64_t *v)
{
	if (pprof_want(p, f, PB_VARINT, field) == -1)
		return -1;
	*v = f->v;
	return 0;
}

static int
pprof_int(struct pprof *p, const struct pb_field *f, const char *field,
    int64_t *v)
{
	if (pprof_want(p, f, PB_VARINT, field) == -1)
		return -1;
	*v = (int64_t)f->v;
	return 0;
}

/* Append the values of a repeated varint field to a.  Packed runs, the
 * bulk of a profile, are decoded here without a call per value; on any
 * trouble pb_repeated_varint reads the field again to say what is wrong. */
static int
pprof_repeated(struct pprof *p, const struct pb *c, const struct pb_field *f,
    struct pprof_u64s *a, const char *field)
{
	const uint8_t *q, *end;
	uint64_t *v, x;
	unsigned shift;
	struct error e;

	if (f->wt == PB_LEN && f->len == 0)
		return 0;
	if (f->wt == PB_LEN) {
		/* At most one value per byte. */
		if (a->cap - a->n < f->len) {
			a->cap = a->cap * 2 > a->n + f->len ? a->cap * 2 :
			    a->n + f->len;
			a->v = xreallocarray(a->v, a->cap, sizeof *a->v);
		}
		v = a->v + a->n;
		q = f->data;
		end = f->data + f->len;
		while (q < end) {
			x = 0;
			shift = 0;
			do {
				if (q == end || shift > 63)
					goto slow;
				x |= (uint64_t)(*q & 0x7f) << shift;
				shift += 7;
			} while (*q++ & 0x80);
			*v++ = x;
		}
		a->n = (size_t)(v - a->v);
		return 0;
	}
	if (f->wt == PB_VARINT)
		return pprof_u64s_add(a, f->v);
slow:
	error_clear(&e);
	if (pb_repeated_varint(c, f, pprof_u64s_add, a, field, &e) == -1)
		return error_set(p->err, e.kind, "pprof: %s", e.msg);
	return 0;
}

/* Offset of the nth value (counting packed elements one by one) or the
 * last occurrence of field num in the message c walks; dflt if absent. */
static size_t
pprof_locate_in(const struct pprof *p, struct pb *c, uint32_t num,
    size_t nth, size_t dflt)
{
	struct pb_field f;
	struct error e;
	const uint8_t *q, *end;
	uint64_t v;
	size_t k = 0, found = dflt;

	error_clear(&e);
	while (pb_next(c, &f, &e) == 1) {
		if (f.num != num)
			continue;
		if (nth == PPROF_LAST) {
			found = f.off;
			continue;
		}
		if (f.wt != PB_LEN) {
			if (k++ == nth)
				return f.off;
			continue;
		}
		q = f.data;
		end = f.data + f.len;
		while (q < end) {
			if (k++ == nth)
				return (size_t)(q - p->data);
			if (pb_varint(&q, end, &v) == -1)
				break;
		}
	}
	return found;
}

/* The same inside the sub-message whose tag is at off. */
static size_t
pprof_locate(const struct pprof *p, size_t off, uint32_t num, size_t nth)
{
	struct pb c, sub;
	struct pb_field f;
	struct error e;

	error_clear(&e);
	pb_init(&c, p->data, p->len);
	c.p = p->data + off;
	if (pb_next(&c, &f, &e) != 1 || f.wt != PB_LEN)
		return off;
	pb_sub(&c, &f, &sub);
	return pprof_locate_in(p, &sub, num, nth, off);
}

/* Check a string index: field num of the message at msgoff or, with num
 * 0, a field whose offset is msgoff itself. */
static int
pprof_check_str(struct pprof *p, int64_t idx, const char *field,
    size_t msgoff, uint32_t num)
{
	size_t off = msgoff;

	if (idx >= 0 && (uint64_t)idx < p->nstrs)
		return 0;
	if (num != 0)
		off = pprof_locate(p, msgoff, num, PPROF_LAST);
	return pprof_fail(p, ERR_INPUT, field, off,
	    "string index %lld out of range (string_table has %zu entries)",
	    (long long)idx, p->nstrs);
}

static struct mstr
pprof_str(const struct pprof *p, int64_t idx)
{
	return p->strs[idx];
}

static void
pprof_idmap_init(struct pprof_idmap *m, size_t n, uint64_t maxid)
{
	uint64_t cap;

	memset(m, 0, sizeof *m);
	if (maxid <= (uint64_t)n * 4 + 64) {
		m->mask = maxid;
		m->slot = xcalloc((size_t)maxid + 1, sizeof *m->slot);
		return;
	}
	for (cap = 16; cap < (uint64_t)n * 2; cap *= 2)
		;
	m->mask = cap - 1;
	m->slot = xcalloc((size_t)cap, sizeof *m->slot);
	m->key = xcalloc((size_t)cap, sizeof *m->key);
}

static void
pprof_idmap_free(struct pprof_idmap *m)
{
	free(m->slot);
	free(m->key);
	memset(m, 0, sizeof *m);
}

static size_t
pprof_idmap_hash(const struct pprof_idmap *m, uint64_t id)
{
	uint64_t h = id * 0x9e3779b97f4a7c15ull;

	return (size_t)((h ^ (h >> 31)) & m->mask);
}

/* Add id -> idx; returns 0, or the index + 1 already there for id. */
static size_t
pprof_idmap_put(struct pprof_idmap *m, uint64_t id, size_t idx)
{
	size_t h;

	if (m->key == NULL) {
		if (m->slot[id] != 0)
			return m->slot[id];
		m->slot[id] = idx + 1;
		return 0;
	}
	for (h = pprof_idmap_hash(m, id); m->slot[h] != 0;
	    h = (h + 1) & m->mask) {
		if (m->key[h] == id)
			return m->slot[h];
	}
	m->key[h] = id;
	m->slot[h] = idx + 1;
	return 0;
}

/* Go writes ids 1..N in order: no need to look them up.  Call once all
 * ids are in. */
static void
pprof_idmap_seal(struct pprof_idmap *m, size_t n)
{
	size_t i;

	if (m->key != NULL || m->mask != n)
		return;
	for (i = 1; i <= n; i++) {
		if (m->slot[i] != i)
			return;
	}
	m->identity = 1;
}

/* Index + 1 of id, 0 if it is not defined. */
static size_t
pprof_idmap_get(const struct pprof_idmap *m, uint64_t id)
{
	size_t h;

	if (m->identity)
		return id <= m->mask ? (size_t)id : 0;
	if (m->slot == NULL)
		return 0;
	if (m->key == NULL)
		return id <= m->mask ? m->slot[id] : 0;
	for (h = pprof_idmap_hash(m, id); m->slot[h] != 0;
	    h = (h + 1) & m->mask) {
		if (m->key[h] == id)
			return m->slot[h];
	}
	return 0;
}

static int
pprof_parse_vt(struct pprof *p, const struct pb *c, const struct pb_field *f,
    struct pprof_vt *vt, const char *field)
{
	struct pb s;
	struct pb_field g;
	int r;

	if (pprof_want(p, f, PB_LEN, field) == -1)
		return -1;
	memset(vt, 0, sizeof *vt);
	vt->off = f->off;
	pb_sub(c, f, &s);
	while ((r = pprof_next(p, &s, &g, "ValueType")) == 1) {
		switch (g.num) {
		case 1:
			r = pprof_int(p, &g, "ValueType.type", &vt->type);
			break;
		case 2:
			r = pprof_int(p, &g, "ValueType.unit", &vt->unit);
			break;
		}
		if (r == -1)
			return -1;
	}
	return r;
}

static int
pprof_parse_mapping(struct pprof *p, const struct pb *c,
    const struct pb_field *f)
{
	static const unsigned flags[] = { MAPPING_HAS_FUNCTIONS,
	    MAPPING_HAS_FILENAMES, MAPPING_HAS_LINE_NUMBERS,
	    MAPPING_HAS_INLINE_FRAMES };
	static const char *names[] = { "Mapping.has_functions",
	    "Mapping.has_filenames", "Mapping.has_line_numbers",
	    "Mapping.has_inline_frames" };
	struct pprof_mapping *m;
	struct pb s;
	struct pb_field g;
	uint64_t v;
	int r;

	if (pprof_want(p, f, PB_LEN, "Profile.mapping") == -1)
		return -1;
	p->maps = pprof_grow(p->maps, &p->capmaps, p->nmaps, sizeof *p->maps);
	m = &p->maps[p->nmaps++];
	memset(m, 0, sizeof *m);
	m->off = f->off;
	pb_sub(c, f, &s);
	while ((r = pprof_next(p, &s, &g, "Mapping")) == 1) {
		switch (g.num) {
		case 1:
			r = pprof_varint(p, &g, "Mapping.id", &m->id);
			break;
		case 2:
			r = pprof_varint(p, &g, "Mapping.memory_start",
			    &m->start);
			break;
		case 3:
			r = pprof_varint(p, &g, "Mapping.memory_limit",
			    &m->limit);
			break;
		case 4:
			r = pprof_varint(p, &g, "Mapping.file_offset",
			    &m->offset);
			break;
		case 5:
			r = pprof_int(p, &g, "Mapping.filename", &m->file);
			break;
		case 6:
			r = pprof_int(p, &g, "Mapping.build_id", &m->build_id);
			break;
		case 7:
		case 8:
		case 9:
		case 10:
			if ((r = pprof_varint(p, &g, names[g.num - 7],
			    &v)) == -1)
				break;
			if (v != 0)
				m->flags |= flags[g.num - 7];
			else
				m->flags &= ~flags[g.num - 7];
			break;
		}
		if (r == -1)
			return -1;
	}
	return r;
}

static int
pprof_parse_line(struct pprof *p, const struct pb *c, const struct pb_field *f)
{
	struct pprof_line *l;
	struct pb s;
	struct pb_field g;
	int r;

	if (pprof_want(p, f, PB_LEN, "Location.line") == -1)
		return -1;
	p->lines = pprof_grow(p->lines, &p->caplines, p->nlines,
	    sizeof *p->lines);
	l = &p->lines[p->nlines++];
	memset(l, 0, sizeof *l);
	l->off = f->off;
	pb_sub(c, f, &s);
	while ((r = pprof_next(p, &s, &g, "Line")) == 1) {
		switch (g.num) {
		case 1:
			r = pprof_varint(p, &g, "Line.function_id",
			    &l->function);
			break;
		case 2:
			r = pprof_int(p, &g, "Line.line", &l->line);
			break;
		case 3:
			r = pprof_int(p, &g, "Line.column", &l->column);
			break;
		}
		if (r == -1)
			return -1;
	}
	return r;
}

static int
pprof_parse_location(struct pprof *p, const struct pb *c,
    const struct pb_field *f)
{
	struct pprof_location *l;
	struct pb s;
	struct pb_field g;
	uint64_t v;
	size_t li;
	int r;

	if (pprof_want(p, f, PB_LEN, "Profile.location") == -1)
		return -1;
	p->locs = pprof_grow(p->locs, &p->caplocs, p->nlocs, sizeof *p->locs);
	li = p->nlocs++;
	l = &p->locs[li];
	memset(l, 0, sizeof *l);
	l->off = f->off;
	l->line = p->nlines;
	pb_sub(c, f, &s);
	/* Lines are added to lines[] as they come: a location's lines are
	 * contiguous because locations do not nest. */
	while ((r = pprof_next(p, &s, &g, "Location")) == 1) {
		l = &p->locs[li];
		switch (g.num) {
		case 1:
			r = pprof_varint(p, &g, "Location.id", &l->id);
			break;
		case 2:
			r = pprof_varint(p, &g, "Location.mapping_id",
			    &l->mapping);
			break;
		case 3:
			r = pprof_varint(p, &g, "Location.address",
			    &l->address);
			break;
		case 4:
			r = pprof_parse_line(p, &s, &g);
			break;
		case 5:
			if ((r = pprof_varint(p, &g, "Location.is_folded",
			    &v)) == 0)
				l->folded = v != 0;
			break;
		}
		if (r == -1)
			return -1;
	}
	p->locs[li].nline = p->nlines - p->locs[li].line;
	return r;
}

static int
pprof_parse_function(struct pprof *p, const struct pb *c,
    const struct pb_field *f)
{
	struct pprof_function *fn;
	struct pb s;
	struct pb_field g;
	int r;

	if (pprof_want(p, f, PB_LEN, "Profile.function") == -1)
		return -1;
	p->funcs = pprof_grow(p->funcs, &p->capfuncs, p->nfuncs,
	    sizeof *p->funcs);
	fn = &p->funcs[p->nfuncs++];
	memset(fn, 0, sizeof *fn);
	fn->off = f->off;
	pb_sub(c, f, &s);
	while ((r = pprof_next(p, &s, &g, "Function")) == 1) {
		switch (g.num) {
		case 1:
			r = pprof_varint(p, &g, "Function.id", &fn->id);
			break;
		case 2:
			r = pprof_int(p, &g, "Function.name", &fn->name);
			break;
		case 3:
			r = pprof_int(p, &g, "Function.system_name",
			    &fn->system_name);
			break;
		case 4:
			r = pprof_int(p, &g, "Function.filename", &fn->file);
			break;
		case 5:
			r = pprof_int(p, &g, "Function.start_line",
			    &fn->start_line);
			break;
		}
		if (r == -1)
			return -1;
	}
	return r;
}

static int
pprof_parse_string(struct pprof *p, const struct pb_field *f)
{
	const char *field = "Profile.string_table";

	if (pprof_want(p, f, PB_LEN, field) == -1)
		return -1;
	if (p->lim.max_strings != 0 && p->nstrs >= p->lim.max_strings)
		return pprof_fail(p, ERR_TOO_LARGE, field, f->off,
		    "more than %u strings (max_strings)", p->lim.max_strings);
	if (p->lim.max_string_len != 0 && f->len > p->lim.max_string_len)
		return pprof_fail(p, ERR_TOO_LARGE, field, f->off,
		    "string of %zu bytes exceeds max_string_len %u", f->len,
		    p->lim.max_string_len);
	if (p->nstrs == 0 && f->len != 0)
		return pprof_fail(p, ERR_INPUT, field, f->off,
		    "string_table[0] must be \"\", not %zu bytes", f->len);
	p->strs = pprof_grow(p->strs, &p->capstrs, p->nstrs, sizeof *p->strs);
	p->strs[p->nstrs].p = (const char *)f->data;
	p->strs[p->nstrs].n = f->len;
	p->nstrs++;
	return 0;
}

static int
pprof_parse(struct pprof *p)
{
	struct pprof_vt *vt;
	struct pb c;
	struct pb_field f;
	int r;

	pb_init(&c, p->data, p->len);
	while ((r = pprof_next(p, &c, &f, "Profile")) == 1) {
		switch (f.num) {
		case PROFILE_SAMPLE_TYPE:
			p->types = pprof_grow(p->types, &p->captypes,
			    p->ntypes, sizeof *p->types);
			vt = &p->types[p->ntypes++];
			r = pprof_parse_vt(p, &c, &f, vt,
			    "Profile.sample_type");
			break;
		case PROFILE_SAMPLE:
			/* Read later, one at a time. */
			r = pprof_want(p, &f, PB_LEN, "Profile.sample");
			p->nsamples++;
			break;
		case PROFILE_MAPPING:
			r = pprof_parse_mapping(p, &c, &f);
			break;
		case PROFILE_LOCATION:
			r = pprof_parse_location(p, &c, &f);
			break;
		case PROFILE_FUNCTION:
			r = pprof_parse_function(p, &c, &f);
			break;
		case PROFILE_STRING_TABLE:
			r = pprof_parse_string(p, &f);
			break;
		case PROFILE_DROP_FRAMES:
			r = pprof_int(p, &f, "Profile.drop_frames", &p->drop);
			p->drop_off = f.off;
			break;
		case PROFILE_KEEP_FRAMES:
			r = pprof_int(p, &f, "Profile.keep_frames", &p->keep);
			p->keep_off = f.off;
			break;
		case PROFILE_TIME_NANOS:
			/* As Go: a second time means two profiles were
			 * concatenated, which would mix their tables. */
			if (p->time != 0)
				return pprof_fail(p, ERR_INPUT,
				    "Profile.time_nanos", f.off, "second "
				    "time_nanos (concatenated profiles?)");
			r = pprof_int(p, &f, "Profile.time_nanos", &p->time);
			break;
		case PROFILE_DURATION_NANOS:
			r = pprof_int(p, &f, "Profile.duration_nanos",
			    &p->duration);
			break;
		case PROFILE_PERIOD_TYPE:
			r = pprof_parse_vt(p, &c, &f, &p->period_type,
			    "Profile.period_type");
			p->has_period_type = 1;
			break;
		case PROFILE_PERIOD:
			r = pprof_int(p, &f, "Profile.period", &p->period);
			break;
		case PROFILE_COMMENT:
			r = pprof_repeated(p, &c, &f, &p->comments,
			    "Profile.comment");
			break;
		case PROFILE_DEFAULT_SAMPLE_TYPE:
			r = pprof_int(p, &f, "Profile.default_sample_type",
			    &p->default_type);
			p->default_type_off = f.off;
			break;
		case PROFILE_DOC_URL:
			r = pprof_int(p, &f, "Profile.doc_url", &p->doc_url);
			p->doc_url_off = f.off;
			break;
		default:
			break;
		}
		if (r == -1)
			return -1;
	}
	return r;
}

static int
pprof_resolve_types(struct pprof *p)
{
	struct pprof_vt *vt;
	char q[80];
	size_t i;
	struct mstr name;

	for (i = 0; i < p->ntypes; i++) {
		vt = &p->types[i];
		if (pprof_check_str(p, vt->type, "ValueType.type", vt->off,
		    1) == -1 ||
		    pprof_check_str(p, vt->unit, "ValueType.unit", vt->off,
		    2) == -1)
			return -1;
	}
	if (p->has_period_type) {
		vt = &p->period_type;
		if (pprof_check_str(p, vt->type, "ValueType.type", vt->off,
		    1) == -1 ||
		    pprof_check_str(p, vt->unit, "ValueType.unit", vt->off,
		    2) == -1)
			return -1;
	}

	/* pprof's rule: default_sample_type names the default, else the
	 * last sample type is. */
	if (p->ntypes > INT32_MAX)
		return pprof_fail(p, ERR_TOO_LARGE, "Profile.sample_type",
		    p->types[0].off, "%zu sample types", p->ntypes);
	p->default_metric = (int)p->ntypes - 1;
	if (pprof_check_str(p, p->default_type,
	    "Profile.default_sample_type", p->default_type_off, 0) == -1)
		return -1;
	name = pprof_str(p, p->default_type);
	if (name.n == 0)
		return 0;
	for (i = 0; i < p->ntypes; i++) {
		if (mstr_eq(pprof_str(p, p->types[i].type), name)) {
			p->default_metric = (int)i;
			return 0;
		}
	}
	return pprof_fail(p, ERR_INPUT, "Profile.default_sample_type",
	    p->default_type_off, "%s is not a sample type",
	    pprof_quote(p, name, q, sizeof q));
}

static int
pprof_resolve_mappings(struct pprof *p)
{
	struct pprof_mapping *m;
	uint64_t maxid = 0;
	size_t i, dup;

	for (i = 0; i < p->nmaps; i++) {
		if (p->maps[i].id > maxid)
			maxid = p->maps[i].id;
	}
	pprof_idmap_init(&p->map_ids, p->nmaps, maxid);
	for (i = 0; i < p->nmaps; i++) {
		m = &p->maps[i];
		if (m->id == 0)
			return pprof_fail(p, ERR_INPUT, "Mapping.id",
			    pprof_locate(p, m->off, 1, PPROF_LAST),
			    "mapping id missing or 0");
		if ((dup = pprof_idmap_put(&p->map_ids, m->id, i)) != 0)
			return pprof_fail(p, ERR_INPUT, "Mapping.id",
			    pprof_locate(p, m->off, 1, PPROF_LAST),
			    "duplicate mapping id %llu (first at byte %zu)",
			    (unsigned long long)m->id, p->maps[dup - 1].off);
		if (pprof_check_str(p, m->file, "Mapping.filename", m->off,
		    5) == -1 ||
		    pprof_check_str(p, m->build_id, "Mapping.build_id", m->off,
		    6) == -1)
			return -1;
	}
	pprof_idmap_seal(&p->map_ids, p->nmaps);
	return 0;
}

static int
pprof_resolve_functions(struct pprof *p)
{
	struct pprof_function *fn;
	uint64_t maxid = 0;
	size_t i, dup;

	for (i = 0; i < p->nfuncs; i++) {
		if (p->funcs[i].id > maxid)
			maxid = p->funcs[i].id;
	}
	pprof_idmap_init(&p->func_ids, p->nfuncs, maxid);
	for (i = 0; i < p->nfuncs; i++) {
		fn = &p->funcs[i];
		if (fn->id == 0)
			return pprof_fail(p, ERR_INPUT, "Function.id",
			    pprof_locate(p, fn->off, 1, PPROF_LAST),
			    "function id missing or 0");
		if ((dup = pprof_idmap_put(&p->func_ids, fn->id, i)) != 0)
			return pprof_fail(p, ERR_INPUT, "Function.id",
			    pprof_locate(p, fn->off, 1, PPROF_LAST),
			    "duplicate function id %llu (first at byte %zu)",
			    (unsigned long long)fn->id,
			    p->funcs[dup - 1].off);
		if (pprof_check_str(p, fn->name, "Function.name", fn->off,
		    2) == -1 ||
		    pprof_check_str(p, fn->system_name,
		    "Function.system_name", fn->off, 3) == -1 ||
		    pprof_check_str(p, fn->file, "Function.filename", fn->off,
		    4) == -1)
			return -1;
	}
	pprof_idmap_seal(&p->func_ids, p->nfuncs);
	return 0;
}

static int
pprof_resolve_locations(struct pprof *p)
{
	struct pprof_location *l;
	struct pprof_line *ln;
	uint64_t maxid = 0;
	size_t i, j, dup, idx;

	for (i = 0; i < p->nlocs; i++) {
		if (p->locs[i].id > maxid)
			maxid = p->locs[i].id;
	}
	pprof_idmap_init(&p->loc_ids, p->nlocs, maxid);
	for (i = 0; i < p->nlocs; i++) {
		l = &p->locs[i];
		if (l->id == 0)
			return pprof_fail(p, ERR_INPUT, "Location.id",
			    pprof_locate(p, l->off, 1, PPROF_LAST),
			    "location id missing or 0");
		if ((dup = pprof_idmap_put(&p->loc_ids, l->id, i)) != 0)
			return pprof_fail(p, ERR_INPUT, "Location.id",
			    pprof_locate(p, l->off, 1, PPROF_LAST),
			    "duplicate location id %llu (first at byte %zu)",
			    (unsigned long long)l->id, p->locs[dup - 1].off);
		if (l->mapping != 0) {
			idx = pprof_idmap_get(&p->map_ids, l->mapping);
			if (idx == 0)
				return pprof_fail(p, ERR_INPUT,
				    "Location.mapping_id",
				    pprof_locate(p, l->off, 2, PPROF_LAST),
				    "mapping id %llu is not defined",
				    (unsigned long long)l->mapping);
			l->mapping = idx;
		}
		for (j = 0; j < l->nline; j++) {
			ln = &p->lines[l->line + j];
			/* Go's CheckValid refuses a line without one. */
			if (ln->function == 0)
				return pprof_fail(p, ERR_INPUT,
				    "Line.function_id",
				    pprof_locate(p, ln->off, 1, PPROF_LAST),
				    "function id missing or 0");
			idx = pprof_idmap_get(&p->func_ids, ln->function);
			if (idx == 0)
				return pprof_fail(p, ERR_INPUT,
				    "Line.function_id",
				    pprof_locate(p, ln->off, 1, PPROF_LAST),
				    "function id %llu is not defined",
				    (unsigned long long)ln->function);
			ln->function = idx - 1;
		}
	}
	pprof_idmap_seal(&p->loc_ids, p->nlocs);
	return 0;
}

static int
pprof_resolve_misc(struct pprof *p)
{
	struct pb c;
	size_t i;

	if (pprof_check_str(p, p->drop, "Profile.drop_frames", p->drop_off,
	    0) == -1 ||
	    pprof_check_str(p, p->keep, "Profile.keep_frames", p->keep_off,
	    0) == -1 ||
	    pprof_check_str(p, p->doc_url, "Profile.doc_url", p->doc_url_off,
	    0) == -1)
		return -1;
	for (i = 0; i < p->comments.n; i++) {
		if ((int64_t)p->comments.v[i] >= 0 &&
		    p->comments.v[i] < p->nstrs)
			continue;
		pb_init(&c, p->data, p->len);
		return pprof_fail(p, ERR_INPUT, "Profile.comment",
		    pprof_locate_in(p, &c, PROFILE_COMMENT, i, 0),
		    "string index %lld out of range (string_table has %zu "
		    "entries)", (long long)p->comments.v[i], p->nstrs);
	}
	return 0;
}

/* pprof's simplifyFunc: drop a leading '.' (PPC64 ELF v1) and an argument
 * list, from the first '(' that does not start a reserved name. */
static struct mstr
pprof_simplify(struct mstr name)
{
	static const struct mstr reserved[] = {
		MSTR_LIT("(anonymous namespace)"),
		MSTR_LIT("operator()"),
	};
	const char *s = name.p;
	size_t n = name.n, i = 0, k;

	if (n > 0 && s[0] == '.') {
		s++;
		n--;
	}
	while (i < n) {
		for (k = 0; k < NITEMS(reserved); k++) {
			if (n - i >= reserved[k].n &&
			    memcmp(s + i, reserved[k].p, reserved[k].n) == 0)
				break;
		}
		if (k < NITEMS(reserved)) {
			i += reserved[k].n;
			continue;
		}
		if (s[i] == '(')
			return (struct mstr){ s, i };
		i++;
	}
	return (struct mstr){ s, n };
}

static int
pprof_fn_pruned(struct pprof *p, size_t fi)
{
	struct pprof_function *fn = &p->funcs[fi];
	struct mstr name;

	if (fn->pruned != 0)
		return fn->pruned == 2;
	fn->pruned = 1;
	name = pprof_str(p, fn->name);
	if (name.n == 0)
		return 0;
	name = pprof_simplify(name);
	p->name = pprof_grow(p->name, &p->namecap, name.n, 1);
	if (name.n != 0)
		memcpy(p->name, name.p, name.n);
	p->name[name.n] = '\0';
	if (rx_match(p->drop_rx, p->name, name.n) &&
	    (p->keep_rx == NULL || !rx_match(p->keep_rx, p->name, name.n)))
		fn->pruned = 2;
	return fn->pruned == 2;
}

/* Compile ^(re)$ as Go's RemoveUninteresting does (the same syntax:
 * rx.h), so a pattern that closes its own group means what it does
 * there. */
static int
pprof_rx_new(struct pprof *p, struct rx **rx, struct mstr re,
    const char *field, size_t off)
{
	char q[80], why[160];

	if (re.n > PPROF_MAX_REGEX)
		return pprof_fail(p, ERR_INPUT, field, off,
		    "regular expression of %zu bytes, more than %d", re.n,
		    PPROF_MAX_REGEX);
	if ((*rx = rx_new(re.p, re.n, 1, why, sizeof why)) == NULL)
		return pprof_fail(p, ERR_INPUT, field, off,
		    "bad regular expression %s: %s",
		    pprof_quote(p, re, q, sizeof q), why);
	return 0;
}

/* pprof's Profile.Prune, first half: which locations prune, which prune
 * beneath, and the lines a location keeps (for all samples). */
static int
pprof_prune_locations(struct pprof *p)
{
	struct pprof_location *l;
	struct mstr drop, keep;
	size_t i, j, fi;

	drop = pprof_str(p, p->drop);
	keep = pprof_str(p, p->keep);
	if (drop.n == 0)
		return 0;
	if (pprof_rx_new(p, &p->drop_rx, drop, "Profile.drop_frames",
	    p->drop_off) == -1)
		return -1;
	if (keep.n != 0 && pprof_rx_new(p, &p->keep_rx, keep,
	    "Profile.keep_frames", p->keep_off) == -1)
		return -1;

	for (i = 0; i < p->nlocs; i++) {
		l = &p->locs[i];
		/* From the outermost line in: the first match counts. */
		for (j = l->nline; j > 0; j--) {
			fi = p->lines[l->line + j - 1].function;
			if (pprof_fn_pruned(p, fi))
				break;
		}
		if (j == 0)
			continue;
		p->hot[i].beneath = 1;
		if (j == l->nline)
			p->hot[i].prune = 1;
		else
			l->first = j;
	}
	return 0;
}

static size_t
pprof_loc_nframes(const struct pprof_location *l)
{
	return l->nline != 0 ? l->nline - l->first : 1;
}

static int
pprof_parse_label(struct pprof *p, const struct pb *c, const struct pb_field *f)
{
	struct pprof_label *lb;
	struct pb s;
	struct pb_field g;
	int r;

	if (pprof_want(p, f, PB_LEN, "Sample.label") == -1)
		return -1;
	p->slab = pprof_grow(p->slab, &p->capslab, p->nslab, sizeof *p->slab);
	lb = &p->slab[p->nslab++];
	memset(lb, 0, sizeof *lb);
	lb->off = f->off;
	pb_sub(c, f, &s);
	while ((r = pprof_next(p, &s, &g, "Label")) == 1) {
		switch (g.num) {
		case 1:
			r = pprof_int(p, &g, "Label.key", &lb->key);
			break;
		case 2:
			r = pprof_int(p, &g, "Label.str", &lb->str);
			break;
		case 3:
			r = pprof_int(p, &g, "Label.num", &lb->num);
			break;
		case 4:
			r = pprof_int(p, &g, "Label.num_unit", &lb->unit);
			break;
		}
		if (r == -1)
			return -1;
	}
	return r;
}

/* Read and check the sample at f: its locations become indices, scut and
 * sdepth say what drop_frames keeps.  Called twice per sample (check,
 * then emit) so that samples need no memory of their own. */
static int
pprof_sample_load(struct pprof *p, const struct pb *c, const struct pb_field *f)
{
	struct pprof_label *lb;
	const struct pprof_hot *h;
	struct pb s;
	struct pb_field g;
	size_t i, idx;
	int found, r;

	p->sloc.n = p->sval.n = p->nslab = 0;
	pb_sub(c, f, &s);
	while ((r = pprof_next(p, &s, &g, "Sample")) == 1) {
		switch (g.num) {
		case 1:
			r = pprof_repeated(p, &s, &g, &p->sloc,
			    "Sample.location_id");
			break;
		case 2:
			r = pprof_repeated(p, &s, &g, &p->sval,
			    "Sample.value");
			break;
		case 3:
			r = pprof_parse_label(p, &s, &g);
			break;
		}
		if (r == -1)
			return -1;
	}
	if (r == -1)
		return -1;

	if (p->ntypes == 0)
		return pprof_fail(p, ERR_INPUT, "Profile.sample", f->off,
		    "a sample but no sample_type");
	if (p->sval.n != p->ntypes)
		return pprof_fail(p, ERR_INPUT, "Sample.value", f->off,
		    "%zu values for %zu sample types", p->sval.n, p->ntypes);
	p->sdepth = 0;
	for (i = 0; i < p->sloc.n; i++) {
		if ((idx = pprof_idmap_get(&p->loc_ids, p->sloc.v[i])) == 0)
			return pprof_fail(p, ERR_INPUT, "Sample.location_id",
			    pprof_locate(p, f->off, 1, i),
			    "location id %llu is not defined",
			    (unsigned long long)p->sloc.v[i]);
		p->sloc.v[i] = idx - 1;
		p->sdepth += p->hot[idx - 1].nframes;
	}
	for (i = 0; i < p->nslab; i++) {
		lb = &p->slab[i];
		if (pprof_check_str(p, lb->key, "Label.key", lb->off,
		    1) == -1 ||
		    pprof_check_str(p, lb->str, "Label.str", lb->off,
		    2) == -1 ||
		    pprof_check_str(p, lb->unit, "Label.num_unit", lb->off,
		    4) == -1)
			return -1;
	}

	/* pprof's Profile.Prune, second half: from the root, the first
	 * pruning location after a user frame cuts the stack. */
	p->scut = 0;
	found = 0;
	for (i = p->sloc.n; p->drop_rx != NULL && i > 0; i--) {
		h = &p->hot[p->sloc.v[i - 1]];
		if (!h->prune && !h->beneath) {
			found = 1;
			continue;
		}
		if (!found)
			continue;
		p->scut = h->prune ? i : i - 1;
		break;
	}
	for (i = 0; i < p->scut; i++)
		p->sdepth -= p->hot[p->sloc.v[i]].nframes;

	if (p->lim.max_stack_depth != 0 &&
	    p->sdepth > p->lim.max_stack_depth)
		return pprof_fail(p, ERR_TOO_LARGE, "Sample.location_id",
		    f->off, "stack of %zu frames exceeds max_stack_depth %u",
		    p->sdepth, p->lim.max_stack_depth);
	return 0;
}

/* Walk every sample, checking it and, with emit, sending it. */
static int
pprof_samples(struct pprof *p, int emit)
{
	struct pb c;
	struct pb_field f;
	int r;

	pb_init(&c, p->data, p->len);
	while ((r = pprof_next(p, &c, &f, "Profile")) == 1) {
		if (f.num != PROFILE_SAMPLE)
			continue;
		if (pprof_sample_load(p, &c, &f) == -1)
			return -1;
		if (emit && pprof_sample_emit(p) == -1)
			return -1;
	}
	return r;
}

static int
pprof_resolve(struct pprof *p)
{
	size_t i, n;

	if (p->nstrs == 0)
		return pprof_fail(p, ERR_INPUT, "Profile.string_table",
		    p->len, "missing (string_table[0] must be \"\")");
	p->hot = xcalloc(p->nlocs, sizeof *p->hot);
	if (pprof_resolve_types(p) == -1 ||
	    pprof_resolve_mappings(p) == -1 ||
	    pprof_resolve_functions(p) == -1 ||
	    pprof_resolve_locations(p) == -1 ||
	    pprof_resolve_misc(p) == -1 ||
	    pprof_prune_locations(p) == -1)
		return -1;

	/* Room for the frame ids of every location, filled as emitted. */
	for (i = n = 0; i < p->nlocs; i++) {
		if (p->locs[i].nline > PPROF_MAX_LINES)
			return pprof_fail(p, ERR_TOO_LARGE, "Location.line",
			    p->locs[i].off, "%zu lines in one location",
			    p->locs[i].nline);
		if (n + pprof_loc_nframes(&p->locs[i]) > PPROF_MAX_FRAMES)
			return pprof_fail(p, ERR_TOO_LARGE, "Profile.location",
			    p->locs[i].off, "more than %lu frames in all",
			    (unsigned long)PPROF_MAX_FRAMES);
		p->hot[i].frame = (uint32_t)n;
		p->hot[i].nframes = (unsigned)pprof_loc_nframes(&p->locs[i]);
		n += pprof_loc_nframes(&p->locs[i]);
	}
	p->frame_ids = xcalloc(n, sizeof *p->frame_ids);

	return pprof_samples(p, 0);
}

static int
pprof_sink_failed(struct pprof *p, const char *what)
{
	return error_set(p->err, ERR_INTERNAL, "pprof: sink %s failed", what);
}

static int64_t
pprof_mapping_emit(struct pprof *p, struct pprof_mapping *m)
{
	struct model_mapping mm;

	if (m->sink_id != 0)
		return m->sink_id;
	memset(&mm, 0, sizeof mm);
	mm.start = m->start;
	mm.limit = m->limit;
	mm.offset = m->offset;
	mm.file = pprof_str(p, m->file);
	mm.build_id = pprof_str(p, m->build_id);
	mm.flags = m->flags;
	m->sink_id = p->sink->mapping(p->sink->ctx, &mm, p->err);
	if (m->sink_id <= 0) {
		m->sink_id = 0;
		return pprof_sink_failed(p, "mapping");
	}
	return m->sink_id;
}

static int64_t
pprof_function_emit(struct pprof *p, struct pprof_function *fn)
{
	struct model_function mf;

	if (fn->sink_id != 0)
		return fn->sink_id;
	memset(&mf, 0, sizeof mf);
	mf.name = pprof_str(p, fn->name);
	mf.system_name = pprof_str(p, fn->system_name);
	mf.file = pprof_str(p, fn->file);
	mf.start_line = fn->start_line;
	fn->sink_id = p->sink->function(p->sink->ctx, &mf, p->err);
	if (fn->sink_id <= 0) {
		fn->sink_id = 0;
		return pprof_sink_failed(p, "function");
	}
	return fn->sink_id;
}

/* The frames of a location, innermost first, emitted once. */
static int
pprof_location_emit(struct pprof *p, size_t li)
{
	struct pprof_location *l = &p->locs[li];
	struct pprof_hot *h = &p->hot[li];
	struct model_frame fr;
	struct pprof_line *ln;
	int64_t *ids = p->frame_ids + h->frame;
	unsigned folded = l->folded ? FRAME_FOLDED : 0;
	size_t i;

	if (h->emitted)
		return 0;
	h->emitted = 1;
	memset(&fr, 0, sizeof fr);
	if (l->mapping != 0 &&
	    (fr.mapping = pprof_mapping_emit(p, &p->maps[l->mapping - 1])) < 0)
		return -1;
	fr.address = l->address;
	if (l->nline == 0) {
		/* Unsymbolized: the address is all there is. */
		fr.flags = folded;
		if ((ids[0] = p->sink->frame(p->sink->ctx, &fr, p->err)) <= 0)
			return pprof_sink_failed(p, "frame");
		return 0;
	}
	for (i = l->first; i < l->nline; i++) {
		ln = &p->lines[l->line + i];
		if ((fr.function = pprof_function_emit(p,
		    &p->funcs[ln->function])) < 0)
			return -1;
		fr.line = ln->line;
		fr.column = ln->column;
		fr.flags = folded | (i + 1 < l->nline ? FRAME_INLINED : 0);
		if ((ids[i - l->first] = p->sink->frame(p->sink->ctx, &fr,
		    p->err)) <= 0)
			return pprof_sink_failed(p, "frame");
	}
	return 0;
}

static int
pprof_sample_emit(struct pprof *p)
{
	struct model_sample ms;
	struct model_label *ml;
	const struct pprof_hot *h;
	const int64_t *ids;
	struct pprof_label *lb;
	size_t i, k, nframes = 0, nlabels = 0;

	memset(&ms, 0, sizeof ms);
	p->frames = pprof_grow(p->frames, &p->capframes, p->sdepth,
	    sizeof *p->frames);
	for (i = p->scut; i < p->sloc.n; i++) {
		h = &p->hot[p->sloc.v[i]];
		if (!h->emitted && pprof_location_emit(p, p->sloc.v[i]) == -1)
			return -1;
		/* Mostly one or two: a loop beats a call to memcpy. */
		ids = p->frame_ids + h->frame;
		for (k = 0; k < h->nframes; k++)
			p->frames[nframes++] = ids[k];
	}
	if (nframes != 0 && (ms.stack = p->sink->stack(p->sink->ctx,
	    p->frames, nframes, p->err)) <= 0)
		return pprof_sink_failed(p, "stack");

	p->mlabels = pprof_grow(p->mlabels, &p->capmlabels, p->nslab,
	    sizeof *p->mlabels);
	for (i = 0; i < p->nslab; i++) {
		lb = &p->slab[i];
		ml = &p->mlabels[nlabels];
		memset(ml, 0, sizeof *ml);
		ml->key = pprof_str(p, lb->key);
		/* As Go's postDecode: str wins, a label with neither str,
		 * num nor unit says nothing. */
		if (lb->str != 0)
			ml->str = pprof_str(p, lb->str);
		else if (lb->num != 0 || lb->unit != 0) {
			ml->is_num = 1;
			ml->num = lb->num;
			ml->num_unit = pprof_str(p, lb->unit);
		} else
			continue;
		nlabels++;
	}
	if (nlabels != 0 && (ms.labelset = p->sink->labelset(p->sink->ctx,
	    p->mlabels, nlabels, p->err)) <= 0)
		return pprof_sink_failed(p, "labelset");

	/* int64_t may alias uint64_t. */
	ms.values = (const int64_t *)p->sval.v;
	ms.nvalues = p->sval.n;
	ms.time_ns = 0;
	if (p->sink->sample(p->sink->ctx, &ms, p->err) == -1)
		return pprof_sink_failed(p, "sample");
	return 0;
}

static int
pprof_emit(struct pprof *p)
{
	struct model_meta mm;
	struct mstr *comments;
	size_t i;
	int r;

	for (i = 0; i < p->ntypes; i++) {
		if (p->sink->metric(p->sink->ctx,
		    pprof_str(p, p->types[i].type),
		    pprof_str(p, p->types[i].unit), p->err) == -1)
			return pprof_sink_failed(p, "metric");
	}
	if (pprof_samples(p, 1) == -1)
		return -1;

	memset(&mm, 0, sizeof mm);
	mm.time_ns = p->time;
	mm.duration_ns = p->duration;
	mm.period = p->period;
	mm.period_type = pprof_str(p, p->period_type.type);
	mm.period_unit = pprof_str(p, p->period_type.unit);
	comments = xcalloc(p->comments.n, sizeof *comments);
	for (i = 0; i < p->comments.n; i++)
		comments[i] = pprof_str(p, (int64_t)p->comments.v[i]);
	mm.comments = comments;
	mm.ncomments = p->comments.n;
	mm.default_metric = p->default_metric;
	mm.doc_url = pprof_str(p, p->doc_url);
	mm.samples = p->nsamples;
	mm.dropped_samples = 0;
	r = p->sink->meta(p->sink->ctx, &mm, p->err);
	free(comments);
	if (r == -1)
		return pprof_sink_failed(p, "meta");
	return 0;
}

static void
pprof_free(struct pprof *p)
{
	free(p->strs);
	free(p->types);
	free(p->maps);
	free(p->locs);
	free(p->hot);
	free(p->lines);
	free(p->funcs);
	free(p->comments.v);
	pprof_idmap_free(&p->map_ids);
	pprof_idmap_free(&p->loc_ids);
	pprof_idmap_free(&p->func_ids);
	rx_free(p->drop_rx);
	rx_free(p->keep_rx);
	free(p->name);
	free(p->frame_ids);
	free(p->sloc.v);
	free(p->sval.v);
	free(p->slab);
	free(p->frames);
	free(p->mlabels);
}

int
pprof_decode(const uint8_t *data, size_t len, const struct limits *lim,
    const struct sink *sink, struct error *err)
{
	struct pprof p;
	int r = -1;

	memset(&p, 0, sizeof p);
	p.data = data;
	p.len = len;
	p.sink = sink;
	p.err = err;
	if (lim != NULL)
		p.lim = *lim;
	else
		bounds_default(&p.lim);

	if (len == 0)
		error_set(err, ERR_INPUT, "pprof: empty profile");
	else if (pprof_parse(&p) == 0 && pprof_resolve(&p) == 0 &&
	    pprof_emit(&p) == 0)
		r = 0;
	pprof_free(&p);
	return r;
}

/* Is the first tag a Profile field with its wire type? */
static int
pprof_sniff_tag(uint64_t num, unsigned wt)
{
	switch (num) {
	case PROFILE_SAMPLE_TYPE:
	case PROFILE_SAMPLE:
	case PROFILE_MAPPING:
	case PROFILE_LOCATION:
	case PROFILE_FUNCTION:
	case PROFILE_STRING_TABLE:
	case PROFILE_PERIOD_TYPE:
		return wt == PB_LEN;
	case PROFILE_COMMENT:
		return wt == PB_LEN || wt == PB_VARINT;
	case PROFILE_DROP_FRAMES:
	case PROFILE_KEEP_FRAMES:
	case PROFILE_TIME_NANOS:
	case PROFILE_DURATION_NANOS:
	case PROFILE_PERIOD:
	case PROFILE_DEFAULT_SAMPLE_TYPE:
	case PROFILE_DOC_URL:
		return wt == PB_VARINT;
	}
	return 0;
}

/* A ValueType holds varints 1 and 2 only: this is what tells a pprof
 * sample_type from a Perfetto Trace.packet, both field 1. */
static int
pprof_sniff_vt(const uint8_t *p, const uint8_t *end)
{
	uint64_t v;

	while (p < end) {
		if (*p != 0x08 && *p != 0x10)
			return 0;
		p++;
		if (pb_varint(&p, end, &v) == -1)
			return p >= end || end - p < 10 ? 1 : 0;
	}
	return 1;
}

int
pprof_sniff(const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end;
	uint64_t tag, v;
	unsigned wt, nfields;

	if (data == NULL || len == 0)
		return 0;
	end = data + len;
	/* A few fields, all Profile fields: data may be only a prefix, so
	 * running out of bytes after the first field is not a no. */
	for (nfields = 0; nfields < 8 && p < end; nfields++) {
		if (pb_varint(&p, end, &tag) == -1)
			return nfields > 0;
		wt = (unsigned)(tag & 7);
		if (!pprof_sniff_tag(tag >> 3, wt))
			return 0;
		if (pb_varint(&p, end, &v) == -1)
			return nfields > 0;
		if (wt != PB_LEN)
			continue;
		if ((tag >> 3 == PROFILE_SAMPLE_TYPE ||
		    tag >> 3 == PROFILE_PERIOD_TYPE) &&
		    !pprof_sniff_vt(p, v < (uint64_t)(end - p) ? p + v : end))
			return 0;
		if (v > (uint64_t)(end - p))
			return 1;
		p += v;
	}
	return 1;
}
