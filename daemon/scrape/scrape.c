/* scrape.c: the scrape targets on the loop.  Each profile of a target has
 * its own timer and at most one scrape at a time: the request (a deadline
 * bounds it whole), then the body's import on the import queue as a push;
 * only when that came back is the next one scheduled, an interval after
 * this one began, or after a backoff (1 s doubling up to the interval,
 * at most a minute) if it failed.  allocs, block and mutex are fetched
 * as deltas (?seconds=N) until the target refuses that, then plain. */
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

#include "activity.h"
#include "alloc.h"
#include "backoff.h"
#include "clock.h"
#include "config.h"
#include "hmap.h"
#include "httpc.h"
#include "import.h"
#include "jobq.h"
#include "log.h"
#include "push.h"
#include "scrape-unix.h"
#include "scrape.h"
#include "status.h"

#define SCRAPE_BACKOFF_MAX	60

struct scrape_tgt;

/* What /v1/status shows of one profile of a target. */
struct scrape_stats {
	const char *name;
	uint64_t scrapes, failures, stored, duplicates;
	int64_t last_success_ns, last_error_ns;	/* 0: never */
	int64_t next_ns;			/* CLOCK_REALTIME */
	int64_t backoff;			/* seconds, while failing */
	int in_flight;
	char last_error[256];			/* "": none */
	int64_t last_bytes;			/* of the last body */
};

/* One profile of one target. */
struct scrape_prof {
	struct scrape_tgt *t;
	char *path;			/* the request's */
	int64_t delta;			/* N of ?seconds=N, 0: plain */
	struct event *timer;		/* the next scrape, or the deadline */
	struct evhttp_connection *conn;
	struct evhttp_request *req;	/* in flight */
	enum evhttp_request_error req_err;
	int have_req_err;
	int conn_bad;			/* failed: a new one next time */
	struct scrape_unix *ux;		/* in flight (unix:) */
	struct scrape_job *job;		/* its import, queued */
	int64_t started_ns, started_mono;
	struct scrape_stats st;
};

struct scrape_tgt {
	struct scraper *s;
	struct scrape_target cfg;
	char *http_host, *unix_path, *instance;
	int port;
	struct scrape_prof *p;
	size_t np;
};

struct scraper {
	struct event_base *base;
	struct evdns_base *dns;
	struct jobq *imports;
	struct push_env env;
	uint64_t max_body;		/* the settings' (max-body) */
	struct scrape_tgt **t;
	size_t nt;
};

struct scrape_job {
	struct job job;
	struct scrape_prof *p;		/* NULL once cancelled */
	const struct push_env *env;
	struct push *push;
	struct import_result res;
	struct error err;
	int rc;
};

static void scrape_start_cb(evutil_socket_t, short, void *);
static void scrape_deadline_cb(evutil_socket_t, short, void *);

static void
scrape_timer(struct scrape_prof *p, event_callback_fn cb, int64_t ms)
{
	struct timeval tv = { (time_t)(ms / 1000),
	    (suseconds_t)(ms % 1000 * 1000) };

	evtimer_del(p->timer);
	event_assign(p->timer, p->t->s->base, -1, 0, cb, p);
	evtimer_add(p->timer, &tv);
}

/* The next scrape an interval after this one began (at once if that has
 * passed), or after the backoff. */
static void
scrape_next(struct scrape_prof *p, int failed)
{
	int64_t ms, cap = p->t->cfg.interval < SCRAPE_BACKOFF_MAX ?
	    p->t->cfg.interval : SCRAPE_BACKOFF_MAX;

	if (failed) {
		p->st.backoff = backoff_next(p->st.backoff, cap);
		ms = p->st.backoff * 1000;
	} else {
		p->st.backoff = 0;
		ms = p->t->cfg.interval * 1000 - (mono_ns() -
		    p->started_mono) / 1000000;
		if (ms < 0)
			ms = 0;
	}
	p->st.next_ns = now_ns() + ms * 1000000;
	scrape_timer(p, scrape_start_cb, ms);
}

static void
scrape_fail(struct scrape_prof *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
scrape_fail(struct scrape_prof *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->st.last_error, sizeof p->st.last_error, fmt, ap);
	va_end(ap);
	p->st.last_error_ns = now_ns();
	p->st.failures++;
	p->st.in_flight = 0;
	scrape_next(p, 1);
	log_warn("scrape %s %s: %s (retry in %" PRId64 " s)", p->t->cfg.name,
	    p->st.name, p->st.last_error, p->st.backoff);
}

/* The request's path: cpu's with ?seconds=cpu_seconds, a delta's with
 * ?seconds=N, the others' plain. */
static void
scrape_path(struct scrape_prof *p)
{
	const struct scrape_target *cfg = &p->t->cfg;
	int cpu = strcmp(p->st.name, "cpu") == 0;

	free(p->path);
	if (cpu || p->delta > 0)
		xasprintf(&p->path, "%s/debug/pprof/%s?seconds=%" PRId64,
		    cfg->path_prefix, cpu ? "profile" : p->st.name,
		    cpu ? cfg->cpu_seconds : p->delta);
	else
		xasprintf(&p->path, "%s/debug/pprof/%s", cfg->path_prefix,
		    p->st.name);
}

/* The target does not do ?seconds=N for this profile: fetched plain
 * from now on (its counters are then cumulative, which the importer
 * knows), said once in the log.  Not a failure. */
static void
scrape_plain(struct scrape_prof *p, const char *why)
{
	log_warn("scrape %s %s: %s%s %s: fetched without seconds from now "
	    "on", p->t->cfg.name, p->st.name, p->t->cfg.url, p->path, why);
	p->delta = 0;
	scrape_path(p);
}

/* Does an answer to ?seconds=N refuse the parameter, not the fetch?  A
 * 4xx (net/http/pprof: 400 for "seconds" on a profile it cannot take
 * deltas of, or past its server's WriteTimeout) other than those a plain
 * fetch gets too (401, 403, 404, 429), or a server error naming seconds
 * (not 502, 503, 504: a proxy's "retry in 5 seconds" passes). */
static int
scrape_refuses_seconds(int code, const char *text)
{
	if (code >= 400 && code < 500)
		return code != 401 && code != 403 && code != 404 &&
		    code != 429;
	return code >= 500 && code != 502 && code != 503 && code != 504 &&
	    strstr(text, "seconds") != NULL;
}

/* A profile stored without a duration (its metrics not deltas): a Go
 * before 1.15 answers ?seconds=N with the plain profile. */
static int
scrape_not_delta(const struct import_result *res)
{
	size_t i;

	for (i = 0; i < res->nmetrics; i++)
		if (res->metrics[i].kind != KIND_DELTA)
			return 1;
	return 0;
}

/* ---- the import ---- */

static void
scrape_job_run(struct job *j, void *worker)
{
	struct scrape_job *sj = (struct scrape_job *)j;

	sj->rc = push_run(sj->env, worker, sj->push, &sj->res, &sj->err);
}

static void
scrape_job_free(struct scrape_job *sj)
{
	import_result_clear(&sj->res);
	push_free(sj->push);
	free(sj);
}

static void
scrape_job_done(struct job *j)
{
	struct scrape_job *sj = (struct scrape_job *)j;
	struct scrape_prof *p = sj->p;

	if (p == NULL) {
		scrape_job_free(sj);
		return;
	}
	p->job = NULL;
	if (j->run == NULL)
		scrape_fail(p, "the import was dropped (stopping)");
	else if (sj->rc == -1)
		scrape_fail(p, "the profile was not stored: %s", sj->err.msg);
	else {
		p->st.in_flight = 0;
		p->st.last_success_ns = now_ns();
		if (sj->res.duplicate)
			p->st.duplicates++;
		else
			p->st.stored++;
		if (p->delta > 0 && scrape_not_delta(&sj->res))
			scrape_plain(p, "answered a profile without a "
			    "duration (seconds ignored, as by a Go before "
			    "1.15)");
		scrape_next(p, 0);
	}
	scrape_job_free(sj);
}

/* Go serves the same samples under heap and allocs: when a section
 * scrapes both, each metric comes from one fetch, heap's inuse_* and
 * allocs' alloc_*.  A delta fetch of allocs keeps only alloc_* anyway:
 * its inuse_* are the change of memory in use, not what a reader of
 * inuse_space wants. */
static void
scrape_keep(const struct scrape_prof *p, struct push *push)
{
	static const char *const inuse[] = { "inuse_objects", "inuse_space",
	    NULL };
	static const char *const alloc[] = { "alloc_objects", "alloc_space",
	    NULL };
	const struct scrape_target *cfg = &p->t->cfg;
	const char *const *keep = NULL;

	if (strcmp(p->st.name, "heap") == 0 &&
	    config_scrape_has(cfg, "allocs"))
		keep = inuse;
	else if (strcmp(p->st.name, "allocs") == 0 && (p->delta > 0 ||
	    config_scrape_has(cfg, "heap")))
		keep = alloc;
	for (; keep != NULL && *keep != NULL; keep++)
		push_keep_set(push, *keep, strlen(*keep), NULL);
}

/* The body as a push of the target's scope and labels: instance (unless
 * configured), then the configured ones. */
static void
scrape_import(struct scrape_prof *p, struct evbuffer *body)
{
	struct scrape_tgt *t = p->t;
	struct scrape_job *sj = xcalloc(1, sizeof *sj);
	struct push *push = xcalloc(1, sizeof *push);
	size_t i;
	char *kv, *eq;

	p->st.last_bytes = (int64_t)evbuffer_get_length(body);
	sj->job.run = scrape_job_run;
	sj->job.done = scrape_job_done;
	sj->p = p;
	sj->env = &t->s->env;
	sj->push = push;
	push->scope = xstrdup(t->cfg.scope);
	push->format = xstrdup("auto");
	xasprintf(&push->name, "%s%s", t->cfg.url, p->path);
	push->bucket_ns = 1000000000;
	push->time_ns = p->started_ns;
	push->source = ACT_SCRAPE;
	push->body = evbuffer_new();
	evbuffer_add_buffer(push->body, body);
	/* A configured instance= replaces the one profd adds. */
	push_label(push, "instance", 8, t->instance, strlen(t->instance));
	for (i = 0; i < t->cfg.labels.n; i++) {
		kv = t->cfg.labels.v[i];
		eq = strchr(kv, '=');
		push_label(push, kv, (size_t)(eq - kv), eq + 1,
		    strlen(eq + 1));
	}
	scrape_keep(p, push);
	if (jobq_push(t->s->imports, &sj->job) == -1) {
		scrape_job_free(sj);
		scrape_fail(p, "the import queue is full");
		return;
	}
	p->job = sj;
}

/* ---- the request ---- */

/* The reply of either client: a 200's body is imported. */
static void
scrape_reply(struct scrape_prof *p, int code, struct evbuffer *body)
{
	size_t n = evbuffer_get_length(body), i;
	char text[121];
	const char *b;

	evtimer_del(p->timer);
	if (code != 200) {
		b = (const char *)evbuffer_pullup(body, n < 120 ? (ssize_t)n :
		    120);
		for (i = 0; i < n && i < 120; i++)
			text[i] = b[i] >= 0x20 && b[i] < 0x7f ? b[i] : ' ';
		while (i > 0 && text[i - 1] == ' ')
			i--;
		text[i] = '\0';
		if (p->delta > 0 && scrape_refuses_seconds(code, text)) {
			char why[160];

			snprintf(why, sizeof why, "answered %d: %s", code,
			    text);
			scrape_plain(p, why);
			p->st.in_flight = 0;
			scrape_timer(p, scrape_start_cb, 0);	/* at once */
			return;
		}
		scrape_fail(p, "%s%s answered %d: %s", p->t->cfg.url, p->path,
		    code, text);
		return;
	}
	if (n == 0) {
		scrape_fail(p, "%s%s answered 200 with an empty body",
		    p->t->cfg.url, p->path);
		return;
	}
	scrape_import(p, body);
}

static const char *
scrape_reason(const struct scrape_prof *p)
{
	if (!p->have_req_err)
		return "cannot connect, or the connection closed";
	switch (p->req_err) {
	case EVREQ_HTTP_TIMEOUT:
		return "timed out";
	case EVREQ_HTTP_EOF:
		return "the connection closed (or was refused)";
	case EVREQ_HTTP_INVALID_HEADER:
		/* libevent says so of a head past its size too. */
		return "the reply is not HTTP, or its head passes 64 KiB";
	case EVREQ_HTTP_BUFFER_ERROR:
		return "reading or writing failed";
	case EVREQ_HTTP_REQUEST_CANCEL:
		return "cancelled";
	case EVREQ_HTTP_DATA_TOO_LONG:
		return "the body is over max-body";
	}
	return "failed";
}

static void
scrape_req_err_cb(enum evhttp_request_error e, void *arg)
{
	struct scrape_prof *p = arg;

	p->req_err = e;
	p->have_req_err = 1;
}

static void
scrape_http_cb(struct evhttp_request *req, void *arg)
{
	struct scrape_prof *p = arg;
	int code;

	p->req = NULL;
	if (req == NULL || (code = evhttp_request_get_response_code(req)) ==
	    0) {
		/* Not freed here: libevent may use it after this callback.
		 * The next scrape begins with a new one. */
		p->conn_bad = 1;
		evtimer_del(p->timer);
		scrape_fail(p, "%s%s: %s", p->t->cfg.url, p->path,
		    scrape_reason(p));
		return;
	}
	scrape_reply(p, code, evhttp_request_get_input_buffer(req));
}

static void
scrape_unix_done(int code, struct evbuffer *body, const char *err, void *arg)
{
	struct scrape_prof *p = arg;

	p->ux = NULL;
	if (code == 0) {
		evtimer_del(p->timer);
		scrape_fail(p, "%s%s: %s", p->t->cfg.url, p->path, err);
		return;
	}
	scrape_reply(p, code, body);
}

/* Whatever is on the wire dropped; the connection too (a new one for the
 * next scrape: a cancelled exchange leaves it in an unknown state). */
static void
scrape_cancel_request(struct scrape_prof *p)
{
	if (p->req != NULL)
		evhttp_cancel_request(p->req);
	p->req = NULL;
	if (p->conn != NULL)
		evhttp_connection_free(p->conn);
	p->conn = NULL;
	scrape_unix_cancel(p->ux);
	p->ux = NULL;
}

static void
scrape_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct scrape_prof *p = arg;

	(void)fd;
	(void)what;
	scrape_cancel_request(p);
	scrape_fail(p, "%s%s: no whole answer within the timeout (%" PRId64
	    " s)", p->t->cfg.url, p->path, p->t->cfg.timeout);
}

static int
scrape_http_get(struct scrape_prof *p, const struct scrape_tgt *t)
{
	struct evhttp_request *req;
	struct evkeyvalq *h;

	/* A connection that failed is not used again. */
	if (p->conn != NULL && p->conn_bad) {
		evhttp_connection_free(p->conn);
		p->conn = NULL;
	}
	p->conn_bad = 0;
	p->have_req_err = 0;
	if (p->conn == NULL) {
		p->conn = httpc_conn_new(t->s->base, t->s->dns,
		    t->http_host, t->port, t->cfg.timeout + 1);
		if (p->conn == NULL)
			return -1;
	}
	/* Past the deadline (scrape_deadline_cb): its error is the one. */
	evhttp_connection_set_timeout(p->conn, (int)t->cfg.timeout + 1);
	evhttp_connection_set_max_body_size(p->conn,
	    (ev_ssize_t)t->s->max_body);
	if ((req = evhttp_request_new(scrape_http_cb, p)) == NULL)
		return -1;
	evhttp_request_set_error_cb(req, scrape_req_err_cb);
	h = evhttp_request_get_output_headers(req);
	evhttp_add_header(h, "Host", t->http_host);
	evhttp_add_header(h, "User-Agent", "profd/" PROFD_VERSION);
	/* Set first: a connection that cannot even start answers within
	 * the call (scrape_http_cb, which clears it). */
	p->req = req;
	if (httpc_make_request(p->conn, req, EVHTTP_REQ_GET, p->path) ==
	    -1) {
		/* The request is freed. */
		p->req = NULL;
		evhttp_connection_free(p->conn);
		p->conn = NULL;
		return -1;
	}
	return 0;
}

static void
scrape_start_cb(evutil_socket_t fd, short what, void *arg)
{
	struct scrape_prof *p = arg;
	struct scrape_tgt *t = p->t;
	char err[200];

	(void)fd;
	(void)what;
	if (p->req != NULL || p->ux != NULL || p->job != NULL)
		return;			/* never two at once */
	p->started_ns = now_ns();
	p->started_mono = mono_ns();
	p->st.scrapes++;
	p->st.in_flight = 1;
	p->st.next_ns = 0;
	if (t->unix_path != NULL) {
		p->ux = scrape_unix_get(t->s->base, t->unix_path, p->path,
		    t->cfg.timeout + 1, t->s->max_body,
		    scrape_unix_done, p, err, sizeof err);
		if (p->ux == NULL) {
			scrape_fail(p, "%s%s: %s", t->cfg.url, p->path, err);
			return;
		}
	} else if (scrape_http_get(p, t) == -1) {
		scrape_fail(p, "%s%s: cannot send the request", t->cfg.url,
		    p->path);
		return;
	} else if (p->req == NULL)
		return;		/* failed at once: counted, the next one set */
	/* libevent's timeouts are per read; this bounds the whole. */
	scrape_timer(p, scrape_deadline_cb, t->cfg.timeout * 1000 + 500);
}

/* ---- targets ---- */

static struct scrape_tgt *
scrape_tgt_new(struct scraper *s, const struct scrape_target *cfg)
{
	struct scrape_tgt *t = xcalloc(1, sizeof *t);
	struct evhttp_uri *u;
	int64_t first;
	size_t i;

	t->s = s;
	config_scrape_copy(&t->cfg, cfg);
	if (strncmp(cfg->url, "unix:", 5) == 0) {
		t->unix_path = xstrdup(cfg->url + 5);
		t->instance = xstrdup(t->unix_path);
	} else {
		/* The loader checked it. */
		u = evhttp_uri_parse(cfg->url);
		t->http_host = xstrdup(evhttp_uri_get_host(u));
		t->port = evhttp_uri_get_port(u) > 0 ?
		    evhttp_uri_get_port(u) : 80;
		evhttp_uri_free(u);
		xasprintf(&t->instance, "%s:%d", t->http_host, t->port);
	}
	/* Targets spread over the interval (the name and the moment mixed):
	 * a restart does not have them all at once. */
	first = (int64_t)((hmap_hash(cfg->name, strlen(cfg->name)) ^
	    (uint64_t)now_ns()) % (uint64_t)(cfg->interval * 1000));
	t->np = cfg->profiles.n;
	t->p = xcalloc(t->np, sizeof *t->p);
	for (i = 0; i < t->np; i++) {
		struct scrape_prof *p = &t->p[i];

		p->t = t;
		p->st.name = t->cfg.profiles.v[i];
		p->delta = config_scrape_delta_seconds(cfg, p->st.name);
		scrape_path(p);
		p->timer = evtimer_new(s->base, scrape_start_cb, p);
		p->st.next_ns = now_ns() + first * 1000000;
		scrape_timer(p, scrape_start_cb, first);
	}
	log_info("scrape %s: %s every %" PRId64 " s into scope %s, first in "
	    "%" PRId64 " ms", cfg->name, cfg->url, cfg->interval, cfg->scope,
	    first);
	return t;
}

/* In flight: cancelled; a queued import finishes and is dropped. */
static void
scrape_tgt_stop(struct scrape_tgt *t)
{
	size_t i;

	for (i = 0; i < t->np; i++) {
		if (t->p[i].st.in_flight)
			log_info("scrape %s: the %s fetch in flight was cut "
			    "short", t->cfg.name, t->p[i].st.name);
		evtimer_del(t->p[i].timer);
		scrape_cancel_request(&t->p[i]);
		if (t->p[i].job != NULL)
			t->p[i].job->p = NULL;
		t->p[i].job = NULL;
		t->p[i].st.in_flight = 0;
	}
}

static void
scrape_tgt_free(struct scrape_tgt *t)
{
	size_t i;

	scrape_tgt_stop(t);
	for (i = 0; i < t->np; i++) {
		event_free(t->p[i].timer);
		free(t->p[i].path);
	}
	free(t->p);
	free(t->http_host);
	free(t->unix_path);
	free(t->instance);
	config_scrape_clear(&t->cfg);
	free(t);
}

struct scraper *
scraper_new(struct event_base *base, struct evdns_base *dns,
    struct jobq *imports, const struct push_env *env)
{
	struct scraper *s = xcalloc(1, sizeof *s);

	s->dns = dns;
	s->base = base;
	s->imports = imports;
	s->env = *env;
	return s;
}

void
scraper_apply(struct scraper *s, const struct config *cfg)
{
	struct scrape_tgt **nt = xcalloc(cfg->nscrapes + 1, sizeof *nt);
	size_t i, j;

	s->max_body = cfg->limits.max_body;
	for (i = 0; i < cfg->nscrapes; i++)
		for (j = 0; j < s->nt; j++)
			if (s->t[j] != NULL &&
			    config_scrape_same(&s->t[j]->cfg, &cfg->scrapes[i])) {
				nt[i] = s->t[j];	/* as it was */
				s->t[j] = NULL;
				break;
			}
	for (j = 0; j < s->nt; j++)
		if (s->t[j] != NULL) {
			log_info("scrape %s: stopped", s->t[j]->cfg.name);
			scrape_tgt_free(s->t[j]);
		}
	for (i = 0; i < cfg->nscrapes; i++)
		if (nt[i] == NULL)
			nt[i] = scrape_tgt_new(s, &cfg->scrapes[i]);
	free(s->t);
	s->t = nt;
	s->nt = cfg->nscrapes;
}

void
scraper_stop(struct scraper *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nt; i++)
		scrape_tgt_stop(s->t[i]);
}

void
scraper_free(struct scraper *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nt; i++)
		scrape_tgt_free(s->t[i]);
	free(s->t);
	free(s);
}

static json_t *
scrape_prof_status(const struct scrape_stats *p, const char *path)
{
	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:o, s:o, s:s?, s:o, s:b, "
	    "s:I, s:I, s:s}",
	    "profile", p->name,
	    "scrapes", (json_int_t)p->scrapes,
	    "stored", (json_int_t)p->stored,
	    "duplicates", (json_int_t)p->duplicates,
	    "failures", (json_int_t)p->failures,
	    "last_success", status_time(p->last_success_ns),
	    "last_error_time", status_time(p->last_error_ns),
	    "last_error", p->last_error[0] != '\0' ? p->last_error : NULL,
	    "next", status_time(p->next_ns),
	    "in_flight", p->in_flight,
	    "backoff_s", (json_int_t)p->backoff,
	    "last_bytes", (json_int_t)p->last_bytes,
	    "path", path);
}

json_t *
scraper_status(void *ctx)
{
	struct scraper *s = ctx;
	json_t *a = json_array(), *ps;
	size_t i, j;

	for (i = 0; s != NULL && i < s->nt; i++) {
		const struct scrape_tgt *t = s->t[i];

		ps = json_array();
		for (j = 0; j < t->np; j++)
			json_array_append_new(ps, scrape_prof_status(
			    &t->p[j].st, t->p[j].path));
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:I, s:I, "
		    "s:I, s:o}",
		    "name", t->cfg.name,
		    "url", t->cfg.url,
		    "scope", t->cfg.scope,
		    "interval_s", (json_int_t)t->cfg.interval,
		    "cpu_seconds", (json_int_t)t->cfg.cpu_seconds,
		    "timeout_s", (json_int_t)t->cfg.timeout,
		    "profiles", ps));
	}
	return a;
}
