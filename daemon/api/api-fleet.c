/* api-fleet.c: the fleet=1 and host parameters of the views, and the
 * path of a fleet call: its selection compiled on a query thread (never
 * on the loop), then the fleet asked from the loop through api_host. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "csindex.h"
#include "selection.h"
#include "util.h"

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
	if (p->fleet && call->host->fleet_view == NULL) {
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

/* The worker's part is api.c's compiling of the selection before any
 * work; nothing else of a fleet call runs off the loop. */
static void
api_fleet_compiled(struct api_call *call, void *worker)
{
	(void)call;
	(void)worker;
}

void
api_fleet_submit(struct api_call *call,
    void (*compile)(struct api_call *, void *),
    void (*start)(struct api_call *))
{
	call->then = start;
	api_submit(call, API_QUERY, compile != NULL ? compile :
	    api_fleet_compiled);
}

/* What a fleet view cannot take: profile ids are each host's own, and
 * the shipped frames name functions, files and lines, not addresses. */
int
api_fleet_check(struct api_call *call, const struct selection *sel,
    int granularity)
{
	if (sel->nprofiles > 0) {
		api_error(call, 400, "profile: profile ids are a host's own; "
		    "not with fleet=1 (select by time, label or host)");
		return -1;
	}
	if (granularity != GRAN_FUNCTION) {
		api_error(call, 400, "granularity: fleet=1 answers by "
		    "function only");
		return -1;
	}
	return 0;
}
