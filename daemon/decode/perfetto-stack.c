/* perfetto-stack.c: interned functions, mappings, frames and callstacks
 * (Callstack and InlineCallstack) turned into the sink's ids, cached by
 * content since sink ids outlive a sequence's resets. */
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "hmap.h"
#include "mstr.h"
#include "pb.h"
#include "perfetto-int.h"
#include "perfetto.h"

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

int
pft_callstack(struct pft *d, struct pft_seq *s, uint64_t iid, uint64_t off,
    int64_t *out)
{
	struct pft_ent *cs;
	size_t i, n;
	int64_t id;
	int r;

	if (pft_cs_cached(s, iid, out) == 0)
		return 0;
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
	return pft_cs_cache(d, s, iid, id, off);
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
int
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
