/* api-peek.c: GET /v1/peek: the callers and callees of the functions
 * matching regex, with their flat and cum (pprof's -peek), as JSON or
 * (format=text) as the text go tool pprof prints, which profctl prints as
 * it is. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "buf.h"
#include "jsonw.h"
#include "peek.h"
#include "query.h"
#include "rx.h"
#include "selection.h"
#include "units.h"

struct peek_req {
	struct selection sel;
	struct api_fleet_params fleet;
	char *regex;
	int granularity;
	int text;			/* format=text */
};

static void
peek_req_free(void *arg)
{
	struct peek_req *t = arg;

	selection_clear(&t->sel);
	api_fleet_params_clear(&t->fleet);
	free(t->regex);
	free(t);
}

/* An edge as [function, weight, inline]: the function a number into the
 * reply's "functions", which lists each name once (a node's edges name
 * the same few functions again and again). */
static void
peek_edges_json(struct buf *out, const char *key, const struct top_edge *e,
    size_t n, int in, uint32_t *fn_at, size_t *fns, size_t *nfns)
{
	size_t i, row;

	jsonw_raw(out, ",");
	jsonw_key(out, key);
	jsonw_raw(out, "[");
	for (i = 0; i < n; i++) {
		row = in ? e[i].caller : e[i].callee;
		if (fn_at[row] == 0) {
			fns[(*nfns)++] = row;
			fn_at[row] = (uint32_t)*nfns;
		}
		jsonw_raw(out, i > 0 ? ",[" : "[");
		jsonw_int(out, fn_at[row] - 1);
		jsonw_raw(out, ",");
		jsonw_int(out, e[i].weight);
		jsonw_raw(out, e[i].inl ? ",true]" : ",false]");
	}
	jsonw_raw(out, "]");
}

/* printTree's edge lines: weight, share of the node's cum, the other
 * end, "(inline)". */
static void
peek_text_edges(struct buf *out, const struct top_result *t,
    const struct top_edge *e, size_t n, int in, const char *unit,
    int64_t cum)
{
	char a[UNITS_LABEL_MAX], pa[UNITS_PERCENT_MAX];
	size_t i;

	for (i = 0; i < n; i++)
		buf_printf(out, "%50s %s |   %s%s\n", units_scaled_label(
		    e[i].weight, t->metric.unit, unit, a, sizeof a),
		    units_percentage(e[i].weight, cum, pa, sizeof pa),
		    t->rows[in ? e[i].caller : e[i].callee].function,
		    e[i].inl ? " (inline)" : "");
}

/* What go tool pprof -peek prints after its header (report.go
 * printTree), under profctl's two lines naming the scope and the type:
 * written here, as one text, so that profctl prints it as it is. */
static void
peek_text(struct buf *out, const struct peek_req *t,
    const struct peek_result *r)
{
	static const char sep[] =
	    "----------------------------------------------------------+"
	    "-------------\n";
	const struct top_result *tp = &r->top;
	char a[UNITS_LABEL_MAX], b[UNITS_LABEL_MAX];
	char pa[UNITS_PERCENT_MAX], pb[UNITS_PERCENT_MAX];
	char pc[UNITS_PERCENT_MAX], line[512];
	const char *unit, *pct;
	int64_t sum = 0;
	size_t i;

	/* selectOutputUnit over every node of the graph. */
	unit = units_output_unit(tp->metric.unit, r->min_value, tp->total);
	aggregate_type_line(line, sizeof line, tp->metric.type,
	    tp->metric.aggregate, tp->nprofiles);
	buf_printf(out, "Scope: %s (%lld profile%s)\n%s",
	    t->sel.scopes[0], (long long)tp->nprofiles,
	    tp->nprofiles == 1 ? "" : "s", line);
	for (pct = units_percentage(tp->flat_sum, tp->total, pa, sizeof pa);
	    *pct == ' '; pct++)
		;
	buf_printf(out, "Showing nodes accounting for %s, %s of %s total\n",
	    units_scaled_label(tp->flat_sum, tp->metric.unit, unit, a,
	    sizeof a), pct, units_scaled_label(tp->total, tp->metric.unit,
	    unit, b, sizeof b));
	buf_printf(out, "%s      flat  flat%%   sum%%        cum   cum%%   "
	    "calls calls%% + context \t \t \n", sep);
	for (i = 0; i < r->nnodes; i++) {
		const struct peek_node *n = &r->nodes[i];
		const struct top_row *row = &tp->rows[n->row];

		buf_add(out, sep, sizeof sep - 1);
		peek_text_edges(out, tp, n->in, n->nin, 1, unit, row->cum);
		sum += row->flat;
		buf_printf(out, "%10s %s %s %10s %s                | %s\n",
		    units_scaled_label(row->flat, tp->metric.unit, unit, a,
		    sizeof a), units_percentage(row->flat, tp->total, pa,
		    sizeof pa), units_percentage(sum, tp->total, pb,
		    sizeof pb), units_scaled_label(row->cum, tp->metric.unit,
		    unit, b, sizeof b), units_percentage(row->cum, tp->total,
		    pc, sizeof pc), row->function);
		peek_text_edges(out, tp, n->out, n->nout, 0, unit, row->cum);
	}
	if (tp->nrows > 0)
		buf_add(out, sep, sizeof sep - 1);
}

static void
peek_reply(struct api_call *call, struct peek_result *rp)
{
	struct peek_req *t = call->data;
	struct peek_result r = *rp;
	struct buf out = { 0 };
	uint32_t *fn_at;
	size_t i, *fns, nfns = 0;

	if (t->text) {
		peek_text(&out, t, &r);
		api_result_blob(call, 200, "text/plain; charset=utf-8", out.p,
		    out.n);
		peek_result_clear(&r);
		return;
	}
	api_jsonw_head(&out, t->sel.scopes[0], &r.top.metric, r.top.total,
	    r.top.nprofiles);
	jsonw_mstr(&out, "regex", t->regex);
	jsonw_mint(&out, "flat_sum", r.top.flat_sum);
	jsonw_mint(&out, "min_value", r.min_value);
	jsonw_mint(&out, "nodes_total", (int64_t)r.top.nrows);
	fn_at = xcalloc(r.top.nrows + 1, sizeof *fn_at);
	fns = xreallocarray(NULL, r.top.nrows + 1, sizeof *fns);
	jsonw_raw(&out, ",\"nodes\":[");
	for (i = 0; i < r.nnodes; i++) {
		const struct peek_node *n = &r.nodes[i];
		const struct top_row *row = &r.top.rows[n->row];

		jsonw_raw(&out, i > 0 ? ",{" : "{");
		jsonw_key(&out, "function");
		jsonw_str(&out, row->function);
		jsonw_mint(&out, "flat", row->flat);
		jsonw_mint(&out, "cum", row->cum);
		peek_edges_json(&out, "callers", n->in, n->nin, 1, fn_at, fns,
		    &nfns);
		peek_edges_json(&out, "callees", n->out, n->nout, 0, fn_at,
		    fns, &nfns);
		jsonw_raw(&out, "}");
	}
	jsonw_raw(&out, "],\"functions\":[");
	for (i = 0; i < nfns; i++) {
		if (i > 0)
			jsonw_raw(&out, ",");
		jsonw_str(&out, r.top.rows[fns[i]].function);
	}
	jsonw_raw(&out, "]}\n");
	free(fn_at);
	free(fns);
	buf_add(&out, "", 1);
	api_result_text(call, 200, "application/json", (char *)out.p);
	peek_result_clear(&r);
}

/* Compiled in the work, on the query thread, as the frame filters are:
 * NULL with the call's error set if it does not compile. */
struct rx *
api_regex_compile(struct api_call *call, const char *src)
{
	struct rx *re;
	char why[256];

	if ((re = rx_new(src, strlen(src), 0, why, sizeof why)) == NULL)
		error_set(&call->err, ERR_INPUT, "regex: %s", why);
	return re;
}

/* The regex parameter views that name functions need. */
char *
api_regex_param(struct api_call *call)
{
	const char *re = api_param(call, "regex");

	if (re == NULL || *re == '\0') {
		api_error(call, 400, "regex: missing (a regular expression "
		    "matching function names)");
		return NULL;
	}
	if (strlen(re) > RX_MAX_PATTERN) {
		api_error(call, 400, "regex: longer than %d bytes",
		    RX_MAX_PATTERN);
		return NULL;
	}
	return xstrdup(re);
}

static void
peek_work(struct api_call *call, struct stack_source *src)
{
	struct peek_req *t = call->data;
	struct peek_params p;
	struct peek_result r;
	struct rx *re;
	int rc;

	memset(&p, 0, sizeof p);
	p.sel = &t->sel;
	p.granularity = t->granularity;
	p.re_src = t->regex;
	if ((p.re = re = api_regex_compile(call, t->regex)) == NULL)
		return;
	rc = peek_query(src, &p, &r, &call->err);
	rx_free(re);
	if (rc == 0)
		peek_reply(call, &r);
}

void
api_peek_get(struct api_call *call)
{
	struct peek_req *t;
	char *re;

	t = xcalloc(1, sizeof *t);
	call->data = t;
	call->free_data = peek_req_free;
	/* On an error the reply is sent and the call freed, t with it. */
	if (api_selection(call, &t->sel, NULL) == -1 ||
	    api_granularity(call, &t->granularity) == -1 ||
	    (re = api_regex_param(call)) == NULL)
		return;
	t->regex = re;
	if (api_text_format(call, &t->text) == -1 ||
	    api_fleet_params(call, &t->fleet) == -1)
		return;
	api_view_submit(call, &t->fleet, peek_work);
}
