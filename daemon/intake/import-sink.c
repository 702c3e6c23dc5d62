/* import-sink.c: the decoders' sink on top of the store.
 *
 * Strings, metrics, mappings, functions, frames, callsites and label sets
 * are interned through caches (key bytes -> store id) that live as long
 * as the importer, so the thousandth profile of a service only looks up
 * what it shares with the others; callsites by the store itself, in
 * memory (store-cs.c).
 * Each lookup is one probe that leaves the place to insert on a miss
 * (bmap, imap: docs/DESIGN-STORAGE.md "The importer").  Sample values go
 * to the store's batched writer (store_samples_*), which merges them by
 * (stack, label set, time bucket) in memory.  A push that keeps only
 * some metrics (keep=) has the others dropped here, before the store
 * sees a column of them. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "buf.h"
#include "import-int.h"
#include "mstr.h"
#include "nitems.h"

void
importer_caches_clear(struct importer *im)
{
	int i;

	for (i = 0; i < C_COUNT; i++)
		bmap_clear(&im->cache[i]);
	im->stuck = 0;
	im->npath = 0;
	im->path_made = SIZE_MAX;
	im->path_told = SIZE_MAX;
}

/* Full caches are kept while they serve (the same stacks pushed again,
 * a series): emptied when the import found less in them than it could
 * not put there (stacks drifting away from what they hold). */
void
importer_caches_end(struct importer *im)
{
	if (im->stuck != 0 && im->refused > im->hits)
		importer_caches_clear(im);
	im->hits = im->refused = 0;
	im->stack_looks = im->stack_hits = 0;
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
		n += bmap_bytes(&im->cache[i]);
	return n;
}

/* May cache c take more bytes?  Asked only when a map is about to double
 * or its arena to grow, and no more once it said no, so the sum is rarely
 * computed. */
static int
cache_room(struct importer *im, enum cache c, size_t more)
{
	size_t max = c == C_STACK ? IMPORT_CACHE_MAX / 2 : IMPORT_CACHE_MAX;

	if (!(im->stuck & 1u << c) && importer_cache_bytes(im) + more <= max)
		return 1;
	im->stuck |= 1u << c;
	return 0;
}

/* The one probe of a lookup that inserts on a miss: pos.value is the id
 * found, else bmap_fill(pos) stores the new one. */
static struct bmap_pos
cache_find(struct importer *im, enum cache c, const void *key, size_t len)
{
	struct bmap *m = &im->cache[c];
	struct bmap_pos pos;
	int grow = (m->n + 1) * 4 <= m->cap * 3 ||
	    cache_room(im, c, (m->cap ? m->cap : 64) * sizeof *m->slots);

	pos = bmap_find(m, key, len, grow);
	if (pos.value != 0)
		im->hits++;
	else if (pos.slot == NULL) {
		/* Full at its bound: emptied where it is (no memory given
		 * back and faulted in again), and refilled from here.  Not
		 * whole stacks: they recur across imports, not within one,
		 * so those it holds are kept for the next. */
		im->refused++;
		if (c == C_STACK)
			return pos;
		bmap_reset(m);
		pos = bmap_find(m, key, len, 0);
	}
	return pos;
}

static int64_t
cache_fill(struct importer *im, enum cache c, struct bmap_pos pos,
    const void *key, size_t len, int64_t id)
{
	struct bmap *m = &im->cache[c];

	if (id <= 0)
		return id;
	if (pos.slot != NULL && m->used + len + 16 > m->arenacap &&
	    !cache_room(im, c, m->arenacap ? m->arenacap : 4096)) {
		im->refused++;
		if (c == C_STACK)
			return id;
		bmap_reset(m);
		pos = bmap_find(m, key, len, 0);
	}
	bmap_fill(m, pos, key, len, id);
	return id;
}

/* Keys are packed as varints: ids are small, and a smaller arena is
 * fewer misses. */
static size_t
key_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static size_t
key_puts(uint8_t *p, int64_t v)
{
	return key_put(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static int64_t
intern_string(struct importer *im, struct mstr s, struct error *err)
{
	struct bmap_pos pos = cache_find(im, C_STRING, s.p, s.n);

	if (pos.value != 0)
		return pos.value;
	return cache_fill(im, C_STRING, pos, s.p, s.n, store_string(im->store,
	    s.p, s.n, err));
}

/* The callsite of frame under parent: the store interns callsites in
 * memory (store-cs.c), so no cache here. */
static int64_t
intern_callsite(struct importer *im, int64_t parent, int64_t frame,
    size_t depth, struct error *err)
{
	return store_callsite(im->store, parent, frame, (int64_t)depth, err);
}

void
importer_keep_begin(struct importer *im, const struct import_request *req)
{
	im->keep = req->keep;
	im->nkeep = req->nkeep;
	im->ndecoded = 0;
}

void
importer_keep_free(struct importer *im)
{
	free(im->keep_at);
	free(im->kept);
	im->keep_at = NULL;
	im->kept = NULL;
	im->keep_cap = im->kept_cap = 0;
}

/* Is the decoder's next metric stored?  Noted in keep_at when the
 * request keeps only some. */
static int
keep_metric(struct importer *im, struct mstr type, struct mstr unit)
{
	const struct import_metric *k;
	size_t i;
	int kept = im->nkeep == 0;

	for (i = 0; !kept && i < im->nkeep; i++) {
		k = &im->keep[i];
		kept = mstr_eqs(type, k->type) &&
		    (k->unit == NULL || mstr_eqs(unit, k->unit));
	}
	if (im->nkeep > 0) {
		if (im->ndecoded == im->keep_cap) {
			im->keep_cap = im->keep_cap ? im->keep_cap * 2 : 8;
			im->keep_at = xreallocarray(im->keep_at,
			    im->keep_cap, sizeof *im->keep_at);
		}
		im->keep_at[im->ndecoded] = kept ? im->nmetrics : SIZE_MAX;
	}
	im->ndecoded++;
	return kept;
}

/* A sample's values as the kept metrics number them, into im->kept:
 * their count. */
static size_t
keep_values(struct importer *im, const int64_t *v, size_t n)
{
	size_t i, m = 0;

	if (im->nmetrics > im->kept_cap) {
		im->kept_cap = im->nmetrics;
		im->kept = xreallocarray(im->kept, im->kept_cap,
		    sizeof *im->kept);
	}
	memset(im->kept, 0, im->nmetrics * sizeof *im->kept);
	for (i = 0; i < n; i++)
		if (im->keep_at[i] != SIZE_MAX) {
			im->kept[im->keep_at[i]] = v[i];
			if (im->keep_at[i] + 1 > m)
				m = im->keep_at[i] + 1;
		}
	return m;
}

static int
sink_metric(void *ctx, struct mstr type, struct mstr unit, struct error *err)
{
	struct importer *im = ctx;
	struct buf key = { 0 };
	struct bmap_pos pos;
	int64_t id;

	if (type.n == 0)
		return error_set(err, ERR_INPUT, "a sample type has no name");
	if (!keep_metric(im, type, unit))
		return 0;
	buf_add(&key, type.p, type.n);
	buf_add(&key, "", 1);
	buf_add(&key, unit.p, unit.n);
	pos = cache_find(im, C_METRIC, key.p, key.n);
	if ((id = pos.value) == 0)
		id = cache_fill(im, C_METRIC, pos, key.p, key.n, store_metric(
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
	struct bmap_pos pos;
	uint8_t key[60];
	int64_t file, build_id;
	size_t n = 0;

	if ((file = intern_string(im, m->file, err)) < 0 ||
	    (build_id = intern_string(im, m->build_id, err)) < 0)
		return -1;
	n += key_put(key + n, m->start);
	n += key_put(key + n, m->limit);
	n += key_put(key + n, m->offset);
	n += key_puts(key + n, file);
	n += key_puts(key + n, build_id);
	n += key_put(key + n, m->flags);
	if ((pos = cache_find(im, C_MAPPING, key, n)).value != 0)
		return pos.value;
	return cache_fill(im, C_MAPPING, pos, key, n, store_mapping(
	    im->store, m->start, m->limit, m->offset, file, build_id,
	    m->flags, err));
}

static int64_t
sink_function(void *ctx, const struct model_function *f, struct error *err)
{
	struct importer *im = ctx;
	struct bmap_pos pos;
	uint8_t key[40];
	int64_t name, sys, file;
	size_t n = 0;

	if ((name = intern_string(im, f->name, err)) < 0 ||
	    (sys = intern_string(im, f->system_name, err)) < 0 ||
	    (file = intern_string(im, f->file, err)) < 0)
		return -1;
	n += key_puts(key + n, name);
	n += key_puts(key + n, sys);
	n += key_puts(key + n, file);
	n += key_puts(key + n, f->start_line);
	if ((pos = cache_find(im, C_FUNCTION, key, n)).value != 0)
		return pos.value;
	return cache_fill(im, C_FUNCTION, pos, key, n, store_function(
	    im->store, name, sys, file, f->start_line, err));
}

static int64_t
sink_frame(void *ctx, const struct model_frame *fr, struct error *err)
{
	struct importer *im = ctx;
	struct bmap_pos pos;
	uint8_t key[60];
	size_t n = 0;

	n += key_puts(key + n, fr->function);
	n += key_puts(key + n, fr->mapping);
	n += key_put(key + n, fr->address);
	n += key_puts(key + n, fr->line);
	n += key_puts(key + n, fr->column);
	n += key_put(key + n, fr->flags);
	if ((pos = cache_find(im, C_FRAME, key, n)).value != 0)
		return pos.value;
	return cache_fill(im, C_FRAME, pos, key, n, store_frame(im->store,
	    fr->function, fr->mapping, fr->address, fr->line, fr->column,
	    fr->flags, err));
}

/* Whole-stack lookups of an import before the cache may be found
 * useless for it. */
#define STACK_LOOKS_MIN		16384

/* Past the shutdown timeout an import gives up; the flag is read once
 * every 4096 stacks and samples, off the per-sample path. */
static int
sink_aborted(struct importer *im, struct error *err)
{
	if ((++im->polls & 4095) != 0 || im->abort == NULL ||
	    !atomic_load(im->abort))
		return 0;
	return error_set(err, ERR_BUSY, "profd is stopping: the import was "
	    "cut short and rolled back");
}

/* The first lookup of the stack to come (its outer keep frames shared
 * with this one's path, then frame): fetched now, so that its cache
 * miss overlaps this stack's work.  Asked by the caller when that
 * lookup will be made: the parent known (on the path) and not made by
 * this stack (then there is no lookup). */
static void
ahead(struct importer *im, size_t keep, int64_t frame)
{
	if (keep <= im->npath)
		store_callsite_prefetch(im->store, keep > 0 ?
		    im->path_id[keep - 1] : 0, frame);
}

static int64_t
sink_stack_ahead(void *ctx, const int64_t *frames, size_t n,
    size_t next_keep, int64_t next_frame, struct error *err)
{
	struct importer *im = ctx;
	struct bmap_pos pos = { NULL, 0, 0 };
	int64_t parent = 0, mark;
	size_t i, k = 0, depth = 0, first;
	int ask = 1;			/* the stack cache is asked */
	int made;			/* parent made by the last stack */

	if (sink_aborted(im, err) == -1)
		return -1;
	if (n > im->limits->max_stack_depth)
		return error_set(err, ERR_TOO_LARGE, "a stack has %zu frames "
		    "(limit %u)", n, im->limits->max_stack_depth);
	/* A whole stack seen before costs one lookup, not one per frame.
	 * Not looked up (nor added) once fewer than 1 in 4 of this
	 * import's many were found (a large profile of new stacks, which
	 * fill the cache with stacks not seen again): a miss is a key made
	 * and a cache miss or two, and a hit saves a walk from the last
	 * stack that costs about as much as three of them (the 40 MB heap
	 * profile of bench/ found 1 in 16 over its first 505,000 stacks:
	 * 8.6 % of the import thread for 2 %); counted as refused, as it
	 * was when looked up. */
	if (n > 1 && im->stack_looks >= STACK_LOOKS_MIN &&
	    im->stack_hits * 4 < im->stack_looks) {
		im->refused++;
		ask = 0;
	}
	if (ask && n > 1) {
		im->stack_looks++;
		if (n * 10 > im->stack_keycap) {
			im->stack_keycap = n * 10;
			im->stack_key = xrealloc(im->stack_key,
			    im->stack_keycap);
		}
		for (i = 0; i < n; i++)
			k += key_puts(im->stack_key + k, frames[i]);
		if ((pos = cache_find(im, C_STACK, im->stack_key,
		    k)).value != 0) {
			im->stack_hits++;
			/* The path is not this stack: what the next one
			 * shares with this one says nothing of it. */
			im->path_told = SIZE_MAX;
			return pos.value;
		}
	}
	/* frames are leaf first; the prefix tree grows from the root.  The
	 * part shared with the last stack is known (samples in a row mostly
	 * share their outer frames). */
	if (n > im->path_cap) {
		im->path_cap = n;
		im->path_frame = xreallocarray(im->path_frame, n,
		    sizeof *im->path_frame);
		im->path_id = xreallocarray(im->path_id, n,
		    sizeof *im->path_id);
	}
	/* What the last stack's caller said this one shares with it
	 * (stack_ahead) is not compared again. */
	if (im->path_told != SIZE_MAX && im->path_told <= n &&
	    im->path_told <= im->npath && (depth = im->path_told) > 0)
		parent = im->path_id[depth - 1];
	for (; depth < n && depth < im->npath &&
	    im->path_frame[depth] == frames[n - 1 - depth]; depth++)
		parent = im->path_id[depth];
	/* Below the part shared, a callsite that the last stack made has
	 * one child, on that stack's path: this frame is none of its
	 * children, and is made without a lookup (in a large profile of
	 * new stacks, most of a stack's lookups were such misses). */
	first = depth;
	made = depth > 0 && depth - 1 >= im->path_made;
	im->npath = depth;
	if (next_keep <= depth)
		ahead(im, next_keep, next_frame);
	im->path_made = SIZE_MAX;
	mark = store_callsites_next(im->store);
	for (i = n - depth; i-- > 0; depth++) {
		if ((parent = made ? store_callsite_new(im->store, parent,
		    frames[i], (int64_t)depth, err) : intern_callsite(im,
		    parent, frames[i], depth, err)) < 0)
			return -1;
		if ((made = parent >= mark) && im->path_made == SIZE_MAX)
			im->path_made = depth;
		im->path_frame[depth] = frames[i];
		im->path_id[depth] = parent;
		im->npath = depth + 1;
	}
	if (next_keep != SIZE_MAX && next_keep > first && next_keep <= n &&
	    next_keep - 1 < im->path_made)
		ahead(im, next_keep, next_frame);
	im->path_told = next_keep;
	if (ask && n > 1)
		cache_fill(im, C_STACK, pos, im->stack_key, k, parent);
	return parent;
}

static int64_t
sink_stack(void *ctx, const int64_t *frames, size_t n, struct error *err)
{
	return sink_stack_ahead(ctx, frames, n, SIZE_MAX, 0, err);
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
	struct bmap_pos pos;
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
	if ((id = (pos = cache_find(im, C_LABELSET, canon.p,
	    canon.n)).value) != 0)
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
	cache_fill(im, C_LABELSET, pos, canon.p, canon.n, id);
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
	const int64_t *v = s->values;
	size_t i, n = s->nvalues;

	if (sink_aborted(im, err) == -1)
		return -1;
	if (n > im->ndecoded)
		return error_set(err, ERR_INPUT, "a sample has %zu values for "
		    "%zu sample types", n, im->ndecoded);
	if (im->nkeep > 0) {
		n = keep_values(im, v, n);
		v = im->kept;
	}
	for (i = 0; i < n; i++)
		im->totals[i] += v[i] < 0 ? -v[i] : v[i];
	if (im->nsampled == 0)
		activity_phase(im->progress, ACT_SAMPLES);
	activity_samples_done(im->progress, ++im->nsampled);
	return store_samples_add(im->samples, s->stack, s->labelset,
	    s->time_ns ? bucket_of(im, s->time_ns) : STORE_UNTIMED, v, n,
	    err);
}

/* The metrics a push keeps, for an error: "a, b/bytes" (NUL-ended). */
static void
keep_names(const struct importer *im, struct buf *b)
{
	const struct import_metric *k;
	size_t i;

	buf_add(b, "", 1);
	b->n = 0;
	for (i = 0; i < im->nkeep; i++) {
		k = &im->keep[i];
		buf_printf(b, "%s%s%s%s", i > 0 ? ", " : "", k->type,
		    k->unit != NULL ? "/" : "", k->unit != NULL ? k->unit : "");
	}
}

static int
sink_meta(void *ctx, const struct model_meta *m, struct error *err)
{
	struct importer *im = ctx;
	size_t i;

	im->meta = *m;
	if (im->nkeep > 0) {
		if (im->nmetrics == 0 && im->ndecoded > 0) {
			struct buf names = { 0 };

			keep_names(im, &names);
			error_set(err, ERR_INPUT, "the profile has none of "
			    "the metrics kept (%s) among its %zu",
			    (const char *)names.p, im->ndecoded);
			buf_free(&names);
			return -1;
		}
		/* Dropped: the stored profile's default is its last. */
		if (m->default_metric >= 0)
			im->meta.default_metric = (size_t)m->default_metric <
			    im->ndecoded && im->keep_at[m->default_metric] !=
			    SIZE_MAX ? (int)im->keep_at[m->default_metric] : -1;
	}
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

/* Room made at once for what the profile will intern, within the
 * bound, the most useful first: no doubling (each a rehash and twice
 * the memory touched) while the import runs. */
static void
sink_sizes(void *ctx, const struct model_sizes *sz)
{
	struct importer *im = ctx;
	struct {
		enum cache c;
		size_t n, keybytes;
	} want[] = {
		{ C_FUNCTION, sz->functions, 8 },
		{ C_FRAME, sz->frames, 12 },
		{ C_STRING, sz->strings, 24 },
		{ C_MAPPING, sz->mappings, 24 },
		{ C_STACK, sz->samples, 40 },
	};
	size_t i, n, cap, more;

	for (i = 0; i < NITEMS(want); i++) {
		if ((n = want[i].n) == 0)
			continue;
		for (cap = 64; n * 4 > cap * 3; cap *= 2)
			;
		more = cap > im->cache[want[i].c].cap ?
		    cap * sizeof(struct bmap_slot) : 0;
		more += n * (want[i].keybytes + 12);
		if (cache_room(im, want[i].c, more))
			bmap_reserve(&im->cache[want[i].c], n,
			    n * (want[i].keybytes + 12));
	}
	/* Only asked: a no here stops nothing. */
	im->stuck = 0;
	if (sz->samples > 0) {
		activity_samples_total(im->progress, (int64_t)sz->samples);
		/* A sample is mostly a stack of its own (pprof merges the
		 * rest): a new callsite each, at least, in a store without
		 * them, and a large profile of new stacks about two (the
		 * 40 MB heap profile of bench/: 2.24 M for 1.18 M samples):
		 * room for one and a half, so that the map is not built
		 * again mid-way.  At most 12-24 bytes of map a sample. */
		store_callsites_expect(im->store, sz->samples +
		    sz->samples / 2);
	}
	/* Untimed rows dated now go to the rollups as their blocks are
	 * made, not read back at the end. */
	if (sz->time_known && im->samples != NULL)
		store_samples_date(im->samples,
		    importer_bucket(im, importer_time(im, sz->time_ns)));
}

const struct sink import_sink = {
	NULL, sink_metric, sink_mapping, sink_function, sink_frame,
	sink_stack, sink_labelset, sink_sample, sink_meta, sink_sizes,
	sink_stack_ahead,
};
