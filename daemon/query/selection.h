/* selection.h: which stored samples a query reads: scopes, a metric, a
 * time window, profile ids and label filters.  Parsed from query
 * parameters by name and value, so this module knows no HTTP. */
#ifndef PROFD_SELECTION_H
#define PROFD_SELECTION_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kind.h"
#include "store.h"

/* pprof's frame filters, Go regular expressions (rx.h) matched
 * (unanchored) against function names, source files and mapping files. */
enum frame_filter_kind { FF_FOCUS, FF_IGNORE, FF_HIDE, FF_SHOW, FF_COUNT };

struct rx;

struct selection {
	/* Parsing only keeps the pattern: compiling is work for the query
	 * threads (selection_compile), never for the event loop. */
	char *re_src[FF_COUNT];
	struct rx *re[FF_COUNT];
	int have_re[FF_COUNT];
	char **scopes;
	size_t nscopes;
	char *metric;			/* TYPE or TYPE/UNIT, NULL = default */
	int64_t since_ns, until_ns;	/* when has_since, has_until */
	int has_since, has_until;	/* 0: that end is open */
	int64_t *profiles;
	size_t nprofiles;
	struct label_filter *labels;
	size_t nlabels;
	enum metric_aggregate aggregate;	/* aggregate=, or the kind's */
};

/* Take one query parameter: 1 if it was a selection parameter, 0 if not,
 * -1 (ERR_INPUT naming the parameter) if its value is bad.  Times are
 * RFC 3339 or relative to now ("-1h", "-30m", "-10s", "-2d"). */
int selection_param(struct selection *, const char *key, const char *value,
    int64_t now_ns, struct error *);
/* Is key the name of a selection parameter (one selection_param takes)? */
int selection_key(const char *key);
/* The window's ends in whole seconds, as the store's time buckets count
 * them (floor); an open end is INT64_MIN or INT64_MAX. */
void selection_window(const struct selection *, int64_t *since_s,
    int64_t *until_s);
/* After the parameters: at least one scope, since before until. */
int selection_check(const struct selection *, struct error *);
/* Compile the frame filters (once; again is a no-op): -1 with ERR_INPUT
 * naming the parameter if one does not compile.  Off the event loop. */
int selection_compile(struct selection *, struct error *);
void selection_clear(struct selection *);
/* Has the selection any of the frame filters (focus, ignore, hide, show)? */
int selection_frame_filters(const struct selection *);
/* An RFC 3339 time or one relative to now, in ns since the epoch.  Times
 * past what int64 ns can hold (before 1677-09-21, after 2262-04-11) are
 * clamped to INT64_MIN and INT64_MAX, which as bounds keep their side:
 * a since after 2262 selects nothing, an until after it everything. */
int selection_time(const char *, int64_t now_ns, int64_t *ns,
    struct error *);

#endif
