/* api-delete.c: DELETE /v1/profiles?scope=S[&before=T][&id=N...]: a whole
 * scope, its profiles older than a time, or some of them by id. */
#include <event2/keyvalq_struct.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "api.h"
#include "clock.h"
#include "import.h"
#include "retainer.h"
#include "retention.h"
#include "scopename.h"
#include "selection.h"

struct del {
	char *scope;
	int64_t before_ns;
	int64_t *ids;
	size_t nids;
};

static void
del_free(void *arg)
{
	struct del *d = arg;

	free(d->scope);
	free(d->ids);
	free(d);
}

static void
delete_work(struct api_call *call, void *worker)
{
	struct import_worker *w = worker;
	struct del *d = call->data;
	struct retention_delete rd = { d->scope, d->before_ns, d->ids,
	    d->nids };
	int64_t profiles, samples;
	int gone;

	if (retention_delete(w->store, &rd, &profiles, &samples, &gone,
	    &call->err) == -1)
		return;
	/* Rows were dropped: the interning caches may name collected rows
	 * after the next collection, which the next retention pass runs. */
	if (profiles > 0 || gone)
		retainer_want_gc(call->host->retainer);
	api_result(call, 200, json_pack("{s:s, s:I, s:I, s:b}",
	    "scope", d->scope,
	    "deleted_profiles", (json_int_t)profiles,
	    "deleted_samples", (json_int_t)samples,
	    "scope_deleted", gone));
}

void
api_profiles_delete(struct api_call *call)
{
	struct evkeyval *kv;
	struct del *d = xcalloc(1, sizeof *d);
	struct error err = { 0 };
	long long id;
	char *end;

	call->data = d;
	call->free_data = del_free;
	TAILQ_FOREACH(kv, &call->query, next) {
		if (strcmp(kv->key, "scope") == 0) {
			if (d->scope != NULL || !scope_name_valid(kv->value)) {
				api_error(call, 400, "scope: %s", d->scope ?
				    "given twice" : "not a valid scope name");
				return;
			}
			d->scope = xstrdup(kv->value);
		} else if (strcmp(kv->key, "before") == 0) {
			if (selection_time(kv->value, now_ns(), &d->before_ns,
			    &err) == -1) {
				api_error(call, 400, "before: %s", err.msg);
				return;
			}
			if (d->before_ns == 0)
				d->before_ns = 1;
		} else if (strcmp(kv->key, "id") == 0) {
			id = strtoll(kv->value, &end, 10);
			if (*kv->value == '\0' || *end != '\0' || id <= 0) {
				api_error(call, 400, "id: \"%s\" is not a "
				    "profile id", kv->value);
				return;
			}
			d->ids = xappendarray(d->ids, d->nids,
			    sizeof *d->ids);
			d->ids[d->nids++] = id;
		}
	}
	if (d->scope == NULL) {
		api_error(call, 400, "scope: missing (DELETE "
		    "/v1/profiles?scope=NAME[&before=TIME][&id=N])");
		return;
	}
	api_submit(call, API_IMPORT, delete_work);
}
