/* fleet.c: the shipper's rounds on the event loop.  A round: a batch
 * read on a query thread, the schema made sure of
 * (once), ClickHouse asked which of its profiles it has (a retry after a crash), the others'
 * samples, stacks (and more of their frames) and profiles rows inserted, the batch marked shipped by
 * the import thread.  Any failure ends the round and the next one waits
 * a backoff that doubles up to a minute.  schema/clickhouse/README.md
 * says why this is exactly once.  A round that went well ends, once a
 * retention interval, with the day partitions past max-age dropped
 * (fleet-retain.c), one request at a time like the rest. */
#include <event2/buffer.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "fleet-batch.h"
#include "fleet-retain.h"
#include "fleet.h"
#include "fleet-query.h"
#include "fleet_schema.h"
#include "httpc.h"
#include "import.h"
#include "jobq.h"
#include "log.h"
#include "query.h"
#include "util.h"

#define FLEET_BACKOFF_MAX	60
/* The longest answer the shipper reads (fleet_http_cb). */
#define FLEET_MAX_REPLY		(1024 * 1024)

enum fleet_state {
	FS_IDLE, FS_TABLES, FS_VERSION, FS_SCHEMA, FS_READ, FS_CHECK, FS_SAMPLES,
	FS_STACKS, FS_FRAMES, FS_PROFILES, FS_MARK, FS_RETAIN,
};

struct fleet_job {
	struct job job;
	struct fleet *f;		/* NULL once the fleet stopped */
	int mark;			/* a mark job, not a read */
	struct fleet_batch b;
	int64_t *ids;
	size_t nids;
	int64_t before_s;		/* older ones are not sent */
	struct error err;
};

struct fleet {
	struct event_base *base;
	struct evdns_base *dns;
	struct evhttp_connection *conn;
	struct evhttp_request *req;	/* in flight */
	struct httpc_deadline head;	/* its answer's head */
	struct event *timer;
	struct jobq *reads, *writes;
	struct fleet_job *job;		/* in a queue */
	char *url, *host, *database, *cluster, *http_host, *path;
	int port;
	size_t batch, batch_bytes;
	int64_t interval, timeout;
	enum fleet_state state;
	struct fleet_batch b;		/* the round's */
	int step;			/* the schema step being applied */
	size_t stmt;			/* its statement */
	int have_schema;
	struct fleet_retain retain;	/* old day partitions dropped */
	int64_t delay;			/* the next round's, after retention */
	struct api_fleet_stats st;	/* url, host, database: set on reads */
};

static void fleet_round_cb(evutil_socket_t, short, void *);

static void
fleet_schedule(struct fleet *f, int64_t seconds)
{
	struct timeval tv = { (time_t)seconds, 0 };

	f->state = FS_IDLE;
	evtimer_add(f->timer, &tv);
}

static void
fleet_fail(struct fleet *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
fleet_fail(struct fleet *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->st.last_error, sizeof f->st.last_error, fmt, ap);
	va_end(ap);
	f->st.last_error_ns = now_ns();
	f->st.failures++;
	f->st.backoff = backoff_next(f->st.backoff, FLEET_BACKOFF_MAX);
	log_warn("fleet: %s (retry in %" PRId64 " s)", f->st.last_error,
	    f->st.backoff);
	fleet_batch_clear(&f->b);
	fleet_schedule(f, f->st.backoff);
}

/* ---- HTTP ---- */

static void fleet_http_cb(struct evhttp_request *, void *);

static int
fleet_head_cb(struct evhttp_request *req, void *arg)
{
	struct fleet *f = arg;

	(void)req;
	httpc_deadline_stop(&f->head);
	return 0;
}

/* POST sql (as the query parameter when body is given, else as the
 * body) to ClickHouse. */
static int
fleet_post(struct fleet *f, const char *sql, const void *body, size_t n,
    size_t block_rows)
{
	struct evhttp_request *req;
	char *enc, *uri;
	int rc;

	if (f->conn == NULL) {
		if ((f->conn = httpc_conn_new(f->base, f->dns, f->http_host,
		    f->port, f->timeout)) == NULL)
			return -1;
		/* What ClickHouse answers the shipper is a few numbers or
		 * an error: more is not ClickHouse. */
		evhttp_connection_set_max_body_size(f->conn,
		    FLEET_MAX_REPLY);
	}
	if ((req = fleet_http_request(fleet_http_cb, fleet_head_cb, f,
	    f->http_host)) == NULL)
		return -1;
	if (body != NULL) {
		enc = evhttp_encode_uri(sql);
		if (block_rows > 0)
			xasprintf(&uri, "%s?max_insert_block_size=%zu&query=%s",
			    f->path, block_rows + 1, enc);
		else
			xasprintf(&uri, "%s?query=%s", f->path, enc);
		free(enc);
		evbuffer_add(evhttp_request_get_output_buffer(req), body, n);
	} else {
		uri = xstrdup(f->path);
		evbuffer_add(evhttp_request_get_output_buffer(req), sql,
		    strlen(sql));
	}
	/* Set first: a connection that cannot even start answers within
	 * the call (fleet_http_cb, which clears it and fails the round). */
	f->req = req;
	httpc_deadline_start(&f->head, f->conn, f->timeout +
	    FLEET_HEAD_SLACK);
	rc = httpc_make_request(f->conn, req, EVHTTP_REQ_POST, uri);
	free(uri);
	if (rc == -1) {
		f->req = NULL;		/* and the request freed */
		httpc_deadline_stop(&f->head);
	}
	return rc;
}

static void fleet_next(struct fleet *, const char *reply, size_t n);


/* A round went well: retention's pass if one is due (fleet-retain.c),
 * then the next round in delay seconds. */
static void
fleet_round_end(struct fleet *f, int64_t delay)
{
	char *sql;
	int rc;

	f->delay = delay;
	if ((sql = fleet_retain_start(&f->retain, f->database, now_ns())) ==
	    NULL) {
		fleet_schedule(f, delay);
		return;
	}
	f->state = FS_RETAIN;
	rc = fleet_post(f, sql, NULL, 0, 0);
	free(sql);
	if (rc == -1)
		fleet_fail(f, "cannot send a request to %s", f->url);
}

static void
fleet_http_cb(struct evhttp_request *req, void *arg)
{
	struct fleet *f = arg;
	struct evbuffer *in;
	const char *body = "";
	size_t n = 0;
	int code;

	f->req = NULL;
	httpc_deadline_stop(&f->head);
	if (req == NULL || (code = evhttp_request_get_response_code(req)) ==
	    0) {
		/* The connection is not reused after a failure. */
		fleet_http_conn_drop(f->base, f->conn);
		f->conn = NULL;
		if (f->head.fired)
			fleet_fail(f, "ClickHouse at %s sent no whole answer "
			    "head within %" PRId64 " s", f->url, f->timeout +
			    FLEET_HEAD_SLACK);
		else
			fleet_fail(f, "ClickHouse at %s is unreachable, timed "
			    "out, or answered more than %d bytes", f->url,
			    FLEET_MAX_REPLY);
		return;
	}
	in = evhttp_request_get_input_buffer(req);
	if ((n = evbuffer_get_length(in)) > 0)
		body = (const char *)evbuffer_pullup(in, -1);
	if (code != 200) {
		fleet_fail(f, "ClickHouse answered %d%s: %.*s", code,
		    f->state == FS_RETAIN ? " to a DROP PARTITION pass" : "",
		    (int)(n > 200 ? 200 : n), body);
		return;
	}
	fleet_next(f, body, n);
}

/* ---- jobs ---- */

static void
fleet_read_run(struct job *j, void *worker)
{
	struct fleet_job *fj = (struct fleet_job *)j;
	struct query_worker *w = worker;

	fleet_batch_build(&fj->b, w->store, w->index, fj->f->host,
	    fj->f->batch, fj->f->batch_bytes, fj->before_s, &fj->err);
}

static void
fleet_mark_run(struct job *j, void *worker)
{
	struct fleet_job *fj = (struct fleet_job *)j;
	struct import_worker *w = worker;

	store_ship_mark(w->store, fj->ids, fj->nids, now_ns(), &fj->err);
}

static void fleet_job_done(struct job *);

static struct fleet_job *
fleet_job_new(struct fleet *f, int mark)
{
	struct fleet_job *fj = xcalloc(1, sizeof *fj);

	fj->job.run = mark ? fleet_mark_run : fleet_read_run;
	fj->job.done = fleet_job_done;
	fj->f = f;
	fj->mark = mark;
	/* Read on the loop: SIGHUP changes the age there. */
	fj->before_s = fleet_retain_unsent_before(&f->retain, now_ns());
	return fj;
}

static void
fleet_job_free(struct fleet_job *fj)
{
	fleet_batch_clear(&fj->b);
	free(fj->ids);
	free(fj);
}

static void
fleet_submit(struct fleet *f, struct fleet_job *fj, struct jobq *q)
{
	if (jobq_push(q, &fj->job) == -1) {
		fleet_job_free(fj);
		fleet_fail(f, "the %s queue is full", q == f->reads ? "query" :
		    "import");
		return;
	}
	f->job = fj;
}

static void
fleet_job_done(struct job *j)
{
	struct fleet_job *fj = (struct fleet_job *)j;
	struct fleet *f = fj->f;

	if (f == NULL) {		/* stopped meanwhile */
		fleet_job_free(fj);
		return;
	}
	f->job = NULL;
	if (j->run == NULL)
		error_set(&fj->err, ERR_BUSY, "the job was dropped");
	if (fj->err.kind != ERR_NONE) {
		fleet_fail(f, "%s: %s", fj->mark ? "marking profiles shipped" :
		    "reading a batch", fj->err.msg);
		fleet_job_free(fj);
		return;
	}
	if (fj->mark) {
		f->st.batches++;
		f->st.last_success_ns = now_ns();
		f->st.backoff = 0;
		fleet_job_free(fj);
		/* A full batch: there may be more right away. */
		fleet_round_end(f, f->b.n == f->batch || f->b.more ? 0 :
		    f->interval);
		fleet_batch_clear(&f->b);
		return;
	}
	f->b = fj->b;
	memset(&fj->b, 0, sizeof fj->b);
	fleet_job_free(fj);
	fleet_next(f, NULL, 0);
}

/* ---- the round ---- */

/* ClickHouse has the batch (or, for the expired, needs none of it): the
 * store marks it shipped. */
static void
fleet_mark(struct fleet *f)
{
	struct fleet_job *fj;
	size_t i;

	f->state = FS_MARK;
	fj = fleet_job_new(f, 1);
	fj->ids = xcalloc(f->b.n, sizeof *fj->ids);
	for (i = 0; i < f->b.n; i++) {
		fj->ids[i] = f->b.p[i].id;
		if (f->b.p[i].expired)
			f->st.expired_profiles++;
		else if (f->b.p[i].present)
			f->st.skipped_profiles++;
		else {
			f->st.shipped_profiles++;
			f->st.shipped_rows += f->b.p[i].rows;
		}
	}
	fj->nids = f->b.n;
	if (f->b.nexpired > 0)
		log_info("fleet: %zu profile%s not sent, older than max-age "
		    "by more than a day: ClickHouse drops their day",
		    f->b.nexpired, f->b.nexpired == 1 ? "" : "s");
	fleet_submit(f, fj, f->writes);
}

/* The statement stmt of a schema step, {db} and {cluster} replaced;
 * NULL past the last.  Statements end with ";" at a line's end; "--"
 * lines are comments.  *skip: it names {cluster} and none is set. */
static char *
fleet_statement(const struct fleet *f, const char *sql, size_t stmt,
    int *skip)
{
	struct buf b = { 0 };
	const char *p = sql, *q;
	size_t k = 0, n;
	char *s = NULL;

	for (; *p != '\0'; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		if (n >= 2 && p[0] == '-' && p[1] == '-')
			continue;
		if (k == stmt)
			for (q = p; q < p + n; q++) {
				if (strncmp(q, "{db}", 4) == 0) {
					buf_add(&b, f->database,
					    strlen(f->database));
					q += 3;
				} else if (strncmp(q, "{cluster}", 9) == 0) {
					if (f->cluster != NULL)
						buf_add(&b, f->cluster,
						    strlen(f->cluster));
					else
						*skip = 1;
					q += 8;
				} else
					buf_add(&b, q, 1);
			}
		if (n > 0 && p[n - 1] == ';') {
			if (k++ == stmt)
				break;
		} else if (k == stmt && b.n > 0)
			buf_add(&b, "\n", 1);
	}
	if (k > stmt && b.n > 1)
		s = xstrndup((const char *)b.p, b.n - 1);
	buf_free(&b);
	return s;
}

/* The next statement of the schema, or the version recorded. */
static int
fleet_schema_next(struct fleet *f)
{
	const struct schema_step *st;
	char *sql;
	int rc, skip, applied;

	while (f->step < fleet_schema_nsteps) {
		st = &fleet_schema_steps[f->step];
		/* The cluster's statements run at every first connect with
		 * a cluster set, recorded or not (schema/clickhouse/003). */
		applied = st->version <= f->st.schema_version;
		if (applied && (f->cluster == NULL ||
		    strstr(st->sql, "{cluster}") == NULL)) {
			f->step++;
			continue;
		}
		for (;;) {
			skip = 0;
			sql = fleet_statement(f, st->sql, f->stmt, &skip);
			if (sql == NULL || !skip)
				break;
			free(sql);
			f->stmt++;
		}
		if (sql != NULL) {
			f->stmt++;
			rc = fleet_post(f, sql, NULL, 0, 0);
			free(sql);
			return rc;
		}
		if (applied) {
			f->step++;
			f->stmt = 0;
			continue;
		}
		/* The step is done: recorded, then the next. */
		xasprintf(&sql, "INSERT INTO %s.schema_version VALUES "
		    "(%d, now())", f->database,
		    fleet_schema_steps[f->step].version);
		f->st.schema_version = fleet_schema_steps[f->step].version;
		f->step++;
		f->stmt = 0;
		rc = fleet_post(f, sql, NULL, 0, 0);
		free(sql);
		return rc;
	}
	f->have_schema = 1;
	log_info("fleet: schema version %d in %s at %s",
	    f->st.schema_version, f->database, f->url);
	return 1;
}

static int
fleet_insert(struct fleet *f, const char *table, const char *cols,
    const struct buf *rows, size_t nrows)
{
	char *sql;
	int rc;

	xasprintf(&sql, "INSERT INTO %s.%s (%s) FORMAT TabSeparated",
	    f->database, table, cols);
	rc = fleet_post(f, sql, rows->p != NULL ? (const void *)rows->p : "",
	    rows->n, nrows);
	free(sql);
	return rc;
}

/* The round after state's step answered (reply: its body). */
static void
fleet_next(struct fleet *f, const char *reply, size_t n)
{
	struct error err = { 0 };
	struct buf rows = { 0 };
	size_t nrows = 0;
	char *sql;
	int rc = 0;

	switch (f->state) {
	case FS_TABLES:
		if (n > 0 && atoi(reply) > 0) {
			f->state = FS_VERSION;
			xasprintf(&sql, "SELECT max(version) FROM "
			    "%s.schema_version FORMAT TabSeparated",
			    f->database);
			rc = fleet_post(f, sql, NULL, 0, 0);
			free(sql);
			break;
		}
		reply = "0";
		n = 1;
		/* FALLTHROUGH */
	case FS_VERSION:
		f->st.schema_version = n > 0 ? atoi(reply) : 0;
		f->state = FS_SCHEMA;
		f->step = 0;
		f->stmt = 0;
		/* FALLTHROUGH */
	case FS_SCHEMA:
		if ((rc = fleet_schema_next(f)) != 1)
			break;
		f->state = FS_READ;
		fleet_next(f, NULL, 0);
		return;
	case FS_READ:
		/* The batch is read first, then, once, the schema: whether
		 * the version table is there (a fresh database has version
		 * 0). */
		if (!f->have_schema) {
			f->state = FS_TABLES;
			xasprintf(&sql, "SELECT count() FROM system.tables "
			    "WHERE database = '%s' AND name = 'schema_version' "
			    "FORMAT TabSeparated", f->database);
			rc = fleet_post(f, sql, NULL, 0, 0);
			free(sql);
			break;
		}
		if (f->b.n == 0) {
			f->st.last_success_ns = now_ns();
			f->st.backoff = 0;
			fleet_round_end(f, f->interval);
			return;
		}
		if (f->b.nexpired == f->b.n) {
			fleet_mark(f);
			return;
		}
		f->state = FS_CHECK;
		sql = fleet_batch_present_sql(&f->b, f->database, f->host);
		rc = fleet_post(f, sql, NULL, 0, 0);
		free(sql);
		break;
	case FS_CHECK:
		if (fleet_batch_present(&f->b, reply, n, &err) == -1) {
			fleet_fail(f, "%s", err.msg);
			return;
		}
		f->state = FS_SAMPLES;
		fleet_batch_rows(&f->b, 0, &rows, &nrows);
		rc = fleet_insert(f, "samples", "scope, metric, host, time, "
		    "profile, stack_hash, label_keys, label_values, value",
		    &rows, nrows);
		break;
	case FS_SAMPLES:
		f->state = FS_STACKS;
		rc = fleet_insert(f, "stacks", "stack_hash, functions, files, "
		    "lines", &f->b.stacks, f->b.nstacks);
		break;
	case FS_STACKS:
		f->state = FS_FRAMES;
		rc = fleet_insert(f, "stack_frames", "stack_hash, inlined, "
		    "start_lines, mappings", &f->b.frame_rows, f->b.nstacks);
		break;
	case FS_FRAMES:
		f->state = FS_PROFILES;
		fleet_batch_rows(&f->b, 1, &rows, &nrows);
		rc = fleet_insert(f, "profiles", "host, scope, profile, time, "
		    "time_ns, duration_ns, name, metrics, rows, totals, "
		    "label_keys, label_values", &rows, nrows);
		break;
	case FS_PROFILES:
		fleet_mark(f);
		return;
	case FS_RETAIN:
		sql = fleet_retain_next(&f->retain, f->database, reply, n,
		    &err);
		if (err.kind != ERR_NONE) {
			fleet_fail(f, "%s", err.msg);
			return;
		}
		if (sql == NULL) {
			fleet_schedule(f, f->delay);
			return;
		}
		rc = fleet_post(f, sql, NULL, 0, 0);
		free(sql);
		break;
	default:
		return;
	}
	buf_free(&rows);
	if (rc == -1)
		fleet_fail(f, "cannot send a request to %s", f->url);
}

static void
fleet_round_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fleet *f = arg;

	(void)fd;
	(void)what;
	if (f->state != FS_IDLE)
		return;
	f->state = FS_READ;
	fleet_submit(f, fleet_job_new(f, 0), f->reads);
}

struct fleet *
fleet_new(struct event_base *base, const struct fleet_config *cfg,
    struct jobq *reads, struct jobq *writes, struct error *err)
{
	struct fleet *f = xcalloc(1, sizeof *f);

	if (fleet_url_parse(cfg->url, &f->http_host, &f->port, &f->path,
	    err) == -1) {
		free(f);
		return NULL;
	}
	f->base = base;
	f->url = xstrdup(cfg->url);
	f->host = xstrdup(cfg->host);
	f->database = xstrdup(cfg->database);
	f->cluster = cfg->cluster != NULL ? xstrdup(cfg->cluster) : NULL;
	f->batch = cfg->batch;
	f->batch_bytes = cfg->batch_bytes;
	f->interval = cfg->interval;
	f->timeout = cfg->timeout;
	f->reads = reads;
	f->writes = writes;
	f->dns = evdns_base_new(base, EVDNS_BASE_INITIALIZE_NAMESERVERS);
	f->timer = evtimer_new(base, fleet_round_cb, f);
	httpc_deadline_init(&f->head, base);
	/* The store's writer counts the backlog (store_ship_live). */
	f->st.lag_profiles = f->st.lag_bytes = f->st.unshipped_deleted = -1;
	fleet_schedule(f, 0);
	return f;
}

void
fleet_stop(struct fleet *f)
{
	if (f == NULL)
		return;
	if (f->req != NULL || f->job != NULL)
		log_info("fleet: the round in flight was cut short (what it "
		    "had not shipped ships after the next start)");
	evtimer_del(f->timer);
	httpc_deadline_stop(&f->head);
	if (f->req != NULL)
		evhttp_cancel_request(f->req);
	f->req = NULL;
	if (f->conn != NULL)
		evhttp_connection_free(f->conn);
	f->conn = NULL;
	if (f->job != NULL)
		f->job->f = NULL;
	f->job = NULL;
	f->state = FS_IDLE;
}

void
fleet_free(struct fleet *f)
{
	if (f == NULL)
		return;
	fleet_stop(f);
	event_free(f->timer);
	httpc_deadline_free(&f->head);
	if (f->dns != NULL)
		evdns_base_free(f->dns, 0);
	fleet_batch_clear(&f->b);
	fleet_retain_clear(&f->retain);
	free(f->url);
	free(f->host);
	free(f->database);
	free(f->cluster);
	free(f->http_host);
	free(f->path);
	free(f);
}

void
fleet_get_stats(struct fleet *f, struct api_fleet_stats *st)
{
	*st = f->st;
	st->url = f->url;
	st->host = f->host;
	st->database = f->database;
	st->retain_max_age = f->retain.max_age;
	st->partitions_dropped = f->retain.dropped;
	st->last_drop_ns = f->retain.last_drop_ns;
}

void
fleet_set_retention(struct fleet *f, const struct retention *r)
{
	fleet_retain_set(&f->retain, r);
}
