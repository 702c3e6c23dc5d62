/* api-traces.c: GET /v1/traces: every sample's stack, labels and value
 * (pprof's -traces), as JSON or (format=text) as the text go tool pprof
 * prints, which profctl passes through: tens of thousands of lines are
 * then written once, here, not carried in JSON to be written again.  A
 * large selection has millions of lines of them, so the reply is
 * streamed (api-stream.c) in chunks as it is written: the memory it
 * holds is one chunk, whatever the selection. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "buf.h"
#include "clock.h"
#include "csindex.h"
#include "jsonw.h"
#include "model.h"
#include "query.h"
#include "selection.h"
#include "traces.h"
#include "units.h"

/* A chunk of reply is handed to the stream when the buffer passes this:
 * large enough that the hand-offs to the loop are few (a thousand
 * traces are about 600 kB of text), small against the memory of a
 * query. */
#define TRACES_CHUNK		(256 * 1024)
/* How long the work waits for a client that does not read. */
#define TRACES_WAIT_NS		(60LL * 1000000000)

struct traces_req {
	struct selection sel;
	long long limit;		/* -1 = all */
	int text;			/* format=text */
};

static const char traces_sep[] =
    "-----------+-------------------------------------------------------\n";

static void
traces_req_free(void *arg)
{
	struct traces_req *t = arg;

	selection_clear(&t->sel);
	free(t);
}

/* Does label j have label i's key and is it a number (num) or not? */
static int
traces_key_same(const struct sample_label *l, size_t i, size_t j, int num)
{
	return (l[j].str == NULL) == num && strcmp(l[j].key, l[i].key) == 0;
}

/* Is label i the first of its kind (string or number) with its key?  A
 * set's labels are grouped by key, keys in the order first met. */
static int
traces_key_first(const struct sample_label *l, size_t i, int num)
{
	size_t k;

	if ((l[i].str == NULL) != num)
		return 0;
	for (k = 0; k < i; k++)
		if (traces_key_same(l, i, k, num))
			return 0;
	return 1;
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
			if (!traces_key_first(l, i, num))
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
				if (!traces_key_same(l, i, j, num))
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
struct traces_line {
	char *p;
	size_t n;
};

struct traces_refs {
	struct traces_line *lines;	/* per name id and inline: text */
	size_t nnames;			/* the index's when they were made */
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

static int
traces_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* printTraces' label lines of a set: "%10s:  v1 v2" per key, the string
 * labels' sorted, then the numbers' (scaled as measurement.Label). */
static char *
traces_text_labels(const struct samples *sm, int64_t set)
{
	const struct sample_label *l;
	struct buf out = { 0 };
	char **lines = NULL, *line, *tmp, a[UNITS_LABEL_MAX];
	size_t n, i, j, nl;
	int num;

	l = samples_labels(sm, set, &n);
	for (num = 0; num < 2; num++) {
		nl = 0;
		for (i = 0; i < n; i++) {
			if (!traces_key_first(l, i, num))
				continue;
			xasprintf(&line, "%10s: ", l[i].key);
			for (j = i; j < n; j++) {
				if (!traces_key_same(l, i, j, num))
					continue;
				xasprintf(&tmp, "%s %s", line, num ?
				    units_scaled_label(l[j].num,
				    samples_unit(sm, l[j].key), "auto", a,
				    sizeof a) : l[j].str);
				free(line);
				line = tmp;
			}
			lines = xappendarray(lines, nl, sizeof *lines);
			lines[nl++] = line;
		}
		if (nl > 1)
			qsort(lines, nl, sizeof *lines, traces_strcmp);
		for (i = 0; i < nl; i++) {
			buf_add(&out, lines[i], strlen(lines[i]));
			buf_add(&out, "\n", 1);
			free(lines[i]);
		}
	}
	free(lines);
	buf_add(&out, "", 1);
	return (char *)out.p;
}

/* One trace as printTraces prints it: the separator, its label set's
 * lines (made once per set), its frames leaf first, the value beside the
 * first, "(inline)" after those inlined into the next. */
/* The last value printed, as printed: traces come by value, so equal
 * values follow each other. */
struct traces_value {
	int64_t value;
	size_t n;
	char text[UNITS_LABEL_MAX];
};

static void
traces_text_one(struct buf *out, const struct samples *sm, size_t i,
    char **set_lines, struct traces_line *lines, struct traces_value *vc)
{
	const struct stackwalk *w = &sm->w;
	char a[UNITS_LABEL_MAX];
	const char *name;
	size_t d, set;

	buf_add(out, traces_sep, sizeof traces_sep - 1);
	if (sm->s[i].labelset != 0 &&
	    (set = samples_set(sm, sm->s[i].labelset)) != SIZE_MAX) {
		if (set_lines[set] == NULL)
			set_lines[set] = traces_text_labels(sm,
			    sm->s[i].labelset);
		buf_add(out, set_lines[set], strlen(set_lines[set]));
	}
	for (d = w->n; d-- > 0;) {
		size_t at = 2 * (size_t)w->name[d] +
		    ((w->flags[d] & FRAME_INLINED) != 0);
		struct traces_line *l = &lines[at];

		/* Each function's line, made once: a trace has tens of
		 * them, and the same few come back trace after trace. */
		if (l->p == NULL) {
			name = csindex_name_str(w->idx, w->name[d]);
			l->n = (size_t)xasprintf(&l->p, "%13s%s%s\n", "", name,
			    at % 2 ? " (inline)" : "");
		}
		if (d + 1 < w->n) {
			buf_add(out, l->p, l->n);
			continue;
		}
		/* "%10s   ": right-aligned, never cut.  Values repeat (a
		 * CPU profile's are multiples of its period): each is
		 * scaled once. */
		if (sm->s[i].value != vc->value || vc->n == 0) {
			units_scaled_label(sm->s[i].value, sm->metric.unit,
			    "minimum", a, sizeof a);
			vc->value = sm->s[i].value;
			vc->n = strlen(a);
			if (vc->n < 10) {
				memset(vc->text, ' ', 10 - vc->n);
				memcpy(vc->text + 10 - vc->n, a, vc->n);
				vc->n = 10;
			} else
				memcpy(vc->text, a, vc->n);
		}
		buf_add(out, vc->text, vc->n);
		buf_add(out, l->p + 10, l->n - 10);
	}
}

/* The head of the text: what profctl prints above every view. */
static void
traces_text_head(struct buf *out, const struct traces_req *t,
    const struct samples *sm, size_t shown, size_t n)
{
	char *s, line[512];

	aggregate_type_line(line, sizeof line, sm->metric.type,
	    sm->metric.aggregate, sm->nprofiles);
	xasprintf(&s, "Scope: %s (%lld profile%s)\n%s",
	    t->sel.scopes[0], (long long)sm->nprofiles,
	    sm->nprofiles == 1 ? "" : "s", line);
	buf_add(out, s, strlen(s));
	free(s);
	if (shown < n) {
		xasprintf(&s, "Traces: the %zu largest of %zu\n", shown, n);
		buf_add(out, s, strlen(s));
		free(s);
	}
}

static void
traces_work(struct api_call *call, void *worker)
{
	struct query_worker *w = worker;
	struct traces_req *t = call->data;
	struct traces_refs r;
	struct traces_value vc = { 0, 0, "" };
	struct samples sm;
	struct buf out = { 0 };
	char **set_lines;
	size_t *order = NULL, n, i, shown;

	if (traces_open(w->store, w->index, &t->sel, &sm, &order, &n,
	    &call->err) == -1)
		return;
	memset(&r, 0, sizeof r);
	/* The index is held: no name is added until samples_close. */
	r.nnames = csindex_nnames(w->index);
	r.fn_at = xcalloc(r.nnames + 1, sizeof *r.fn_at);
	r.lines = xcalloc(2 * r.nnames + 1, sizeof *r.lines);
	r.fns = xreallocarray(NULL, r.nnames + 1, sizeof *r.fns);
	r.set_at = xcalloc(sm.nsets + 1, sizeof *r.set_at);
	r.sets = xreallocarray(NULL, sm.nsets + 1, sizeof *r.sets);
	set_lines = xcalloc(sm.nsets + 1, sizeof *set_lines);
	shown = t->limit >= 0 && (size_t)t->limit < n ? (size_t)t->limit : n;
	if (t->text)
		traces_text_head(&out, t, &sm, shown, n);
	else {
		api_jsonw_head(&out, t->sel.scopes[0], &sm.metric, sm.total,
		    sm.nprofiles);
		jsonw_mint(&out, "traces_total", (int64_t)n);
		jsonw_raw(&out, ",\"traces\":[");
	}
	for (i = 0; i < shown; i++) {
		if (samples_walk(&sm, order[i], &call->err) == -1)
			break;
		if (t->text)
			traces_text_one(&out, &sm, order[i], set_lines,
			    r.lines, &vc);
		else
			traces_one_json(&out, &sm, order[i], &r, i == 0);
		if (out.n >= TRACES_CHUNK) {
			if (api_stream_write(call, out.p, out.n, mono_ns() +
			    TRACES_WAIT_NS, &call->err) == -1)
				break;
			out.n = 0;
		}
	}
	if (!t->text) {
		jsonw_raw(&out, "]");
		if (call->err.kind == ERR_NONE)
			traces_refs_json(&out, &sm, &r);
	} else if (call->err.kind == ERR_NONE)
		buf_add(&out, traces_sep, sizeof traces_sep - 1);
	for (i = 0; i < sm.nsets; i++)
		free(set_lines[i]);
	free(set_lines);
	samples_close(&sm);
	free(order);
	free(r.fn_at);
	for (i = 0; i < 2 * r.nnames; i++)
		free(r.lines[i].p);
	free(r.lines);
	free(r.fns);
	free(r.set_at);
	free(r.sets);
	if (call->err.kind != ERR_NONE && !api_stream_started(call)) {
		buf_free(&out);
		return;
	}
	api_cancel_reason(call, &call->err);
	if (call->err.kind != ERR_NONE && t->text) {
		/* The status line is out: the error ends the body, on a line
		 * of its own where the last separator would be. */
		char *e;

		xasprintf(&e, "profd: %s: %s\n", error_kind_name(
		    call->err.kind), call->err.msg);
		buf_add(&out, e, strlen(e));
		free(e);
		error_clear(&call->err);
	} else if (call->err.kind != ERR_NONE) {
		/* The status line is out: the error ends the body. */
		jsonw_mstr(&out, "error", error_kind_name(call->err.kind));
		jsonw_mstr(&out, "detail", call->err.msg);
		error_clear(&call->err);
	}
	if (!t->text)
		jsonw_raw(&out, "}\n");
	if (api_stream_started(call)) {
		api_stream_last(call, out.p, out.n);
		buf_free(&out);
		return;
	}
	api_result_blob(call, 200, t->text ? "text/plain; charset=utf-8" :
	    "application/json", out.p, out.n);
}

void
api_traces_get(struct api_call *call)
{
	struct traces_req *t;

	t = xcalloc(1, sizeof *t);
	call->data = t;
	call->free_data = traces_req_free;
	if (api_selection(call, &t->sel, NULL) == -1 ||
	    api_limit(call, &t->limit) == -1)
		return;
	if (api_text_format(call, &t->text) == -1)
		return;
	if (api_stream_open(call, t->text ? "text/plain; charset=utf-8" :
	    "application/json") == -1) {
		api_error(call, 503, "out of memory; retry later");
		return;
	}
	api_submit(call, API_QUERY, traces_work);
}
