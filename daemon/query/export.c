/* export.c: a selection as a pprof Profile.  The stacks are walked with
 * the selection's frame filters as /v1/top walks them (focus and ignore
 * drop samples, hide and show remove frames), so go tool pprof -top of the
 * export gives /v1/top's rows.  The protobuf is written with pbw.h: pprof's
 * messages are few and flat, each built in a buf of its own. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "csindex.h"
#include "export.h"
#include "hmap.h"
#include "model.h"
#include "pb.h"
#include "pbw.h"
#include "query.h"
#include "selection.h"
#include "stackwalk.h"
#include "store.h"

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING,
	PROFILE_LOCATION, PROFILE_FUNCTION, PROFILE_STRING_TABLE,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE,
	PROFILE_PERIOD, PROFILE_COMMENT, PROFILE_DEFAULT_SAMPLE_TYPE,
};

/* ---- the export ---- */

struct ex {
	struct store *s;
	struct error *err;
	/* The string table, encoded as it grows: string -> 1 + index. */
	struct buf strtab;
	struct hmap strs;
	int64_t nstrs;
	/* Sample types: metric id -> 1 + index of its value. */
	int64_t *metrics;
	size_t nmetrics;
	struct hmap metric_at;
	/* Store ids in pprof id order (pprof id = index + 1). */
	int64_t *fns, *maps;
	size_t nfns, nmaps;
	struct hmap fn_ids, map_ids;	/* store id -> pprof id */
	/* Label sets: id -> 1 + index of their encoded Sample.label fields. */
	int64_t *sets;
	struct buf *labels;
	size_t nsets;
	struct hmap set_at;
	/* Locations: frame ids of a run -> pprof id. */
	struct hmap loc_ids;
	int64_t nlocs;
	/* Kept stacks, leaf first: callsite ids and stackwalk flags. */
	int64_t *cs;
	unsigned *flags;
	size_t ncs, capcs;
	/* Keys of the label sets' labels: (set id, key) -> 1. */
	struct hmap set_keys;
	/* Push labels: the selected profiles with the same ones are a group,
	 * and each sample carries its group's labels as sample labels. */
	struct exgroup {
		char **keys, **values;
		size_t nlabels;
		int64_t *profiles;
		size_t nprofiles;
	} *groups;
	size_t ngroups;
	struct hmap group_at;		/* canonical labels -> 1 + index */
	struct hmap comments;		/* comments written -> 1 */
	/* Samples: a stack [off, off + n) of cs, a label set, a group,
	 * values at vals + i * nmetrics. */
	struct smp {
		size_t off, n;
		int64_t labelset;
		size_t group;
	} *smp;
	size_t nsmp, capsmp;
	int64_t *vals;
	/* Encoded repeated fields of the Profile. */
	struct buf out_maps, out_locs, out_fns, msg, line, tmp, key, lkey;
};

static int64_t
ex_str(struct ex *x, const void *p, size_t n)
{
	int64_t at;

	if (n == 0)
		return 0;
	if ((at = hmap_get(&x->strs, p, n)) != 0)
		return at - 1;
	pbw_bytes(&x->strtab, PROFILE_STRING_TABLE, p, n);
	hmap_put(&x->strs, p, n, ++x->nstrs);
	return x->nstrs - 1;
}

static int64_t
ex_strz(struct ex *x, const char *s)
{
	return ex_str(x, s, strlen(s));
}

static int64_t
ex_sstr(struct ex *x, struct store_str s)
{
	return ex_str(x, s.p, s.n);
}

/* The pprof id of a store id, made when first met. */
static int64_t
ex_id(struct hmap *ids, int64_t **order, size_t *n, int64_t id)
{
	int64_t at;

	if ((at = hmap_get(ids, &id, sizeof id)) != 0)
		return at;
	*order = xappendarray(*order, *n, sizeof **order);
	(*order)[(*n)++] = id;
	hmap_put(ids, &id, sizeof id, (int64_t)*n);
	return (int64_t)*n;
}

static void
ex_metric(struct ex *x, int64_t id)
{
	ex_id(&x->metric_at, &x->metrics, &x->nmetrics, id);
}

static void
ex_clear(struct ex *x)
{
	size_t i;

	buf_free(&x->strtab);
	hmap_clear(&x->strs);
	free(x->metrics);
	hmap_clear(&x->metric_at);
	free(x->fns);
	free(x->maps);
	hmap_clear(&x->fn_ids);
	hmap_clear(&x->map_ids);
	for (i = 0; i < x->nsets; i++)
		buf_free(&x->labels[i]);
	free(x->labels);
	free(x->sets);
	hmap_clear(&x->set_at);
	hmap_clear(&x->set_keys);
	for (i = 0; i < x->ngroups; i++) {
		size_t k;

		for (k = 0; k < x->groups[i].nlabels; k++) {
			free(x->groups[i].keys[k]);
			free(x->groups[i].values[k]);
		}
		free(x->groups[i].keys);
		free(x->groups[i].values);
		free(x->groups[i].profiles);
	}
	free(x->groups);
	hmap_clear(&x->group_at);
	hmap_clear(&x->comments);
	hmap_clear(&x->loc_ids);
	free(x->cs);
	free(x->flags);
	free(x->smp);
	free(x->vals);
	buf_free(&x->out_maps);
	buf_free(&x->out_locs);
	buf_free(&x->out_fns);
	buf_free(&x->msg);
	buf_free(&x->line);
	buf_free(&x->tmp);
	buf_free(&x->key);
	buf_free(&x->lkey);
}

/* Keep the stack the walk left in w, leaf first; returns its offset. */
static size_t
ex_keep_stack(struct ex *x, const struct stackwalk *w)
{
	size_t i, off = x->ncs;

	if (x->ncs + w->n > x->capcs) {
		x->capcs = (x->ncs + w->n) * 2;
		x->cs = xreallocarray(x->cs, x->capcs, sizeof *x->cs);
		x->flags = xreallocarray(x->flags, x->capcs, sizeof *x->flags);
	}
	for (i = 0; i < w->n; i++) {
		x->cs[off + i] = w->cs[w->n - 1 - i];
		x->flags[off + i] = w->flags[w->n - 1 - i];
	}
	x->ncs += w->n;
	return off;
}

/* One sample per (callsite, label set) of the rows (sorted by those), its
 * stack walked once per callsite with the frame filters; group is the
 * push labels' group of the profiles the rows come from. */
static int
ex_samples(struct ex *x, struct csindex *idx, const struct selection *sel,
    const struct store_export_value *v, size_t n, size_t group)
{
	struct stackwalk w;
	size_t i, j, off = 0, depth = 0;
	int64_t cs = -1, *vals;
	int kept = 0, rc = -1, filters = 0, k;

	for (k = 0; k < FF_COUNT; k++)
		filters |= sel->have_re[k];
	if (csindex_acquire(idx, x->s, x->err) == -1)
		return -1;
	stackwalk_init(&w, idx, sel, GRAN_FUNCTION);
	for (i = 0; i < n; i = j) {
		if (v[i].callsite != cs) {
			cs = v[i].callsite;
			if (cs == 0) {
				/* pprof drops stackless samples when it
				 * filters frames, and counts them otherwise. */
				kept = !filters;
				off = x->ncs;
				depth = 0;
			} else if ((kept = stackwalk_run(&w, cs, x->err)) ==
			    -1) {
				goto out;
			} else if (kept) {
				off = ex_keep_stack(x, &w);
				depth = w.n;
			}
		}
		for (j = i; j < n && v[j].callsite == v[i].callsite &&
		    v[j].labelset == v[i].labelset; j++)
			;
		if (!kept)
			continue;
		if (x->nsmp == x->capsmp) {
			/* Doubling: a realloc a sample copied them all under
			 * ASan (quadratic). */
			x->capsmp = x->capsmp ? x->capsmp * 2 : 256;
			x->smp = xreallocarray(x->smp, x->capsmp,
			    sizeof *x->smp);
			x->vals = xreallocarray(x->vals, x->capsmp *
			    x->nmetrics, sizeof *x->vals);
		}
		x->smp[x->nsmp].off = off;
		x->smp[x->nsmp].n = depth;
		x->smp[x->nsmp].labelset = v[i].labelset;
		x->smp[x->nsmp].group = group;
		vals = x->vals + x->nsmp * x->nmetrics;
		memset(vals, 0, x->nmetrics * sizeof *vals);
		x->nsmp++;
		for (; i < j; i++)
			vals[hmap_get(&x->metric_at, &v[i].metric,
			    sizeof v[i].metric) - 1] += v[i].value;
	}
	rc = 0;
out:
	stackwalk_clear(&w);
	csindex_release(idx);
	return rc;
}

static void
ex_function_cb(void *arg, const struct store_function_row *f)
{
	struct ex *x = arg;
	struct buf *m = &x->msg;

	m->n = 0;
	pbw_opt_int(m, 1, hmap_get(&x->fn_ids, &f->id, sizeof f->id));
	pbw_opt_int(m, 2, ex_sstr(x, f->name));
	pbw_opt_int(m, 3, ex_sstr(x, f->system_name));
	pbw_opt_int(m, 4, ex_sstr(x, f->file));
	pbw_opt_int(m, 5, f->start_line);
	pbw_msg(&x->out_fns, PROFILE_FUNCTION, m);
}

static void
ex_mapping_cb(void *arg, const struct store_mapping_row *r)
{
	struct ex *x = arg;
	struct buf *m = &x->msg;

	m->n = 0;
	pbw_opt_int(m, 1, hmap_get(&x->map_ids, &r->id, sizeof r->id));
	pbw_opt_uint(m, 2, r->start);
	pbw_opt_uint(m, 3, r->limit);
	pbw_opt_uint(m, 4, r->offset);
	pbw_opt_int(m, 5, ex_sstr(x, r->file));
	pbw_opt_int(m, 6, ex_sstr(x, r->build_id));
	pbw_opt_uint(m, 7, (r->flags & MAPPING_HAS_FUNCTIONS) != 0);
	pbw_opt_uint(m, 8, (r->flags & MAPPING_HAS_FILENAMES) != 0);
	pbw_opt_uint(m, 9, (r->flags & MAPPING_HAS_LINE_NUMBERS) != 0);
	pbw_opt_uint(m, 10, (r->flags & MAPPING_HAS_INLINE_FRAMES) != 0);
	pbw_msg(&x->out_maps, PROFILE_MAPPING, m);
}

static void
ex_label_cb(void *arg, const struct store_label_row *l)
{
	struct ex *x = arg;
	struct buf *m = &x->msg;
	int64_t at = hmap_get(&x->set_at, &l->labelset, sizeof l->labelset);

	m->n = 0;
	pbw_opt_int(m, 1, ex_sstr(x, l->key));
	if (l->is_num) {
		pbw_opt_int(m, 3, l->num);
		pbw_opt_int(m, 4, ex_sstr(x, l->num_unit));
	} else
		pbw_opt_int(m, 2, ex_sstr(x, l->str));
	pbw_msg(&x->labels[at - 1], 3, m);
	x->lkey.n = 0;
	buf_add(&x->lkey, &l->labelset, sizeof l->labelset);
	buf_add(&x->lkey, l->key.p, l->key.n);
	hmap_put(&x->set_keys, x->lkey.p, x->lkey.n, 1);
}

/* The group's push labels as Sample.label fields, but for the keys the
 * sample's own labels have (pprof discourages a key given twice). */
static void
ex_push_labels(struct ex *x, const struct smp *sp, struct buf *sample)
{
	const struct exgroup *g;
	size_t k;

	if (sp->group >= x->ngroups)
		return;
	g = &x->groups[sp->group];
	for (k = 0; k < g->nlabels; k++) {
		x->lkey.n = 0;
		buf_add(&x->lkey, &sp->labelset, sizeof sp->labelset);
		buf_add(&x->lkey, g->keys[k], strlen(g->keys[k]));
		if (sp->labelset != 0 &&
		    hmap_get(&x->set_keys, x->lkey.p, x->lkey.n) != 0)
			continue;
		x->msg.n = 0;
		pbw_opt_int(&x->msg, 1, ex_strz(x, g->keys[k]));
		pbw_opt_int(&x->msg, 2, ex_strz(x, g->values[k]));
		pbw_msg(sample, 3, &x->msg);
	}
}

/* The pprof id of the location of frames [a, b] of a stack (leaf first:
 * a is the innermost line, b the frame it is all inlined into). */
static int64_t
ex_location(struct ex *x, const struct store_frame_row *const *fr,
    size_t a, size_t b)
{
	int64_t id;
	size_t i;
	int folded = 0;

	x->key.n = 0;
	for (i = a; i <= b; i++)
		buf_add(&x->key, &fr[i]->frame, sizeof fr[i]->frame);
	if ((id = hmap_get(&x->loc_ids, x->key.p, x->key.n)) != 0)
		return id;
	id = ++x->nlocs;
	hmap_put(&x->loc_ids, x->key.p, x->key.n, id);
	x->msg.n = 0;
	pbw_opt_int(&x->msg, 1, id);
	if (fr[b]->mapping != 0)
		pbw_opt_int(&x->msg, 2, ex_id(&x->map_ids, &x->maps, &x->nmaps,
		    fr[b]->mapping));
	pbw_opt_uint(&x->msg, 3, fr[b]->address);
	for (i = a; i <= b; i++) {
		folded |= (fr[i]->flags & FRAME_FOLDED) != 0;
		if (fr[i]->function == 0)
			continue;
		x->line.n = 0;
		pbw_opt_int(&x->line, 1, ex_id(&x->fn_ids, &x->fns, &x->nfns,
		    fr[i]->function));
		pbw_opt_int(&x->line, 2, fr[i]->line);
		pbw_opt_int(&x->line, 3, fr[i]->column);
		pbw_msg(&x->msg, 4, &x->line);
	}
	pbw_opt_uint(&x->msg, 5, (uint64_t)folded);
	pbw_msg(&x->out_locs, PROFILE_LOCATION, &x->msg);
	return id;
}

/* The Sample fields into out, and the Locations of their stacks; the
 * functions and mappings those name get their pprof ids. */
static int
ex_encode_samples(struct ex *x, struct buf *out)
{
	struct hmap at = { 0 };		/* callsite -> 1 + index in frames */
	struct store_frame_row *frames = NULL;
	const struct store_frame_row **fr = NULL;
	int64_t *ids = NULL, loc;
	struct buf sample = { 0 };
	size_t nids = 0, i, j, a, b, maxdepth = 0;
	int rc = -1;

	for (i = 0; i < x->ncs; i++)
		if (hmap_get(&at, &x->cs[i], sizeof x->cs[i]) == 0) {
			ids = xappendarray(ids, nids, sizeof *ids);
			ids[nids++] = x->cs[i];
			hmap_put(&at, &x->cs[i], sizeof x->cs[i],
			    (int64_t)nids);
		}
	frames = xcalloc(nids ? nids : 1, sizeof *frames);
	if (store_callsite_frames(x->s, ids, nids, frames, x->err) == -1)
		goto out;
	for (i = 0; i < x->nsmp; i++)
		if (x->smp[i].n > maxdepth)
			maxdepth = x->smp[i].n;
	fr = xcalloc(maxdepth ? maxdepth : 1, sizeof *fr);
	for (i = 0; i < x->nsmp; i++) {
		const struct smp *sp = &x->smp[i];
		const int64_t *cs = x->cs + sp->off;
		const unsigned *fl = x->flags + sp->off;

		for (j = 0; j < sp->n; j++)
			fr[j] = &frames[hmap_get(&at, &cs[j], sizeof cs[j]) - 1];
		/* Location ids, leaf first, into tmp. */
		x->tmp.n = 0;
		for (a = 0; a < sp->n; a = b + 1) {
			for (b = a; b + 1 < sp->n && (fl[b] & FRAME_INLINED);
			    b++)
				;
			loc = ex_location(x, fr, a, b);
			pbw_varint(&x->tmp, (uint64_t)loc);
		}
		sample.n = 0;
		if (x->tmp.n > 0)
			pbw_msg(&sample, 1, &x->tmp);
		x->tmp.n = 0;
		for (j = 0; j < x->nmetrics; j++)
			pbw_varint(&x->tmp, (uint64_t)x->vals[i *
			    x->nmetrics + j]);
		pbw_msg(&sample, 2, &x->tmp);
		if (sp->labelset != 0) {
			const struct buf *l = &x->labels[hmap_get(&x->set_at,
			    &sp->labelset, sizeof sp->labelset) - 1];

			buf_add(&sample, l->p, l->n);
		}
		ex_push_labels(x, sp, &sample);
		pbw_msg(out, PROFILE_SAMPLE, &sample);
	}
	rc = 0;
out:
	hmap_clear(&at);
	buf_free(&sample);
	free(frames);
	free(fr);
	free(ids);
	return rc;
}

/* The sample types, the selection's metric the default. */
static int
ex_types(struct ex *x, int64_t metric, struct buf *types,
    struct buf *scalars)
{
	struct store_metric m;
	size_t i;

	for (i = 0; i < x->nmetrics; i++) {
		if (store_metric_get(x->s, x->metrics[i], &m, x->err) == -1)
			return -1;
		x->msg.n = 0;
		pbw_opt_int(&x->msg, 1, ex_strz(x, m.type));
		pbw_opt_int(&x->msg, 2, ex_strz(x, m.unit));
		pbw_msg(types, PROFILE_SAMPLE_TYPE, &x->msg);
		if (x->metrics[i] == metric)
			pbw_opt_int(scalars, PROFILE_DEFAULT_SAMPLE_TYPE,
			    ex_strz(x, m.type));
		store_metric_clear(&m);
	}
	return 0;
}

/* The profile's push labels (sorted by key, one value each) into its
 * group, made when first met. */
static void
ex_group(struct ex *x, const struct store_profile_info *p)
{
	struct exgroup *g;
	int64_t at;
	size_t k;

	x->lkey.n = 0;
	buf_reserve(&x->lkey, 1);	/* a key of 0 bytes is still a key */
	for (k = 0; k < p->nlabels; k++) {
		buf_add(&x->lkey, p->label_keys[k], strlen(p->label_keys[k]) +
		    1);
		buf_add(&x->lkey, p->label_values[k],
		    strlen(p->label_values[k]) + 1);
	}
	if ((at = hmap_get(&x->group_at, x->lkey.p, x->lkey.n)) == 0) {
		x->groups = xappendarray(x->groups, x->ngroups,
		    sizeof *x->groups);
		g = &x->groups[x->ngroups++];
		memset(g, 0, sizeof *g);
		g->nlabels = p->nlabels;
		g->keys = xcalloc(p->nlabels ? p->nlabels : 1,
		    sizeof *g->keys);
		g->values = xcalloc(p->nlabels ? p->nlabels : 1,
		    sizeof *g->values);
		for (k = 0; k < p->nlabels; k++) {
			g->keys[k] = xstrdup(p->label_keys[k]);
			g->values[k] = xstrdup(p->label_values[k]);
		}
		hmap_put(&x->group_at, x->lkey.p, x->lkey.n,
		    (int64_t)x->ngroups);
		at = (int64_t)x->ngroups;
	}
	g = &x->groups[at - 1];
	g->profiles = xappendarray(g->profiles, g->nprofiles,
	    sizeof *g->profiles);
	g->profiles[g->nprofiles++] = p->id;
}

/* The profile's comments not written yet (several profiles pushed from
 * one source often share theirs). */
static void
ex_comments(struct ex *x, const struct store_profile_info *p,
    struct buf *scalars)
{
	size_t k, len;

	for (k = 0; k < p->ncomments; k++) {
		len = strlen(p->comments[k]);
		if (len == 0 || hmap_get(&x->comments, p->comments[k],
		    len) != 0)
			continue;
		hmap_put(&x->comments, p->comments[k], len, 1);
		pbw_key(scalars, PROFILE_COMMENT, PB_VARINT);
		pbw_varint(scalars, (uint64_t)ex_str(x, p->comments[k], len));
	}
}

/* Metrics, times, the period, push labels and comments from the selected
 * profiles. */
static int
ex_profiles(struct ex *x, const int64_t *ids, size_t n,
    struct buf *scalars)
{
	struct store_profile_info p;
	struct store_metric m;
	int64_t first = 0, end = 0, period = 0, ptype = 0;
	size_t i, k;
	int agree = 1;

	for (i = 0; i < n; i++) {
		if (store_profile_get(x->s, ids[i], &p, x->err) == -1)
			return -1;
		for (k = 0; k < p.nmetrics; k++)
			ex_metric(x, p.metrics[k].id);
		if (i == 0 || p.time_ns < first)
			first = p.time_ns;
		if (i == 0 || p.time_ns + p.duration_ns > end)
			end = p.time_ns + p.duration_ns;
		if (i > 0 && (p.period != period ||
		    p.period_type.id != ptype))
			agree = 0;
		period = p.period;
		ptype = p.period_type.id;
		ex_group(x, &p);
		ex_comments(x, &p, scalars);
		store_profile_info_clear(&p);
	}
	pbw_opt_int(scalars, PROFILE_TIME_NANOS, first);
	pbw_opt_int(scalars, PROFILE_DURATION_NANOS, end - first);
	if (agree && n > 0 && ptype != 0) {
		if (store_metric_get(x->s, ptype, &m, x->err) == -1)
			return -1;
		x->msg.n = 0;
		pbw_opt_int(&x->msg, 1, ex_strz(x, m.type));
		pbw_opt_int(&x->msg, 2, ex_strz(x, m.unit));
		pbw_msg(scalars, PROFILE_PERIOD_TYPE, &x->msg);
		store_metric_clear(&m);
	}
	if (agree && n > 0)
		pbw_opt_int(scalars, PROFILE_PERIOD, period);
	return 0;
}

/* The samples of each group of profiles with the same push labels: of
 * all the rows when there is one group, else of a selection of each
 * group's profiles, so that samples of different push labels stay apart. */
static int
ex_samples_grouped(struct ex *x, struct csindex *idx,
    const struct selection *sel, const struct store_filter *f,
    const struct store_export_value *v, size_t nv)
{
	struct store_export_value *gv;
	struct store_filter gf;
	int64_t *gp;
	size_t ngv, ngp, g;
	int rc;

	if (x->ngroups <= 1)
		return ex_samples(x, idx, sel, v, nv, 0);
	for (g = 0; g < x->ngroups; g++) {
		gf = *f;
		gf.profiles = x->groups[g].profiles;
		gf.nprofiles = x->groups[g].nprofiles;
		if (store_select_all(x->s, &gf, &gv, &ngv, &gp, &ngp,
		    x->err) == -1)
			return -1;
		rc = ex_samples(x, idx, sel, gv, ngv, g);
		free(gv);
		free(gp);
		if (rc == -1)
			return -1;
	}
	return 0;
}

int
export_pprof(struct store *s, struct csindex *idx,
    const struct selection *sel, uint8_t **outp, size_t *lenp,
    struct error *err)
{
	struct ex x;
	struct store_metric metric;
	struct store_export_value *v = NULL;
	struct store_filter f;
	struct buf out = { 0 }, scalars = { 0 };
	int64_t *scopes = NULL, *profiles = NULL;
	size_t nv = 0, nprofiles = 0, i;
	int rc = -1;

	*outp = NULL;
	*lenp = 0;
	memset(&x, 0, sizeof x);
	x.s = s;
	x.err = err;
	pbw_bytes(&x.strtab, PROFILE_STRING_TABLE, "", 0);
	x.nstrs = 1;
	/* The metric, the filter and the errors of a bad selection, as
	 * /v1/top has them. */
	if (query_resolve(s, sel, &metric, &f, &scopes, err) == -1)
		goto out;
	if (store_select_all(s, &f, &v, &nv, &profiles, &nprofiles, err) == -1)
		goto out;
	if (ex_profiles(&x, profiles, nprofiles, &scalars) == -1)
		goto out;
	/* Every metric a value has is a sample type (as its profile said). */
	ex_metric(&x, metric.id);
	for (i = 0; i < nv; i++)
		ex_metric(&x, v[i].metric);
	if (ex_types(&x, metric.id, &out, &scalars) == -1)
		goto out;
	if (ex_samples_grouped(&x, idx, sel, &f, v, nv) == -1)
		goto out;
	for (i = 0; i < x.nsmp; i++)
		if (x.smp[i].labelset != 0)
			ex_id(&x.set_at, &x.sets, &x.nsets, x.smp[i].labelset);
	x.labels = xcalloc(x.nsets ? x.nsets : 1, sizeof *x.labels);
	if (store_labels_by_set(s, x.sets, x.nsets, ex_label_cb, &x,
	    err) == -1 ||
	    ex_encode_samples(&x, &out) == -1 ||
	    store_functions_by_id(s, x.fns, x.nfns, ex_function_cb, &x,
	    err) == -1 ||
	    store_mappings_by_id(s, x.maps, x.nmaps, ex_mapping_cb, &x,
	    err) == -1)
		goto out;
	buf_add(&out, x.out_maps.p, x.out_maps.n);
	buf_add(&out, x.out_locs.p, x.out_locs.n);
	buf_add(&out, x.out_fns.p, x.out_fns.n);
	buf_add(&out, x.strtab.p, x.strtab.n);
	buf_add(&out, scalars.p, scalars.n);
	rc = 0;
out:
	store_metric_clear(&metric);
	free(scopes);
	free(profiles);
	free(v);
	buf_free(&scalars);
	if (rc == 0) {
		*outp = out.p;
		*lenp = out.n;
	} else
		buf_free(&out);
	ex_clear(&x);
	return rc;
}
