/* uploads.h: blobs too large for one request body arrive in chunks into a
 * file under the state directory and are imported from it, streaming, so
 * a large trace never sits whole in memory.  No HTTP here. */
#ifndef PROFD_UPLOADS_H
#define PROFD_UPLOADS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define UPLOAD_ID_LEN	32		/* hex characters */

struct uploads;

/* Uploads live in dir (created; leftovers of a previous run removed). */
struct uploads *uploads_new(const char *dir, uint64_t max_bytes,
    struct error *);
void uploads_set_max(struct uploads *, uint64_t max_bytes);
/* At most max_open uploads at once: uploads_create fails with ERR_BUSY
 * (503) beyond it (default: no bound). */
void uploads_set_max_open(struct uploads *, size_t max_open);
size_t uploads_open_count(struct uploads *);
void uploads_free(struct uploads *);
int uploads_create(struct uploads *, char id[UPLOAD_ID_LEN + 1],
    struct error *);
/* Append at offset, which must be the upload's current size (so a retried
 * chunk is refused, not doubled: ERR_CONFLICT).  Sets *total. */
int uploads_append(struct uploads *, const char *id, uint64_t offset,
    const void *, size_t, uint64_t *total, struct error *);
/* Take the upload for import: an open descriptor; the file is removed. */
int uploads_take(struct uploads *, const char *id, struct error *);
int uploads_remove(struct uploads *, const char *id, struct error *);
/* The upload opened for reading and left in place (removed once it is
 * stored, kept when the store could not take it for now); -1 with err. */
int uploads_open_read(struct uploads *, const char *id, struct error *);
/* Remove uploads untouched for max_idle_s seconds; returns how many. */
int uploads_sweep(struct uploads *, int64_t max_idle_s);
int uploads_id_valid(const char *);

#endif
