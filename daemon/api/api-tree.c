/* api-tree.c: GET /v1/tree: the flamegraph tree as nested JSON, or as
 * folded stacks (format=folded) that flamegraph.pl, inferno and speedscope
 * read. */
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
#include "tree.h"

struct tree_req {
	struct selection sel;
	struct api_fleet_params fleet;
	double min_fraction;
	int folded;
	int source;			/* file, line, mapping in the JSON */
};

static void
tree_req_free(void *arg)
{
	struct tree_req *t = arg;

	selection_clear(&t->sel);
	api_fleet_params_clear(&t->fleet);
	free(t);
}

/* The tree as JSON, written straight out: a jansson node per tree node
 * made a 6000-node tree cost 30 ms, nearly all of it malloc. */
static void
node_json(const struct tree_result *r, size_t i, int source,
    struct buf *out)
{
	const struct tree_node *n = &r->nodes[i];
	size_t c;

	jsonw_raw(out, "{");
	jsonw_key(out, "name");
	jsonw_str(out, n->name);
	jsonw_mint(out, "self", n->self);
	jsonw_mint(out, "total", n->total);
	if (source && n->file[0] != '\0')
		jsonw_mstr(out, "file", n->file);
	if (source && n->line != 0)
		jsonw_mint(out, "line", n->line);
	if (source && n->frame_line > 0)
		jsonw_mint(out, "frame_line", n->frame_line);
	if (n->inlined)
		jsonw_raw(out, ",\"inline\":true");
	if (source && n->mapping[0] != '\0')
		jsonw_mstr(out, "mapping", n->mapping);
	if (n->other)
		jsonw_raw(out, ",\"other\":true");
	jsonw_raw(out, ",\"children\":[");
	for (c = n->child; c != 0; c = r->nodes[c].next) {
		node_json(r, c, source, out);
		if (r->nodes[c].next != 0)
			jsonw_raw(out, ",");
	}
	jsonw_raw(out, "]}");
}

static void
tree_json(const struct tree_req *t, const struct tree_result *r,
    struct buf *out)
{
	api_jsonw_head(out, t->sel.scopes[0], &r->metric, r->total,
	    r->nprofiles);
	jsonw_raw(out, ",");
	jsonw_key(out, "min_fraction");
	jsonw_real(out, t->min_fraction);
	jsonw_raw(out, ",\"root\":");
	node_json(r, 0, t->source, out);
	jsonw_raw(out, "}\n");
}

/* A frame name as one folded field: no ';' (the separator) and no line
 * breaks. */
static void
folded_name(struct buf *b, const char *name)
{
	for (; *name != '\0'; name++) {
		char c = *name == ';' ? ':' : (*name == '\n' || *name == '\r') ?
		    ' ' : *name;

		buf_add(b, &c, 1);
	}
}

static void
node_folded(const struct tree_result *r, size_t i, struct buf *path,
    struct buf *out)
{
	const struct tree_node *n = &r->nodes[i];
	size_t mark = path->n, c;
	char num[32];
	int len;

	if (i != 0) {
		if (path->n > 0)
			buf_add(path, ";", 1);
		folded_name(path, n->name);
		if (n->self != 0) {
			buf_add(out, path->p, path->n);
			len = snprintf(num, sizeof num, " %lld\n",
			    (long long)n->self);
			buf_add(out, num, (size_t)len);
		}
	}
	for (c = n->child; c != 0; c = r->nodes[c].next)
		node_folded(r, c, path, out);
	path->n = mark;
}

static void
tree_reply(struct api_call *call, struct tree_result *rp)
{
	struct tree_req *t = call->data;
	struct tree_result r = *rp;
	struct buf path = { 0 }, out = { 0 };

	if (t->folded) {
		node_folded(&r, 0, &path, &out);
		buf_free(&path);
	} else
		tree_json(t, &r, &out);
	buf_add(&out, "", 1);
	api_result_text(call, 200, t->folded ? "text/plain; charset=utf-8" :
	    "application/json", (char *)out.p);
	tree_result_clear(&r);
}

static void
tree_work(struct api_call *call, struct stack_source *src)
{
	struct tree_req *t = call->data;
	struct tree_params p;
	struct tree_result r;

	memset(&p, 0, sizeof p);
	p.sel = &t->sel;
	p.min_fraction = t->min_fraction;
	if (tree_query(src, &p, &r, &call->err) == 0)
		tree_reply(call, &r);
}

void
api_tree_get(struct api_call *call)
{
	const char *format = api_param(call, "format");
	const char *frac = api_param(call, "min_fraction");
	struct tree_req *t;
	char *end;

	t = xcalloc(1, sizeof *t);
	call->data = t;
	call->free_data = tree_req_free;
	if (api_selection(call, &t->sel, NULL) == -1)
		return;
	if (format != NULL && strcmp(format, "json") != 0 &&
	    strcmp(format, "folded") != 0) {
		api_error(call, 400, "format: \"%s\" is neither json nor "
		    "folded", format);
		return;
	}
	t->folded = format != NULL && strcmp(format, "folded") == 0;
	t->source = 1;
	if (api_bool(call, "source", &t->source) == -1)
		return;
	if (frac != NULL) {
		errno = 0;
		t->min_fraction = strtod(frac, &end);
		if (*frac == '\0' || *end != '\0' || errno != 0 ||
		    !(t->min_fraction >= 0 && t->min_fraction < 1)) {
			api_error(call, 400, "min_fraction: \"%s\" is not a "
			    "number in [0, 1)", frac);
			return;
		}
	}
	if (api_fleet_params(call, &t->fleet) == -1)
		return;
	api_view_submit(call, &t->fleet, tree_work);
}
