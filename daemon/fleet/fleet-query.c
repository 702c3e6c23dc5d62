/* fleet-query.c: one fleet view is a few questions to ClickHouse, one
 * after the other on one kept-alive connection (a new one after a
 * failure): the default metric when none is named, the metrics
 * the selection matches with its profile count, then the stacks.  The
 * stacks' reply is read as it arrives, line by line, into the view, so
 * memory follows the view's size, not the reply's.  ClickHouse is also
 * told the timeout (max_execution_time), so it stops working too. */
#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <stdlib.h>
#include <string.h>

#include "fleet-query.h"
#include "fleet-sql.h"
#include "fleet-view.h"
#include "httpc.h"
#include "tree.h"
#include "fleet-tsv.h"
#include "selection.h"
#include "util.h"

/* A line of the reply (a stack's frames) may be this long. */
#define FQ_MAX_LINE		(64u * 1024 * 1024)
/* What is kept of an error reply. */
#define FQ_MAX_ERROR		400

enum fq_step { FQ_DEFAULT, FQ_METRICS, FQ_STACKS, FQ_SCOPES, FQ_HOSTS };

struct fq {
	TAILQ_ENTRY(fq) entry;
	struct fleet_queries *c;
	struct evhttp_connection *conn;	/* the questions', kept alive */
	struct evhttp_request *req;	/* in flight */
	struct httpc_deadline head;	/* its answer's head */
	enum fq_step step;
	struct fleet_sql q;
	char *metric;
	int nmetrics;
	int64_t nprofiles;
	struct fleet_tsv tsv;
	struct fleet_tsv_array a[6];
	struct fleet_view view;
	struct store_scope_info *scopes;	/* FQ_SCOPES' */
	size_t nscopes;
	char **hosts;			/* FQ_HOSTS' */
	size_t nhosts;
	int code;			/* the reply's HTTP status */
	int failed;			/* a request error: timeout or not */
	struct buf errbody;
	struct error err;
	api_fleet_done *done;
	void *arg;
};

struct fleet_queries {
	struct event_base *base;
	struct evdns_base *dns;
	char *url, *http_host, *path, *database;
	int port;
	int cluster;
	int64_t timeout;
	TAILQ_HEAD(, fq) inflight;
};

static void fq_send(struct fq *, char *sql);

static void
fleet_http_conn_free_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	evhttp_connection_free(arg);
}

void
fleet_http_conn_drop(struct event_base *base, struct evhttp_connection *conn)
{
	static const struct timeval now = { 0, 0 };

	if (conn != NULL && event_base_once(base, -1, EV_TIMEOUT,
	    fleet_http_conn_free_cb, conn, &now) == -1)
		evhttp_connection_free(conn);
}

static void
fq_conn_drop(struct fq *f)
{
	fleet_http_conn_drop(f->c->base, f->conn);
	f->conn = NULL;
}

static void
fq_free(struct fq *f)
{
	size_t i;

	fq_conn_drop(f);
	httpc_deadline_free(&f->head);
	fleet_tsv_clear(&f->tsv);
	for (i = 0; i < NITEMS(f->a); i++)
		fleet_tsv_array_clear(&f->a[i]);
	fleet_view_clear(&f->view);
	store_scope_info_free(f->scopes, f->nscopes);
	for (i = 0; i < f->nhosts; i++)
		free(f->hosts[i]);
	free(f->hosts);
	buf_free(&f->errbody);
	free(f->metric);
	free(f);
}

/* The answer (the view or the error), and the question is over. */
static void
fq_finish(struct fq *f)
{
	struct api_fleet_answer a;
	struct store_metric *m;
	struct top_result top;
	struct tree_result tree;
	struct timeline_result tl;
	char *slash;
	int i;

	memset(&a, 0, sizeof a);
	TAILQ_REMOVE(&f->c->inflight, f, entry);
	if (f->err.kind != ERR_NONE) {
		f->done(f->arg, NULL, &f->err);
		fq_free(f);
		return;
	}
	if (f->step == FQ_HOSTS) {
		a.scopes = f->scopes;
		a.nscopes = f->nscopes;
		a.hosts = f->hosts;
		a.nhosts = f->nhosts;
		f->done(f->arg, &a, NULL);
		fq_free(f);
		return;
	}
	if (f->view.kind & FV_TOP) {
		fleet_view_top(&f->view, &top);
		top.nprofiles = f->nprofiles;
		a.top = &top;
	}
	if (f->view.kind & FV_TREE) {
		fleet_view_tree(&f->view, &tree);
		tree.nprofiles = f->nprofiles;
		a.tree = &tree;
	}
	if (f->view.kind == FV_TIMELINE) {
		fleet_view_timeline(&f->view, &tl);
		a.timeline = &tl;
	}
	/* TYPE/UNIT, as shipped. */
	slash = strchr(f->metric, '/');
	for (i = 0; i < 3; i++) {
		if ((m = i == 0 ? (a.top ? &top.metric : NULL) : i == 1 ?
		    (a.tree ? &tree.metric : NULL) : (a.timeline ?
		    &tl.metric : NULL)) == NULL)
			continue;
		m->type = xstrndup(f->metric, slash != NULL ?
		    (size_t)(slash - f->metric) : strlen(f->metric));
		m->unit = xstrdup(slash != NULL ? slash + 1 : "");
	}
	f->done(f->arg, &a, NULL);
	fq_free(f);
}

/* ---- the replies' lines ---- */

static int
fq_default_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fq *f = arg;
	size_t len;

	(void)err;
	if (n >= 1 && f->metric == NULL)
		f->metric = xstrdup(fleet_tsv_str(&v[0], &len));
	return 0;
}

static int
fq_metrics_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fq *f = arg;
	size_t len;

	if (n != 2)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 2 (metric, profiles)", n);
	if (f->nmetrics++ == 0) {
		free(f->metric);
		f->metric = xstrdup(fleet_tsv_str(&v[0], &len));
		return fleet_tsv_int(&v[1], &f->nprofiles, err);
	}
	return 0;
}

int
fleet_query_stack_row(struct fleet_tsv_array *a, struct fleet_view *view,
    struct fleet_tsv_field *v, size_t n, struct error *err)
{
	struct fleet_stack s;
	int64_t bucket = 0;
	size_t i;

	/* A timeline's rows start with their time bucket. */
	if (view->kind == FV_TIMELINE && n == 8) {
		if (fleet_tsv_int(&v[0], &bucket, err) == -1)
			return -1;
		v++;
		n--;
	}
	if (n != 7)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 7 (value and 6 arrays)", n);
	if (fleet_tsv_int(&v[0], &s.value, err) == -1)
		return -1;
	for (i = 0; i < 6; i++)
		if (fleet_tsv_array(&v[i + 1], &a[i], err) == -1)
			return -1;
	s.n = a[0].n;
	for (i = 1; i < 3; i++)
		if (a[i].n != s.n)
			return error_set(err, ERR_INTERNAL, "ClickHouse's "
			    "reply: a stack of %zu functions and %zu files or "
			    "lines", s.n, a[i].n);
	s.fn = a[0].v;
	s.file = a[1].v;
	s.line = a[2].v;
	/* stack_frames' row: none (an empty array) or one of the stack. */
	s.inlined = a[3].n == s.n ? a[3].v : NULL;
	s.start = a[4].n == s.n ? a[4].v : NULL;
	s.mapping = a[5].n == s.n ? a[5].v : NULL;
	return fleet_view_stack(view, &s, bucket);
}

/* scope, profiles, first and last time, metrics (TYPE/UNIT). */
static int
fq_scopes_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fq *f = arg;
	struct store_scope_info *si;
	const char *slash;
	size_t len, i;

	if (n != 5)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 5 (scope, profiles, times, metrics)", n);
	f->scopes = xreallocarray(f->scopes, f->nscopes + 1,
	    sizeof *f->scopes);
	si = &f->scopes[f->nscopes++];
	memset(si, 0, sizeof *si);
	si->name = xstrdup(fleet_tsv_str(&v[0], &len));
	if (fleet_tsv_int(&v[1], &si->profiles, err) == -1 ||
	    fleet_tsv_int(&v[2], &si->first_ns, err) == -1 ||
	    fleet_tsv_int(&v[3], &si->last_ns, err) == -1 ||
	    fleet_tsv_array(&v[4], &f->a[0], err) == -1)
		return -1;
	si->metrics = xcalloc(f->a[0].n ? f->a[0].n : 1,
	    sizeof *si->metrics);
	for (i = 0; i < f->a[0].n; i++) {
		slash = strchr(f->a[0].v[i], '/');
		si->metrics[i].type = xstrndup(f->a[0].v[i], slash != NULL ?
		    (size_t)(slash - f->a[0].v[i]) : strlen(f->a[0].v[i]));
		si->metrics[i].unit = xstrdup(slash != NULL ? slash + 1 : "");
	}
	si->nmetrics = f->a[0].n;
	return 0;
}

static int
fq_hosts_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fq *f = arg;
	size_t len;

	if (n != 1)
		return error_set(err, ERR_INTERNAL, "ClickHouse's reply: "
		    "%zu fields, not 1 (host)", n);
	f->hosts = xreallocarray(f->hosts, f->nhosts + 1, sizeof *f->hosts);
	f->hosts[f->nhosts++] = xstrdup(fleet_tsv_str(&v[0], &len));
	return 0;
}

static int
fq_stacks_row(void *arg, struct fleet_tsv_field *v, size_t n,
    struct error *err)
{
	struct fq *f = arg;

	return fleet_query_stack_row(f->a, &f->view, v, n, err);
}

/* ---- HTTP ---- */

static void
fq_chunk_cb(struct evhttp_request *req, void *arg)
{
	struct fq *f = arg;
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	struct evbuffer_iovec v[8];
	size_t used, k;
	int i, nv;

	f->code = evhttp_request_get_response_code(req);
	while (evbuffer_get_length(in) > 0) {
		nv = evbuffer_peek(in, -1, NULL, v, NITEMS(v));
		if (nv > (int)NITEMS(v))
			nv = NITEMS(v);
		used = 0;
		for (i = 0; i < nv; i++) {
			used += v[i].iov_len;
			if (f->code != 200) {
				/* An error message: its start is enough. */
				k = FQ_MAX_ERROR - f->errbody.n;
				buf_add(&f->errbody, v[i].iov_base,
				    v[i].iov_len < k ? v[i].iov_len : k);
			} else if (f->err.kind == ERR_NONE)
				fleet_tsv_feed(&f->tsv, v[i].iov_base,
				    v[i].iov_len, &f->err);
		}
		evbuffer_drain(in, used);
	}
}

static void
fq_error_cb(enum evhttp_request_error e, void *arg)
{
	struct fq *f = arg;

	f->failed = e == EVREQ_HTTP_TIMEOUT ? 2 : 1;
}

static void fq_next(struct fq *);

static int
fq_head_cb(struct evhttp_request *req, void *arg)
{
	struct fq *f = arg;

	(void)req;
	httpc_deadline_stop(&f->head);
	return 0;
}

static void
fq_http_cb(struct evhttp_request *req, void *arg)
{
	struct fq *f = arg;

	f->req = NULL;
	httpc_deadline_stop(&f->head);
	if (req != NULL && f->code == 0)
		f->code = evhttp_request_get_response_code(req);
	if (req != NULL)
		/* What the chunk callback had not seen. */
		fq_chunk_cb(req, f);
	if (req == NULL || f->code == 0) {
		/* Not reused after a failure. */
		fq_conn_drop(f);
		if (f->head.fired)
			error_set(&f->err, ERR_TIMEOUT, "ClickHouse at %s sent "
			    "no whole answer head within %lld s", f->c->url,
			    (long long)f->c->timeout + FLEET_HEAD_SLACK);
		else if (f->failed == 2)
			error_set(&f->err, ERR_TIMEOUT, "ClickHouse at %s did "
			    "not answer within the fleet timeout (%lld s)",
			    f->c->url, (long long)f->c->timeout);
		else
			error_set(&f->err, ERR_BUSY, "ClickHouse at %s is "
			    "unreachable", f->c->url);
	} else if (f->code != 200) {
		/* A refusal (memory, a shard down, a table not made yet)
		 * or, were it profd's bug, a bad query: ClickHouse's
		 * message says which. */
		error_set(&f->err, ERR_BUSY, "ClickHouse at %s answered %d: "
		    "%.*s", f->c->url, f->code, (int)f->errbody.n,
		    (const char *)f->errbody.p);
	} else if (f->err.kind == ERR_NONE)
		fleet_tsv_end(&f->tsv, &f->err);
	if (f->err.kind != ERR_NONE) {
		fq_finish(f);
		return;
	}
	fq_next(f);
}

static void
fq_send(struct fq *f, char *sql)
{
	struct fleet_queries *c = f->c;
	struct evhttp_connection *conn;
	struct evhttp_request *req;
	char *uri;
	int rc;

	f->code = 0;
	f->failed = 0;
	f->errbody.n = 0;
	if ((conn = f->conn) == NULL)
		conn = f->conn = httpc_conn_new(c->base, c->dns,
		    c->http_host, c->port, c->timeout);
	if (conn == NULL || (req = fleet_http_request(fq_http_cb, fq_head_cb,
	    f, c->http_host)) == NULL) {
		error_set(&f->err, ERR_INTERNAL, "cannot make a request to "
		    "%s", c->url);
		free(sql);
		fq_finish(f);
		return;
	}
	evhttp_request_set_chunked_cb(req, fq_chunk_cb);
	evhttp_request_set_error_cb(req, fq_error_cb);
	evbuffer_add(evhttp_request_get_output_buffer(req), sql, strlen(sql));
	free(sql);
	xasprintf(&uri, "%s?max_execution_time=%lld", c->path,
	    (long long)c->timeout);
	/* Set first: a connection that cannot even start answers within
	 * the call, and fq_http_cb may finish (free) f before it returns. */
	f->req = req;
	httpc_deadline_start(&f->head, conn, c->timeout + FLEET_HEAD_SLACK);
	rc = httpc_make_request(conn, req, EVHTTP_REQ_POST, uri);
	free(uri);
	if (rc == -1) {
		/* The request is freed; the connection is not used again. */
		f->req = NULL;
		httpc_deadline_stop(&f->head);
		fq_conn_drop(f);
		error_set(&f->err, ERR_BUSY, "cannot send a request to %s",
		    c->url);
		fq_finish(f);
	}
}

static void
fq_ask(struct fq *f, enum fq_step step,
    int (*row)(void *, struct fleet_tsv_field *, size_t, struct error *),
    char *sql)
{
	f->step = step;
	fleet_tsv_clear(&f->tsv);
	fleet_tsv_init(&f->tsv, FQ_MAX_LINE, row, f);
	fq_send(f, sql);
}

/* The question after the step that was answered. */
static void
fq_next(struct fq *f)
{
	switch (f->step) {
	case FQ_DEFAULT:
		if (f->metric == NULL) {
			error_set(&f->err, ERR_NOT_FOUND, "scope \"%s\" has no "
			    "profiles in the fleet", f->q.sel->scopes[0]);
			fq_finish(f);
			return;
		}
		fq_ask(f, FQ_METRICS, fq_metrics_row,
		    fleet_sql_metrics(&f->q, f->metric));
		return;
	case FQ_METRICS:
		if (f->nmetrics == 0) {
			error_set(&f->err, ERR_INPUT, "metric: no selected "
			    "scope has metric \"%s\" in the fleet",
			    f->metric);
			fq_finish(f);
			return;
		}
		if (f->nmetrics > 1) {
			error_set(&f->err, ERR_INPUT, "metric: \"%s\" has "
			    "several units in the selected scopes: name one "
			    "as %s/UNIT", f->metric, f->metric);
			fq_finish(f);
			return;
		}
		fq_ask(f, FQ_STACKS, fq_stacks_row,
		    f->view.kind == FV_TIMELINE ? fleet_sql_buckets(&f->q,
		    f->metric) : fleet_sql_stacks(&f->q, f->metric));
		return;
	case FQ_SCOPES:
		fq_ask(f, FQ_HOSTS, fq_hosts_row, fleet_sql_hosts(&f->q));
		return;
	case FQ_STACKS:
	case FQ_HOSTS:
		fq_finish(f);
		return;
	}
}

void
fleet_queries_view(struct fleet_queries *c, const struct api_fleet_view *v,
    api_fleet_done *done, void *darg)
{
	struct fq *f = xcalloc(1, sizeof *f);

	f->c = c;
	httpc_deadline_init(&f->head, c->base);
	f->done = done;
	f->arg = darg;
	f->q.db = c->database;
	f->q.cluster = c->cluster;
	f->q.sel = v->sel;
	f->q.hosts = v->hosts;
	f->q.nhosts = v->nhosts;
	fleet_view_init(&f->view, v->timeline ? FV_TIMELINE : (v->top ?
	    FV_TOP : 0) | (v->tree ? FV_TREE : 0), v->sel);
	f->view.step_s = v->step_s;
	f->view.sort_cum = v->sort_cum;
	f->view.edges = v->edges;
	f->view.min_fraction = v->min_fraction;
	TAILQ_INSERT_TAIL(&c->inflight, f, entry);
	if (v->scopes)
		fq_ask(f, FQ_SCOPES, fq_scopes_row, fleet_sql_scopes(&f->q));
	else if (v->sel->metric != NULL) {
		f->metric = xstrdup(v->sel->metric);
		fq_ask(f, FQ_METRICS, fq_metrics_row,
		    fleet_sql_metrics(&f->q, f->metric));
	} else
		fq_ask(f, FQ_DEFAULT, fq_default_row,
		    fleet_sql_default_metric(&f->q));
}

struct evhttp_request *
fleet_http_request(void (*cb)(struct evhttp_request *, void *),
    int (*head_cb)(struct evhttp_request *, void *), void *arg,
    const char *host)
{
	struct evhttp_request *req;

	if ((req = evhttp_request_new(cb, arg)) == NULL)
		return NULL;
	evhttp_request_set_header_cb(req, head_cb);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Host",
	    host);
	return req;
}

int
fleet_url_parse(const char *url, char **host, int *port, char **path,
    struct error *err)
{
	struct evhttp_uri *u;
	const char *h, *p;

	if ((u = evhttp_uri_parse(url)) == NULL ||
	    evhttp_uri_get_scheme(u) == NULL ||
	    strcmp(evhttp_uri_get_scheme(u), "http") != 0 ||
	    (h = evhttp_uri_get_host(u)) == NULL || *h == '\0' ||
	    evhttp_uri_get_query(u) != NULL ||
	    evhttp_uri_get_userinfo(u) != NULL) {
		if (u != NULL)
			evhttp_uri_free(u);
		return error_set(err, ERR_INPUT, "fleet-url: \"%s\" is not "
		    "http://HOST[:PORT][/PATH] (ClickHouse's HTTP interface)",
		    url);
	}
	*host = xstrdup(h);
	*port = evhttp_uri_get_port(u) > 0 ? evhttp_uri_get_port(u) : 8123;
	p = evhttp_uri_get_path(u);
	*path = xstrdup(p != NULL && *p != '\0' ? p : "/");
	evhttp_uri_free(u);
	return 0;
}

struct fleet_queries *
fleet_queries_new(struct event_base *base,
    const struct fleet_queries_config *cfg, struct error *err)
{
	struct fleet_queries *c = xcalloc(1, sizeof *c);

	if (fleet_url_parse(cfg->url, &c->http_host, &c->port, &c->path,
	    err) == -1) {
		free(c);
		return NULL;
	}
	c->base = base;
	c->url = xstrdup(cfg->url);
	c->database = xstrdup(cfg->database);
	c->cluster = cfg->cluster != NULL && *cfg->cluster != '\0';
	c->timeout = cfg->timeout;
	c->dns = evdns_base_new(base, EVDNS_BASE_INITIALIZE_NAMESERVERS);
	TAILQ_INIT(&c->inflight);
	return c;
}

void
fleet_queries_stop(struct fleet_queries *c)
{
	struct fq *f;

	if (c == NULL)
		return;
	while ((f = TAILQ_FIRST(&c->inflight)) != NULL) {
		/* Not in a callback of the connection: freed now, with the
		 * request in flight (the loop may not run again). */
		if (f->conn != NULL)
			evhttp_connection_free(f->conn);
		f->conn = NULL;
		f->req = NULL;
		error_set(&f->err, ERR_BUSY, "profd is shutting down");
		fq_finish(f);
	}
}

void
fleet_queries_free(struct fleet_queries *c)
{
	if (c == NULL)
		return;
	fleet_queries_stop(c);
	if (c->dns != NULL)
		evdns_base_free(c->dns, 0);
	free(c->url);
	free(c->http_host);
	free(c->path);
	free(c->database);
	free(c);
}
