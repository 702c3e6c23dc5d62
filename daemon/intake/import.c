/* import.c: one pushed blob into the store, in one transaction.
 *
 * The decoder feeds the sink (import-sink.c), which interns through the
 * importer's caches.  A failed import rolls back its transaction and drops
 * the caches, since they may name rows that no longer exist. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "clock.h"
#include "format.h"
#include "import-int.h"
#include "kind.h"
#include "log.h"
#include "sha256.h"
#include "sinkpipe.h"

/* The import thread's nice value (and its helpers'). */
#define IMPORT_NICE		5

/* Inputs of at least this many bytes (inflated, when the gzip says) are
 * decoded on a thread of their own (sinkpipe.c; importer_set_pipe_min
 * for the tests): a minute's CPU profile
 * imports in a few milliseconds, of which making and joining a thread
 * and handing the calls over would be a few per cent. */
#define IMPORT_PIPE_MIN		((uint64_t)256 << 10)

struct importer *
importer_new(struct store *store, const struct limits *limits)
{
	struct importer *im = xcalloc(1, sizeof *im);

	im->store = store;
	im->limits = limits;
	im->path_made = im->path_told = SIZE_MAX;
	im->pipe_min = IMPORT_PIPE_MIN;
	return im;
}

void
importer_set_pipe_min(struct importer *im, uint64_t bytes)
{
	im->pipe_min = bytes;
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
	im->progress = NULL;
	im->nsampled = 0;
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
importer_set_abort(struct importer *im, const atomic_int *abort)
{
	im->abort = abort;
}

void
importer_free(struct importer *im)
{
	if (im == NULL)
		return;
	importer_reset(im);
	importer_caches_clear(im);
	importer_keep_free(im);
	free(im->stack_key);
	free(im->path_frame);
	free(im->path_id);
	free(im->last_labels);
	free(im);
}

/* The kind of metric i: the push's, if it names the metric, else the
 * rule's (docs/TIME.md), from the profile's format and duration. */
static enum metric_kind
importer_kind(const struct importer *im, const struct import_request *req,
    const char *format, int64_t duration_ns, size_t i)
{
	const struct store_metric *m = &im->metrics[i];
	size_t k;

	for (k = req->nkinds; k-- > 0;)
		if (strcmp(req->kinds[k].type, m->type) == 0 &&
		    (req->kinds[k].unit == NULL ||
		    strcmp(req->kinds[k].unit, m->unit) == 0))
			return req->kinds[k].kind;
	return kind_infer(format, m->type, duration_ns);
}

/* How cumulative metric i counts over a window (docs/TIME.md): the
 * difference to the previous profile of its series; whole for the first
 * (the counter started with the process) and after a restart (the total
 * went down: the new process counted from zero); nothing for a profile
 * older than the series' newest, whose successor's difference covers its
 * interval.  Counted otherwise than whole, its values go under the raw
 * tag (store_samples_raw), unless blocks of it are written already, and
 * its differences, if any, under the metric. */
static int
importer_counted(struct importer *im, struct store_series_key *key,
    size_t i, struct error *err)
{
	struct store_metric *m = &im->metrics[i];
	struct store_series_prev prev;

	key->metric_id = m->id;
	if (store_series_prev(im->store, key, &prev, err) == -1)
		return -1;
	if (prev.newer)
		m->counted = COUNTED_NONE;
	else if (prev.id != 0 && im->totals[i] >= prev.total)
		m->counted = COUNTED_DIFFERENCE;
	if (m->counted != COUNTED_WHOLE &&
	    store_samples_raw(im->samples, m->id) == 1) {
		log_warn("import: %s of profile %lld is counted whole: its "
		    "values were written before its kind was known",
		    m->type, (long long)im->profile_id);
		m->counted = COUNTED_WHOLE;
	}
	if (m->counted == COUNTED_DIFFERENCE)
		return store_series_diff(im->store, im->samples, key, &prev,
		    err);
	return 0;
}

/* Writes everything the decoder handed over besides interned rows. */
static int
importer_finish(struct importer *im, const struct import_request *req,
    const char *format, int64_t scope_id, struct error *err)
{
	struct store_profile_meta pm;
	struct store_series_key key = { 0 };
	int64_t time_ns;
	size_t i;

	if (!im->have_meta)
		return error_set(err, ERR_INTERNAL, "decoder gave no meta");
	memset(&pm, 0, sizeof pm);
	time_ns = importer_time(im, im->meta.time_ns);
	pm.time_ns = time_ns;
	pm.duration_ns = im->meta.time_ns || im->meta.duration_ns ?
	    im->meta.duration_ns : req->duration_ns;
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
	for (i = 0; i < req->nlabels; i++)
		if (store_profile_label_add(im->store, im->profile_id,
		    req->labels[i].key, req->labels[i].value, err) == -1)
			return -1;
	/* The series the push labels make, before the metrics' counting. */
	if (store_series_set(im->store, im->profile_id, &key.series,
	    err) == -1)
		return -1;
	key.scope_id = scope_id;
	key.profile_id = im->profile_id;
	key.time_ns = time_ns;
	for (i = 0; i < im->nmetrics; i++) {
		im->metrics[i].kind = importer_kind(im, req, format,
		    pm.duration_ns, i);
		im->metrics[i].counted = COUNTED_WHOLE;
		if (im->metrics[i].kind == KIND_CUMULATIVE &&
		    importer_counted(im, &key, i, err) == -1)
			return -1;
		if (store_profile_metric_add(im->store, im->profile_id, (int)i,
		    im->metrics[i].id, im->totals[i], im->metrics[i].kind,
		    im->metrics[i].counted, err) == -1)
			return -1;
	}
	for (i = 0; i < im->ncomments; i++)
		if (store_profile_comment_add(im->store, im->profile_id, (int)i,
		    im->comments[i], strlen(im->comments[i]), err) == -1)
			return -1;
	for (i = 0; i < im->ncounts; i++)
		if (im->counts[i].n > 0 && store_profile_count_add(im->store,
		    im->profile_id, im->counts[i].name,
		    im->counts[i].n > INT64_MAX ? INT64_MAX :
		    (int64_t)im->counts[i].n, err) == -1)
			return -1;
	/* The bucket of the samples without a time of their own. */
	return store_samples_finish(im->samples, importer_bucket(im, time_ns),
	    err);
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
	const atomic_int *stop, *abort;
};

static ssize_t
hashsrc_read(void *ctx, uint8_t *buf, size_t n, struct error *err)
{
	struct hashsrc *h = ctx;
	const uint8_t *p;
	size_t got;

	/* A long import from a file gives way to SIGTERM: rolled back. */
	if ((h->stop != NULL && atomic_load(h->stop)) ||
	    (h->abort != NULL && atomic_load(h->abort)))
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

/* A stream source over a blob in memory that tells its owner when it was
 * read to the end: a pprof is inflated whole before it is decoded, and
 * the compressed body need not stay for the rest of the import. */
struct memsrc {
	struct stream *in;
	void (*read_all)(void *);
	void *arg;
	const atomic_int *abort;
};

static ssize_t
memsrc_read(void *ctx, uint8_t *buf, size_t n, struct error *err)
{
	struct memsrc *m = ctx;
	const uint8_t *p;
	size_t got;

	if (m->in == NULL)
		return 0;
	if (m->abort != NULL && atomic_load(m->abort))
		return error_set(err, ERR_BUSY, "profd is stopping: the import "
		    "was cut short and rolled back");
	if (stream_peek(m->in, n, &p, &got, err) == -1)
		return -1;
	memcpy(buf, p, got);
	if (stream_take(m->in, got, &p, "input", err) == -1)
		return -1;
	if (got == 0) {
		stream_free(m->in);
		m->in = NULL;
		m->read_all(m->arg);
	}
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

/* The last 4 bytes of a body in pieces (gzip's ISIZE: the inflated size
 * modulo 2^32, little-endian), or 0. */
static uint64_t
iov_isize(const struct iovec *iov, size_t niov)
{
	uint8_t t[4];
	size_t i, k = 4, n;

	for (i = niov; i-- > 0 && k > 0;) {
		n = iov[i].iov_len < k ? iov[i].iov_len : k;
		memcpy(t + k - n, (const uint8_t *)iov[i].iov_base +
		    iov[i].iov_len - n, n);
		k -= n;
	}
	if (k > 0)
		return 0;
	return (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 |
	    (uint64_t)t[3] << 24;
}

static uint64_t
fd_isize(int fd, uint64_t *bytes)
{
	struct stat sb;
	uint8_t t[4];

	*bytes = 0;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) || sb.st_size < 4 ||
	    pread(fd, t, 4, sb.st_size - 4) != 4)
		return 0;
	*bytes = (uint64_t)sb.st_size;
	return (uint64_t)t[0] | (uint64_t)t[1] << 8 | (uint64_t)t[2] << 16 |
	    (uint64_t)t[3] << 24;
}

/* The inflated size a gzipped body says it has, as a hint for the decoder
 * that reads it whole (pprof): believed within the limits only (0 if
 * not, else the size). */
static uint64_t
importer_size_hint(struct stream *in, uint64_t isize, uint64_t bytes,
    const struct limits *lim)
{
	if (isize == 0 || isize > lim->max_inflated ||
	    isize > (uint64_t)lim->max_inflate_ratio * bytes + (1u << 20))
		return 0;
	stream_size_hint(in, isize);
	return isize;
}

/* How far the import is shows in bytes of the inflated input when its
 * size is known, else of the input as it came (a file's size, a body's
 * length; unknown for a file that is not a regular one). */
static void
importer_progress(struct importer *im, struct stream *in,
    struct stream *plain, uint64_t inflated, uint64_t bytes)
{
	struct activity_progress *p = im->progress;

	if (p == NULL)
		return;
	if (in != plain && inflated > 0) {
		stream_progress(in, &p->bytes_done);
		activity_bytes_total(p, (int64_t)inflated);
	} else {
		stream_progress(plain, &p->bytes_done);
		activity_bytes_total(p, bytes > 0 ? (int64_t)bytes : -1);
	}
}

/* Leaves the result of a committed import in res and takes it from im. */
static void
importer_result(struct importer *im, const struct format *fmt,
    struct import_result *res)
{
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
	struct memsrc ms = { NULL, NULL, NULL, NULL };
	struct stream *plain;
	uint64_t isize = 0, bytes = req->len, size;
	uint8_t hash[32];
	int64_t scope_id, dup = 0;
	size_t i;
	int rc = -1;

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
		goto out;
	if (req->fd < 0) {
		/* In memory: hash first, and a duplicate costs no decode. */
		struct iovec one = { (void *)(uintptr_t)req->data, req->len };
		const struct iovec *iov = req->niov > 0 ? req->iov : &one;
		size_t niov = req->niov > 0 ? req->niov : 1;

		sha256_init(&sh);
		if (req->salt_len > 0)
			sha256_update(&sh, req->salt, req->salt_len);
		if (req->digest != NULL)
			sha256_update(&sh, req->digest, 32);
		for (i = 0; req->digest == NULL && i < niov; i++)
			sha256_update(&sh, iov[i].iov_base, iov[i].iov_len);
		sha256_final(&sh, hash);
		if ((dup = store_profile_find(im->store, scope_id, hash,
		    err)) != 0)
			goto out;
		in = stream_iov(iov, niov);
		isize = iov_isize(iov, niov);
		if (req->read_all != NULL) {
			struct stream_source src = { memsrc_read, NULL, &ms };

			ms.in = in;
			ms.read_all = req->read_all;
			ms.arg = req->read_all_arg;
			ms.abort = im->abort;
			in = stream_new(&src);
		}
	} else {
		/* A file is read once: hashed as it is decoded, checked for
		 * a duplicate before the commit.  Until then the row holds
		 * a placeholder no real hash equals (the profile id). */
		struct stream_source src = { hashsrc_read, NULL, NULL };

		hs = xcalloc(1, sizeof *hs);
		raw = stream_fd(req->fd, 0);
		hs->in = raw;
		hs->stop = im->stop;
		hs->abort = im->abort;
		sha256_init(&hs->sh);
		src.ctx = hs;
		in = stream_new(&src);
		memset(hash, 0, sizeof hash);
		memcpy(hash, "pending", 7);
		isize = fd_isize(req->fd, &bytes);
	}
	/* format_open puts a gunzip stream over a gzipped input. */
	plain = in;
	im->progress = req->progress;
	if (format_open(&in, req->format, &lim, &fmt, err) == -1)
		goto out;
	if (in != plain)
		isize = importer_size_hint(in, isize, bytes, &lim);
	else
		stream_size_hint(in, bytes);
	importer_progress(im, in, plain, isize, bytes);
	memset(&row, 0, sizeof row);
	row.scope_id = scope_id;
	row.format = fmt->name;
	row.name = req->name ? req->name : "";
	row.hash = hash;
	row.bytes = (int64_t)req->len;
	row.imported_ns = now_ns();
	if ((im->profile_id = store_profile_insert(im->store, &row, err)) < 0)
		goto out;
	im->samples = store_samples_begin(im->store, im->profile_id, scope_id);
	sink.ctx = im;
	importer_keep_begin(im, req);
	im->bucket_s = req->opts.bucket_ns >= 1000000000 ?
	    req->opts.bucket_ns / 1000000000 : 1;
	im->req_time_ns = req->time_ns;
	im->imported_ns = row.imported_ns;
	/* A large input is decoded on a thread of its own, and stored on
	 * this one (sinkpipe.c); a small one here, where a thread would
	 * cost more than it saves. */
	size = in != plain ? isize : bytes;
	if ((size == 0 || size >= im->pipe_min ?
	    sinkpipe_decode(fmt, in, &req->opts, &lim, &sink, err) :
	    fmt->decode(in, &req->opts, &lim, &sink, err)) == -1)
		goto out;
	activity_phase(im->progress, ACT_STORING);
	if (importer_finish(im, req, fmt->name, scope_id, err) == -1)
		goto out;
	if (hs != NULL) {
		if (hashsrc_finish(hs, raw, hash, err) == -1 ||
		    (dup = store_profile_find(im->store, scope_id, hash,
		    err)) != 0 ||
		    store_profile_set_hash(im->store, im->profile_id, hash,
		    (int64_t)hs->bytes, err) == -1)
			goto out;
	}
	if (store_commit(im->store, err) == -1)
		goto out;
	importer_result(im, fmt, res);
	rc = 0;
out:
	/* A failure or a duplicate is rolled back.  The caches may then name
	 * rows the rollback removed, unless the duplicate was found before
	 * anything was interned (in memory, by its hash). */
	if (rc == -1) {
		store_rollback(im->store);
		if (dup <= 0 || im->profile_id > 0)
			importer_caches_clear(im);
	}
	importer_reset(im);
	importer_caches_end(im);
	stream_free(in);
	stream_free(ms.in);
	stream_free(raw);
	free(hs);
	return dup > 0 ? importer_duplicate(im, dup, res, err) : rc;
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
