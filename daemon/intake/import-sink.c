/* import-sink.c: the decoders' sink on top of the store.
 *
 * Strings, metrics, mappings, functions, frames, callsites and label sets
 * are interned through caches (key bytes -> store id) that live as long as
 * the importer, so the thousandth profile of a service only looks up what
 * it shares with the others.  Sample values go to the store's batched
 * writer (store_samples_*), which merges them by (stack, label set, time
 * bucket) in memory. */
#include <stdlib.h>
#include <string.h>

#include "import-int.h"
#include "util.h"

/* Cache insertions between two checks of IMPORT_CACHE_MAX. */
#define IMPORT_CACHE_CHECK	4096

void
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

const struct sink import_sink = {
	NULL, sink_metric, sink_mapping, sink_function, sink_frame,
	sink_stack, sink_labelset, sink_sample, sink_meta,
};
