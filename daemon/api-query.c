/* api-query.c: POST /v1/query: one read-only SQL statement (the body) over
 * the public views (docs/SQL.md).  The reply is written as JSON text row by
 * row, not built as a jansson tree: a million rows of a dozen columns would
 * otherwise cost gigabytes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "api.h"
#include "jsonw.h"
#include "routes.h"
#include "server.h"
#include "store-sql.h"
#include "util.h"

#define QUERY_ROWS_DEFAULT	10000
#define QUERY_ROWS_MAX		1000000
#define QUERY_TIMEOUT_DEFAULT	5000
#define QUERY_TIMEOUT_MAX	60000
/* Past this many bytes of reply the rows are cut as with max_rows. */
#define QUERY_REPLY_MAX		(256 * 1024 * 1024)

struct query_req {
	char *db_path;
	char *sql;
	size_t len;
	int64_t max_rows, timeout_ms;
	struct buf out;
	int64_t nrows;
};

static void
query_req_free(void *arg)
{
	struct query_req *q = arg;

	free(q->db_path);
	free(q->sql);
	buf_free(&q->out);
	free(q);
}

static void
query_columns_cb(void *arg, const char *const *names, size_t n)
{
	struct query_req *q = arg;
	size_t i;

	jsonw_raw(&q->out, "{\"columns\":[");
	for (i = 0; i < n; i++) {
		if (i > 0)
			jsonw_raw(&q->out, ",");
		jsonw_strn(&q->out, names[i], strlen(names[i]));
	}
	jsonw_raw(&q->out, "],\"rows\":[");
}

static int
query_row_cb(void *arg, const struct store_sql_value *v, size_t n)
{
	struct query_req *q = arg;
	char num[32];
	size_t i;

	if (q->out.n > QUERY_REPLY_MAX)
		return 1;
	jsonw_raw(&q->out, q->nrows++ > 0 ? ",[" : "[");
	for (i = 0; i < n; i++) {
		if (i > 0)
			jsonw_raw(&q->out, ",");
		switch (v[i].type) {
		case STORE_SQL_INT:
			snprintf(num, sizeof num, "%lld", (long long)v[i].i);
			jsonw_raw(&q->out, num);
			break;
		case STORE_SQL_REAL:
			jsonw_real(&q->out, v[i].d);
			break;
		case STORE_SQL_TEXT:
			jsonw_strn(&q->out, v[i].p, v[i].n);
			break;
		case STORE_SQL_BLOB:
			jsonw_hex(&q->out, v[i].p, v[i].n);
			break;
		case STORE_SQL_NULL:
			jsonw_raw(&q->out, "null");
			break;
		}
	}
	jsonw_raw(&q->out, "]");
	return 0;
}

static void
query_work(struct api_call *call, void *worker)
{
	static const struct store_sql_cb cb = {
		query_columns_cb, query_row_cb,
	};
	struct query_req *q = call->data;
	struct store_sql_params p;
	int64_t start = mono_ns();
	char tail[96];
	int truncated;

	p.sql = q->sql;
	p.len = q->len;
	p.max_rows = q->max_rows;
	p.timeout_ms = q->timeout_ms;
	if (store_sql_run(q->db_path, &p, &cb, q, &truncated,
	    &call->err) == -1)
		return;
	snprintf(tail, sizeof tail, "],\"truncated\":%s,\"elapsed_ms\":%.3f}\n",
	    truncated ? "true" : "false", (double)(mono_ns() - start) / 1e6);
	jsonw_raw(&q->out, tail);
	buf_add(&q->out, "", 1);
	api_result_text(call, 200, "application/json", (char *)q->out.p);
	q->out.p = NULL;
	q->out.n = q->out.cap = 0;
}

/* A query parameter in [min, max], or def when absent; -1 after a 400. */
static int
query_int_param(struct api_call *call, const char *key, int64_t def,
    int64_t min, int64_t max, int64_t *out)
{
	const char *s = api_param(call, key);
	char *end;
	long long v;

	*out = def;
	if (s == NULL)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < min || v > max) {
		api_error(call, 400, "%s: \"%.64s\" is not an integer from "
		    "%lld to %lld", key, s, (long long)min, (long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

void
api_query_post(struct api_call *call)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(call->req);
	size_t len = evbuffer_get_length(in);
	struct evkeyval *kv;
	struct query_req *q;

	q = xcalloc(1, sizeof *q);
	call->data = q;
	call->free_data = query_req_free;
	TAILQ_FOREACH(kv, &call->query, next) {
		if (strcmp(kv->key, "max_rows") != 0 &&
		    strcmp(kv->key, "timeout_ms") != 0) {
			api_error(call, 400, "%.64s: not a parameter of %s",
			    kv->key, call->route->path);
			return;
		}
	}
	if (query_int_param(call, "max_rows", QUERY_ROWS_DEFAULT, 0,
	    QUERY_ROWS_MAX, &q->max_rows) == -1 ||
	    query_int_param(call, "timeout_ms", QUERY_TIMEOUT_DEFAULT, 1,
	    QUERY_TIMEOUT_MAX, &q->timeout_ms) == -1)
		return;
	if (len == 0) {
		api_error(call, 400, "the request body is empty: send one SQL "
		    "statement as the body (see docs/SQL.md)");
		return;
	}
	if (len > STORE_SQL_MAX_LEN) {
		api_error(call, 413, "the SQL text has %zu bytes (limit %d)",
		    len, STORE_SQL_MAX_LEN);
		return;
	}
	q->len = len;
	q->sql = xmalloc(len + 1);
	evbuffer_remove(in, q->sql, len);
	q->sql[len] = '\0';
	if (memchr(q->sql, '\0', len) != NULL) {
		api_error(call, 400, "the SQL text holds a NUL byte");
		return;
	}
	q->db_path = xstrdup(server_config(call->srv)->db_path);
	api_submit(call, API_QUERY, query_work);
}
