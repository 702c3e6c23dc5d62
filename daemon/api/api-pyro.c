/* api-pyro.c: the import both Pyroscope-compatible endpoints make. */
#include <stdlib.h>
#include <string.h>

#include "activity.h"
#include "api-pyro.h"

int
api_pyro_label_name_valid(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 1024 || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		    (s[i] == '.' && i > 0)))
			return 0;
	return 1;
}

int
api_pyro_import(struct api_call *call, void *worker, struct push *p,
    struct import_result *res, struct error *err)
{
	struct push_env env;

	p->source = ACT_PUSH;
	p->bucket_ns = 1000000000;
	api_host_push_env(call->host, &env);
	return push_run(&env, worker, p, res, err);
}

void
api_pyro_source(struct api_call *call, struct api_fleet_params *p)
{
	const char *want = call->host->cfg->grafana_source;

	memset(p, 0, sizeof *p);
	p->fleet = call->host->fleet && want != NULL &&
	    strcmp(want, "fleet") == 0;
}
