/* api-query.c: POST /v1/query: one read-only SQL statement (the body) over
 * the public views (docs/SQL.md).  The reply is written as JSON text as the
 * rows come, into a buffer of fixed size that is sent (api-stream.c) each
 * time it holds a chunk, so that a reply of any size, to a client reading
 * at any pace, holds a bounded amount of memory; and it stops at
 * max_bytes.  Once a chunk is sent the status is 200, and an error after
 * that ends the JSON with the members of an error reply. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "api.h"
#include "buf.h"
#include "clock.h"
#include "jsonw.h"
#include "routes.h"
#include "store-sql.h"

#define QUERY_ROWS_DEFAULT	10000
#define QUERY_ROWS_MAX		1000000
#define QUERY_TIMEOUT_DEFAULT	5000
#define QUERY_TIMEOUT_MAX	60000
/* The reply's size limit (max_bytes): past it the reply ends in an error. */
#define QUERY_BYTES_MIN		1024
#define QUERY_BYTES_MAX		(256 * 1024 * 1024)
/* The reply is handed to the loop in chunks of about this size; the first
 * one commits to 200, so an error in a smaller reply is its status. */
#define QUERY_CHUNK		(64 * 1024)
/* A string is escaped in pieces of this many bytes: 6 bytes out at most
 * for each one in, so a piece never takes more than QUERY_PIECE. */
#define QUERY_SLICE		(8 * 1024)
#define QUERY_PIECE		(6 * QUERY_SLICE + 64)
/* Room for the end of a reply: an error member with its detail escaped. */
#define QUERY_END		(8 * 1024)
/* The reply buffer, allocated once: it never grows. */
#define QUERY_BUF		(QUERY_CHUNK + QUERY_PIECE + QUERY_END)

/* Where the JSON text is, to close what is open when it ends early. */
enum query_at {
	QUERY_AT_COLUMNS,	/* in "columns" */
	QUERY_AT_ROWS,		/* in "rows", between rows */
	QUERY_AT_ROW,		/* in a row */
};

struct query_req {
	struct api_call *call;
	char *db_path;
	char *sql;
	size_t len;
	int64_t max_rows, timeout_ms, max_bytes;
	int64_t start_ns, deadline_ns;
	struct buf out;			/* capacity QUERY_BUF */
	uint64_t sent;			/* bytes handed to the stream */
	int64_t nrows;
	enum query_at at;
	size_t row_at;			/* where out's row starts, or NO_ROW */
	int in_string;
};

#define NO_ROW			SIZE_MAX

static void
query_req_free(void *arg)
{
	struct query_req *q = arg;

	free(q->db_path);
	free(q->sql);
	free(q->out.p);
	free(q);
}

/* Make room for up to need more bytes of reply: send the buffer when it
 * would pass a chunk, refuse past max_bytes.  After it, need bytes fit in
 * the buffer without growing it.  A row begun in the buffer stays there
 * (unless the buffer holds nothing else), so that a reply that fails
 * leaves out a row cut short: only rows over a chunk are ever sent in
 * parts.  The buffer then holds up to QUERY_CHUNK + QUERY_PIECE. */
static int
query_room(struct query_req *q, size_t need, struct error *err)
{
	size_t n;
	int keep;

	if (q->sent + q->out.n + need > (uint64_t)q->max_bytes)
		return error_set(err, ERR_TOO_LARGE, "the reply reached its "
		    "size limit (max_bytes = %lld) after %lld rows",
		    (long long)q->max_bytes, (long long)q->nrows);
	if (q->out.n + need <= QUERY_CHUNK)
		return 0;
	keep = q->row_at != NO_ROW && q->row_at > 0;
	n = keep ? q->row_at : q->out.n;
	if (api_stream_write(q->call, q->out.p, n, q->deadline_ns,
	    err) == -1) {
		if (err->kind == ERR_TIMEOUT) {
			error_clear(err);
			store_sql_timeout(err, q->timeout_ms);
		}
		return -1;
	}
	q->sent += n;
	memmove(q->out.p, q->out.p + n, q->out.n - n);
	q->out.n -= n;
	q->row_at = keep ? 0 : NO_ROW;
	return 0;
}

static int
query_raw(struct query_req *q, const char *s, struct error *err)
{
	if (query_room(q, strlen(s), err) == -1)
		return -1;
	jsonw_raw(&q->out, s);
	return 0;
}

static int
query_text(struct query_req *q, const void *v, size_t n, struct error *err)
{
	const unsigned char *p = v;
	size_t k;

	if (query_raw(q, "\"", err) == -1)
		return -1;
	q->in_string = 1;
	for (; n > 0; p += k, n -= k) {
		k = jsonw_utf8_cut(p, n, QUERY_SLICE);
		if (query_room(q, 6 * k, err) == -1)
			return -1;
		jsonw_esc(&q->out, p, k);
	}
	q->in_string = 0;
	return query_raw(q, "\"", err);
}

static int
query_hex(struct query_req *q, const void *v, size_t n, struct error *err)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = v;
	size_t i, k;

	if (query_raw(q, "\"", err) == -1)
		return -1;
	q->in_string = 1;
	for (; n > 0; p += k, n -= k) {
		k = n < QUERY_SLICE ? n : QUERY_SLICE;
		if (query_room(q, 2 * k, err) == -1)
			return -1;
		for (i = 0; i < k; i++) {
			q->out.p[q->out.n++] = (uint8_t)hex[p[i] >> 4];
			q->out.p[q->out.n++] = (uint8_t)hex[p[i] & 0xf];
		}
	}
	q->in_string = 0;
	return query_raw(q, "\"", err);
}

static int
query_columns_cb(void *arg, const char *const *names, size_t n,
    struct error *err)
{
	struct query_req *q = arg;
	size_t i;

	if (query_raw(q, "{\"columns\":[", err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if ((i > 0 && query_raw(q, ",", err) == -1) ||
		    query_text(q, names[i], strlen(names[i]), err) == -1)
			return -1;
	}
	if (query_raw(q, "],\"rows\":[", err) == -1)
		return -1;
	q->at = QUERY_AT_ROWS;
	return 0;
}

static int
query_value(struct query_req *q, const struct store_sql_value *v,
    struct error *err)
{
	char num[32];

	switch (v->type) {
	case STORE_SQL_INT:
		snprintf(num, sizeof num, "%lld", (long long)v->i);
		return query_raw(q, num, err);
	case STORE_SQL_REAL:
		if (query_room(q, 40, err) == -1)
			return -1;
		jsonw_real(&q->out, v->d);
		return 0;
	case STORE_SQL_TEXT:
		return query_text(q, v->p, v->n, err);
	case STORE_SQL_BLOB:
		return query_hex(q, v->p, v->n, err);
	case STORE_SQL_NULL:
		break;
	}
	return query_raw(q, "null", err);
}

static int
query_row_cb(void *arg, const struct store_sql_value *v, size_t n,
    struct error *err)
{
	struct query_req *q = arg;
	size_t i;

	if (query_room(q, 2, err) == -1)
		return -1;
	q->row_at = q->out.n;
	jsonw_raw(&q->out, q->nrows > 0 ? ",[" : "[");
	q->at = QUERY_AT_ROW;
	for (i = 0; i < n; i++) {
		if ((i > 0 && query_raw(q, ",", err) == -1) ||
		    query_value(q, &v[i], err) == -1)
			return -1;
	}
	if (query_raw(q, "]", err) == -1)
		return -1;
	q->at = QUERY_AT_ROWS;
	q->row_at = NO_ROW;
	q->nrows++;
	return 0;
}

/* The end of a reply already under way that failed: close what is open,
 * then the members of an error reply (docs/SQL.md).  Written past
 * max_bytes: the buffer keeps QUERY_END for it. */
static void
query_end_error(struct query_req *q, const struct error *err)
{
	char tail[96];

	/* A row cut short that is still here is left out. */
	if (q->at == QUERY_AT_ROW && q->row_at != NO_ROW) {
		q->out.n = q->row_at;
		q->at = QUERY_AT_ROWS;
		q->in_string = 0;
	}
	if (q->in_string)
		jsonw_raw(&q->out, "\"");
	switch (q->at) {
	case QUERY_AT_COLUMNS:
		jsonw_raw(&q->out, "],\"rows\":[");
		break;
	case QUERY_AT_ROW:
		jsonw_raw(&q->out, "]");
		break;
	case QUERY_AT_ROWS:
		break;
	}
	snprintf(tail, sizeof tail, "],\"truncated\":true,\"elapsed_ms\":%.3f,"
	    "\"status\":%d", (double)(mono_ns() - q->start_ns) / 1e6,
	    error_http_status(err));
	jsonw_raw(&q->out, tail);
	jsonw_mstr(&q->out, "error", error_kind_name(err->kind));
	jsonw_mstr(&q->out, "detail", err->msg);
	jsonw_raw(&q->out, "}\n");
}

static void
query_work(struct api_call *call, void *worker)
{
	static const struct store_sql_cb cb = {
		query_columns_cb, query_row_cb,
	};
	struct query_req *q = call->data;
	struct store_sql_params p;
	char tail[96];
	int truncated, rc;

	q->row_at = NO_ROW;
	q->start_ns = mono_ns();
	q->deadline_ns = q->start_ns + q->timeout_ms * 1000000;
	p.sql = q->sql;
	p.len = q->len;
	p.max_rows = q->max_rows;
	p.timeout_ms = q->timeout_ms;
	p.abort = &call->host->abort;
	p.cancel = &call->cancel;
	rc = store_sql_run(q->db_path, &p, &cb, q, &truncated, &call->err);
	if (!api_stream_started(call)) {
		/* All of it is in the buffer: an ordinary reply. */
		if (rc == -1)
			return;
	} else if (rc == -1) {
		/* The status line is out: the error goes in the body. */
		api_cancel_reason(call, &call->err);
		query_end_error(q, &call->err);
		call->status = error_http_status(&call->err);
		error_clear(&call->err);
		api_stream_last(call, q->out.p, q->out.n);
		return;
	}
	snprintf(tail, sizeof tail, "],\"truncated\":%s,\"elapsed_ms\":%.3f}\n",
	    truncated ? "true" : "false", (double)(mono_ns() - q->start_ns) /
	    1e6);
	jsonw_raw(&q->out, tail);
	if (api_stream_started(call)) {
		api_stream_last(call, q->out.p, q->out.n);
		return;
	}
	api_result_blob(call, 200, "application/json", q->out.p, q->out.n);
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

/* Nothing here may abort the daemon for want of memory: a 503 instead. */
void
api_query_post(struct api_call *call)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(call->req);
	size_t len = evbuffer_get_length(in);
	struct query_req *q;

	if ((q = calloc(1, sizeof *q)) == NULL) {
		api_error(call, 503, "out of memory; retry later");
		return;
	}
	q->call = call;
	call->data = q;
	call->free_data = query_req_free;
	if (query_int_param(call, "max_rows", QUERY_ROWS_DEFAULT, 0,
	    QUERY_ROWS_MAX, &q->max_rows) == -1 ||
	    query_int_param(call, "timeout_ms", QUERY_TIMEOUT_DEFAULT, 1,
	    QUERY_TIMEOUT_MAX, &q->timeout_ms) == -1 ||
	    query_int_param(call, "max_bytes", QUERY_BYTES_MAX,
	    QUERY_BYTES_MIN, QUERY_BYTES_MAX, &q->max_bytes) == -1)
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
	q->out.cap = QUERY_BUF;
	if ((q->sql = malloc(len + 1)) == NULL ||
	    (q->db_path = strdup(call->host->cfg->db_path)) == NULL ||
	    (q->out.p = malloc(q->out.cap)) == NULL ||
	    api_stream_open(call, "application/json") == -1) {
		api_error(call, 503, "out of memory; retry later");
		return;
	}
	evbuffer_remove(in, q->sql, len);
	q->sql[len] = '\0';
	if (memchr(q->sql, '\0', len) != NULL) {
		api_error(call, 400, "the SQL text holds a NUL byte");
		return;
	}
	api_submit(call, API_QUERY, query_work);
}
