/* pprof-resolve.c: step 2 of the pprof decoder: every string index, id
 * and reference checked and ids made array indices, drop_frames and
 * keep_frames applied to the locations; the samples are read and checked
 * one at a time by the walk step 3 drives (pprof_samples), as it emits
 * them. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "bounds.h"
#include "error.h"
#include "model.h"
#include "mstr.h"
#include "nitems.h"
#include "pb.h"
#include "pprof-int.h"
#include "pprof.h"
#include "rx.h"

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

void
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
		return pb_dec_fail(&p->pd, ERR_TOO_LARGE, "Profile.sample_type",
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
	return pb_dec_fail(&p->pd, ERR_INPUT, "Profile.default_sample_type",
	    p->default_type_off, "%s is not a sample type",
	    pprof_check_quote(p, name, q, sizeof q));
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
			return pb_dec_fail(&p->pd, ERR_INPUT, "Mapping.id",
			    pprof_check_at(p, m->off, 1, PPROF_LAST),
			    "mapping id missing or 0");
		if ((dup = pprof_idmap_put(&p->map_ids, m->id, i)) != 0)
			return pb_dec_fail(&p->pd, ERR_INPUT, "Mapping.id",
			    pprof_check_at(p, m->off, 1, PPROF_LAST),
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
			return pb_dec_fail(&p->pd, ERR_INPUT, "Function.id",
			    pprof_check_at(p, fn->off, 1, PPROF_LAST),
			    "function id missing or 0");
		if ((dup = pprof_idmap_put(&p->func_ids, fn->id, i)) != 0)
			return pb_dec_fail(&p->pd, ERR_INPUT, "Function.id",
			    pprof_check_at(p, fn->off, 1, PPROF_LAST),
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
			return pb_dec_fail(&p->pd, ERR_INPUT, "Location.id",
			    pprof_check_at(p, l->off, 1, PPROF_LAST),
			    "location id missing or 0");
		if ((dup = pprof_idmap_put(&p->loc_ids, l->id, i)) != 0)
			return pb_dec_fail(&p->pd, ERR_INPUT, "Location.id",
			    pprof_check_at(p, l->off, 1, PPROF_LAST),
			    "duplicate location id %llu (first at byte %zu)",
			    (unsigned long long)l->id, p->locs[dup - 1].off);
		if (l->mapping != 0) {
			idx = pprof_idmap_get(&p->map_ids, l->mapping);
			if (idx == 0)
				return pb_dec_fail(&p->pd, ERR_INPUT,
				    "Location.mapping_id",
				    pprof_check_at(p, l->off, 2, PPROF_LAST),
				    "mapping id %llu is not defined",
				    (unsigned long long)l->mapping);
			l->mapping = idx;
		}
		for (j = 0; j < l->nline; j++) {
			ln = &p->lines[l->line + j];
			/* Go's CheckValid refuses a line without one. */
			if (ln->function == 0)
				return pb_dec_fail(&p->pd, ERR_INPUT,
				    "Line.function_id",
				    pprof_check_at(p, ln->off, 1, PPROF_LAST),
				    "function id missing or 0");
			idx = pprof_idmap_get(&p->func_ids, ln->function);
			if (idx == 0)
				return pb_dec_fail(&p->pd, ERR_INPUT,
				    "Line.function_id",
				    pprof_check_at(p, ln->off, 1, PPROF_LAST),
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
		return pb_dec_fail(&p->pd, ERR_INPUT, "Profile.comment",
		    pprof_check_at_in(p, &c, PROFILE_COMMENT, i, 0),
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
		return pb_dec_fail(&p->pd, ERR_INPUT, field, off,
		    "regular expression of %zu bytes, more than %d", re.n,
		    PPROF_MAX_REGEX);
	if ((*rx = rx_new(re.p, re.n, 1, why, sizeof why)) == NULL)
		return pb_dec_fail(&p->pd, ERR_INPUT, field, off,
		    "bad regular expression %s: %s",
		    pprof_check_quote(p, re, q, sizeof q), why);
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

static int
pprof_parse_label(struct pprof *p, const struct pb *c, const struct pb_field *f)
{
	struct pprof_label *lb;
	struct pb s;
	struct pb_field g;
	int r;

	if (pb_dec_want(&p->pd, f, PB_LEN, "Sample.label") == -1)
		return -1;
	p->slab = pprof_grow(p->slab, &p->capslab, p->nslab, sizeof *p->slab);
	lb = &p->slab[p->nslab++];
	memset(lb, 0, sizeof *lb);
	lb->off = f->off;
	pb_sub(c, f, &s);
	while ((r = pprof_next(p, &s, &g, "Label")) == 1) {
		switch (g.num) {
		case 1:
			r = pb_dec_i64(&p->pd, &g, "Label.key", &lb->key);
			break;
		case 2:
			r = pb_dec_i64(&p->pd, &g, "Label.str", &lb->str);
			break;
		case 3:
			r = pb_dec_i64(&p->pd, &g, "Label.num", &lb->num);
			break;
		case 4:
			r = pb_dec_i64(&p->pd, &g, "Label.num_unit", &lb->unit);
			break;
		}
		if (r == -1)
			return -1;
	}
	return r;
}

/* Read and check the sample at f: its locations become indices, scut and
 * sdepth say what drop_frames keeps.  Samples are read once, one at a
 * time, each checked just before step 3 emits it: they need no memory of
 * their own. */
static int
pprof_sample_load(struct pprof *p, const struct pb *c, const struct pb_field *f)
{
	struct pprof_label *lb;
	const struct pprof_hot *h;
	struct pb s;
	struct pb_field g;
	uint64_t *v;
	size_t i, idx, depth;
	int found, r;

	p->sloc.n = p->sval.n = p->nslab = 0;
	pb_sub(c, f, &s);
	while ((r = pprof_next(p, &s, &g, "Sample")) == 1) {
		switch (g.num) {
		case 1:
			r = pb_dec_repeated(&p->pd, &s, &g, &p->sloc,
			    "Sample.location_id");
			break;
		case 2:
			r = pb_dec_repeated(&p->pd, &s, &g, &p->sval,
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
		return pb_dec_fail(&p->pd, ERR_INPUT, "Profile.sample", f->off,
		    "a sample but no sample_type");
	if (p->sval.n != p->ntypes)
		return pb_dec_fail(&p->pd, ERR_INPUT, "Sample.value", f->off,
		    "%zu values for %zu sample types", p->sval.n, p->ntypes);
	/* In locals: stores through p would be reloaded each turn (the
	 * compiler cannot tell them from the location ids'). */
	for (i = 0, v = p->sloc.v, depth = 0; i < p->sloc.n; i++) {
		if ((idx = pprof_idmap_get(&p->loc_ids, v[i])) == 0)
			return pb_dec_fail(&p->pd, ERR_INPUT,
			    "Sample.location_id",
			    pprof_check_at(p, f->off, 1, i),
			    "location id %llu is not defined",
			    (unsigned long long)v[i]);
		v[i] = idx - 1;
		depth += p->hot[idx - 1].nframes;
	}
	p->sdepth = depth;
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
		return pb_dec_fail(&p->pd, ERR_TOO_LARGE, "Sample.location_id",
		    f->off, "stack of %zu frames exceeds max_stack_depth %u",
		    p->sdepth, p->lim.max_stack_depth);
	return 0;
}

/* The input before upto is read no more, but the string table: its pages
 * go back, a few MiB at a time (a large pprof is mostly samples, read
 * once, in order, while the store's maps and buffers grow). */
static void
pprof_release(struct pprof *p, size_t upto)
{
	size_t lo = p->released, hi = upto;

	if (hi < lo + PPROF_RELEASE_STEP)
		return;
	if (hi > p->str_lo && lo < p->str_hi) {
		/* Up to the strings, then from after them. */
		if (lo < p->str_lo)
			alloc_release((void *)(uintptr_t)(p->data + lo),
			    p->str_lo - lo);
		p->released = p->str_hi > upto ? p->str_hi : upto;
		if (p->str_hi < upto)
			alloc_release((void *)(uintptr_t)(p->data +
			    p->str_hi), upto - p->str_hi);
		return;
	}
	alloc_release((void *)(uintptr_t)(p->data + lo), hi - lo);
	p->released = upto;
}

/* Walk every sample, checking it and handing it to each. */
int
pprof_samples(struct pprof *p, int (*each)(struct pprof *))
{
	struct pb c;
	struct pb_field f;
	int r;

	pb_init(&c, p->data, p->len);
	while ((r = pprof_next(p, &c, &f, "Profile")) == 1) {
		if (f.num != PROFILE_SAMPLE)
			continue;
		if (p->own)
			pprof_release(p, f.off);
		if (pprof_sample_load(p, &c, &f) == -1)
			return -1;
		if (each(p) == -1)
			return -1;
	}
	return r;
}

int
pprof_resolve(struct pprof *p)
{
	size_t i, n;

	if (p->nstrs == 0)
		return pb_dec_fail(&p->pd, ERR_INPUT, "Profile.string_table",
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
			return pb_dec_fail(&p->pd, ERR_TOO_LARGE,
			    "Location.line",
			    p->locs[i].off, "%zu lines in one location",
			    p->locs[i].nline);
		if (n + pprof_loc_nframes(&p->locs[i]) > PPROF_MAX_FRAMES)
			return pb_dec_fail(&p->pd, ERR_TOO_LARGE,
			    "Profile.location",
			    p->locs[i].off, "more than %lu frames in all",
			    (unsigned long)PPROF_MAX_FRAMES);
		p->hot[i].frame = (uint32_t)n;
		p->hot[i].nframes = (unsigned)pprof_loc_nframes(&p->locs[i]);
		n += pprof_loc_nframes(&p->locs[i]);
	}
	p->frame_ids = xcalloc(n, sizeof *p->frame_ids);
	return 0;
}
