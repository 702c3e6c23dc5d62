/* api-top.c: GET /v1/top: flat and cum per function. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "buf.h"
#include "csindex.h"
#include "jsonw.h"
#include "query.h"
#include "selection.h"
#include "top.h"

struct top_req {
	struct selection sel;
	struct api_fleet_params fleet;
	int sort_cum;
	int granularity;
	long long limit;		/* -1 = all */
};

static void
top_req_free(void *arg)
{
	struct top_req *t = arg;

	selection_clear(&t->sel);
	api_fleet_params_clear(&t->fleet);
	free(t);
}

static const char *const inline_names[] = {
	[TOP_NOT_INLINED] = "no",
	[TOP_INLINED] = "inline",
	[TOP_PARTIAL_INLINE] = "partial-inline",
};

static void
top_reply(struct api_call *call, struct top_result *rp)
{
	struct top_req *t = call->data;
	struct top_result r = *rp;
	struct buf out = { 0 };
	size_t i, n;

	n = r.nrows;
	if (t->limit >= 0 && (size_t)t->limit < n)
		n = (size_t)t->limit;
	api_jsonw_head(&out, t->sel.scopes[0], &r.metric, r.total,
	    r.nprofiles);
	jsonw_mstr(&out, "sort", t->sort_cum ? "cum" : "flat");
	jsonw_mint(&out, "rows_total", (int64_t)r.nrows);
	jsonw_raw(&out, ",\"rows\":[");
	for (i = 0; i < n; i++) {
		jsonw_raw(&out, i > 0 ? ",{" : "{");
		jsonw_key(&out, "function");
		jsonw_str(&out, r.rows[i].function);
		jsonw_mint(&out, "flat", r.rows[i].flat);
		jsonw_mint(&out, "cum", r.rows[i].cum);
		jsonw_mstr(&out, "inline", inline_names[r.rows[i].inl]);
		jsonw_raw(&out, "}");
	}
	jsonw_raw(&out, "]}\n");
	buf_add(&out, "", 1);
	api_result_text(call, 200, "application/json", (char *)out.p);
	top_result_clear(&r);
}

static void
top_work(struct api_call *call, struct stack_source *src)
{
	struct top_req *t = call->data;
	struct top_params p;
	struct top_result r;

	memset(&p, 0, sizeof p);
	p.sel = &t->sel;
	p.sort_cum = t->sort_cum;
	p.granularity = t->granularity;
	if (top_query(src, &p, &r, &call->err) == -1)
		return;
	top_reply(call, &r);
}

int
api_granularity(struct api_call *call, int *g)
{
	const char *gran = api_param(call, "granularity");

	if (gran == NULL || strcmp(gran, "function") == 0)
		*g = GRAN_FUNCTION;
	else if (strcmp(gran, "line") == 0)
		*g = GRAN_LINE;
	else if (strcmp(gran, "file") == 0)
		*g = GRAN_FILE;
	else {
		api_error(call, 400, "granularity: \"%s\" is none of "
		    "function, line, file", gran);
		return -1;
	}
	return 0;
}

int
api_text_format(struct api_call *call, int *text)
{
	const char *format = api_param(call, "format");

	if (format != NULL && strcmp(format, "json") != 0 &&
	    strcmp(format, "text") != 0) {
		api_error(call, 400, "format: \"%s\" is neither json nor text",
		    format);
		return -1;
	}
	*text = format != NULL && strcmp(format, "text") == 0;
	return 0;
}

int
api_limit(struct api_call *call, long long *limit)
{
	const char *s = api_param(call, "limit");
	char *end;

	*limit = -1;
	if (s == NULL)
		return 0;
	errno = 0;
	*limit = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || *limit < 0) {
		api_error(call, 400, "limit: \"%s\" is not a non-negative "
		    "integer", s);
		return -1;
	}
	return 0;
}

void
api_top_get(struct api_call *call)
{
	const char *sort = api_param(call, "sort");
	struct top_req *t;

	t = xcalloc(1, sizeof *t);
	call->data = t;
	call->free_data = top_req_free;
	if (api_selection(call, &t->sel, NULL) == -1)
		return;
	if (api_limit(call, &t->limit) == -1)
		return;
	if (sort != NULL && strcmp(sort, "flat") != 0 &&
	    strcmp(sort, "cum") != 0) {
		api_error(call, 400, "sort: \"%s\" is neither flat nor cum",
		    sort);
		return;
	}
	t->sort_cum = sort != NULL && strcmp(sort, "cum") == 0;
	if (api_granularity(call, &t->granularity) == -1 ||
	    api_fleet_params(call, &t->fleet) == -1)
		return;
	api_view_submit(call, &t->fleet, top_work);
}
