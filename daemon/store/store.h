/* store.h: the SQLite store.  The only module that includes <sqlite3.h>;
 * callers see store_* functions and plain C data, never SQL.
 *
 * A writer store (one, owned by the import thread) creates and migrates the
 * schema and interns rows; reader stores (one per query thread) are
 * read-only connections that see committed data while an import writes. */
#ifndef PROFD_STORE_H
#define PROFD_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kind.h"

struct store;
struct store_filter;

/* Opening starts no thread (a process may fork after it); a writer's
 * background checkpoints start with store_start_threads(), without which
 * SQLite checkpoints at commits as usual. */
struct store *store_open(const char *path, int readonly, struct error *);
int store_start_threads(struct store *, struct error *);
/* From any thread: the statement running on s fails (SQLITE_INTERRUPT,
 * an error of kind ERR_BUSY), its transaction rolled back; for a shutdown
 * that cannot wait. */
void store_interrupt(struct store *);
/* store-watch.c: on a reader (a query thread's), every statement fails
 * (SQLITE_INTERRUPT) once c says to stop (base/cancel.h), until the watch
 * ends with c NULL, which also ends a read the interruption left open. */
struct cancel;
void store_watch_cancel(struct store *, struct cancel *c);
void store_close(struct store *);
int store_version(struct store *);

int store_begin(struct store *, struct error *);
/* store_begin for an import, without foreign key checks: an import only
 * adds rows that refer to ids interned by the same transaction, and the
 * checks (two index lookups per callsite) cost a third of a first import
 * of a large profile.  The commit or rollback turns them back on. */
int store_begin_import(struct store *, struct error *);
int store_commit(struct store *, struct error *);
void store_rollback(struct store *);

/* Interning: each returns an id > 0 (existing or new), or -1. */
int64_t store_string(struct store *, const void *, size_t, struct error *);
int64_t store_metric(struct store *, const char *type, size_t typelen,
    const char *unit, size_t unitlen, struct error *);
int64_t store_mapping(struct store *, uint64_t start, uint64_t limit,
    uint64_t offset, int64_t file_id, int64_t build_id_id, unsigned flags,
    struct error *);
int64_t store_function(struct store *, int64_t name_id, int64_t sysname_id,
    int64_t file_id, int64_t start_line, struct error *);
int64_t store_frame(struct store *, int64_t function_id, int64_t mapping_id,
    uint64_t address, int64_t line, int64_t column, unsigned flags,
    struct error *);
/* A callsite: frame under parent (0: a root), depth its parent's + 1 (a
 * root's is 0).  Interned in memory, in a transaction: ids below 2^32. */
int64_t store_callsite(struct store *, int64_t parent_id, int64_t frame_id,
    int64_t depth, struct error *);
/* The same, the caller knowing that frame is no child of parent yet: a
 * parent made in this transaction (an id from store_callsites_next on),
 * whose children the caller made; no lookup. */
int64_t store_callsite_new(struct store *, int64_t parent_id,
    int64_t frame_id, int64_t depth, struct error *);
/* A store_callsite of (parent, frame) will follow: its memory fetched
 * now, while the caller does something else. */
void store_callsite_prefetch(struct store *, int64_t parent_id,
    int64_t frame_id);
/* The id the next new callsite will have. */
int64_t store_callsites_next(struct store *);
/* This transaction will ask for about n callsites (a profile's samples):
 * room made at once when most of them will be new, a hint only. */
void store_callsites_expect(struct store *, size_t n);
/* *created is set when the label set is new (the caller adds its labels). */
int64_t store_labelset(struct store *, const void *canon, size_t len,
    int *created, struct error *);
int store_label_add(struct store *, int64_t labelset_id, int64_t key_id,
    int64_t str_id, int is_num, int64_t num, int64_t num_unit_id,
    struct error *);

int64_t store_scope(struct store *, const char *name, int create,
    struct error *);

struct store_profile_row {
	int64_t scope_id;
	const char *format;
	const char *name;
	const uint8_t *hash;		/* 32 bytes */
	int64_t bytes;
	int64_t imported_ns;
};
int64_t store_profile_find(struct store *, int64_t scope_id,
    const uint8_t hash[32], struct error *);
int64_t store_profile_insert(struct store *, const struct store_profile_row *,
    struct error *);
struct store_profile_meta {
	int64_t time_ns, duration_ns, period;
	int64_t period_metric_id, default_metric_id;	/* 0 = none */
	const char *doc_url;
	int64_t samples, dropped_samples;
};
/* The content hash and size, once a streamed blob has been read. */
int store_profile_set_hash(struct store *, int64_t profile_id,
    const uint8_t hash[32], int64_t bytes, struct error *);
int store_profile_finish(struct store *, int64_t profile_id,
    const struct store_profile_meta *, struct error *);
/* profile_metric.counted (schema 10): how a profile's metric counts
 * over a window (store-series.c). */
enum store_counted {
	COUNTED_WHOLE = 0,		/* its values */
	COUNTED_DIFFERENCE = 1,		/* its values minus the previous */
	COUNTED_NONE = 2		/* older than its series' newest */
};
/* Metric idx of a profile: its id, the sum of its values, its kind, how
 * it counts. */
int store_profile_metric_add(struct store *, int64_t profile_id, int idx,
    int64_t metric_id, int64_t total, enum metric_kind,
    enum store_counted, struct error *);
int store_profile_label_add(struct store *, int64_t profile_id,
    const char *key, const char *value, struct error *);

/* store-counts.c: named counts of a profile (why samples were dropped). */
struct store_count {
	char *name;
	int64_t n;
};
int store_profile_count_add(struct store *, int64_t profile_id,
    const char *name, int64_t n, struct error *);
int store_profile_counts(struct store *, int64_t profile_id,
    struct store_count **, size_t *, struct error *);
void store_counts_free(struct store_count *, size_t);
int store_profile_comment_add(struct store *, int64_t profile_id, int idx,
    const char *, size_t, struct error *);

/* Sample values of one profile, written in batches (store-samples.c): rows
 * are buffered, sorted and merged in memory and stored as packed blocks,
 * and the scope's rollups are updated, in the caller's transaction. */
struct store_samples;
/* The bucket of a sample without a time of its own: the profile's bucket,
 * given to store_samples_finish. */
#define STORE_UNTIMED	INT64_MIN
struct store_samples *store_samples_begin(struct store *, int64_t profile_id,
    int64_t scope_id);
/* Value i of the rows added is of this metric. */
void store_samples_metric(struct store_samples *, size_t i,
    int64_t metric_id);
/* Adds values (one per metric declared, zero = none) to the row of
 * (callsite, labelset, bucket), bucket in seconds or STORE_UNTIMED. */
int store_samples_add(struct store_samples *, int64_t callsite_id,
    int64_t labelset_id, int64_t bucket, const int64_t *values,
    size_t nvalues, struct error *);
/* Before any row: the profile's bucket is known, and STORE_UNTIMED rows
 * added from now on take it at once (it must be the one given to
 * store_samples_finish). */
void store_samples_date(struct store_samples *, int64_t profile_bucket);
/* Writes what is buffered; STORE_UNTIMED rows take profile_bucket. */
int store_samples_finish(struct store_samples *, int64_t profile_bucket,
    struct error *);
void store_samples_free(struct store_samples *);
/* Before store_samples_finish: the values of a metric go under its raw
 * tag (store_series_diff then writes the differences under the metric):
 * 0; 1 if blocks holding it were written already (a profile of more rows
 * than the writer buffers), which then counts whole. */
int store_samples_raw(struct store_samples *, int64_t metric_id);

/* ---- series (store-series.c, docs/TIME.md) ----
 *
 * A cumulative metric counts, over a window, what grew between a
 * profile and the previous one of its series (scope, push labels,
 * metric): the metric's block column holds those differences, and the
 * values as the profile gave them are kept under the raw tag, for the
 * reads of single profiles (store_filter.raw).  Readers that sum never
 * see the raw tag: it is no metric id. */
#define STORE_RAW_BIT		((uint64_t)1 << 40)
#define STORE_RAW_TAG(metric)	((uint64_t)(metric) | STORE_RAW_BIT)

/* The series of a profile, from its push labels (stored first). */
int store_series_set(struct store *, int64_t profile_id, int64_t *series,
    struct error *);
struct store_series_key {
	int64_t scope_id, series, metric_id, profile_id, time_ns;
};
struct store_series_prev {
	int64_t id, total;		/* id 0: the series' first */
	int raw;			/* its values are under the raw tag */
	int newer;			/* a profile newer than this one */
};
/* The cumulative profile before this one in its series, and whether one
 * after it is stored. */
int store_series_prev(struct store *, const struct store_series_key *,
    struct store_series_prev *, struct error *);
/* The kind of the filter's metric in the newest profile of its first
 * scope that has it (KIND_DELTA if none). */
int store_series_kind(struct store *, const struct store_filter *,
    enum metric_kind *, struct error *);
/* The profiles of the filter's window (its profile ids, if any) that
 * have its metric, by scope and series, oldest first. */
struct store_series_profile {
	int64_t id, scope_id, series, time_ns, total;
	enum store_counted counted;
};
int store_series_window(struct store *, const struct store_filter *,
    struct store_series_profile **, size_t *, struct error *);
/* After store_samples_raw, before store_samples_finish: the differences
 * of the profile's values (the writer's, under the raw tag) to prev's,
 * as its values of the metric. */
int store_series_diff(struct store *, struct store_samples *,
    const struct store_series_key *, const struct store_series_prev *,
    struct error *);

/* ---- retention ---- */

/* Delete a profile: its values leave the rollups, its rows go (blocks,
 * metrics, labels, comments).  In the caller's transaction.  Callsites,
 * frames, label sets and strings stay (see store_referenced). */
int store_profile_delete(struct store *, int64_t profile_id, struct error *);
/* Every (callsite, label set) pair some stored sample value has, each at
 * least once (from the day rollups: much less than every block).  A
 * callsite named here keeps its ancestors alive too. */
int store_referenced(struct store *,
    void (*cb)(void *, int64_t callsite_id, int64_t labelset_id), void *,
    struct error *);

/* Bytes of the pages in use (the file minus its free pages). */
int store_used_bytes(struct store *, int64_t *bytes, struct error *);
/* What each scope takes: its sample blocks and rollups and a fixed cost
 * per profile (interned rows are shared, and not counted). */
struct store_usage {
	int64_t scope_id;
	char *name;
	int64_t profiles, oldest_ns, bytes;
};
int store_usage(struct store *, struct store_usage **, size_t *,
    struct error *);
void store_usage_free(struct store_usage *, size_t);
/* The oldest profiles of a scope (0: of any scope) older than before_ns,
 * oldest first, at most limit (shipped ones only when the store keeps
 * unshipped profiles: store_set_keep_unshipped). */
struct store_old_profile {
	int64_t id, time_ns, samples, bytes;
	int unshipped;			/* kept for the fleet but over its limit */
};
int store_oldest_profiles(struct store *, int64_t scope_id,
    int64_t before_ns, size_t limit, struct store_old_profile **, size_t *,
    struct error *);
/* The scope of a profile, 0 if there is no such profile, -1 on error;
 * its sample count into *samples unless that is NULL. */
int64_t store_profile_scope(struct store *, int64_t profile_id,
    int64_t *samples, struct error *);
/* A scope, its profiles and rollups, in the caller's transaction. */
int store_scope_delete(struct store *, int64_t scope_id, int64_t *profiles,
    int64_t *samples, struct error *);
/* Collect up to batch unused interned rows of one table, in a transaction
 * of its own.  *phase starts at 0 and goes through the tables; -1 once
 * every table is done.  Interning caches must be dropped after. */
int store_gc_step(struct store *, int *phase, size_t batch,
    int64_t *removed, struct error *);

/* store-vacuum.c: give up to pages free pages (of deleted profiles,
 * collected rows) back to the file system, in a transaction of its own;
 * *left is the number still free. */
int store_vacuum_step(struct store *, int64_t pages, int64_t *left,
    struct error *);

/* Reads use the rollups where they answer a selection; off, everything is
 * read from the blocks (for tests comparing both). */
void store_use_rollups(struct store *, int);
/* Rollup windows read since the store was opened. */
int64_t store_rollups_read(const struct store *);
/* Sample blocks read by the reads that may use rollups, for tests. */
int64_t store_blocks_read(const struct store *);
/* Rows a sample writer buffers (0: the default); tests make it small to
 * get many blocks per profile. */
void store_set_sample_buffer(struct store *, size_t rows);
/* Keys a rollup window may have before it is left to the blocks (0: the
 * default); tests make it small. */
void store_set_rollup_max(struct store *, size_t entries);

/* ---- reading ---- */

struct store_metric {
	int64_t id;
	char *type, *unit;
	/* A profile's metric: its kind in that profile (docs/TIME.md);
	 * KIND_DELTA where a metric is not one profile's (a scope's). */
	enum metric_kind kind;
	enum store_counted counted;	/* a profile's metric */
	int64_t total;			/* a profile's: its values' sum */
	/* A view's metric: how its window combined the profiles. */
	enum metric_aggregate aggregate;
};

struct store_scope_info {
	int64_t id;
	char *name;
	int64_t profiles, first_ns, last_ns;
	struct store_metric *metrics;
	size_t nmetrics;
};

struct store_profile_info {
	int64_t id;
	char *name, *format, *doc_url;
	int64_t time_ns, duration_ns, imported_ns, samples, dropped_samples;
	int64_t period, bytes;
	struct store_metric *metrics;
	size_t nmetrics;
	struct store_metric default_metric;	/* id 0 = none */
	struct store_metric period_type;	/* id 0 = none */
	char **label_keys, **label_values;
	size_t nlabels;
	char **comments;
	size_t ncomments;
	struct store_count *counts;		/* by name */
	size_t ncounts;
};

void store_metric_clear(struct store_metric *);
void store_scope_info_free(struct store_scope_info *, size_t);
void store_profile_info_clear(struct store_profile_info *);
void store_profile_info_free(struct store_profile_info *, size_t);

int store_scopes(struct store *, struct store_scope_info **, size_t *,
    struct error *);
/* store-plist.c: a page of a scope's profiles, in (time, id) order
 * after a cursor: those whose time is in [since_s, until_s] (whole
 * seconds, both ends in, as the views' windows count; INT64_MIN and
 * INT64_MAX leave an end open) that pass the filters, limit at most.  A
 * page reads at most scan rows of the index past the cursor (limit + 1
 * without filters), so a page whose filters pass few may hold fewer rows,
 * none even, and still have more. */
struct label_filter;
struct store_plist {
	int64_t scope_id;
	int64_t since_s, until_s;
	int64_t after_ns, after_id;	/* the cursor; after_id 0: none */
	const int64_t *profiles;	/* none: any profile */
	size_t nprofiles;
	int64_t metric_id;		/* 0: any */
	/* AND-ed, on the profile's push labels (a profile without the key
	 * reads as "", as the views read it). */
	const struct label_filter *labels;
	size_t nlabels;
	size_t limit, scan;
};
struct store_plist_page {
	struct store_profile_info *v;
	size_t n;
	/* Rows may follow: the next page starts after (next_ns, next_id). */
	int more;
	int64_t next_ns, next_id;
};
/* -1 with ERR_INPUT for a label pattern that does not compile. */
int store_plist(struct store *, const struct store_plist *,
    struct store_plist_page *, struct error *);
void store_plist_page_clear(struct store_plist_page *);
/* Every profile of a scope, oldest first, paged through store_plist;
 * ERR_NOT_FOUND for an unknown scope. */
int store_profiles(struct store *, const char *scope,
    struct store_profile_info **, size_t *, struct error *);
int store_profile_get(struct store *, int64_t id, struct store_profile_info *,
    struct error *);

/* The metric a query uses by default for a scope: the default metric of its
 * newest profile; 0 if the scope has no profile. */
int64_t store_scope_default_metric(struct store *, int64_t scope_id,
    struct error *);
/* Find a metric by type and optional unit among those of the scope's
 * profiles; 0 if none, -1 on error (ambiguous: ERR_INPUT). */
int64_t store_scope_metric(struct store *, int64_t scope_id,
    const char *type, const char *unit, struct error *);
int store_metric_get(struct store *, int64_t id, struct store_metric *,
    struct error *);

/* Sum of values per callsite over what a filter selects. */
struct store_cs_value {
	int64_t callsite;
	int64_t value;
};

/* A label filter: the sample (or push) label KEY is VALUE, or is not. */
struct label_filter {
	char *key, *value;
	int negate;			/* k!=v, k!~v */
	/* value is an RE2 pattern matched whole (k=~v, k!~v), as
	 * Prometheus' selectors match; a sample without the label reads
	 * as the value "" (so k!~"prod" keeps it, k=~".+" does not). */
	int regex;
};

struct store_filter {
	const int64_t *scopes;
	size_t nscopes;
	int64_t metric_id;
	int64_t since_s, until_s;	/* bucket range, inclusive */
	const int64_t *profiles;	/* none: every profile */
	size_t nprofiles;
	const struct label_filter *labels;	/* AND-ed; sample or push */
	size_t nlabels;
	/* Each profile's values as it gave them (a cumulative metric's
	 * raw tag), not what it counts over a window: no rollups. */
	int raw;
};
int store_select_values(struct store *, const struct store_filter *,
    struct store_cs_value **, size_t *, int64_t *nprofiles, struct error *);
/* The same per time bucket (seconds), in time order. */
struct store_bucket_value {
	int64_t bucket, callsite, value;
};
int store_select_buckets(struct store *, const struct store_filter *,
    struct store_bucket_value **, size_t *, struct error *);
/* The same per (time bucket, profile, label set), summed over the
 * stacks, in that order: a timeline per group of labels in one read
 * (query/groups.c). */
struct store_group_value {
	int64_t bucket, profile, labelset, value;
};
int store_select_groups(struct store *, const struct store_filter *,
    struct store_group_value **, size_t *, struct error *);
/* The per-bucket totals of each profile of the filter's window (its
 * scopes, metric and time; not its profile ids): cb per (bucket,
 * profile); 1 when they cannot answer (label filters), -1 on error. */
int store_select_profile_totals(struct store *, const struct store_filter *,
    void (*cb)(void *, int64_t bucket, int64_t profile, int64_t value),
    void *, struct error *);
/* The same summed over callsites (callsite -1), from the per-bucket
 * totals, for a selection without profile ids or label filters: 0, or 1
 * when the selection needs store_select_buckets; -1 on error.  A bucket
 * is listed when a row of it is selected, its value is the sum of the
 * rows with a callsite. */
int store_select_totals(struct store *, const struct store_filter *,
    struct store_bucket_value **, size_t *, struct error *);

/* Callsites and frames with ids above after, in id order (ids are never
 * reused), for the query threads' in-memory index.  A frame comes with
 * its function name ("" if none) and mapping file ("" if none). */
int store_callsites_after(struct store *, int64_t after,
    void (*cb)(void *, int64_t id, int64_t parent, int64_t frame), void *,
    struct error *);
struct store_frame_info {
	int64_t id;
	const char *function;		/* "" = none */
	const char *file;		/* the function's source file, or "" */
	int64_t start_line;
	int64_t line;			/* of the frame itself, 0 = unknown */
	const char *mapping_file;	/* "" = none */
	unsigned flags;
};
int store_frames_after(struct store *, int64_t after,
    void (*cb)(void *, const struct store_frame_info *), void *,
    struct error *);

/* Size in bytes of the database file and its WAL. */
int64_t store_file_size(const char *path);

/* ---- export ---- */

/* Bytes of a row, valid during the callback that gets them. */
struct store_str {
	const char *p;
	size_t n;
};

/* Sum per (metric, callsite, label set), sorted by callsite, label set,
 * metric, over what the filter selects for every metric (its metric_id is
 * ignored), and the ids of the profiles those come from, oldest first. */
struct store_export_value {
	int64_t metric, callsite, labelset, value;
};
int store_select_all(struct store *, const struct store_filter *,
    struct store_export_value **, size_t *, int64_t **profiles,
    size_t *nprofiles, struct error *);

/* The frame of each callsite, out[i] for callsites[i]; 0 ids = none. */
struct store_frame_row {
	int64_t callsite, frame, function, mapping;
	uint64_t address;
	int64_t line, column;
	unsigned flags;
};
int store_callsite_frames(struct store *, const int64_t *callsites,
    size_t n, struct store_frame_row *out, struct error *);

struct store_function_row {
	int64_t id;
	struct store_str name, system_name, file;
	int64_t start_line;
};
int store_functions_by_id(struct store *, const int64_t *ids, size_t n,
    void (*cb)(void *, const struct store_function_row *), void *,
    struct error *);

struct store_mapping_row {
	int64_t id;
	uint64_t start, limit, offset;
	struct store_str file, build_id;
	unsigned flags;
};
int store_mappings_by_id(struct store *, const int64_t *ids, size_t n,
    void (*cb)(void *, const struct store_mapping_row *), void *,
    struct error *);

/* The labels of each label set, in the order they were added. */
struct store_label_row {
	int64_t labelset;
	struct store_str key, str;	/* str when !is_num */
	int is_num;
	int64_t num;
	struct store_str num_unit;
};
int store_labels_by_set(struct store *, const int64_t *labelsets, size_t n,
    void (*cb)(void *, const struct store_label_row *), void *,
    struct error *);

/* ---- fleet shipping (store-fleet.c) ---- */

/* While profiles ship to a fleet, retention (store_oldest_profiles)
 * passes over those that have not shipped yet.  From the first time it
 * is set, the writer keeps the backlog's counts (store_ship_live). */
void store_set_keep_unshipped(struct store *, int);
/* ...unless the backlog (store_ship_lag's bytes) is above bytes (0: no
 * limit): then the oldest go as shipped ones do, marked unshipped in
 * store_old_profile, and store_backlog_over says the backlog's bytes
 * when it last was over (0: never) and the limit into *max. */
void store_set_backlog_max(struct store *, int64_t bytes);
int64_t store_backlog_over(const struct store *, int64_t *max);

/* A committed profile not yet shipped to ClickHouse. */
struct store_ship_profile {
	int64_t id, scope_id, bytes, time_ns, duration_ns;
	int64_t series;		/* profile.series: its push labels' hash */
	char *scope, *name;
	uint8_t hash[32];	/* the store's dedup hash; zeros if none */
};
void store_ship_profiles_free(struct store_ship_profile *, size_t);
/* Up to max unshipped profiles, oldest id first. */
int store_ship_pending(struct store *, size_t max,
    struct store_ship_profile **, size_t *, struct error *);
/* The backlog: unshipped profiles and their bytes (as pushed). */
int store_ship_lag(struct store *, int64_t *profiles, int64_t *bytes,
    struct error *);
/* The backlog as the writer committed it, read on any thread without
 * SQL (for /v1/status): the unshipped profiles and their bytes (as
 * store_ship_lag counts them, kept as each transaction commits: an
 * import adds, a batch marked shipped and a delete take off), and the
 * profiles deleted before they shipped since the counts began (by
 * retention past fleet-backlog-max, by DELETE /v1/profiles: by id, age
 * or scope).  -1 each on a store that does not keep them. */
void store_ship_live(struct store *, int64_t *profiles, int64_t *bytes,
    int64_t *deleted);
/* Profiles marked shipped at now_ns, all or none (the writer; after
 * ClickHouse acknowledged them). */
int store_ship_mark(struct store *, const int64_t *ids, size_t n,
    int64_t now_ns, struct error *);
/* 1 if a profile has shipped, 0 if not, -1 (ERR_NOT_FOUND: no such). */
int store_ship_is_shipped(struct store *, int64_t profile_id,
    struct error *);

#endif
