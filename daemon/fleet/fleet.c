/* fleet.c: the shipper's rounds on the event loop, as small steps each
 * a function that asks ClickHouse (ch.c) and names the step its answer
 * goes to.  A round: a batch read on a query thread (batch_read), the
 * schema made sure of, once (schema_*), ClickHouse asked which of its
 * profiles it has (a retry after a crash: present), the others'
 * samples, frames, stacks and profiles rows inserted (insert_*), the
 * batch marked shipped by the import thread (acknowledge), and, once a
 * retention interval, the day partitions past max-age dropped
 * (retain, fleet-retain.c).  Any failure ends the round and the next
 * one waits a backoff that doubles up to a minute.
 * schema/clickhouse/README.md says why this is exactly once. */
#include <event2/event.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "alloc.h"
#include "backoff.h"
#include "buf.h"
#include "ch.h"
#include "clock.h"
#include "fleet-batch.h"
#include "fleet-retain.h"
#include "fleet.h"
#include "fleet_schema.h"
#include "import.h"
#include "jobq.h"
#include "log.h"
#include "query.h"
#include "rate.h"
#include "status.h"
#include "store.h"

#define FLEET_BACKOFF_MAX	60
/* The longest answer the shipper reads: a few numbers or an error;
 * more is not ClickHouse. */
#define FLEET_MAX_REPLY		(1024 * 1024)

/* What /v1/status shows of the shipper (fleet_status). */
struct fleet_stats {
	uint64_t shipped_profiles, shipped_rows, skipped_profiles;
	uint64_t expired_profiles;	/* past the fleet's age: not sent */
	uint64_t batches, failures;
	int64_t last_success_ns, last_error_ns;	/* 0: never */
	char last_error[256];			/* "": none */
	int64_t backoff;			/* seconds, while failing */
	int schema_version;
	/* The bytes of batches marked shipped (lag_bytes' unit): how fast
	 * the backlog drains. */
	struct rate drained;
};

struct fleet;
/* A step of the round: what follows an answer of ClickHouse. */
typedef void fleet_step(struct fleet *, const char *reply, size_t n);

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
	struct ch *ch;
	struct ch_req *req;		/* in flight */
	fleet_step *next;		/* where its answer goes */
	struct event *timer;
	struct jobq *reads, *writes;
	struct fleet_job *job;		/* in a queue */
	char *url, *host, *database, *cluster;
	size_t batch, batch_bytes;
	int64_t interval;
	int busy;			/* a round is under way */
	struct fleet_batch b;		/* the round's */
	int step;			/* the schema step being applied */
	size_t stmt;			/* its statement */
	int have_schema;
	struct fleet_retain retain;	/* old day partitions dropped */
	int64_t delay;			/* the next round's, after retention */
	struct store *store;		/* the writer's: the backlog's counts */
	uint64_t backlog_max;
	struct fleet_stats st;
};

static void fleet_round_cb(evutil_socket_t, short, void *);
static fleet_step fleet_retain_step;

static void
fleet_schedule(struct fleet *f, int64_t seconds)
{
	struct timeval tv = { (time_t)seconds, 0 };

	f->busy = 0;
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

static void
fleet_answer(void *arg, const char *reply, size_t n, const struct error *err)
{
	struct fleet *f = arg;

	f->req = NULL;
	if (err != NULL) {
		fleet_fail(f, "%s%s", err->msg, f->next == fleet_retain_step ?
		    " (a DROP PARTITION pass)" : "");
		return;
	}
	f->next(f, reply, n);
}

/* Ask ClickHouse sql (taken), with rows as the body of an INSERT; the
 * answer goes to next. */
static void
fleet_ask(struct fleet *f, char *sql, const struct buf *rows, size_t nrows,
    fleet_step *next)
{
	struct ch_request rq;

	memset(&rq, 0, sizeof rq);
	rq.sql = sql;
	if (rows != NULL) {
		rq.body = rows->p != NULL ? (const void *)rows->p : "";
		rq.n = rows->n;
		rq.block_rows = nrows;
	}
	rq.max_reply = FLEET_MAX_REPLY;
	rq.done = fleet_answer;
	rq.arg = f;
	f->next = next;
	f->req = ch_post(f->ch, &rq);
	free(sql);
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

static void fleet_shipping(struct fleet *);
static void fleet_round_end(struct fleet *, int64_t delay);

static void
fleet_job_done(struct job *j)
{
	struct fleet_job *fj = (struct fleet_job *)j;
	struct fleet *f = fj->f;
	int64_t bytes;
	size_t i;

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
		for (i = 0, bytes = 0; i < f->b.n; i++)
			bytes += f->b.p[i].bytes > 0 ? f->b.p[i].bytes : 0;
		rate_add(&f->st.drained, mono_ns(), (uint64_t)bytes);
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
	fleet_shipping(f);
}

/* ---- the round ---- */

/* ClickHouse has the batch (or, for the expired, needs none of it): the
 * store marks it shipped. */
static void
fleet_acknowledge(struct fleet *f)
{
	struct fleet_job *fj;
	size_t i;

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

static fleet_step fleet_schema_apply;

/* The next statement of the schema asked, or the version recorded: 0;
 * 1 once the schema is whole. */
static int
fleet_schema_next(struct fleet *f)
{
	const struct schema_step *st;
	char *sql;
	int skip, applied;

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
			fleet_ask(f, sql, NULL, 0, fleet_schema_apply);
			return 0;
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
		fleet_ask(f, sql, NULL, 0, fleet_schema_apply);
		return 0;
	}
	f->have_schema = 1;
	log_info("fleet: schema version %d in %s at %s",
	    f->st.schema_version, f->database, f->url);
	return 1;
}

static fleet_step fleet_insert_samples;

/* The schema is whole: which of the batch's profiles ClickHouse has. */
static void
fleet_present(struct fleet *f)
{
	if (f->b.n == 0) {
		f->st.last_success_ns = now_ns();
		f->st.backoff = 0;
		fleet_round_end(f, f->interval);
		return;
	}
	if (f->b.nexpired == f->b.n) {
		fleet_acknowledge(f);
		return;
	}
	fleet_ask(f, fleet_batch_present_sql(&f->b, f->database, f->host),
	    NULL, 0, fleet_insert_samples);
}

static void
fleet_schema_apply(struct fleet *f, const char *reply, size_t n)
{
	(void)reply;
	(void)n;
	if (fleet_schema_next(f) == 1)
		fleet_present(f);
}

static void
fleet_schema_version(struct fleet *f, const char *reply, size_t n)
{
	f->st.schema_version = n > 0 ? atoi(reply) : 0;
	f->step = 0;
	f->stmt = 0;
	fleet_schema_apply(f, NULL, 0);
}

/* Whether the version table is there (a fresh database has version 0). */
static void
fleet_schema_tables(struct fleet *f, const char *reply, size_t n)
{
	char *sql;

	if (n == 0 || atoi(reply) <= 0) {
		fleet_schema_version(f, "0", 1);
		return;
	}
	xasprintf(&sql, "SELECT max(version) FROM %s.schema_version FORMAT "
	    "TabSeparated", f->database);
	fleet_ask(f, sql, NULL, 0, fleet_schema_version);
}

/* The batch is read: the schema made sure of once, then the batch. */
static void
fleet_shipping(struct fleet *f)
{
	char *sql;

	if (f->have_schema) {
		fleet_present(f);
		return;
	}
	xasprintf(&sql, "SELECT count() FROM system.tables WHERE database = "
	    "'%s' AND name = 'schema_version' FORMAT TabSeparated",
	    f->database);
	fleet_ask(f, sql, NULL, 0, fleet_schema_tables);
}

static void
fleet_insert(struct fleet *f, const char *table, const char *cols,
    const struct buf *rows, size_t nrows, fleet_step *next)
{
	char *sql;

	xasprintf(&sql, "INSERT INTO %s.%s (%s) FORMAT TabSeparated",
	    f->database, table, cols);
	fleet_ask(f, sql, rows, nrows, next);
}

static void
fleet_acknowledged(struct fleet *f, const char *reply, size_t n)
{
	(void)reply;
	(void)n;
	fleet_acknowledge(f);
}

/* The batch's rows of a table, inserted; next takes the answer. */
static void
fleet_insert_rows(struct fleet *f, enum fleet_table table, const char *name,
    const char *cols, fleet_step *next)
{
	struct buf rows = { 0 };
	size_t nrows = 0;

	fleet_batch_rows(&f->b, table, &rows, &nrows);
	fleet_insert(f, name, cols, &rows, nrows, next);
	buf_free(&rows);
}

/* After the profiles rows: each profile's series and kinds. */
static void
fleet_insert_metrics(struct fleet *f, const char *reply, size_t n)
{
	(void)reply;
	(void)n;
	fleet_insert_rows(f, FLEET_PROFILE_METRICS, "profile_metrics",
	    "host, scope, profile, time, time_ns, series, metrics, kinds, "
	    "counted, raw_totals", fleet_acknowledged);
}

static void
fleet_insert_profiles(struct fleet *f, const char *reply, size_t n)
{
	(void)reply;
	(void)n;
	fleet_insert_rows(f, FLEET_PROFILES, "profiles", "host, scope, "
	    "profile, time, time_ns, duration_ns, name, metrics, rows, totals, "
	    "label_keys, label_values", fleet_insert_metrics);
}

static void
fleet_insert_stacks(struct fleet *f, const char *reply, size_t n)
{
	(void)reply;
	(void)n;
	fleet_insert(f, "stacks", "stack_hash, functions, files, lines",
	    &f->b.stacks, f->b.nstacks, fleet_insert_profiles);
}

/* A stack's stack_frames row before its stacks row: a reader that
 * finds the stack (readers start from stacks) finds its inline flags
 * too, even while a batch is cut off between the two. */
static void
fleet_insert_frames(struct fleet *f, const char *reply, size_t n)
{
	(void)reply;
	(void)n;
	fleet_insert(f, "stack_frames", "stack_hash, inlined, start_lines, "
	    "mappings", &f->b.frame_rows, f->b.nstacks, fleet_insert_stacks);
}

/* After the samples, the same profiles' function sums (schema 8): never
 * before them, so that a retry, which leaves out the profiles with
 * samples, cannot send a profile's sums twice. */
static void
fleet_insert_fsums(struct fleet *f, const char *reply, size_t n)
{
	(void)reply;
	(void)n;
	fleet_insert_rows(f, FLEET_FUNCTIONS, "function_rows", "scope, "
	    "metric, host, time, profile, kind, fn, a, b",
	    fleet_insert_frames);
}

/* The names of the batch's function sums' keys before the sums: a
 * reader that finds a key finds its names (ReplacingMergeTree: those
 * sent again merge away). */
static void
fleet_insert_fnames(struct fleet *f, const char *reply, size_t n)
{
	(void)reply;
	(void)n;
	fleet_insert(f, "function_names", "fn, caller, name",
	    &f->b.fkeys.rows, f->b.fkeys.nkeys, fleet_insert_fsums);
}

/* ClickHouse said which profiles it has: the others' samples. */
static void
fleet_insert_samples(struct fleet *f, const char *reply, size_t n)
{
	struct error err = { 0 };

	if (fleet_batch_present(&f->b, reply, n, &err) == -1) {
		fleet_fail(f, "%s", err.msg);
		return;
	}
	fleet_insert_rows(f, FLEET_SAMPLES, "samples", "scope, metric, host, "
	    "time, profile, stack_hash, label_keys, label_values, value",
	    fleet_insert_fnames);
}

/* A pass of retention: the answer to its last statement. */
static void
fleet_retain_step(struct fleet *f, const char *reply, size_t n)
{
	struct error err = { 0 };
	char *sql;

	sql = fleet_retain_next(&f->retain, f->database, reply, n, &err);
	if (err.kind != ERR_NONE) {
		fleet_fail(f, "%s", err.msg);
		return;
	}
	if (sql == NULL) {
		fleet_schedule(f, f->delay);
		return;
	}
	fleet_ask(f, sql, NULL, 0, fleet_retain_step);
}

/* A round went well: retention's pass if one is due (fleet-retain.c),
 * then the next round in delay seconds. */
static void
fleet_round_end(struct fleet *f, int64_t delay)
{
	char *sql;

	f->delay = delay;
	if ((sql = fleet_retain_start(&f->retain, f->database, now_ns())) ==
	    NULL) {
		fleet_schedule(f, delay);
		return;
	}
	fleet_ask(f, sql, NULL, 0, fleet_retain_step);
}

static void
fleet_round_cb(evutil_socket_t fd, short what, void *arg)
{
	struct fleet *f = arg;

	(void)fd;
	(void)what;
	if (f->busy)
		return;
	f->busy = 1;
	fleet_submit(f, fleet_job_new(f, 0), f->reads);
}

struct fleet *
fleet_new(struct event_base *base, const struct fleet_config *cfg,
    struct ch *ch, struct jobq *reads, struct jobq *writes)
{
	struct fleet *f = xcalloc(1, sizeof *f);

	f->ch = ch;
	f->url = xstrdup(cfg->url);
	f->host = xstrdup(cfg->host);
	f->database = xstrdup(cfg->database);
	f->cluster = cfg->cluster != NULL ? xstrdup(cfg->cluster) : NULL;
	f->batch = cfg->batch;
	f->batch_bytes = cfg->batch_bytes;
	f->interval = cfg->interval;
	f->reads = reads;
	f->writes = writes;
	f->timer = evtimer_new(base, fleet_round_cb, f);
	f->store = cfg->store;
	f->backlog_max = cfg->backlog_max;
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
	ch_cancel(f->req);
	f->req = NULL;
	if (f->job != NULL)
		f->job->f = NULL;
	f->job = NULL;
	f->busy = 0;
}

void
fleet_free(struct fleet *f)
{
	if (f == NULL)
		return;
	fleet_stop(f);
	event_free(f->timer);
	fleet_batch_clear(&f->b);
	fleet_retain_clear(&f->retain);
	free(f->url);
	free(f->host);
	free(f->database);
	free(f->cluster);
	free(f);
}

json_t *
fleet_status(void *ctx)
{
	struct fleet *f = ctx;
	const struct fleet_stats *st;
	int64_t lag = -1, bytes = -1, deleted = -1;
	json_t *o;

	if (f == NULL)
		return json_null();
	st = &f->st;
	/* The backlog as the writer committed it, deletes by retention or
	 * DELETE included: the shipper sees it only at its rounds. */
	if (f->store != NULL)
		store_ship_live(f->store, &lag, &bytes, &deleted);
	o = json_pack("{s:s, s:s, s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:I, "
	    "s:o, s:I, s:I, s:o, s:o, s:s?, s:I, s:i, s:I, s:I, s:o}",
	    "url", f->url,
	    "host", f->host,
	    "database", f->database,
	    "lag_profiles", status_count(lag),
	    "lag_bytes", status_count(bytes),
	    "shipped_profiles", (json_int_t)st->shipped_profiles,
	    "shipped_rows", (json_int_t)st->shipped_rows,
	    "skipped_profiles", (json_int_t)st->skipped_profiles,
	    "expired_profiles", (json_int_t)st->expired_profiles,
	    "backlog_max", (json_int_t)f->backlog_max,
	    "unshipped_deleted", status_count(deleted),
	    "batches", (json_int_t)st->batches,
	    "failures", (json_int_t)st->failures,
	    "last_success", status_time(st->last_success_ns),
	    "last_error_time", status_time(st->last_error_ns),
	    "last_error", st->last_error[0] != '\0' ? st->last_error : NULL,
	    "backoff_s", (json_int_t)st->backoff,
	    "schema_version", st->schema_version,
	    "max_age_s", (json_int_t)f->retain.max_age,
	    "partitions_dropped", (json_int_t)f->retain.dropped,
	    "last_drop", status_time(f->retain.last_drop_ns));
	if (o != NULL)
		status_drain(o, &st->drained, bytes);
	return o;
}

void
fleet_set_retention(struct fleet *f, const struct retention *r)
{
	fleet_retain_set(&f->retain, r);
}
