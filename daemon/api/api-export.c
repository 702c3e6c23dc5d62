/* api-export.c: GET /v1/export: the selection as a gzipped pprof profile. */
#include <stdlib.h>

#include "alloc.h"
#include "api.h"
#include "export.h"
#include "deflate.h"
#include "query.h"
#include "selection.h"

static void
export_req_free(void *arg)
{
	struct selection *sel = arg;

	selection_clear(sel);
	free(sel);
}

static void
export_work(struct api_call *call, void *worker)
{
	struct query_worker *w = worker;
	uint8_t *pb, *gz;
	size_t pblen, gzlen;
	int rc;

	if (export_pprof(w->store, w->index, call->data, &pb, &pblen,
	    &call->err) == -1)
		return;
	rc = deflate_gzip(pb, pblen, DEFLATE_FILE_LEVEL, &gz, &gzlen,
	    &call->err);
	free(pb);
	if (rc == -1)
		return;
	api_result_blob(call, 200, "application/octet-stream", gz, gzlen);
}

void
api_export_get(struct api_call *call)
{
	struct selection *sel;

	sel = xcalloc(1, sizeof *sel);
	call->data = sel;
	call->free_data = export_req_free;
	if (api_selection(call, sel, NULL) == -1)
		return;
	api_submit(call, API_QUERY, export_work);
}
