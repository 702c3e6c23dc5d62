/* api-list.c: GET /v1/list: flat and cum per source line of the
 * functions matching regex (pprof's -list, without the source text, which
 * profctl reads where the user is). */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "buf.h"
#include "jsonw.h"
#include "list.h"
#include "query.h"
#include "rx.h"
#include "selection.h"

struct list_req {
	struct selection sel;
	struct api_fleet_params fleet;
	char *regex;
};

static void
list_req_free(void *arg)
{
	struct list_req *t = arg;

	selection_clear(&t->sel);
	api_fleet_params_clear(&t->fleet);
	free(t->regex);
	free(t);
}

static void
list_file_json(struct buf *out, const struct list_file *fl, int first)
{
	size_t k;

	jsonw_raw(out, first ? "{" : ",{");
	jsonw_key(out, "file");
	jsonw_str(out, fl->file);
	jsonw_mint(out, "start_line", fl->start_line);
	jsonw_mint(out, "flat", fl->flat);
	jsonw_mint(out, "cum", fl->cum);
	jsonw_raw(out, ",\"lines\":[");
	for (k = 0; k < fl->nlines; k++) {
		jsonw_raw(out, k > 0 ? ",{" : "{");
		jsonw_key(out, "line");
		jsonw_int(out, fl->lines[k].line);
		jsonw_mint(out, "flat", fl->lines[k].flat);
		jsonw_mint(out, "cum", fl->lines[k].cum);
		jsonw_raw(out, "}");
	}
	jsonw_raw(out, "]}");
}

static void
list_work(struct api_call *call, struct stack_source *src)
{
	struct list_req *t = call->data;
	struct list_params p;
	struct list_result r;
	struct buf out = { 0 };
	struct rx *re;
	size_t i, j;
	int rc;

	memset(&p, 0, sizeof p);
	p.sel = &t->sel;
	p.re_src = t->regex;
	if ((p.re = re = api_regex_compile(call, t->regex)) == NULL)
		return;
	rc = list_query(src, &p, &r, &call->err);
	rx_free(re);
	if (rc == -1)
		return;
	api_jsonw_head(&out, t->sel.scopes[0], &r.metric, r.total,
	    r.nprofiles);
	jsonw_mstr(&out, "regex", t->regex);
	jsonw_raw(&out, ",\"functions\":[");
	for (i = 0; i < r.nfuncs; i++) {
		jsonw_raw(&out, i > 0 ? ",{" : "{");
		jsonw_key(&out, "function");
		jsonw_str(&out, r.funcs[i].name);
		jsonw_raw(&out, ",\"files\":[");
		for (j = 0; j < r.funcs[i].nfiles; j++)
			list_file_json(&out, &r.funcs[i].files[j], j == 0);
		jsonw_raw(&out, "]}");
	}
	jsonw_raw(&out, "]}\n");
	buf_add(&out, "", 1);
	api_result_text(call, 200, "application/json", (char *)out.p);
	list_result_clear(&r);
}

void
api_list_get(struct api_call *call)
{
	struct list_req *t;
	char *re;

	t = xcalloc(1, sizeof *t);
	call->data = t;
	call->free_data = list_req_free;
	/* On an error the reply is sent and the call freed, t with it. */
	if (api_selection(call, &t->sel, NULL) == -1 ||
	    (re = api_regex_param(call)) == NULL)
		return;
	t->regex = re;
	if (api_fleet_params(call, &t->fleet) == -1)
		return;
	api_view_submit(call, &t->fleet, list_work);
}
