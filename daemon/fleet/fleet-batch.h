/* fleet-batch.h: a batch of unshipped profiles as ClickHouse takes them:
 * TabSeparated rows for the samples, stacks and profiles tables, with
 * each profile's rows apart so that the profiles ClickHouse already has
 * (a retry after a crash) can be left out.  Built on a worker thread with
 * a read connection; knows no HTTP. */
#ifndef PROFD_FLEET_BATCH_H
#define PROFD_FLEET_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "fleet-fsum.h"
#include "error.h"
#include "store.h"

struct csindex;

struct fleet_profile {
	int64_t id;
	uint64_t key;			/* the deduplication key */
	int64_t time_s;
	int64_t bytes;			/* as pushed: of the backlog's */
	size_t off, len, rows;		/* its sample rows in samples */
	size_t foff, flen, frows;	/* its function sums in fn_rows */
	size_t poff, plen;		/* its row in profiles */
	size_t moff, mlen;		/* its row in profile_metrics */
	int present;			/* ClickHouse has it already */
	int expired;			/* not sent: past the fleet's age */
};

struct fleet_batch {
	struct fleet_profile *p;
	size_t n;
	struct buf samples, stacks, profiles;
	struct buf fn_rows;		/* function_rows' (fleet-fsum.h) */
	struct fleet_fsum_keys fkeys;	/* their names' rows */
	struct buf frame_rows;		/* stack_frames', one per stack */
	struct buf metric_rows;		/* profile_metrics', one a profile */
	size_t nstacks;
	size_t nexpired;
	int more;			/* stopped at max_bytes */
};

/* The deduplication key of a profile: the first 8 bytes of the SHA-256 of
 * its scope name and content hash (the store's dedup is per scope). */
uint64_t fleet_profile_key(const char *scope, const uint8_t hash[32]);
/* Up to max unshipped profiles, oldest first, as rows for host; fewer
 * (and more set) once their rows pass max_bytes.  The rows are held in
 * memory and sent as one INSERT body, so a batch of 100 heap profiles
 * of a million rows each must not be read at once; one profile is always
 * taken, however large, or it would never ship.  Those of a time before
 * before_s are taken without rows, expired: retention in ClickHouse
 * would drop them (fleet_retain_unsent_before), they are only marked. */
int fleet_batch_build(struct fleet_batch *, struct store *,
    struct csindex *, const char *host, size_t max, size_t max_bytes,
    int64_t before_s, struct error *);
void fleet_batch_clear(struct fleet_batch *);
/* SELECT the keys of the batch's profiles ClickHouse has rows of (the
 * expired left out: call it only if some are not). */
char *fleet_batch_present_sql(const struct fleet_batch *, const char *db,
    const char *host);
/* The reply of that query (one key a line): marks them present. */
int fleet_batch_present(struct fleet_batch *, const char *reply, size_t n,
    struct error *);
/* The tables a batch's rows go to, one per profile or more. */
enum fleet_table {
	FLEET_SAMPLES,
	FLEET_FUNCTIONS,
	FLEET_PROFILES,
	FLEET_PROFILE_METRICS
};
/* The sample rows (or function sums) of the profiles not present (and
 * their number), or
 * the profiles or profile_metrics rows of all (and their number); never
 * the expired. */
void fleet_batch_rows(const struct fleet_batch *, enum fleet_table,
    struct buf *out, size_t *rows);

/* A string quoted for ClickHouse's SQL (or its TSV arrays): in ''. */
void fleet_quote(struct buf *, const char *, size_t);
/* What follows a metric's name (TYPE/UNIT) in samples' rows of its
 * values as given, where its own rows are differences (a cumulative
 * metric counted otherwise than whole), escaped as SQL and TSV write
 * it: a NUL, which no name profd stores has, then "raw". */
#define FLEET_RAW_SUFFIX	"\\0raw"
/* The metric's raw name quoted for SQL: 'TYPE/UNIT\0raw'. */
void fleet_quote_raw(struct buf *, const char *metric);

#endif
