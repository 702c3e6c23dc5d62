/* api-pyro.h: what the Pyroscope-compatible endpoints share (api-ingest.c,
 * POST /ingest; api-connect.c, POST /push.v1.PusherService/Push): a push
 * of theirs is stored exactly as POST /v1/profiles stores one, through
 * importer_run() on the import thread. */
#ifndef PROFD_API_PYRO_H
#define PROFD_API_PYRO_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "import.h"

/* One profile to import, with what the request said of it. */
struct pyro_push {
	char *scope, *name;		/* name: the source, for listings */
	struct import_label *labels;
	size_t nlabels;
	char *metric_type, *metric_unit;	/* folded: what counts are */
	int64_t scale;			/* folded: each count times this */
	int64_t time_ns, duration_ns;	/* 0: the blob's own or none */
};

void api_pyro_push_clear(struct pyro_push *);
/* Add a label (copied); a key already there gets the new value. */
void api_pyro_label(struct pyro_push *, const char *key, size_t keylen,
    const char *value, size_t valuelen);
/* Pyroscope's rule for a label name: [A-Za-z_][A-Za-z0-9_.]*, at most
 * 1024 bytes. */
int api_pyro_label_name_valid(const char *, size_t);
/* Import a blob in memory as the push says (on the import thread):
 * the format ("folded", "pprof", "auto"), counted and shown as an
 * activity as any push.  0 with *res (import_result_clear it) or -1
 * with err. */
int api_pyro_import(struct api_call *, void *worker, const struct pyro_push *,
    const char *format, const uint8_t *data, size_t len,
    struct import_result *res, struct error *err);

#endif
