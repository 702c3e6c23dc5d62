/* pprof-parse.c: step 1 of the pprof decoder: one pass over the Profile
 * message into arrays (sample types, mappings, locations and their lines,
 * functions, strings); samples are only counted, scalars the last wins. */
#include <string.h>

#include "bounds.h"
#include "error.h"
#include "model.h"
#include "pb.h"
#include "pprof-int.h"
#include "pprof.h"
#include "rx.h"

static int
pprof_parse_vt(struct pprof *p, const struct pb *c, const struct pb_field *f,
    struct pprof_vt *vt, const char *field)
{
	struct pb s;
	struct pb_field g;
	int r;

	if (pb_dec_want(&p->pd, f, PB_LEN, field) == -1)
		return -1;
	memset(vt, 0, sizeof *vt);
	vt->off = f->off;
	pb_sub(c, f, &s);
	while ((r = pprof_next(p, &s, &g, "ValueType")) == 1) {
		switch (g.num) {
		case 1:
			r = pb_dec_i64(&p->pd, &g, "ValueType.type", &vt->type);
			break;
		case 2:
			r = pb_dec_i64(&p->pd, &g, "ValueType.unit", &vt->unit);
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

	if (pb_dec_want(&p->pd, f, PB_LEN, "Profile.mapping") == -1)
		return -1;
	p->maps = pprof_grow(p->maps, &p->capmaps, p->nmaps, sizeof *p->maps);
	m = &p->maps[p->nmaps++];
	memset(m, 0, sizeof *m);
	m->off = f->off;
	pb_sub(c, f, &s);
	while ((r = pprof_next(p, &s, &g, "Mapping")) == 1) {
		switch (g.num) {
		case 1:
			r = pb_dec_u64(&p->pd, &g, "Mapping.id", &m->id);
			break;
		case 2:
			r = pb_dec_u64(&p->pd, &g, "Mapping.memory_start",
			    &m->start);
			break;
		case 3:
			r = pb_dec_u64(&p->pd, &g, "Mapping.memory_limit",
			    &m->limit);
			break;
		case 4:
			r = pb_dec_u64(&p->pd, &g, "Mapping.file_offset",
			    &m->offset);
			break;
		case 5:
			r = pb_dec_i64(&p->pd, &g, "Mapping.filename",
			    &m->file);
			break;
		case 6:
			r = pb_dec_i64(&p->pd, &g, "Mapping.build_id",
			    &m->build_id);
			break;
		case 7:
		case 8:
		case 9:
		case 10:
			if ((r = pb_dec_u64(&p->pd, &g, names[g.num - 7],
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

	if (pb_dec_want(&p->pd, f, PB_LEN, "Location.line") == -1)
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
			r = pb_dec_u64(&p->pd, &g, "Line.function_id",
			    &l->function);
			break;
		case 2:
			r = pb_dec_i64(&p->pd, &g, "Line.line", &l->line);
			break;
		case 3:
			r = pb_dec_i64(&p->pd, &g, "Line.column", &l->column);
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

	if (pb_dec_want(&p->pd, f, PB_LEN, "Profile.location") == -1)
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
			r = pb_dec_u64(&p->pd, &g, "Location.id", &l->id);
			break;
		case 2:
			r = pb_dec_u64(&p->pd, &g, "Location.mapping_id",
			    &l->mapping);
			break;
		case 3:
			r = pb_dec_u64(&p->pd, &g, "Location.address",
			    &l->address);
			break;
		case 4:
			r = pprof_parse_line(p, &s, &g);
			break;
		case 5:
			if ((r = pb_dec_u64(&p->pd, &g, "Location.is_folded",
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

	if (pb_dec_want(&p->pd, f, PB_LEN, "Profile.function") == -1)
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
			r = pb_dec_u64(&p->pd, &g, "Function.id", &fn->id);
			break;
		case 2:
			r = pb_dec_i64(&p->pd, &g, "Function.name", &fn->name);
			break;
		case 3:
			r = pb_dec_i64(&p->pd, &g, "Function.system_name",
			    &fn->system_name);
			break;
		case 4:
			r = pb_dec_i64(&p->pd, &g, "Function.filename",
			    &fn->file);
			break;
		case 5:
			r = pb_dec_i64(&p->pd, &g, "Function.start_line",
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

	if (pb_dec_want(&p->pd, f, PB_LEN, field) == -1)
		return -1;
	if (p->lim.max_strings != 0 && p->nstrs >= p->lim.max_strings)
		return pb_dec_fail(&p->pd, ERR_TOO_LARGE, field, f->off,
		    "more than %u strings (max_strings)", p->lim.max_strings);
	if (p->lim.max_string_len != 0 && f->len > p->lim.max_string_len)
		return pb_dec_fail(&p->pd, ERR_TOO_LARGE, field, f->off,
		    "string of %zu bytes exceeds max_string_len %u", f->len,
		    p->lim.max_string_len);
	if (p->nstrs == 0 && f->len != 0)
		return pb_dec_fail(&p->pd, ERR_INPUT, field, f->off,
		    "string_table[0] must be \"\", not %zu bytes", f->len);
	if (f->off < p->str_lo)
		p->str_lo = f->off;
	if ((size_t)(f->data - p->data) + f->len > p->str_hi)
		p->str_hi = (size_t)(f->data - p->data) + f->len;
	p->strs = pprof_grow(p->strs, &p->capstrs, p->nstrs, sizeof *p->strs);
	p->strs[p->nstrs].p = (const char *)f->data;
	p->strs[p->nstrs].n = f->len;
	p->nstrs++;
	return 0;
}

int
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
			r = pb_dec_want(&p->pd, &f, PB_LEN, "Profile.sample");
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
			r = pb_dec_i64(&p->pd, &f, "Profile.drop_frames",
			    &p->drop);
			p->drop_off = f.off;
			break;
		case PROFILE_KEEP_FRAMES:
			r = pb_dec_i64(&p->pd, &f, "Profile.keep_frames",
			    &p->keep);
			p->keep_off = f.off;
			break;
		case PROFILE_TIME_NANOS:
			/* As Go: a second time means two profiles were
			 * concatenated, which would mix their tables. */
			if (p->time != 0)
				return pb_dec_fail(&p->pd, ERR_INPUT,
				    "Profile.time_nanos", f.off, "second "
				    "time_nanos (concatenated profiles?)");
			r = pb_dec_i64(&p->pd, &f, "Profile.time_nanos",
			    &p->time);
			break;
		case PROFILE_DURATION_NANOS:
			r = pb_dec_i64(&p->pd, &f, "Profile.duration_nanos",
			    &p->duration);
			break;
		case PROFILE_PERIOD_TYPE:
			r = pprof_parse_vt(p, &c, &f, &p->period_type,
			    "Profile.period_type");
			p->has_period_type = 1;
			break;
		case PROFILE_PERIOD:
			r = pb_dec_i64(&p->pd, &f, "Profile.period",
			    &p->period);
			break;
		case PROFILE_COMMENT:
			r = pb_dec_repeated(&p->pd, &c, &f, &p->comments,
			    "Profile.comment");
			break;
		case PROFILE_DEFAULT_SAMPLE_TYPE:
			r = pb_dec_i64(&p->pd, &f,
			    "Profile.default_sample_type",
			    &p->default_type);
			p->default_type_off = f.off;
			break;
		case PROFILE_DOC_URL:
			r = pb_dec_i64(&p->pd, &f, "Profile.doc_url",
			    &p->doc_url);
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
