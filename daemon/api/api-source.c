/* api-source.c: which stack source a view reads (query/source.h): the
 * fleet's with fleet=1 (over the hosts named, or all), else this host's
 * store; and the one path of every view's call: its parameters checked
 * on the loop, its work run on a query thread over the source, local or
 * not. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "query.h"
#include "selection.h"
#include "source.h"

int
api_fleet_params(struct api_call *call, struct api_fleet_params *p)
{
	struct evkeyval *kv;

	memset(p, 0, sizeof p[0]);
	if (api_bool(call, "fleet", &p->fleet) == -1)
		return -1;
	TAILQ_FOREACH(kv, &call->query, next) {
		if (strcmp(kv->key, "host") != 0)
			continue;
		if (*kv->value == '\0') {
			api_error(call, 400, "host: empty");
			return -1;
		}
		p->hosts = xreallocarray(p->hosts, p->nhosts + 1,
		    sizeof *p->hosts);
		p->hosts[p->nhosts++] = xstrdup(kv->value);
	}
	if (p->nhosts > 0 && !p->fleet) {
		api_error(call, 400, "host: only with fleet=1 (a profd "
		    "answers for its own host)");
		return -1;
	}
	if (p->fleet && !call->host->fleet) {
		api_error(call, 400, "fleet=1: this profd has no fleet "
		    "(start it with --fleet-url, ClickHouse's HTTP interface)");
		return -1;
	}
	return 0;
}

void
api_fleet_params_clear(struct api_fleet_params *p)
{
	size_t i;

	for (i = 0; i < p->nhosts; i++)
		free(p->hosts[i]);
	free(p->hosts);
	memset(p, 0, sizeof p[0]);
}

/* On the query thread: the view over its source. */
static void
api_view_work(struct api_call *call, void *worker)
{
	struct query_worker *w = worker;
	const struct api_fleet_params *p = call->source;
	struct stack_source *src;

	if (p != NULL && p->fleet)
		src = w->fleet_open(w->fleet_ctx, p->hosts, p->nhosts);
	else
		src = source_store_new(w->store, w->index);
	call->view_worker = w;
	call->view(call, src);
	stack_source_free(src);
}

void
api_view_submit(struct api_call *call, const struct api_fleet_params *p,
    void (*view)(struct api_call *, struct stack_source *))
{
	int i;

	/* Profile ids are each host's own. */
	for (i = 0; p != NULL && p->fleet && i < call->nsels; i++)
		if (call->sels[i]->nprofiles > 0) {
			api_error(call, 400, "%sprofile: profile ids are a "
			    "host's own; not with fleet=1 (select by time, "
			    "label or host)", call->sel_prefix[i]);
			return;
		}
	call->view = view;
	call->source = p;
	/* A fleet view waits on ClickHouse (up to fleet-timeout): on the
	 * fleet's query threads, so that this host's views never wait
	 * behind it. */
	api_submit(call, p != NULL && p->fleet ? API_FLEET : API_QUERY,
	    api_view_work);
}
