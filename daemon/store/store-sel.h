/* store-sel.h: one read of sample values as store-select.c plans and
 * runs it, shared with the files that turn what it collects into answers
 * (store-select-out.c) or give some of its rollup runs their own reading
 * (store-fsum.c); nothing outside the store includes it. */
#ifndef PROFD_STORE_SEL_H
#define PROFD_STORE_SEL_H

#include "hmap.h"
#include "kv.h"
#include "sblock.h"
#include "srows.h"
#include "store-rollup.h"

/* Rows collected by a read of buckets or of everything before they are
 * merged. */
#define READ_MERGE_ROWS		(1024u * 1024)

typedef int sel_offer_fn(void *, int64_t id, int64_t base,
    const void *data, size_t len, struct error *);
/* A rollup run offered by its id alone, before its bytes are read: 1
 * taken (neither read nor decoded), 0 read and offered as usual. */
typedef int sel_known_fn(void *, int64_t id, int64_t start);

enum sel_mode { SEL_VALUES, SEL_BUCKETS, SEL_ALL, SEL_GROUPS };

/* One read: its plan (rollups for [hlo, hhi], days for [dlo, dhi] of it,
 * blocks for the rest of [lo, hi]) and what it collects. */
struct sel {
	struct store *s;
	const struct store_filter *f;
	enum sel_mode mode;
	int64_t metric;			/* 0: every metric */
	int64_t lo, hi;
	int rollups;
	int64_t hlo, hhi, dlo, dhi;
	int64_t *scopes;
	size_t nscopes;
	struct imap scopeset;
	struct imap *lsmatch, *pmatch;	/* per label filter */
	/* Per filter: the profile's mark (1 matches, 2 has the key and
	 * does not: regex filters, store-labelrx.c), and whether an
	 * absent key matches (a pattern matching ""). */
	uint8_t *pbits, *empty_ok;
	int64_t last_ls;
	int last_ok;
	struct imap profiles;		/* with a selected row */
	struct imap counted;		/* f->raw: profiles looked up */
	struct hmap rawm;		/* (profile, metric) under raw tags */
	int64_t *colm;			/* per column of a block: its metric,
					 * 0 to skip (SEL_ALL) */
	size_t ncolm;
	struct hole {
		int64_t scope, lo, hi;
	} *holes;			/* windows without a rollup, in H */
	size_t nholes;
	struct sblock_dec dec;
	struct kvsum sums;		/* SEL_VALUES: (callsite, value) */
	struct srows acc;		/* SEL_BUCKETS, SEL_ALL, SEL_GROUPS */
	int64_t profile;		/* SEL_GROUPS: the block's */
	size_t limit;
	/* A rollup run of the read's one metric offered before it is
	 * decoded (id, start, data): 1 taken (not decoded), 0 decoded as
	 * usual, -1 error; and a block whose every row the read takes (id,
	 * bucket_min, data): 1 taken and its profile counts, 2 taken and it
	 * does not (no row of the metric's), 0, -1 the same.  NULL: every
	 * one decoded. */
	sel_offer_fn *run, *block;
	void *run_arg;
	/* With run: the runs offered by id first (schema 14: a run's id is
	 * never used again, so the id is the run), listed without their
	 * bytes (SB_ROLLUP_IDS) and the bytes of the runs not taken read by
	 * id (SB_ROLLUP_DATA).  NULL: SB_ROLLUPS, bytes and all. */
	sel_known_fn *known;
	struct error *err;
};

/* A read planned and run (run, block and their argument: struct sel); on
 * failure nothing is left to clear. */
int sel_collect(struct sel *, struct store *, const struct store_filter *,
    enum sel_mode, sel_offer_fn *run, sel_offer_fn *block, void *run_arg,
    struct error *);
/* The same with the runs offered by id first (struct sel's known). */
struct sel_offers {
	sel_offer_fn *run, *block;
	sel_known_fn *known;
	void *arg;
};
int sel_collect_offers(struct sel *, struct store *,
    const struct store_filter *, enum sel_mode, const struct sel_offers *,
    struct error *);
void sel_clear(struct sel *);
/* SEL_VALUES: the pairs by callsite, the profiles counted; q cleared. */
void sel_values_out(struct sel *, struct store_cs_value **, size_t *,
    int64_t *nprofiles);
/* Pairs summed per callsite, as the answer's pairs sorted by callsite. */
void sel_pairs_out(struct kvsum *, struct store_cs_value **, size_t *);
/* store_select_values without the pairs kept between calls: every run
 * and block of the window read (store-select-out.c's and
 * store-gauge-sums.c's fallback). */
int sel_select_plain(struct store *, const struct store_filter *,
    struct store_cs_value **, size_t *, int64_t *nprofiles,
    struct error *);

#endif
