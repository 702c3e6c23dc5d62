/* fleet-source-int.h: the fleet's stack source as fleet-source.c (the
 * views' reads) and fleet-resolve.c (the questions before them) share
 * it. */
#ifndef PROFD_FLEET_SOURCE_INT_H
#define PROFD_FLEET_SOURCE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ch-select.h"
#include "fleet-fsum.h"
#include "fleet-sql.h"
#include "fleet-stacks.h"
#include "fleet-tsv.h"
#include "hmap.h"
#include "kind.h"
#include "source.h"

#define FLEET_MEMO	32
/* The function sums' names kept (fleet-fsum.h), bytes. */
#define FLEET_FNAMES_BYTES	(16u * 1024 * 1024)

struct fleet_reader {
	struct ch_select *chs;
	char *database;
	int cluster;
	/* The schema version seen recorded, until it is FS_VERSION (a
	 * version is never taken back).  Shared by the query threads. */
	atomic_int version;
	/* What views resolved last (a scope's default metric, a metric's
	 * aggregate), which fleet_resolve guesses and asks with at once;
	 * a few kept, the oldest replaced (fleet-resolve.c). */
	pthread_mutex_t mu;
	struct {
		char *key, *value;
	} memo[FLEET_MEMO];
	size_t next_memo;
	struct fleet_cache *cache;	/* stacks' frames by hash */
	struct fleet_index_pool *indexes;	/* built of them */
	struct fleet_cache *fnames;	/* function sums' names by key */
};

/* A stack's sum, by its hash (fleet_sql_sums). */
struct fs_sum {
	uint64_t hash;
	int64_t value;
};

/* The newest schema version the reads use: 5, samples_hourly; 6,
 * samples_profiles; 7, samples_daily; 8, the function sums. */
#define FS_VERSION	8

/* Up to this many hashes are asked by name (about 21 bytes each, well
 * under ClickHouse's 256 KiB max_query_size); more, by the selection. */
#define FS_ASK_BY_NAME	2000

struct fleet_source {
	struct stack_source src;
	struct fleet_reader *r;
	char *const *hosts;
	size_t nhosts;
	struct fleet_index *fi;		/* the pool's, while open */
	struct csindex *idx;		/* fi's */
	struct fleet_stacks st;		/* a reply's stacks into idx */
	struct fleet_tsv_array a;	/* scopes' metrics */
	char *metric;			/* TYPE/UNIT */
	int nmetrics;
	int64_t nprofiles;
	enum metric_aggregate aggregate;	/* as resolved */
	int64_t range[3];		/* a reply's numbers (fleet_resolve_ints) */
	int nints;			/* how many */
	struct store_scope_info *scopes;
	size_t nscopes;
	char **hostnames;
	size_t nhostnames;
	/* The selection whose answer metric, nprofiles and st hold, for a
	 * view asking it again; NULL: none. */
	const struct selection *last;
	struct fs_sum *sums;		/* a reply's, then the missing ones */
	size_t nsums, capsums;
	struct imap missing;		/* hash -> 1 + its index in sums */
	struct fleet_fsum fsum;		/* select_fsum's view */
};

/* What fleet_resolve asks beside the metric's questions: nothing, the
 * window's sums per stack, or top's function sums where they answer. */
enum fleet_want { FLEET_WANT_NONE, FLEET_WANT_SUMS, FLEET_WANT_FSUMS };

/* The questions in flight for a selection's values. */
struct fleet_asked {
	struct chs_q *sums;		/* fleet_sql_sums */
	struct chs_q *fsums;		/* fleet_sql_fsums */
	struct chs_q *ends;		/* fleet_sql_sum_ends; NULL: none */
};

/* The selection's metric, checked and counted, and how it combines;
 * with want, its values asked beside (fleet-resolve.c). */
int fleet_resolve(struct fleet_source *, struct fleet_sql *, int count,
    enum fleet_want, struct fleet_asked *, struct error *);
/* What is in flight given up. */
void fleet_resolve_drop(struct fleet_asked *);
/* sql (taken) asked, its answer read later (ch_select_read or _drop);
 * asked and read now, each line to row. */
struct chs_q *fleet_resolve_start(struct fleet_source *, char *sql);
int fleet_resolve_ask(struct fleet_source *, char *sql,
    int (*row)(void *, struct fleet_tsv_field *, size_t, struct error *),
    struct error *);
/* One line of up to 3 numbers into x->range (x->nints of them): the
 * row callback, and sql asked with it. */
int fleet_resolve_ints_row(void *arg, struct fleet_tsv_field *, size_t n,
    struct error *);
int fleet_resolve_ints(struct fleet_source *, char *sql, struct error *);

#endif
