/* import.c: the sink on top of the store.
 *
 * Strings, metrics, mappings, functions, frames, callsites and label sets
 * are interned through caches (key bytes -> store id) that live as long as
 * the importer, so the thousandth profile of a service only looks up what
 * it shares with the others.  A failed import rolls back its transaction
 * and drops the caches, since they may name rows that no longer exist.
 * Sample values go to the store's batched writer (store_samples_*), which
 * merges them by (stack, label set, time bucket) in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "format.h"
#include "hmap.h"
#include "import.h"
#include "model.h"
#include "sha256.h"
#include "util.h"

/* Past this much cache memory the caches are dropped and refilled, after
 * an import and during one (a profile of millions of distinct stacks
 * would otherwise cache them all): a cache only saves lookups. */
#define IMPORT_CACHE_MAX	(48u << 20)
/* Cache insertions between two checks of that. */
#define IMPORT_CACHE_CHECK	4096
/* The import thread's nice value (and its helpers'). */
#define IMPORT_NICE		5

enum cache {
	C_STRING, C_METRIC, C_MAPPING, C_FUNCTION, C_FRAME, C_CALLSITE,
	C_STACK, C_LABELSET, C_COUNT
};

struct importer {
	struct store *store;
	const struct limits *limits;
	const atomic_int *stop;		/* set: give up imports from files */
	struct hmap cache[C_COUNT];
	unsigned puts;			/* since the last size check */
	int niced;

	/* Per import. */
	int64_t profile_id;
	struct store_metric *metrics;
	size_t nmetrics;
	int64_t *totals;
	struct store_samples *samples;
	int64_t bucket_s;		/* time bucket size, whole seconds */
	int64_t bt_lo, bt_hi, bt_bucket;	/* [lo, hi) ns is bt_bucket */
	struct model_meta meta;
	int have_meta;
	char **comments;
	size_t ncomments;
	char *doc_url, *period_type, *period_unit;
	struct import_count *counts;
	size_t ncounts;
	/* The last label set asked for, as given (strings in this import's
	 * input): samples in a row mostly carry the same labels. */
	struct model_label *last_labels;
	size_t nlast_labels, last_labels_cap;
	int64_t last_labelset;
};

struct importer *
importer_new(struct store *store, const struct limits *limits)
{
	struct importer *im = xcalloc(1, sizeof *im);

	im->store = store;
	im->limits = limits;
	return im;
}

static void
importer_caches_clear(struct importer *im)
{
	int i;

	for (i = 0; i < C_COUNT; i++)
		hmap_clear(&im->cache[i]);
}

void
importer_forget(struct importer *im)
{
	importer_caches_clear(im);
}

static void
importer_reset(struct importer *im)
{
	size_t i;

	for (i = 0; i < im->nmetrics; i++)
		store_metric_clear(&im->metrics[i]);
	free(im->metrics);
	free(im->totals);
	store_samples_free(im->samples);
	im->samples = NULL;
	im->bt_lo = im->bt_hi = 0;
	for (i = 0; i < im->ncomments; i++)
		free(im->comments[i]);
	free(im->comments);
	for (i = 0; i < im->ncounts; i++)
		free(im->counts[i].name);
	free(im->counts);
	im->counts = NULL;
	im->ncounts = 0;
	free(im->doc_url);
	free(im->period_type);
	free(im->period_unit);
	im->metrics = NULL;
	im->totals = NULL;
	im->comments = NULL;
	im->doc_url = im->period_type = im->period_unit = NULL;
	im->nmetrics = im->ncomments = 0;
	im->have_meta = 0;
	im->nlast_labels = 0;
	im->last_labelset = 0;
	im->profile_id = 0;
	memset(&im->meta, 0, sizeof im->meta);
}

void
importer_set_limits(struct importer *im, const struct limits *limits)
{
	im->limits = limits;
}

void
importer_set_stop(struct importer *im, const atomic_int *stop)
{
	im->stop = stop;
}

void
importer_free(struct importer *im)
{
	if (im == NULL)
		return;
	importer_reset(im);
	importer_caches_clear(im);
	free(im->last_labels);
	free(im);
}

size_t
importer_cache_bytes(const struct importer *im)
{
	size_t n = 0;
	int i;

	for (i = 0; i < C_COUNT; i++)
		n += hmap_bytes(&im->cache[i]);
	return n;
}

/* A cache hit is the store id; 0 is a miss. */
static int64_t
cache_get(struct importer *im, enum cache c, const void *key, size_t len)
{
	return hmap_get(&im->cache[c], key, len);
}

static int64_t
cache_put(struct importer *im, enum cache c, const void *key, size_t len,
    int64_t id)
{
	const struct hmap *m = &im->cache[c];

	if (id <= 0)
		return id;
	/* A map about to double counts twice its size (old and new). */
	if (++im->puts >= IMPORT_CACHE_CHECK ||
	    (m->cap > 4096 && (m->n + 1) * 4 > m->cap * 3)) {
		im->puts = 0;
		if (importer_cache_bytes(im) + 2 * m->cap *
		    sizeof *m->slots > IMPORT_CACHE_MAX)
			importer_caches_clear(im);
	}
	hmap_put(&im->cache[c], key, len, id);
	return id;
}

static int64_t
intern_string(struct importer *im, struct mstr s, struct error *err)
{
	int64_t id;

	if ((id = hmap_get(&im->cache[C_STRING], s.p, s.n)) != 0)
		return id;
	return cache_put(im, C_STRING, s.p, s.n, store_string(im->store,
	    s.p, s.n, err));
}

static int
sink_metric(void *ctx, struct mstr type, struct mstr unit, struct error *err)
{
	struct importer *im = ctx;
	struct buf key = { 0 };
	int64_t id;

	if (type.n == 0)
		return error_set(err, ERR_INPUT, "a sample type has no name");
	buf_add(&key, type.p, type.n);
	buf_add(&key, "", 1);
	buf_add(&key, unit.p, unit.n);
	if ((id = cache_get(im, C_METRIC, key.p, key.n)) == 0)
		id = cache_put(im, C_METRIC, key.p, key.n, store_metric(
		    im->store, type.p, type.n, unit.p, unit.n, err));
	buf_free(&key);
	if (id < 0)
		return -1;
	im->metrics = xreallocarray(im->metrics, im->nmetrics + 1,
	    sizeof *im->metrics);
	im->totals = xreallocarray(im->totals, im->nmetrics + 1,
	    sizeof *im->totals);
	im->metrics[im->nmetrics].id = id;
	im->metrics[im->nmetrics].type = xmstrdup(type);
	im->metrics[im->nmetrics].unit = xmstrdup(unit);
	im->totals[im->nmetrics] = 0;
	if (im->samples != NULL)
		store_samples_metric(im->samples, im->nmetrics, id);
	im->nmetrics++;
	return 0;
}

static int64_t
sink_mapping(void *ctx, const struct model_mapping *m, struct error *err)
{
	struct importer *im = ctx;
	int64_t key[6], id;

	if ((key[3] = intern_string(im, m->file, err)) < 0 ||
	    (key[4] = intern_string(im, m->build_id, err)) < 0)
		return -1;
	key[0] = (int64_t)m->start;
	key[1] = (int64_t)m->limit;
	key[2] = (int64_t)m->offset;
	key[5] = m->flags;
	if ((id = cache_get(im, C_MAPPING, key, sizeof key)) != 0)
		return id;
	return cache_put(im, C_MAPPING, key, sizeof key, store_mapping(
	    im->store, m->start, m->limit, m->offset, key[3], key[4],
	    m->flags, err));
}

static int64_t
sink_function(void *ctx, const struct model_function *f, struct error *err)
{
	struct importer *im = ctx;
	int64_t key[4], id;

	if ((key[0] = intern_string(im, f->name, err)) < 0 ||
	    (key[1] = intern_string(im, f->system_name, err)) < 0 ||
	    (key[2] = intern_string(im, f->file, err)) < 0)
		return -1;
	key[3] = f->start_line;
	if ((id = cache_get(im, C_FUNCTION, key, sizeof key)) != 0)
		return id;
	return cache_put(im, C_FUNCTION, key, sizeof key, store_function(
	    im->store, key[0], key[1], key[2], key[3], err));
}

static int64_t
sink_frame(void *ctx, const struct model_frame *fr, struct error *err)
{
	struct importer *im = ctx;
	int64_t key[6], id;

	key[0] = fr->function;
	key[1] = fr->mapping;
	key[2] = (int64_t)fr->address;
	key[3] = fr->line;
	key[4] = fr->column;
	key[5] = fr->flags;
	if ((id = cache_get(im, C_FRAME, key, sizeof key)) != 0)
		return id;
	return cache_put(im, C_FRAME, key, sizeof key, store_frame(im->store,
	    fr->function, fr->mapping, fr->address, fr->line, fr->column,
	    fr->flags, err));
}

static int64_t
sink_stack(void *ctx, const int64_t *frames, size_t n, struct error *err)
{
	struct importer *im = ctx;
	int64_t parent = 0, key[2], id;
	size_t i, depth = 0;

	if (n > im->limits->max_stack_depth)
		return error_set(err, ERR_TOO_LARGE, "a stack has %zu frames "
		    "(limit %u)", n, im->limits->max_stack_depth);
	/* A whole stack seen before costs one lookup, not one per frame. */
	if (n > 1 && (id = cache_get(im, C_STACK, frames,
	    n * sizeof *frames)) != 0)
		return id;
	/* frames are leaf first; the prefix tree grows from the root. */
	for (i = n; i-- > 0; depth++) {
		key[0] = parent;
		key[1] = frames[i];
		if ((id = cache_get(im, C_CALLSITE, key, sizeof key)) == 0)
			id = cache_put(im, C_CALLSITE, key, sizeof key,
			    store_callsite(im->store, parent, frames[i],
			    (int64_t)depth, err));
		if (id < 0)
			return -1;
		parent = id;
	}
	if (n > 1)
		cache_put(im, C_STACK, frames, n * sizeof *frames, parent);
	return parent;
}

static int
label_cmp(const void *a, const void *b)
{
	const struct model_label *x = a, *y = b;
	size_t n = x->key.n < y->key.n ? x->key.n : y->key.n;
	int c = n ? memcmp(x->key.p, y->key.p, n) : 0;

	if (c != 0)
		return c;
	if (x->key.n != y->key.n)
		return x->key.n < y->key.n ? -1 : 1;
	if (x->is_num != y->is_num)
		return x->is_num - y->is_num;
	if (x->is_num)
		return x->num < y->num ? -1 : x->num > y->num;
	n = x->str.n < y->str.n ? x->str.n : y->str.n;
	c = n ? memcmp(x->str.p, y->str.p, n) : 0;
	if (c != 0)
		return c;
	return x->str.n < y->str.n ? -1 : x->str.n > y->str.n;
}

/* The same labels in the same order, strings at the same addresses of
 * this import's input (so the same bytes). */
static int
labels_same(const struct model_label *a, const struct model_label *b,
    size_t n, size_t nb)
{
	size_t i;

	if (n != nb)
		return 0;
	for (i = 0; i < n; i++)
		if (a[i].is_num != b[i].is_num ||
		    a[i].key.p != b[i].key.p || a[i].key.n != b[i].key.n ||
		    (a[i].is_num ? a[i].num != b[i].num ||
		    a[i].num_unit.p != b[i].num_unit.p ||
		    a[i].num_unit.n != b[i].num_unit.n :
		    a[i].str.p != b[i].str.p || a[i].str.n != b[i].str.n))
			return 0;
	return 1;
}

static void
canon_add(struct buf *b, struct mstr s)
{
	uint32_t n = (uint32_t)s.n;

	buf_add(b, &n, sizeof n);
	buf_add(b, s.p, s.n);
}

static int64_t
sink_labelset(void *ctx, const struct model_label *labels, size_t n,
    struct error *err)
{
	struct importer *im = ctx;
	struct model_label *sorted;
	struct buf canon = { 0 };
	int64_t id = 0, key_id, str_id, unit_id;
	size_t i;
	int created;

	if (n == 0)
		return 0;
	if (im->last_labelset > 0 && labels_same(labels, im->last_labels, n,
	    im->nlast_labels))
		return im->last_labelset;
	sorted = xreallocarray(NULL, n, sizeof *sorted);
	memcpy(sorted, labels, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, label_cmp);
	for (i = 0; i < n; i++) {
		canon_add(&canon, sorted[i].key);
		buf_add(&canon, sorted[i].is_num ? "n" : "s", 1);
		if (sorted[i].is_num) {
			buf_add(&canon, &sorted[i].num, sizeof sorted[i].num);
			canon_add(&canon, sorted[i].num_unit);
		} else
			canon_add(&canon, sorted[i].str);
	}
	if ((id = cache_get(im, C_LABELSET, canon.p, canon.n)) != 0)
		goto out;
	if ((id = store_labelset(im->store, canon.p, canon.n, &created,
	    err)) < 0)
		goto out;
	for (i = 0; created && i < n; i++) {
		str_id = unit_id = 0;
		if ((key_id = intern_string(im, sorted[i].key, err)) < 0 ||
		    (!sorted[i].is_num &&
		    (str_id = intern_string(im, sorted[i].str, err)) < 0) ||
		    (sorted[i].is_num && sorted[i].num_unit.n > 0 &&
		    (unit_id = intern_string(im, sorted[i].num_unit, err)) < 0) ||
		    store_label_add(im->store, id, key_id, str_id,
		    sorted[i].is_num, sorted[i].num, unit_id, err) == -1) {
			id = -1;
			goto out;
		}
	}
	cache_put(im, C_LABELSET, canon.p, canon.n, id);
out:
	if (id > 0) {
		if (n > im->last_labels_cap) {
			im->last_labels = xreallocarray(im->last_labels, n,
			    sizeof *im->last_labels);
			im->last_labels_cap = n;
		}
		memcpy(im->last_labels, labels, n * sizeof *labels);
		im->nlast_labels = n;
		im->last_labelset = id;
	}
	buf_free(&canon);
	free(sorted);
	return id;
}

/* The start of the bucket of a time, in seconds (as "t / 1e9 / size *
 * size" in C, so negative times round toward zero); the last bucket is
 * kept with the range of times it covers, since samples come in time
 * order. */
static int64_t
bucket_of(struct importer *im, int64_t t)
{
	int64_t b;

	if (t >= im->bt_lo && t < im->bt_hi)
		return im->bt_bucket;
	b = t / 1000000000 / im->bucket_s * im->bucket_s;
	if (t >= 0 && b < (INT64_MAX / 1000000000) - im->bucket_s) {
		im->bt_lo = b * 1000000000;
		im->bt_hi = (b + im->bucket_s) * 1000000000;
		im->bt_bucket = b;
	}
	return b;
}

static int
sink_sample(void *ctx, const struct model_sample *s, struct error *err)
{
	struct importer *im = ctx;
	size_t i;

	if (s->nvalues > im->nmetrics)
		return error_set(err, ERR_INPUT, "a sample has %zu values for "
		    "%zu sample types", s->nvalues, im->nmetrics);
	for (i = 0; i < s->nvalues; i++)
		im->totals[i] += s->values[i] < 0 ? -s->values[i] :
		    s->values[i];
	return store_samples_add(im->samples, s->stack, s->labelset,
	    s->time_ns ? bucket_of(im, s->time_ns) : STORE_UNTIMED,
	    s->values, s->nvalues, err);
}

static int
sink_meta(void *ctx, const struct model_meta *m, struct error *err)
{
	struct importer *im = ctx;
	size_t i;

	im->meta = *m;
	im->have_meta = 1;
	im->comments = xcalloc(m->ncomments ? m->ncomments : 1,
	    sizeof *im->comments);
	for (i = 0; i < m->ncomments; i++)
		im->comments[i] = xmstrdup(m->comments[i]);
	im->ncomments = m->ncomments;
	im->meta.comments = NULL;
	im->counts = xcalloc(m->ncounts ? m->ncounts : 1, sizeof *im->counts);
	for (i = 0; i < m->ncounts; i++) {
		im->counts[i].name = xstrdup(m->counts[i].name);
		im->counts[i].n = m->counts[i].n;
	}
	im->ncounts = m->ncounts;
	im->meta.counts = NULL;
	im->doc_url = xmstrdup(m->doc_url);
	im->period_type = xmstrdup(m->period_type);
	im->period_unit = xmstrdup(m->period_unit);
	return 0;
}

static const struct sink import_sink = {
	NULL, sink_metric, sink_mapping, sink_function, sink_frame,
	sink_stack, sink_labelset, sink_sample, sink_meta,
};

/* Writes everything the decoder handed over besides interned rows. */
static int
importer_finish(struct importer *im, const struct import_request *req,
    int64_t imported_ns, struct error *err)
{
	struct store_profile_meta pm;
	int64_t time_ns;
	size_t i;

	if (!im->have_meta)
		return error_set(err, ERR_INTERNAL, "decoder gave no meta");
	memset(&pm, 0, sizeof pm);
	time_ns = im->meta.time_ns ? im->meta.time_ns : imported_ns;
	pm.time_ns = time_ns;
	pm.duration_ns = im->meta.duration_ns;
	pm.period = im->meta.period;
	pm.doc_url = im->doc_url;
	pm.samples = (int64_t)im->meta.samples;
	pm.dropped_samples = (int64_t)im->meta.dropped_samples;
	if (im->meta.default_metric >= 0 &&
	    (size_t)im->meta.default_metric < im->nmetrics)
		pm.default_metric_id = im->metrics[im->meta.default_metric].id;
	else if (im->nmetrics > 0)
		pm.default_metric_id = im->metrics[im->nmetrics - 1].id;
	if (im->period_type[0] != '\0' || im->period_unit[0] != '\0') {
		pm.period_metric_id = store_metric(im->store, im->period_type,
		    strlen(im->period_type), im->period_unit,
		    strlen(im->period_unit), err);
		if (pm.period_metric_id < 0)
			return -1;
	}
	if (store_profile_finish(im->store, im->profile_id, &pm, err) == -1)
		return -1;
	for (i = 0; i < im->nmetrics; i++)
		if (store_profile_metric_add(im->store, im->profile_id, (int)i,
		    im->metrics[i].id, im->totals[i], err) == -1)
			return -1;
	for (i = 0; i < im->ncomments; i++)
		if (store_profile_comment_add(im->store, im->profile_id, (int)i,
		    im->comments[i], strlen(im->comments[i]), err) == -1)
			return -1;
	for (i = 0; i < req->nlabels; i++)
		if (store_profile_label_add(im->store, im->profile_id,
		    req->labels[i].key, req->labels[i].value, err) == -1)
			return -1;
	for (i = 0; i < im->ncounts; i++)
		if (im->counts[i].n > 0 && store_profile_count_add(im->store,
		    im->profile_id, im->counts[i].name,
		    im->counts[i].n > INT64_MAX ? INT64_MAX :
		    (int64_t)im->counts[i].n, err) == -1)
			return -1;
	/* The bucket of the samples without a time of their own. */
	return store_samples_finish(im->samples,
	    time_ns / 1000000000 / im->bucket_s * im->bucket_s, err);
}

/* Fills the reply of a duplicate push from the stored profile. */
static int
importer_duplicate(struct importer *im, int64_t id, struct import_result *res,
    struct error *err)
{
	struct store_profile_info info;
	size_t i;

	if (store_profile_get(im->store, id, &info, err) == -1)
		return -1;
	res->profile_id = id;
	res->duplicate = 1;
	snprintf(res->format, sizeof res->format, "%s", info.format);
	res->samples = info.samples;
	res->dropped_samples = info.dropped_samples;
	res->metrics = info.metrics;
	res->nmetrics = info.nmetrics;
	info.metrics = NULL;
	info.nmetrics = 0;
	/* The same counts as the first push's reply. */
	res->counts = xcalloc(info.ncounts ? info.ncounts : 1,
	    sizeof *res->counts);
	for (i = 0; i < info.ncounts; i++) {
		res->counts[i].name = info.counts[i].name;
		res->counts[i].n = (uint64_t)info.counts[i].n;
		info.counts[i].name = NULL;
	}
	res->ncounts = info.ncounts;
	store_profile_info_clear(&info);
	return 0;
}

/* A stream source that hashes the raw bytes as the decoder pulls them, for
 * inputs read once from a file. */
struct hashsrc {
	struct stream *in;
	struct sha256 sh;
	uint64_t bytes;
	const atomic_int *stop;
};

static ssize_t
hashsrc_read(void *ctx, uint8_t *buf, size_t n, struct error *err)
{
	struct hashsrc *h = ctx;
	const uint8_t *p;
	size_t got;

	/* A long import from a file gives way to SIGTERM: rolled back. */
	if (h->stop != NULL && atomic_load(h->stop))
		return error_set(err, ERR_BUSY, "profd is stopping: the import "
		    "was rolled back after %llu bytes",
		    (unsigned long long)h->bytes);
	if (stream_peek(h->in, n, &p, &got, err) == -1)
		return -1;
	memcpy(buf, p, got);
	sha256_update(&h->sh, p, got);
	h->bytes += got;
	if (stream_take(h->in, got, &p, "input", err) == -1)
		return -1;
	return (ssize_t)got;
}

/* Pull what the decoder left unread so the hash covers every byte. */
static int
hashsrc_finish(struct hashsrc *h, struct stream *raw, uint8_t hash[32],
    struct error *err)
{
	const uint8_t *p;
	size_t got;

	do {
		if (stream_some(raw, &p, &got, err) == -1 ||
		    stream_take(raw, got, &p, "input", err) == -1)
			return -1;
	} while (got > 0);
	sha256_final(&h->sh, hash);
	return 0;
}

int
importer_run(struct importer *im, const struct import_request *req,
    struct import_result *res, struct error *err)
{
	struct sink sink = import_sink;
	struct limits lim = *im->limits;
	struct sha256 sh;
	struct store_profile_row row;
	const struct format *fmt = NULL;
	struct stream *in = NULL, *raw = NULL;
	struct hashsrc *hs = NULL;
	uint8_t hash[32];
	int64_t scope_id, dup;
	size_t i;

	memset(res, 0, sizeof *res);
	lim.no_quote = req->no_quote;
	/* Imports take what CPU the event loop and the queries leave: on
	 * Linux the nice value is the calling thread's. */
	if (!im->niced) {
		setpriority(PRIO_PROCESS, 0, IMPORT_NICE);
		im->niced = 1;
	}
	if (req->fd < 0 && req->len > im->limits->max_body)
		return error_set(err, ERR_TOO_LARGE, "the profile is %zu bytes "
		    "(limit %zu)", req->len, im->limits->max_body);
	if (store_begin_import(im->store, err) == -1)
		return -1;
	if ((scope_id = store_scope(im->store, req->scope, 1, err)) < 0)
		goto fail;
	if (req->fd < 0) {
		/* In memory: hash first, and a duplicate costs no decode. */
		struct iovec one = { (void *)(uintptr_t)req->data, req->len };
		const struct iovec *iov = req->niov > 0 ? req->iov : &one;
		size_t niov = req->niov > 0 ? req->niov : 1;

		sha256_init(&sh);
		for (i = 0; i < niov; i++)
			sha256_update(&sh, iov[i].iov_base, iov[i].iov_len);
		sha256_final(&sh, hash);
		if ((dup = store_profile_find(im->store, scope_id, hash,
		    err)) < 0)
			goto fail;
		if (dup > 0) {
			store_rollback(im->store);
			return importer_duplicate(im, dup, res, err);
		}
		in = stream_iov(iov, niov);
	} else {
		/* A file is read once: hashed as it is decoded, checked for
		 * a duplicate before the commit.  Until then the row holds
		 * a placeholder no real hash equals (the profile id). */
		struct stream_source src = { hashsrc_read, NULL, NULL };

		hs = xcalloc(1, sizeof *hs);
		raw = stream_fd(req->fd, 0);
		hs->in = raw;
		hs->stop = im->stop;
		sha256_init(&hs->sh);
		src.ctx = hs;
		in = stream_new(&src);
		memset(hash, 0, sizeof hash);
		memcpy(hash, "pending", 7);
	}
	if (format_open(&in, req->format, &lim, &fmt, err) == -1)
		goto fail;
	memset(&row, 0, sizeof row);
	row.scope_id = scope_id;
	row.format = fmt->name;
	row.name = req->name ? req->name : "";
	row.hash = hash;
	row.bytes = (int64_t)req->len;
	row.imported_ns = now_ns();
	if ((im->profile_id = store_profile_insert(im->store, &row, err)) < 0)
		goto fail;
	im->samples = store_samples_begin(im->store, im->profile_id, scope_id);
	sink.ctx = im;
	im->bucket_s = req->opts.bucket_ns >= 1000000000 ?
	    req->opts.bucket_ns / 1000000000 : 1;
	if (fmt->decode(in, &req->opts, &lim, &sink, err) == -1 ||
	    importer_finish(im, req, row.imported_ns, err) == -1)
		goto fail;
	if (hs != NULL) {
		if (hashsrc_finish(hs, raw, hash, err) == -1 ||
		    (dup = store_profile_find(im->store, scope_id, hash,
		    err)) < 0)
			goto fail;
		if (dup > 0) {
			/* The rows this decode interned are rolled back. */
			store_rollback(im->store);
			importer_caches_clear(im);
			importer_reset(im);
			stream_free(in);
			stream_free(raw);
			free(hs);
			return importer_duplicate(im, dup, res, err);
		}
		if (store_profile_set_hash(im->store, im->profile_id, hash,
		    (int64_t)hs->bytes, err) == -1)
			goto fail;
	}
	if (store_commit(im->store, err) == -1)
		goto fail;

	res->profile_id = im->profile_id;
	snprintf(res->format, sizeof res->format, "%s", fmt->name);
	res->samples = (int64_t)im->meta.samples;
	res->dropped_samples = (int64_t)im->meta.dropped_samples;
	res->counts = im->counts;
	res->ncounts = im->ncounts;
	im->counts = NULL;
	im->ncounts = 0;
	res->metrics = im->metrics;
	res->nmetrics = im->nmetrics;
	im->metrics = NULL;
	im->nmetrics = 0;
	importer_reset(im);
	if (importer_cache_bytes(im) > IMPORT_CACHE_MAX)
		importer_caches_clear(im);
	stream_free(in);
	stream_free(raw);
	free(hs);
	return 0;
fail:
	store_rollback(im->store);
	/* The caches may name rows the rollback removed. */
	importer_caches_clear(im);
	importer_reset(im);
	stream_free(in);
	stream_free(raw);
	free(hs);
	return -1;
}

void
import_result_clear(struct import_result *res)
{
	size_t i;

	for (i = 0; i < res->nmetrics; i++)
		store_metric_clear(&res->metrics[i]);
	free(res->metrics);
	for (i = 0; i < res->ncounts; i++)
		free(res->counts[i].name);
	free(res->counts);
	memset(res, 0, sizeof *res);
}

void
import_result_dropped(const struct import_result *res, char *buf,
    size_t size)
{
	size_t i, n;

	if (size == 0)
		return;
	buf[0] = '\0';
	if (res->ncounts == 0)
		return;
	snprintf(buf, size, "%lld dropped;", (long long)res->dropped_samples);
	for (i = 0; i < res->ncounts; i++) {
		n = strlen(buf);
		if (n + 1 >= size)
			break;
		snprintf(buf + n, size - n, " %s=%llu", res->counts[i].name,
		    (unsigned long long)res->counts[i].n);
	}
}
