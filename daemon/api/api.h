/* api.h: one HTTP call from routing to reply.  Handlers run on the loop
 * thread: they check parameters and either reply at once or hand work to
 * the import or query threads with api_submit(); the work fills in the
 * reply, which the loop sends. */
#ifndef PROFD_API_H
#define PROFD_API_H

#include <sys/queue.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stdint.h>

#include "buf.h"
#include "cancel.h"
#include "config.h"
#include "error.h"
#include "jobq.h"
#include "status.h"

struct route;
struct api_stream;
struct api_fleet_params;
struct store_metric;
struct stack_source;
struct push_env;
struct selection;

/* Imports (the writer), queries (readers), file I/O (uploads), fleet
 * views (query threads of their own: they wait on ClickHouse, and this
 * host's views do not wait behind them). */
enum api_queue { API_IMPORT, API_QUERY, API_IO, API_FLEET, API_NQUEUES };

/* The replies the status providers (status.h) add to. */
enum api_report { API_STATUS, API_HEALTH, API_NREPORTS };
struct api_providers {
	struct status_provider *v;
	size_t n;
};

/* What the endpoints use of the process around them.  The server fills
 * it before the first request and keeps cfg current (SIGHUP, on the
 * loop); the API calls nothing above itself: what only the server knows
 * comes through the providers and the callback. */
struct api_host {
	const struct config *cfg;
	int64_t started_ns;		/* monotonic */
	struct jobq *queues[API_NQUEUES];
	struct uploads *uploads;
	struct activity *activity;
	struct retainer *retainer;
	/* What the parts around the API show of themselves: /v1/status
	 * and /v1/health put each provider's JSON after their own members,
	 * in the order registered (api_host_provide). */
	struct api_providers reports[API_NREPORTS];
	/* A fleet is configured (fleet-url): fleet=1 views read it, from
	 * the query threads (query_worker's fleet_open). */
	int fleet;
	struct api_counters *counters;	/* api-host.c */
	/* Set when a shutdown stops waiting (shutdown-timeout, a second
	 * signal): work in flight gives up, any thread reads it. */
	atomic_int abort;
	/* Reads stopped because their client left (or dropped unrun), and
	 * because they ran past query-timeout: /v1/status's "views". */
	atomic_uint_fast64_t views_cancelled, views_timed_out;
};

/* api-host.c: the counters every endpoint and the spool keep, the status
 * providers, a push's environment. */
void api_host_init(struct api_host *);
void api_host_clear(struct api_host *);
double api_host_uptime(const struct api_host *);
/* An import finished (any thread). */
void api_host_import_count(struct api_host *, int ok);
void api_host_import_counts(const struct api_host *, uint64_t *done,
    uint64_t *failed);
/* What a push (intake/push.h) uses of the host: its counters, uploads
 * and activity. */
void api_host_push_env(struct api_host *, struct push_env *);
/* Register p for r's reply, after those registered before: p is copied,
 * its name and ctx must last as long as the host serves. */
void api_host_provide(struct api_host *, enum api_report,
    const struct status_provider *);
/* Each provider of r's JSON set in into under its name (on the loop). */
void api_host_report(struct api_host *, enum api_report, json_t *into);
/* A call of a route was answered (on the loop). */
void api_host_route_done(struct api_host *, const struct route *,
    int status, int64_t ns);
json_t *api_host_route_json(struct api_host *);

struct api_call {
	struct job job;
	struct api_host *host;
	struct evhttp_request *req;
	const struct route *route;
	struct evkeyvalq query;
	int64_t start_ns;
	/* Filled by the work (or the handler). */
	int status;
	json_t *reply;
	char *reply_text;		/* or a reply that is not JSON */
	size_t reply_len;		/* its length in bytes */
	const char *reply_type;
	/* Accept-Encoding takes gzip (read on the loop by api_submit);
	 * the reply is gzipped (by the worker), its coding could have been
	 * (Vary: Accept-Encoding). */
	int accept_gzip;
	int reply_gzip;
	int reply_vary;
	struct error err;
	struct api_stream *stream;	/* a reply sent as it is written */
	/* The selections api_selection parsed (diff has two), compiled on
	 * the worker before the work runs: regular expressions are not
	 * compiled on the loop. */
	struct selection *sels[2];
	const char *sel_prefix[2];
	int nsels;
	/* Handler data, freed with free_data. */
	void *data;
	void (*free_data)(void *);
	void (*work)(struct api_call *, void *worker);
	/* A view's (api_view_submit): its work and where it reads. */
	void (*view)(struct api_call *, struct stack_source *);
	const struct api_fleet_params *source;
	/* The query thread's struct query_worker while a view runs: what
	 * a view reads of this host's store beside its source (the
	 * querier's labels, a pprof export). */
	void *view_worker;
	/* A read (the query and fleet queues): stopped when its client
	 * leaves, past query-timeout, or at a shutdown (cancel.h); the
	 * loop looks at the client meanwhile (api-watch.c). */
	enum api_queue queue;
	struct cancel cancel;
	struct event *watch;
	/* How the error in err is answered where not as api_error's JSON
	 * (a Connect call's: the querier's, dropped unrun); NULL: JSON. */
	void (*reply_err)(struct api_call *);
};

/* The value of a query parameter, or NULL. */
const char *api_param(struct api_call *, const char *key);
/* Queue the call's work; replies 503 itself when the queue is full.  A
 * read (API_QUERY, API_FLEET) is bounded by query-timeout from the
 * call's arrival and stops when its client leaves; one from the TCP
 * listener never takes a queue's last thread (jobq.h's guests). */
void api_submit(struct api_call *, enum api_queue,
    void (*work)(struct api_call *, void *worker));
/* In a work that makes its error a reply itself (in a reply under way,
 * Connect's): err, if set, becomes the cancel's reason when the call was
 * cancelled (the store's "interrupted" tells the client nothing). */
void api_cancel_reason(struct api_call *, struct error *err);
/* api-watch.c, on the loop: look at the client of a read while its work
 * waits or runs, and set its cancel's gone flag when it leaves; stop
 * looking (before the reply, and at the call's free). */
void api_watch_start(struct api_call *);
void api_watch_stop(struct api_call *);
/* A handler that sent its reply itself: count it, free the call. */
void api_done(struct api_call *, int status);
/* Reply now (on the loop) and free the call.  The reply is stolen. */
void api_reply(struct api_call *, int status, json_t *);
void api_error(struct api_call *, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reply with the error in call->err. */
void api_reply_err(struct api_call *);
/* Reply with what a work set (api_result*, or the error in call->err).
 * A result is made bytes on the worker once the work returns (JSON
 * dumped), and gzipped there when the client takes it and it is at least
 * API_GZIP_MIN bytes: the loop only sends. */
#define API_GZIP_MIN	1024
void api_finish(struct api_call *);
/* In work functions: set the result; the loop sends it. */
void api_result(struct api_call *, int status, json_t *);
/* A reply that is not JSON (text is taken, freed with the call). */
void api_result_text(struct api_call *, int status, const char *type,
    char *text);
/* The same for len bytes of binary data (taken, freed with the call). */
void api_result_blob(struct api_call *, int status, const char *type,
    void *data, size_t len);

/* api-stream.c: a reply the work sends as it goes (chunked, status 200),
 * paced by the client: a client that stops reading stops the work.
 * Before api_submit, on the loop; -1 if it cannot be set up. */
int api_stream_open(struct api_call *, const char *type);
/* In the work: send n bytes (the first call commits to 200).  Waits while
 * the client has a megabyte unread, at most until deadline_ns (monotonic);
 * -1 with err when the wait times out (ERR_TIMEOUT), the client is gone
 * or memory is short. */
int api_stream_write(struct api_call *, const void *, size_t n,
    int64_t deadline_ns, struct error *);
/* In the work: the last bytes (and a gzipped stream's end), never
 * waiting; -1 if out of memory.  A gzipped stream takes nothing after. */
int api_stream_last(struct api_call *, const void *, size_t n);
/* Has the work written (so that an error can only go in the body)? */
int api_stream_started(const struct api_call *);
/* On the loop, once the work is done: send the rest, end the reply. */
void api_stream_end(struct api_call *);
void api_stream_free(struct api_stream *);

/* Endpoint handlers (api-*.c). */
void api_profiles_post(struct api_call *);
void api_profiles_get(struct api_call *);
void api_profiles_delete(struct api_call *);
void api_scopes_get(struct api_call *);
void api_top_get(struct api_call *);
void api_tree_get(struct api_call *);
void api_diff_get(struct api_call *);
void api_timeline_get(struct api_call *);
void api_export_get(struct api_call *);
void api_query_post(struct api_call *);
void api_health_get(struct api_call *);
void api_status_get(struct api_call *);
void api_uploads_post(struct api_call *);
void api_uploads_put(struct api_call *);
void api_uploads_delete(struct api_call *);
void api_ui_get(struct api_call *);
void api_ingest_post(struct api_call *);
void api_connect_push_post(struct api_call *);
void api_otlp_post(struct api_call *);
/* api-querier.c: querier.v1.QuerierService (Grafana's data source). */
void api_querier_post(struct api_call *);
void api_querier_unimplemented(struct api_call *);
void api_querier_settings_get(struct api_call *);
void api_render_get(struct api_call *);
void api_render_diff_get(struct api_call *);

/* api-top.c: the granularity parameter (function, line, file: enum
 * granularity) and limit (a count, -1 when absent); -1 once a 400 is
 * sent. */
int api_granularity(struct api_call *, int *);
/* format=json (the default) or text (*text set): pprof's text written by
 * profd, for profctl to print as it is. */
int api_text_format(struct api_call *, int *text);
int api_limit(struct api_call *, long long *);
/* api-source.c: fleet=1 and host: *fleet set (hosts copied into p); -1
 * once a 400 is sent (host without fleet=1, or no fleet configured). */
struct api_fleet_params {
	int fleet;
	char **hosts;
	size_t nhosts;
};
int api_fleet_params(struct api_call *, struct api_fleet_params *);
void api_fleet_params_clear(struct api_fleet_params *);
/* The one path of a view: its work run on a query thread over the
 * stack source p names (the fleet's, or NULL or fleet=0: the store's),
 * which p must outlive.  A 400 for profile ids with fleet=1. */
void api_view_submit(struct api_call *, const struct api_fleet_params *p,
    void (*view)(struct api_call *, struct stack_source *));

/* api-peek.c: the regex parameter of peek and list, copied; NULL once a
 * 400 is sent. */
char *api_regex_param(struct api_call *);
struct rx;
struct rx *api_regex_compile(struct api_call *, const char *);
void api_peek_get(struct api_call *);
void api_traces_get(struct api_call *);
void api_tags_get(struct api_call *);
void api_list_get(struct api_call *);

json_t *api_metric_json(const char *type, const char *unit);
/* A view's metric: the same with how its window combined the profiles
 * ("aggregate": docs/TIME.md). */
json_t *api_view_metric_json(const struct store_metric *);
/* A time in ns as an RFC 3339 string. */
json_t *api_time_json(int64_t ns);
/* A boolean parameter (true/false/1/0) into *out, left alone if absent;
 * -1 once a 400 is sent for any other value. */
int api_bool(struct api_call *, const char *name, int *out);
/* The opening of a query reply written as text (jsonw):
 * {"scope", "metric": {"type", "unit"}, "unit", "total", "profiles" --
 * the caller goes on with its own members and closes the object. */
struct buf;
struct store_metric;
void api_jsonw_head(struct buf *, const char *scope,
    const struct store_metric *, int64_t total, int64_t nprofiles);

struct selection;
/* Parse the selection parameters of a query (scope, metric, since, until,
 * profile, label, focus, ignore, hide, show): those named prefix+NAME when
 * prefix is set (diff's "base."), else the unprefixed ones; the route's
 * others are passed over (routes_dispatch refused any it does not take).
 * A bad value is a 400.  On -1 the reply has been sent.  The frame
 * filters are compiled when the call's work starts, on its worker (a bad
 * one fails the call with 400 there). */
int api_selection(struct api_call *, struct selection *, const char *prefix);

#endif
