/* csindex.h: the callsite prefix tree and the printable name of every
 * frame, in memory, shared by the query threads.  Both tables only grow,
 * so the index catches up by reading rows past the last id it has; a query
 * then walks stacks without any SQL. */
#ifndef PROFD_CSINDEX_H
#define PROFD_CSINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "store.h"

struct csindex;

struct csindex *csindex_new(void);
void csindex_free(struct csindex *);

/* Catch up with the store, then hold the index for reading until
 * csindex_release(); the accessors below are valid in between. */
int csindex_acquire(struct csindex *, struct store *, struct error *);
void csindex_release(struct csindex *);

/* An index that is not the store's (the fleet's stacks, fleet/): the
 * callsite of frame fi (its id ignored) under parent (0: a root), made
 * the first time; ids below 2^32.  Not with csindex_acquire, no lock:
 * the index is its builder's. */
int64_t csindex_put(struct csindex *, int64_t parent,
    const struct store_frame_info *);

/* The same index's id of a printable name (for names of sums that come
 * without their frames: the fleet's function sums), made the first
 * time. */
uint32_t csindex_intern(struct csindex *, const char *name);

/* The parent of a callsite (0 for a root), -1 if the id is unknown. */
int64_t csindex_parent(const struct csindex *, int64_t cs);
/* The printable-name id of the callsite's frame (pprof's node name at
 * function granularity) and the frame's FRAME_* flags. */
uint32_t csindex_name(const struct csindex *, int64_t cs);
unsigned csindex_flags(const struct csindex *, int64_t cs);
/* Where the callsite's function is: its source file and start line and
 * the mapping's file ("" and 0 when unknown).  The strings returned here
 * and by csindex_name_str() stay valid until csindex_free(), held or not:
 * names are only ever added. */
void csindex_source(const struct csindex *, int64_t cs, const char **file,
    int64_t *line, const char **mapping);
/* The line of the callsite's frame itself, 0 when unknown. */
int64_t csindex_line(const struct csindex *, int64_t cs);
/* Report granularity: pprof's -functions (default), -lines, -files. */
enum granularity { GRAN_FUNCTION, GRAN_LINE, GRAN_FILE };
/* The printable name at a granularity: "f", "f file:line", "file". */
uint32_t csindex_name_at(const struct csindex *, int64_t cs,
    enum granularity);
/* The same as name ids, for matching them like names. */
uint32_t csindex_file_id(const struct csindex *, int64_t cs);
uint32_t csindex_mapping_id(const struct csindex *, int64_t cs);
const char *csindex_name_str(const struct csindex *, uint32_t name);
size_t csindex_nnames(const struct csindex *);
size_t csindex_bytes(const struct csindex *);

#endif
