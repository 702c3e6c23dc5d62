/* fleet-batch.c: unshipped profiles read from the store and written as
 * ClickHouse's TabSeparated rows (schema/clickhouse/001-init.sql): per
 * profile its sample rows (scope, metric, host, time, key, stack hash,
 * labels, value: what each counts, and, for a metric counted otherwise
 * than whole, its values as given under the raw name), its profiles row
 * and its profile_metrics row (series, kinds, counted, totals as given:
 * 004-series.sql); the batch's distinct stacks, each a 64-bit hash of
 * its frames and the frames' names, files and lines. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "csindex.h"
#include "fleet-batch.h"
#include "fleet-fsum.h"
#include "fleet-tsv.h"
#include "hmap.h"
#include "model.h"
#include "nitems.h"
#include "sha256.h"
#include "stackhash.h"

/* What one batch build keeps across its profiles. */
struct fb {
	struct fleet_batch *b;
	struct store *s;
	struct csindex *idx;
	const char *host;
	int64_t before_s;
	struct error *err;
	struct imap leaf;		/* callsite -> 1 + stack hash index */
	uint64_t *hashes;
	size_t nhashes;
	struct imap shipped;		/* stack hash -> 1: in b->stacks */
	struct imap metric;		/* metric id -> 1 + index in mnames */
	char **mnames;
	size_t nm;
	/* The current profile's label sets: labelset -> 1 + index. */
	struct imap set;
	struct buf *sets;
	size_t nsets;
};

uint64_t
fleet_profile_key(const char *scope, const uint8_t hash[32])
{
	struct sha256 h;
	uint8_t out[32];
	uint64_t k = 0;
	int i;

	sha256_init(&h);
	sha256_update(&h, scope, strlen(scope) + 1);
	sha256_update(&h, hash, 32);
	sha256_final(&h, out);
	for (i = 0; i < 8; i++)
		k = k << 8 | out[i];
	return k;
}

void
fleet_quote(struct buf *b, const char *s, size_t n)
{
	buf_add(b, "'", 1);
	fleet_tsv_put(b, s, n);
	buf_add(b, "'", 1);
}

void
fleet_quote_raw(struct buf *b, const char *metric)
{
	fleet_quote(b, metric, strlen(metric));
	b->n--;
	buf_add(b, FLEET_RAW_SUFFIX "'", strlen(FLEET_RAW_SUFFIX) + 1);
}

static void
tsv_array(struct buf *b, const char *const *v, size_t n)
{
	size_t i;

	buf_add(b, "[", 1);
	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_add(b, ",", 1);
		fleet_quote(b, v[i], strlen(v[i]));
	}
	buf_add(b, "]", 1);
}

/* "hash\t[a]\t[b]\t[c]\n": a, b and c are the arrays without their "]". */
static void
fb_stack_row(struct buf *out, uint64_t k, const struct buf *a,
    const struct buf *b, const struct buf *c)
{
	buf_printf(out, "%" PRIu64 "\t", k);
	buf_add(out, a->p, a->n);
	buf_add(out, "]\t", 2);
	buf_add(out, b->p, b->n);
	buf_add(out, "]\t", 2);
	buf_add(out, c->p, c->n);
	buf_add(out, "]\n", 2);
}

static const char *
fb_metric(struct fb *x, int64_t id)
{
	struct store_metric m = { 0 };
	int64_t i = imap_get(&x->metric, (uint64_t)id);

	if (i != 0)
		return x->mnames[i - 1];
	if (store_metric_get(x->s, id, &m, x->err) == -1)
		return NULL;
	x->mnames = xreallocarray(x->mnames, x->nm + 1, sizeof *x->mnames);
	xasprintf(&x->mnames[x->nm++], "%s/%s", m.type, m.unit);
	store_metric_clear(&m);
	imap_put(&x->metric, (uint64_t)id, (int64_t)x->nm);
	return x->mnames[x->nm - 1];
}

/* The stack of a leaf callsite: its hash (stack_hash) and, the first
 * time in the batch, its rows in stacks and stack_frames.  Frames leaf
 * first, as pprof lists them. */
static int
fb_stack(struct fb *x, int64_t leaf, uint64_t *out)
{
	/* functions, files, lines; inline flags, start lines, mappings */
	struct buf a[6] = { { 0 } };
	int64_t c, hi, start;
	const char *name, *file, *mapping;
	uint64_t k;
	size_t i;

	if ((hi = imap_get(&x->leaf, (uint64_t)leaf)) != 0) {
		*out = x->hashes[hi - 1];
		return 0;
	}
	/* Everything from the index held: reading each callsite's frame
	 * back from the store's chunks cost 60 % of a batch's CPU. */
	k = stack_hash(x->idx, leaf);
	if (imap_get(&x->shipped, k) == 0) {
		for (i = 0; i < NITEMS(a); i++)
			buf_add(&a[i], "[", 1);
		for (c = leaf; c > 0; c = csindex_parent(x->idx, c)) {
			name = csindex_name_str(x->idx, csindex_name(x->idx,
			    c));
			csindex_source(x->idx, c, &file, &start, &mapping);
			for (i = 0; i < NITEMS(a) && c != leaf; i++)
				buf_add(&a[i], ",", 1);
			fleet_quote(&a[0], name, strlen(name));
			fleet_quote(&a[1], file, strlen(file));
			buf_printf(&a[2], "%" PRId64, csindex_line(x->idx, c));
			buf_add(&a[3], csindex_flags(x->idx, c) &
			    FRAME_INLINED ? "1" : "0", 1);
			buf_printf(&a[4], "%" PRId64, start);
			fleet_quote(&a[5], mapping, strlen(mapping));
		}
		imap_put(&x->shipped, k, 1);
		fb_stack_row(&x->b->stacks, k, &a[0], &a[1], &a[2]);
		fb_stack_row(&x->b->frame_rows, k, &a[3], &a[4], &a[5]);
		x->b->nstacks++;
	}
	x->hashes = xreallocarray(x->hashes, x->nhashes + 1,
	    sizeof *x->hashes);
	x->hashes[x->nhashes++] = k;
	imap_put(&x->leaf, (uint64_t)leaf, (int64_t)x->nhashes);
	*out = k;
	for (i = 0; i < NITEMS(a); i++)
		buf_free(&a[i]);
	return 0;
}

/* Label rows come grouped by set, in the order they were added: each set
 * becomes "[keys]\t[values]" (numbers as decimal text). */
static void
fb_label_cb(void *arg, const struct store_label_row *r)
{
	struct fb *x = arg;
	struct buf *vals;
	int64_t i = imap_get(&x->set, (uint64_t)r->labelset);
	char num[32];

	if (i == 0) {
		x->sets = xreallocarray(x->sets, x->nsets + 1,
		    sizeof *x->sets);
		memset(&x->sets[x->nsets], 0, sizeof *x->sets);
		i = (int64_t)++x->nsets;
		imap_put(&x->set, (uint64_t)r->labelset, i);
	}
	/* keys at sets[i-1], values after a NUL, merged at the end. */
	vals = &x->sets[i - 1];
	buf_add(vals, r->key.p, r->key.n);
	buf_add(vals, "\0", 1);
	if (r->is_num) {
		snprintf(num, sizeof num, "%" PRId64, r->num);
		buf_add(vals, num, strlen(num));
	} else
		buf_add(vals, r->str.p, r->str.n);
	buf_add(vals, "\0", 1);
}

/* The set's "[k,...]\t[v,...]" from its NUL-separated pairs. */
static void
fb_set_text(struct buf *out, const struct buf *pairs)
{
	struct buf v = { 0 };
	const char *p = (const char *)pairs->p, *end = p + pairs->n;
	size_t n;
	int first = 1;

	buf_add(out, "[", 1);
	buf_add(&v, "[", 1);
	while (p < end) {
		if (!first) {
			buf_add(out, ",", 1);
			buf_add(&v, ",", 1);
		}
		first = 0;
		n = strlen(p);
		fleet_quote(out, p, n);
		p += n + 1;
		n = strlen(p);
		fleet_quote(&v, p, n);
		p += n + 1;
	}
	buf_add(out, "]\t", 2);
	buf_add(out, v.p, v.n);
	buf_add(out, "]", 1);
	buf_free(&v);
}

/* Each label set of v once into x->set (store_labels_by_set gives its
 * labels per id); the new ones appended to *sets. */
static void
fb_sets(struct fb *x, const struct store_export_value *v, size_t nv,
    int64_t **sets, size_t *nsets)
{
	size_t i;

	for (i = 0; i < nv; i++)
		if (v[i].labelset != 0 &&
		    imap_get(&x->set, (uint64_t)v[i].labelset) == 0) {
			imap_put(&x->set, (uint64_t)v[i].labelset, -1);
			*sets = xreallocarray(*sets, *nsets + 1, sizeof **sets);
			(*sets)[(*nsets)++] = v[i].labelset;
		}
}

/* The sample rows of one read of a profile, counted per metric of info
 * in rows (and summed in totals, the values as shipped).  raw: the read
 * of the values as given, of which only the metrics counted otherwise
 * than whole go, under their raw name (fleet-batch.h). */
static int
fb_rows(struct fb *x, const struct store_ship_profile *sp,
    struct fleet_profile *fp, const struct store_export_value *v, size_t nv,
    const struct store_profile_info *info, int raw, uint64_t *rows,
    int64_t *totals)
{
	struct buf *out = &x->b->samples;
	const char *metric;
	uint64_t stack;
	size_t i, j, k;

	for (i = 0; i < nv; i++) {
		if (v[i].value == 0)
			continue;
		for (j = 0; j < info->nmetrics; j++)
			if (info->metrics[j].id == v[i].metric)
				break;
		if (raw && (j == info->nmetrics ||
		    info->metrics[j].counted == COUNTED_WHOLE))
			continue;
		if ((metric = fb_metric(x, v[i].metric)) == NULL ||
		    fb_stack(x, v[i].callsite, &stack) == -1)
			return -1;
		if (j < info->nmetrics) {
			rows[j]++;
			if (!raw)
				totals[j] += v[i].value;
		}
		fleet_tsv_puts(out, sp->scope);
		buf_add(out, "\t", 1);
		fleet_tsv_puts(out, metric);
		if (raw)
			buf_add(out, FLEET_RAW_SUFFIX,
			    strlen(FLEET_RAW_SUFFIX));
		buf_add(out, "\t", 1);
		fleet_tsv_puts(out, x->host);
		buf_printf(out, "\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\t",
		    fp->time_s, fp->key, stack);
		k = (size_t)imap_get(&x->set, (uint64_t)v[i].labelset);
		if (v[i].labelset != 0 && k != 0)
			fb_set_text(out, &x->sets[k - 1]);
		else
			buf_add(out, "[]\t[]", 5);
		buf_printf(out, "\t%" PRId64 "\n", v[i].value);
		fp->rows++;
	}
	return 0;
}

/* Its function sums (fleet-fsum.c), per metric: of the values its
 * samples rows have, what each profile counts. */
static int
fb_fsums(struct fb *x, const struct store_ship_profile *sp,
    struct fleet_profile *fp, const struct store_export_value *v, size_t nv,
    const struct store_profile_info *info, const char *const *mnames)
{
	struct buf head = { 0 };
	struct store_cs_value *cv;
	size_t i, j, n, rows;
	int rc = 0;

	cv = xreallocarray(NULL, nv ? nv : 1, sizeof *cv);
	fp->foff = x->b->fn_rows.n;
	for (j = 0; j < info->nmetrics && rc == 0; j++) {
		for (i = n = 0; i < nv; i++)
			if (v[i].metric == info->metrics[j].id &&
			    v[i].value != 0) {
				cv[n].callsite = v[i].callsite;
				cv[n++].value = v[i].value;
			}
		if (n == 0)
			continue;
		head.n = 0;
		fleet_tsv_puts(&head, sp->scope);
		buf_add(&head, "\t", 1);
		fleet_tsv_puts(&head, mnames[j]);
		buf_add(&head, "\t", 1);
		fleet_tsv_puts(&head, x->host);
		buf_printf(&head, "\t%" PRId64 "\t%" PRIu64 "\t", fp->time_s,
		    fp->key);
		buf_add(&head, "", 1);
		rc = fleet_fsum_rows(&x->b->fn_rows, &x->b->fkeys, x->idx,
		    (const char *)head.p, cv, n, &rows, x->err);
		fp->frows += rows;
	}
	fp->flen = x->b->fn_rows.n - fp->foff;
	buf_free(&head);
	free(cv);
	return rc;
}

/* "host\tscope\tkey\ttime\t", the head of a profile's rows. */
static void
fb_profile_head(struct buf *out, const struct fb *x,
    const struct store_ship_profile *sp, const struct fleet_profile *fp)
{
	fleet_tsv_puts(out, x->host);
	buf_add(out, "\t", 1);
	fleet_tsv_puts(out, sp->scope);
	buf_printf(out, "\t%" PRIu64 "\t%" PRId64 "\t", fp->key, fp->time_s);
}

/* Its row in profile_metrics: host, scope, profile, time, time_ns,
 * series, metrics, kinds, counted, raw_totals. */
static void
fb_profile_metrics(struct fb *x, const struct store_ship_profile *sp,
    struct fleet_profile *fp, const struct store_profile_info *info,
    const char *const *mnames)
{
	struct buf *out = &x->b->metric_rows;
	size_t i;

	fp->moff = out->n;
	fb_profile_head(out, x, sp, fp);
	buf_printf(out, "%" PRId64 "\t%" PRIu64 "\t", sp->time_ns,
	    (uint64_t)sp->series);
	tsv_array(out, mnames, info->nmetrics);
	buf_add(out, "\t[", 2);
	for (i = 0; i < info->nmetrics; i++)
		buf_printf(out, "%s%d", i ? "," : "",
		    (int)info->metrics[i].kind);
	buf_add(out, "]\t[", 3);
	for (i = 0; i < info->nmetrics; i++)
		buf_printf(out, "%s%d", i ? "," : "",
		    (int)info->metrics[i].counted);
	buf_add(out, "]\t[", 3);
	for (i = 0; i < info->nmetrics; i++)
		buf_printf(out, "%s%" PRId64, i ? "," : "",
		    info->metrics[i].total);
	buf_add(out, "]\n", 2);
	fp->mlen = out->n - fp->moff;
}

static int
fb_profile(struct fb *x, const struct store_ship_profile *sp)
{
	struct fleet_batch *b = x->b;
	struct fleet_profile *fp;
	struct store_export_value *v = NULL, *rv = NULL;
	struct store_profile_info info = { 0 };
	struct store_filter f;
	int64_t *pids = NULL, *sets = NULL, *totals = NULL;
	uint64_t *rows = NULL;
	size_t nv = 0, nrv = 0, np = 0, nsets = 0, i;
	const char **mnames = NULL;
	int rc = -1, raw = 0;

	b->p = xreallocarray(b->p, b->n + 1, sizeof *b->p);
	fp = &b->p[b->n++];
	memset(fp, 0, sizeof *fp);
	fp->id = sp->id;
	fp->bytes = sp->bytes;
	fp->key = fleet_profile_key(sp->scope, sp->hash);
	fp->time_s = sp->time_ns / 1000000000;
	if (fp->time_s < x->before_s) {
		fp->expired = 1;
		b->nexpired++;
		return 0;
	}
	memset(&f, 0, sizeof f);
	f.scopes = &sp->scope_id;
	f.nscopes = 1;
	f.since_s = INT64_MIN;
	f.until_s = INT64_MAX;
	f.profiles = &sp->id;
	f.nprofiles = 1;
	if (store_select_all(x->s, &f, &v, &nv, &pids, &np, x->err) == -1 ||
	    store_profile_get(x->s, sp->id, &info, x->err) == -1)
		goto out;
	/* A metric counted otherwise than whole: its values as given too. */
	for (i = 0; i < info.nmetrics; i++)
		if (info.metrics[i].counted != COUNTED_WHOLE)
			raw = 1;
	f.raw = 1;
	free(pids);
	pids = NULL;
	if (raw && store_select_all(x->s, &f, &rv, &nrv, &pids, &np,
	    x->err) == -1)
		goto out;
	imap_clear(&x->set);
	x->nsets = 0;
	fb_sets(x, v, nv, &sets, &nsets);
	fb_sets(x, rv, nrv, &sets, &nsets);
	imap_clear(&x->set);
	if (store_labels_by_set(x->s, sets, nsets, fb_label_cb, x,
	    x->err) == -1)
		goto out;
	fp->off = b->samples.n;
	mnames = xcalloc(info.nmetrics + 1, sizeof *mnames);
	rows = xcalloc(info.nmetrics + 1, sizeof *rows);
	totals = xcalloc(info.nmetrics + 1, sizeof *totals);
	if (fb_rows(x, sp, fp, v, nv, &info, 0, rows, totals) == -1 ||
	    fb_rows(x, sp, fp, rv, nrv, &info, 1, rows, totals) == -1)
		goto out;
	fp->len = b->samples.n - fp->off;
	for (i = 0; i < info.nmetrics; i++)
		if ((mnames[i] = fb_metric(x, info.metrics[i].id)) == NULL)
			goto out;
	if (fb_fsums(x, sp, fp, v, nv, &info, mnames) == -1)
		goto out;
	/* host, scope, profile, time, time_ns, duration_ns, name, metrics,
	 * rows, totals, label_keys, label_values */
	fp->poff = b->profiles.n;
	fb_profile_head(&b->profiles, x, sp, fp);
	buf_printf(&b->profiles, "%" PRId64 "\t%" PRId64 "\t", sp->time_ns,
	    sp->duration_ns);
	fleet_tsv_puts(&b->profiles, sp->name);
	buf_add(&b->profiles, "\t", 1);
	tsv_array(&b->profiles, mnames, info.nmetrics);
	buf_add(&b->profiles, "\t[", 2);
	for (i = 0; i < info.nmetrics; i++)
		buf_printf(&b->profiles, "%s%" PRIu64, i ? "," : "", rows[i]);
	buf_add(&b->profiles, "]\t[", 3);
	for (i = 0; i < info.nmetrics; i++)
		buf_printf(&b->profiles, "%s%" PRId64, i ? "," : "", totals[i]);
	buf_add(&b->profiles, "]\t", 2);
	tsv_array(&b->profiles, (const char *const *)info.label_keys,
	    info.nlabels);
	buf_add(&b->profiles, "\t", 1);
	tsv_array(&b->profiles,
	    (const char *const *)info.label_values, info.nlabels);
	buf_add(&b->profiles, "\n", 1);
	fp->plen = b->profiles.n - fp->poff;
	fb_profile_metrics(x, sp, fp, &info, mnames);
	rc = 0;
out:
	for (i = 0; i < x->nsets; i++)
		buf_free(&x->sets[i]);
	x->nsets = 0;
	free((void *)mnames);
	free(rows);
	free(totals);
	free(sets);
	free(v);
	free(rv);
	free(pids);
	store_profile_info_clear(&info);
	return rc;
}

int
fleet_batch_build(struct fleet_batch *b, struct store *s,
    struct csindex *idx, const char *host, size_t max, size_t max_bytes,
    int64_t before_s, struct error *err)
{
	struct store_ship_profile *sp = NULL;
	struct fb x;
	size_t n = 0, i;
	int rc = -1;

	memset(b, 0, sizeof *b);
	memset(&x, 0, sizeof x);
	x.b = b;
	x.s = s;
	x.idx = idx;
	x.host = host;
	x.before_s = before_s;
	x.err = err;
	if (store_ship_pending(s, max, &sp, &n, err) == -1)
		return -1;
	if (n == 0) {
		rc = 0;
		goto out;
	}
	if (csindex_acquire(idx, s, err) == -1)
		goto out;
	for (i = 0; i < n && !b->more; i++) {
		if (fb_profile(&x, &sp[i]) == -1)
			break;
		b->more = i + 1 < n && b->samples.n + b->fn_rows.n +
		    b->stacks.n + b->profiles.n >= max_bytes;
	}
	csindex_release(idx);
	rc = i == n || b->more ? 0 : -1;
out:
	store_ship_profiles_free(sp, n);
	for (i = 0; i < x.nm; i++)
		free(x.mnames[i]);
	free(x.mnames);
	free(x.sets);
	free(x.hashes);
	imap_clear(&x.leaf);
	imap_clear(&x.shipped);
	imap_clear(&x.metric);
	imap_clear(&x.set);
	if (rc == -1)
		fleet_batch_clear(b);
	return rc;
}

void
fleet_batch_clear(struct fleet_batch *b)
{
	free(b->p);
	buf_free(&b->samples);
	buf_free(&b->fn_rows);
	fleet_fsum_keys_clear(&b->fkeys);
	buf_free(&b->stacks);
	buf_free(&b->frame_rows);
	buf_free(&b->profiles);
	buf_free(&b->metric_rows);
	memset(b, 0, sizeof *b);
}

char *
fleet_batch_present_sql(const struct fleet_batch *b, const char *db,
    const char *host)
{
	struct buf q = { 0 };
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t i, k = 0;
	char *s;

	for (i = 0; i < b->n; i++) {
		if (b->p[i].expired)
			continue;
		if (b->p[i].time_s < lo)
			lo = b->p[i].time_s;
		if (b->p[i].time_s > hi)
			hi = b->p[i].time_s;
	}
	buf_printf(&q, "SELECT DISTINCT profile FROM %s.samples WHERE date "
	    "BETWEEN toDate(toDateTime(%" PRId64 ")) AND toDate(toDateTime(%"
	    PRId64 ")) AND host = ", db, lo, hi);
	fleet_quote(&q, host, strlen(host));
	buf_add(&q, " AND profile IN (", 17);
	for (i = 0; i < b->n; i++)
		if (!b->p[i].expired)
			buf_printf(&q, "%s%" PRIu64, k++ ? "," : "",
			    b->p[i].key);
	buf_add(&q, ") FORMAT TabSeparated", 22);
	s = xstrndup((const char *)q.p, q.n);
	buf_free(&q);
	return s;
}

int
fleet_batch_present(struct fleet_batch *b, const char *reply, size_t n,
    struct error *err)
{
	const char *p = reply, *end = reply + n, *nl, *q;
	uint64_t k;
	size_t i;

	while (p < end) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		/* Decimal digits only, no sign, no overflow. */
		for (k = 0, q = p; q < nl && *q >= '0' && *q <= '9'; q++) {
			if (k > (UINT64_MAX - (uint64_t)(*q - '0')) / 10)
				break;
			k = k * 10 + (uint64_t)(*q - '0');
		}
		if (q == p || q != nl)
			return error_set(err, ERR_INPUT, "ClickHouse: not a "
			    "profile key in the reply: \"%.*s\"",
			    (int)(nl - p > 40 ? 40 : nl - p), p);
		for (i = 0; i < b->n; i++)
			if (b->p[i].key == k)
				b->p[i].present = 1;
		p = nl + 1;
	}
	return 0;
}

void
fleet_batch_rows(const struct fleet_batch *b, enum fleet_table table,
    struct buf *out, size_t *rows)
{
	const struct fleet_profile *p;
	size_t i;

	*rows = 0;
	for (i = 0; i < b->n; i++) {
		p = &b->p[i];
		/* A profile's rows beside its samples go again
		 * (ReplacingMergeTree merges the repeat): a crash may have
		 * come between its samples and them.  Not its function
		 * sums (summed as they land): a crash between its samples
		 * and them leaves it without, which readers see
		 * (fleet_sql_fsums counts them). */
		if (p->expired || (p->present && (table == FLEET_SAMPLES ||
		    table == FLEET_FUNCTIONS)))
			continue;
		switch (table) {
		case FLEET_SAMPLES:
			buf_add(out, b->samples.p + p->off, p->len);
			*rows += p->rows;
			break;
		case FLEET_FUNCTIONS:
			buf_add(out, b->fn_rows.p + p->foff, p->flen);
			*rows += p->frows;
			break;
		case FLEET_PROFILES:
			buf_add(out, b->profiles.p + p->poff, p->plen);
			(*rows)++;
			break;
		case FLEET_PROFILE_METRICS:
			buf_add(out, b->metric_rows.p + p->moff, p->mlen);
			(*rows)++;
			break;
		}
	}
}
