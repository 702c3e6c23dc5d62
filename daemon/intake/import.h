/* import.h: one pushed blob into the store, in one transaction.  The
 * importer implements the decoders' sink on top of the store, interning
 * through in-memory caches; it runs on the import thread only. */
#ifndef PROFD_IMPORT_H
#define PROFD_IMPORT_H

#include <stddef.h>
#include <sys/uio.h>
#include <stdatomic.h>
#include <stdint.h>

#include "activity.h"
#include "error.h"
#include "format.h"
#include "bounds.h"
#include "kind.h"
#include "store.h"

struct importer;

struct import_label {
	char *key, *value;
};

/* A push's word on a metric's kind (kind=METRIC:KIND), over what the
 * importer infers: the metrics of that type (and unit, unless NULL). */
struct import_kind {
	char *type, *unit;
	enum metric_kind kind;
};

/* A metric a push keeps (keep=METRIC): when a push names any, the
 * profile's other metrics are dropped, values and all, before anything
 * is stored (a scrape of both heap and allocs takes each metric from one
 * of them: docs/INTAKE.md). */
struct import_metric {
	char *type, *unit;		/* unit NULL: any */
};

struct import_request {
	const char *scope;
	const char *format;		/* "auto" or a format name */
	const char *name;		/* source name, may be "" */
	const struct import_label *labels;
	size_t nlabels;
	/* Kinds the push gives (the last for a metric wins); a metric none
	 * names gets kind_infer()'s. */
	const struct import_kind *kinds;
	size_t nkinds;
	/* The metrics stored, if nkeep > 0 (the others dropped); a profile
	 * with none of them is refused. */
	const struct import_metric *keep;
	size_t nkeep;
	struct decode_opts opts;
	/* The blob: in memory (fd < 0), or read once from fd (e.g. an
	 * upload or a spool file; len is then unused).  In memory it is
	 * data, or the niov pieces of iov when niov > 0 (a request body as
	 * received, not copied into one piece); len is the whole length. */
	const uint8_t *data;
	const struct iovec *iov;
	size_t niov;
	size_t len;
	/* In memory: called (from the importing thread) once the decoder
	 * has read the blob to its end, so its owner may free it while the
	 * import goes on; never called for fd; may be NULL. */
	void (*read_all)(void *arg);
	void *read_all_arg;
	int fd;
	int no_quote;			/* errors never quote the input */
	/* The profile's time and duration when the blob has none of its
	 * own: a Pyroscope push's from and until (folded text), a scrape's
	 * time (not the moment its body reached the import thread); 0: the
	 * import time and no duration. */
	int64_t time_ns, duration_ns;
	/* Hashed before the blob (in memory only): what makes two pushes of
	 * the same bytes different profiles (the same folded text for two
	 * time ranges is two profiles, not a duplicate). */
	const uint8_t *salt;
	size_t salt_len;
	/* In memory: the blob's SHA-256, when its caller has it (one blob
	 * imported as several profiles, an OTLP request's Profiles): hashed
	 * after the salt in place of the blob, which is not read again. */
	const uint8_t *digest;
	/* Where the import says how far it is (activity_progress of the
	 * activity begun for it), or NULL. */
	struct activity_progress *progress;
};

struct import_count {
	char *name;
	uint64_t n;
};

struct import_result {
	int64_t profile_id;
	int duplicate;
	char format[16];
	int64_t samples;
	int64_t dropped_samples;
	struct import_count *counts;	/* why samples were dropped */
	size_t ncounts;
	struct store_metric *metrics;	/* with their kinds */
	size_t nmetrics;
};

struct importer *importer_new(struct store *, const struct limits *);
void importer_free(struct importer *);
/* Inputs of at least this many bytes are decoded on a thread of their
 * own (sinkpipe.c; default 256 KiB): 0 all of them, UINT64_MAX none
 * (the tests compare the two). */
void importer_set_pipe_min(struct importer *, uint64_t bytes);
/* New limits for the next imports (the importer keeps the pointer). */
void importer_set_limits(struct importer *, const struct limits *);
/* Once *stop is set, an import read from a file (an upload, a spool file)
 * fails with ERR_BUSY and is rolled back; one from memory finishes. */
void importer_set_stop(struct importer *, const atomic_int *stop);
/* Once *abort is set, any import fails with ERR_BUSY within a few
 * thousand samples and is rolled back (the shutdown timeout passed). */
void importer_set_abort(struct importer *, const atomic_int *abort);
int importer_run(struct importer *, const struct import_request *,
    struct import_result *, struct error *);
void import_result_clear(struct import_result *);
/* "N dropped; reason=n ..." for a log line, "" when the result has no
 * counts; truncated to size. */
void import_result_dropped(const struct import_result *, char *, size_t);
/* Forget the interned ids it knows (after rows were collected). */
void importer_forget(struct importer *);
/* Bytes held by the interning caches. */
size_t importer_cache_bytes(const struct importer *);

/* The import thread's state, handed to every job on the import queue
 * (pushes, uploads, spool files, retention). */
struct csindex;
struct import_worker {
	struct store *store;
	struct importer *importer;
	struct csindex *index;		/* caught up before a collection */
};

#endif
