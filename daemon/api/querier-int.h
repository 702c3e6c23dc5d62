/* querier-int.h: what the querier's files share, in their one-way order:
 * api-querier.c (the calls on the loop, their bodies decoded and their
 * replies on the query thread) calls querier-labels.c (ProfileTypes,
 * LabelNames, LabelValues, Series) and querier-select.c (SelectSeries,
 * SelectMergeStacktraces, SelectMergeProfile; it uses labels'
 * querier_series_keep) and querier-series.c (SelectSeries, over
 * querier-select.c's selection), which call querier-env.c (selectors,
 * window, scopes, series, errors); querier-reply.c writes the replies. */
#ifndef PROFD_QUERIER_INT_H
#define PROFD_QUERIER_INT_H

#include <event2/buffer.h>

#include "api.h"
#include "labelsel.h"
#include "pyrotype.h"
#include "querier-reply.h"
#include "querier-req.h"
#include "selection.h"
#include "series.h"

struct query_worker;
struct stack_source;

/* A call of the querier, from the loop to its reply. */
struct qcall {
	struct evbuffer *body;
	int json, gzip;
	enum querier_method method;
	struct api_fleet_params src;	/* api_pyro_source */
	struct querier_req req;
	struct querier_reply reply;
	/* The reply is a pprof Profile (SelectMergeProfile), not reply. */
	uint8_t *profile;
	size_t profile_len;
	/* The scopes of the source (querier_scopes), for the selectors. */
	struct store_scope_info *scopes;
	size_t nscopes;
	/* A time series reply's bounds (query-max-series, -points), as
	 * the settings were when the call came. */
	size_t max_series, max_points;
};

/* The method's work, on the query thread: 0 with qc->reply (or
 * qc->profile) filled, or -1 with err. */
struct qenv {
	struct qcall *qc;
	struct stack_source *src;
	struct query_worker *w;		/* the store beside src */
};

/* querier-env.c */
/* A selector's labelsel (the field named what, for errors). */
int querier_labelsel(const char *s, const char *what, struct labelsel *,
    struct error *);
/* The request's window into sel: start and end in ms (0: open). */
int querier_window(const struct querier_req *, struct selection *,
    struct error *);
/* The scopes of the source ls keeps into sel (labelsel_select), its
 * label filters, and the request's window. */
int querier_selection(struct qenv *, const struct labelsel *,
    struct selection *, struct error *);
/* The source's scopes into qc->scopes (once a call). */
int querier_scopes(struct qenv *, struct error *);
/* A scope of the source by name (after querier_selection), or NULL. */
const struct store_scope_info *querier_scope(struct qenv *, const char *);
/* The source reads this host's store (not the fleet). */
int querier_local(const struct qenv *);
/* The series of the scopes sel names (series.h), from the store, or,
 * for the fleet, one per scope and metric from its scopes, without
 * labels. */
int querier_series(struct qenv *, const struct selection *, int samples,
    struct series_result *, struct error *);

/* querier-labels.c */
int querier_profile_types(struct qenv *, struct error *);
int querier_label_names(struct qenv *, struct error *);
int querier_label_values(struct qenv *, struct error *);
int querier_series_list(struct qenv *, struct error *);
int querier_profile_stats(struct qenv *, struct error *);
/* The series of r a selector's __name__ and __profile_type__ matchers
 * keep (the others are the selection's). */
int querier_series_keep(const struct labelsel *, const struct series *);

/* querier-select.c */
int querier_select_stacks(struct qenv *, struct error *);
int querier_select_profile(struct qenv *, struct error *);
/* The request's selection into sel and its selector into ls; 1 when no
 * selected scope has the profile type (an empty answer). */
int querier_select_prepare(struct qenv *, struct labelsel *,
    struct selection *, struct pyrotype *, struct error *);
void querier_select_clear(struct labelsel *, struct selection *);

/* querier-series.c */
int querier_select_series(struct qenv *, struct error *);

#endif
