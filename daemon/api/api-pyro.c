/* api-pyro.c: the import both Pyroscope-compatible endpoints make. */
#include <stdlib.h>
#include <string.h>

#include "activity.h"
#include "api-pyro.h"
#include "util.h"

void
api_pyro_push_clear(struct pyro_push *p)
{
	size_t i;

	free(p->scope);
	free(p->name);
	free(p->metric_type);
	free(p->metric_unit);
	for (i = 0; i < p->nlabels; i++) {
		free(p->labels[i].key);
		free(p->labels[i].value);
	}
	free(p->labels);
	memset(p, 0, sizeof *p);
}

void
api_pyro_label(struct pyro_push *p, const char *key, size_t keylen,
    const char *value, size_t valuelen)
{
	size_t i;

	for (i = 0; i < p->nlabels; i++)
		if (strlen(p->labels[i].key) == keylen &&
		    memcmp(p->labels[i].key, key, keylen) == 0) {
			free(p->labels[i].value);
			p->labels[i].value = xstrndup(value, valuelen);
			return;
		}
	p->labels = xreallocarray(p->labels, p->nlabels + 1,
	    sizeof *p->labels);
	p->labels[p->nlabels].key = xstrndup(key, keylen);
	p->labels[p->nlabels].value = xstrndup(value, valuelen);
	p->nlabels++;
}

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
api_pyro_import(struct api_call *call, void *worker,
    const struct pyro_push *p, const char *format, const uint8_t *data,
    size_t len, struct import_result *res, struct error *err)
{
	struct import_worker *w = worker;
	struct import_request req;
	struct activity *act = call->host->activity;
	char salt[48];
	int rc;

	memset(&req, 0, sizeof req);
	req.fd = -1;
	req.scope = p->scope;
	req.format = format;
	req.name = p->name ? p->name : "";
	req.labels = p->labels;
	req.nlabels = p->nlabels;
	req.opts.metric_type = mstr_from(p->metric_type);
	req.opts.metric_unit = mstr_from(p->metric_unit);
	req.opts.scale = p->scale;
	req.opts.bucket_ns = 1000000000;
	req.time_ns = p->time_ns;
	req.duration_ns = p->duration_ns;
	req.data = data;
	req.len = len;
	/* Folded text has no time of its own: the same stacks pushed for
	 * two time ranges are two profiles. */
	if (strcmp(format, "folded") == 0 && p->time_ns != 0) {
		snprintf(salt, sizeof salt, "pyroscope %lld %lld\n",
		    (long long)p->time_ns, (long long)p->duration_ns);
		req.salt = (const uint8_t *)salt;
		req.salt_len = strlen(salt);
	}
	activity_begin(act, ACT_PUSH, req.name, p->scope, -1, (int64_t)len);
	rc = importer_run(w->importer, &req, res, err);
	activity_end(act, ACT_PUSH, req.name, p->scope, rc == -1 ? err : NULL);
	api_host_import_count(call->host, rc == 0);
	return rc;
}
