/* api-tags.c: GET /v1/tags: per label key, the value of the samples with
 * each of its values (pprof's -tags); tag=KEY keeps one key. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "buf.h"
#include "jsonw.h"
#include "query.h"
#include "selection.h"
#include "tags.h"

struct tags_req {
	struct selection sel;
	char *tag;			/* NULL = every key */
};

static void
tags_req_free(void *arg)
{
	struct tags_req *t = arg;

	selection_clear(&t->sel);
	free(t->tag);
	free(t);
}

static void
tags_work(struct api_call *call, void *worker)
{
	struct query_worker *w = worker;
	struct tags_req *t = call->data;
	struct tags_result r;
	struct buf out = { 0 };
	size_t i, j;

	if (tags_query(w->store, w->index, &t->sel, t->tag, &r,
	    &call->err) == -1)
		return;
	api_jsonw_head(&out, t->sel.scopes[0], &r.metric, r.total,
	    r.nprofiles);
	jsonw_raw(&out, ",\"tags\":[");
	for (i = 0; i < r.nkeys; i++) {
		const struct tag_key *k = &r.keys[i];

		jsonw_raw(&out, i > 0 ? ",{" : "{");
		jsonw_key(&out, "key");
		jsonw_str(&out, k->key);
		jsonw_mstr(&out, "unit", k->unit);
		jsonw_raw(&out, ",\"values\":[");
		for (j = 0; j < k->nvalues; j++) {
			jsonw_raw(&out, j > 0 ? ",{" : "{");
			if (k->values[j].str != NULL) {
				jsonw_key(&out, "str");
				jsonw_str(&out, k->values[j].str);
			} else {
				jsonw_key(&out, "num");
				jsonw_int(&out, k->values[j].num);
			}
			jsonw_mint(&out, "value", k->values[j].value);
			jsonw_raw(&out, "}");
		}
		jsonw_raw(&out, "]}");
	}
	jsonw_raw(&out, "]}\n");
	buf_add(&out, "", 1);
	api_result_text(call, 200, "application/json", (char *)out.p);
	tags_result_clear(&r);
}

void
api_tags_get(struct api_call *call)
{
	const char *tag = api_param(call, "tag");
	struct tags_req *t;

	t = xcalloc(1, sizeof *t);
	call->data = t;
	call->free_data = tags_req_free;
	if (api_selection(call, &t->sel, NULL) == -1)
		return;
	if (tag != NULL) {
		if (*tag == '\0') {
			api_error(call, 400, "tag: empty (a label key)");
			return;
		}
		t->tag = xstrdup(tag);
	}
	api_submit(call, API_QUERY, tags_work);
}
