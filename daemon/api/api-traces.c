/* api-traces.c: GET /v1/traces: every sample's stack, labels and value
 * (pprof's -traces).  A large selection has millions of lines of them, so
 * the reply is streamed (api-stream.c) in chunks as it is written: the
 * memory it holds is one chunk, whatever the selection. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "csindex.h"
#include "jsonw.h"
#include "model.h"
#include "query.h"
#include "selection.h"
#include "traces.h"
#include "util.h"

/* A chunk of reply is handed to the stream when the buffer passes this. */
#define TRACES_CHUNK		(64 * 1024)
/* How long the work waits for a client that does not read. */
#define TRACES_WAIT_NS		(60LL * 1000000000)

struct traces_req {
	struct selection sel;
	long long limit;		/* -1 = all */
};

static void
traces_req_free(void *arg)
{
	struct traces_req *t = arg;

	selection_clear(&t->sel);
	free(t);
}

/* The labels of a set grouped by key, keys in the order first met:
 * "labels" {key: [strings]} and "num_labels" {key: {unit, values}}. */
static void
traces_labels_json(struct buf *out, const struct samples *sm, int64_t set)
{
	const struct sample_label *l;
	size_t n, i, j, k;
	int num, first;

	l = samples_labels(sm, set, &n);
	for (num = 0; num < 2; num++) {
		jsonw_raw(out, num ? ",\"num_labels\":{" : "\"labels\":{");
		first = 1;
		for (i = 0; i < n; i++) {
			if ((l[i].str == NULL) != num)
				continue;
			for (k = 0; k < i; k++)
				if ((l[k].str == NULL) == num &&
				    strcmp(l[k].key, l[i].key) == 0)
					break;
			if (k < i)
				continue;
			if (!first)
				jsonw_raw(out, ",");
			first = 0;
			jsonw_key(out, l[i].key);
			if (num) {
				jsonw_raw(out, "{");
				jsonw_key(out, "unit");
				jsonw_str(out, samples_unit(sm, l[i].key));
				jsonw_raw(out, ",\"values\":[");
			} else
				jsonw_raw(out, "[");
			for (j = i, k = 0; j < n; j++) {
				if ((l[j].str == NULL) != num ||
				    strcmp(l[j].key, l[i].key) != 0)
					continue;
				if (k++ > 0)
					jsonw_raw(out, ",");
				if (num)
					jsonw_int(out, l[j].num);
				else
					jsonw_str(out, l[j].str);
			}
			jsonw_raw(out, num ? "]}" : "]");
		}
		jsonw_raw(out, "}");
	}
}

/* What the traces name, each listed once after them: functions (name
 * ids of the index) and label sets (indices into sm->sets), numbered in
 * the order they are first met.  A trace is then a few numbers: the
 * reply is a tenth of the size with names in it, and as much quicker to
 * write and to read. */
struct traces_refs {
	uint32_t *fn_at;		/* per name id: 1 + its number, 0 */
	uint32_t *fns;
	size_t nfns;
	uint32_t *set_at;		/* per label set: 1 + its number, 0 */
	size_t *sets;
	size_t nsets;
};

/* One trace: value, label set, frames leaf first (pprof's order) and the
 * positions of those inlined into the frame after them. */
static void
traces_one_json(struct buf *out, const struct samples *sm, size_t i,
    struct traces_refs *r, int first)
{
	const struct stackwalk *w = &sm->w;
	size_t d, k, set;

	jsonw_raw(out, first ? "{" : ",{");
	jsonw_key(out, "value");
	jsonw_int(out, sm->s[i].value);
	if (sm->s[i].labelset != 0 &&
	    (set = samples_set(sm, sm->s[i].labelset)) != SIZE_MAX) {
		if (r->set_at[set] == 0) {
			r->sets[r->nsets++] = set;
			r->set_at[set] = (uint32_t)r->nsets;
		}
		jsonw_mint(out, "label_set", r->set_at[set] - 1);
	}
	jsonw_raw(out, ",\"frames\":[");
	for (d = w->n, k = 0; d-- > 0; k++) {
		uint32_t nm = w->name[d];

		if (r->fn_at[nm] == 0) {
			r->fns[r->nfns++] = nm;
			r->fn_at[nm] = (uint32_t)r->nfns;
		}
		if (k > 0)
			jsonw_raw(out, ",");
		jsonw_int(out, r->fn_at[nm] - 1);
	}
	jsonw_raw(out, "]");
	for (d = w->n, k = 0, first = 1; d-- > 0; k++) {
		if (!(w->flags[d] & FRAME_INLINED))
			continue;
		jsonw_raw(out, first ? ",\"inline\":[" : ",");
		jsonw_int(out, (int64_t)k);
		first = 0;
	}
	jsonw_raw(out, first ? "}" : "]}");
}

/* The tables the traces refer to, after them. */
static void
traces_refs_json(struct buf *out, const struct samples *sm,
    const struct traces_refs *r)
{
	size_t i;

	jsonw_raw(out, ",\"functions\":[");
	for (i = 0; i < r->nfns; i++) {
		if (i > 0)
			jsonw_raw(out, ",");
		jsonw_str(out, csindex_name_str(sm->w.idx, r->fns[i]));
	}
	jsonw_raw(out, "],\"label_sets\":[");
	for (i = 0; i < r->nsets; i++) {
		jsonw_raw(out, i > 0 ? ",{" : "{");
		traces_labels_json(out, sm, sm->sets[r->sets[i]]);
		jsonw_raw(out, "}");
	}
	jsonw_raw(out, "]");
}

static void
traces_work(struct api_call *call, void *worker)
{
	struct query_worker *w = worker;
	struct traces_req *t = call->data;
	struct traces_refs r;
	struct samples sm;
	struct buf out = { 0 };
	size_t *order = NULL, n, i, shown;

	if (traces_open(w->store, w->index, &t->sel, &sm, &order, &n,
	    &call->err) == -1)
		return;
	memset(&r, 0, sizeof r);
	r.fn_at = xcalloc(csindex_nnames(w->index) + 1, sizeof *r.fn_at);
	r.fns = xreallocarray(NULL, csindex_nnames(w->index) + 1,
	    sizeof *r.fns);
	r.set_at = xcalloc(sm.nsets + 1, sizeof *r.set_at);
	r.sets = xreallocarray(NULL, sm.nsets + 1, sizeof *r.sets);
	shown = t->limit >= 0 && (size_t)t->limit < n ? (size_t)t->limit : n;
	api_jsonw_head(&out, t->sel.scopes[0], &sm.metric, sm.total,
	    sm.nprofiles);
	jsonw_mint(&out, "traces_total", (int64_t)n);
	jsonw_raw(&out, ",\"traces\":[");
	for (i = 0; i < shown; i++) {
		if (samples_walk(&sm, order[i], &call->err) == -1)
			break;
		traces_one_json(&out, &sm, order[i], &r, i == 0);
		if (out.n >= TRACES_CHUNK) {
			if (api_stream_write(call, out.p, out.n, mono_ns() +
			    TRACES_WAIT_NS, &call->err) == -1)
				break;
			out.n = 0;
		}
	}
	jsonw_raw(&out, "]");
	if (call->err.kind == ERR_NONE)
		traces_refs_json(&out, &sm, &r);
	samples_close(&sm);
	free(order);
	free(r.fn_at);
	free(r.fns);
	free(r.set_at);
	free(r.sets);
	if (call->err.kind != ERR_NONE && !api_stream_started(call)) {
		buf_free(&out);
		return;
	}
	if (call->err.kind != ERR_NONE) {
		/* The status line is out: the error ends the body. */
		jsonw_mstr(&out, "error", error_kind_name(call->err.kind));
		jsonw_mstr(&out, "detail", call->err.msg);
		error_clear(&call->err);
	}
	jsonw_raw(&out, "}\n");
	if (api_stream_started(call)) {
		api_stream_last(call, out.p, out.n);
		buf_free(&out);
		return;
	}
	api_result_blob(call, 200, "application/json", out.p, out.n);
}

void
api_traces_get(struct api_call *call)
{
	static const char *const own[] = { "limit", NULL };
	struct traces_req *t;

	t = xcalloc(1, sizeof *t);
	call->data = t;
	call->free_data = traces_req_free;
	if (api_selection(call, &t->sel, NULL, own) == -1 ||
	    api_limit(call, &t->limit) == -1)
		return;
	if (api_stream_open(call, "application/json") == -1) {
		api_error(call, 503, "out of memory; retry later");
		return;
	}
	api_submit(call, API_QUERY, traces_work);
}
