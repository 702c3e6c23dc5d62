/* server-events.c: what the loop does besides HTTP: signals (stop,
 * reload), the periodic retention pass and upload sweep, systemd's status
 * and watchdog. */
#include <event2/event.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "alloc.h"
#include "clock.h"
#include "fleet.h"
#include "ch-select.h"
#include "activity.h"
#include "import.h"
#include "log.h"
#include "retainer.h"
#include "scrape.h"
#include "sd.h"
#include "secrets.h"
#include "store.h"
#include "server-http.h"
#include "server-int.h"
#include "uploads.h"

/* The part of the shutdown timeout kept for what is cut short to end:
 * a quarter of it, 2 s at most.  The loop stops a quarter of that before
 * the deadline, and server_run waits the rest for the threads. */
static int64_t
server_cut_grace_ns(const struct server *srv)
{
	int64_t q = srv->cfg->shutdown_timeout * 1000000000LL / 4;

	return q < 2000000000LL ? q : 2000000000LL;
}

void
server_cut_short(struct server *srv, const char *why)
{
	struct activity_snapshot snap;
	const struct activity_current *c = &snap.current;
	int i;

	if (atomic_exchange(&srv->host.abort, 1))
		return;
	activity_snapshot(srv->host.activity, &snap);
	/* How far it got is known for a file (its offset), not for a
	 * body decoded from memory. */
	if (c->active && c->bytes_read >= 0)
		log_warn("%s: cutting short the import of %s (scope %s) "
		    "after %.1f s, %lld of %lld bytes read: rolled back", why,
		    c->what, c->scope, (double)(mono_ns() - c->started_ns) /
		    1e9, (long long)c->bytes_read, (long long)c->bytes);
	else if (c->active)
		log_warn("%s: cutting short the import of %s (scope %s, "
		    "%lld bytes) after %.1f s: rolled back", why, c->what,
		    c->scope, (long long)c->bytes, (double)(mono_ns() -
		    c->started_ns) / 1e9);
	log_warn("%s: cutting short %zu import job(s), %zu query or "
	    "stream job(s), %zu upload job(s), %zu fleet view(s)", why,
	    jobq_running(srv->host.queues[API_IMPORT]),
	    jobq_running(srv->host.queues[API_QUERY]),
	    jobq_running(srv->host.queues[API_IO]),
	    jobq_running(srv->host.queues[API_FLEET]));
	/* SQLite's own loops stop at once; profd's poll host.abort. */
	store_interrupt(srv->iw.store);
	for (i = 0; i < srv->cfg->query_threads; i++)
		store_interrupt(srv->readers[i].store);
}

/* After SIGTERM: once no job is waiting, running or unanswered, give the
 * loop a moment to send the last replies and stop.  A grace before the
 * deadline, what runs is cut short (and its clients answered as it
 * ends); at the deadline the loop stops whatever is left. */
static void
server_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;
	int64_t now = mono_ns();
	int i, idle = 1;

	for (i = 0; i < API_NQUEUES; i++)
		idle = idle && jobq_idle(srv->host.queues[i]);
	if (idle) {
		event_del(srv->drain);
		event_base_loopexit(srv->base, &(struct timeval){ 0, 100000 });
	} else if (now >= srv->stop_deadline_ns - server_cut_grace_ns(srv) /
	    4) {
		event_del(srv->drain);
		event_base_loopbreak(srv->base);
	} else if (now >= srv->stop_deadline_ns - server_cut_grace_ns(srv))
		server_cut_short(srv, "shutdown-timeout passed");
}

/* SIGTERM, SIGINT: stop listening, answer the waiting requests with 503,
 * let the running ones end (an import from a file rolls back at once)
 * for shutdown-timeout at most, then stop.  A second signal cuts short
 * what runs and stops at once. */
static void
server_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;
	int i;

	if (atomic_load(&srv->stopping)) {
		log_info("signal %d again: stopping now", (int)sig);
		server_cut_short(srv, "a second signal");
		if (srv->stop_deadline_ns > mono_ns() +
		    server_cut_grace_ns(srv))
			srv->stop_deadline_ns = mono_ns() +
			    server_cut_grace_ns(srv);
		return;
	}
	log_info("signal %d: stopping within %llds", (int)sig,
	    (long long)srv->cfg->shutdown_timeout);
	atomic_store(&srv->stopping, 1);
	sd_stopping();
	server_http_unlisten(srv->guard);
	if (srv->tcp_guard != NULL)
		server_http_unlisten(srv->tcp_guard);
	fleet_stop(srv->fleet);
	scraper_stop(srv->scraper);
	/* Fleet views waiting on ClickHouse are answered now. */
	ch_select_stop(srv->chs);
	for (i = 0; i < API_NQUEUES; i++)
		jobq_drain(srv->host.queues[i]);
	srv->stop_deadline_ns = mono_ns() + srv->cfg->shutdown_timeout *
	    1000000000LL;
	srv->drain = event_new(srv->base, -1, EV_PERSIST, server_drain_cb, srv);
	event_add(srv->drain, &(struct timeval){ 0, 20000 });
}

/* The import thread takes the new limits between two imports.  A full
 * queue is tried again from a timer: the loop never waits for it. */
struct server_limits {
	struct job job;
	struct server *srv;
	struct event *retry;
	const struct limits *limits;
};

static void
server_limits_run(struct job *j, void *worker)
{
	struct server_limits *lj = (struct server_limits *)j;

	importer_set_limits(lj->srv->iw.importer, lj->limits);
}

static void
server_limits_done(struct job *j)
{
	struct server_limits *lj = (struct server_limits *)j;

	event_free(lj->retry);
	free(lj);
}

static void
server_limits_push(evutil_socket_t fd, short what, void *arg)
{
	struct server_limits *lj = arg;

	if (jobq_push(lj->srv->host.queues[API_IMPORT], &lj->job) == 0)
		return;
	if (atomic_load(&lj->srv->stopping)) {
		server_limits_done(&lj->job);
		return;
	}
	event_add(lj->retry, &(struct timeval){ 0, 10000 });
}

/* SIGHUP: the config file again, over the defaults and under the command
 * line.  A bad file changes nothing; settings that need a restart are
 * named and kept. */
static void
server_reload_cb(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;
	struct config *nc = xcalloc(1, sizeof *nc);
	struct server_limits *lj;
	struct error err = { 0 };
	char *restart;

	if (config_from_args(nc, srv->argc, srv->argv, &err) != CONFIG_OK) {
		log_err("SIGHUP: keeping the current settings: %s", err.msg);
		config_clear(nc);
		free(nc);
		return;
	}
	if ((restart = config_restart_needed(srv->cfg, nc)) != NULL) {
		log_warn("SIGHUP: changes to %s take effect at the next "
		    "start", restart);
		free(restart);
	}
	/* Keep what needs a restart as it is running. */
	free(nc->socket_path);
	nc->socket_path = xstrdup(srv->cfg->socket_path);
	free(nc->db_path);
	nc->db_path = xstrdup(srv->cfg->db_path);
	free(nc->uploads_dir);
	nc->uploads_dir = srv->cfg->uploads_dir != NULL ?
	    xstrdup(srv->cfg->uploads_dir) : NULL;
	free(nc->spool_dir);
	nc->spool_dir = srv->cfg->spool_dir != NULL ?
	    xstrdup(srv->cfg->spool_dir) : NULL;
	/* The TCP listener asks for what it was started with: a reload
	 * cannot leave it open without the credentials that let it bind. */
	free(nc->listen_tcp);
	nc->listen_tcp = srv->cfg->listen_tcp != NULL ?
	    xstrdup(srv->cfg->listen_tcp) : NULL;
	free(nc->tcp_auth_token);
	nc->tcp_auth_token = srv->cfg->tcp_auth_token != NULL ?
	    xstrdup(srv->cfg->tcp_auth_token) : NULL;
	free(nc->tcp_basic_auth);
	nc->tcp_basic_auth = srv->cfg->tcp_basic_auth != NULL ?
	    xstrdup(srv->cfg->tcp_basic_auth) : NULL;
	free(nc->tcp_read_token);
	nc->tcp_read_token = srv->cfg->tcp_read_token != NULL ?
	    xstrdup(srv->cfg->tcp_read_token) : NULL;
	free(nc->tcp_read_basic_auth);
	nc->tcp_read_basic_auth = srv->cfg->tcp_read_basic_auth != NULL ?
	    xstrdup(srv->cfg->tcp_read_basic_auth) : NULL;
	/* The same files, read again below (server_tcp_reload). */
	free(nc->tls_cert);
	nc->tls_cert = srv->cfg->tls_cert != NULL ?
	    xstrdup(srv->cfg->tls_cert) : NULL;
	free(nc->tls_key);
	nc->tls_key = srv->cfg->tls_key != NULL ?
	    xstrdup(srv->cfg->tls_key) : NULL;
	nc->tcp_insecure = srv->cfg->tcp_insecure;
	nc->foreground = srv->cfg->foreground;
	nc->query_threads = srv->cfg->query_threads;
	nc->import_queue = srv->cfg->import_queue;
	nc->query_queue = srv->cfg->query_queue;

	srv->old_cfgs = xreallocarray(srv->old_cfgs, srv->nold_cfgs + 1,
	    sizeof *srv->old_cfgs);
	srv->old_cfgs[srv->nold_cfgs++] = srv->cfg;
	srv->cfg = nc;
	srv->host.cfg = nc;
	log_set_level(nc->log_level);
	uploads_set_max(srv->host.uploads, nc->limits.max_upload);
	uploads_set_max_open(srv->host.uploads, nc->max_uploads);
	server_http_set_config(srv->guard, nc);
	scraper_apply(srv->scraper, nc);
	if (srv->tcp_guard != NULL)
		server_http_set_config(srv->tcp_guard, nc);
	server_tcp_reload(srv);
	secrets_check(srv->secrets, nc);
	if (srv->fleet != NULL)
		fleet_set_retention(srv->fleet, &nc->retention);
	lj = xcalloc(1, sizeof *lj);
	lj->job.run = server_limits_run;
	lj->job.done = server_limits_done;
	lj->srv = srv;
	lj->limits = &nc->limits;
	lj->retry = evtimer_new(srv->base, server_limits_push, lj);
	server_limits_push(-1, 0, lj);
	log_info("SIGHUP: settings read again from %s",
	    nc->config_path != NULL ? nc->config_path : "the command line");
}

static void
server_send_status(struct server *srv)
{
	api_host_import_counts(&srv->host, &srv->status_done,
	    &srv->status_failed);
	sd_status("serving on %s; %llu imports done, %llu failed",
	    srv->listen_path, (unsigned long long)srv->status_done,
	    (unsigned long long)srv->status_failed);
}

/* Every few seconds: STATUS= for systemctl status, only when it changed. */
static void
server_status_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;
	uint64_t done, failed;

	api_host_import_counts(&srv->host, &done, &failed);
	if (done != srv->status_done || failed != srv->status_failed)
		server_send_status(srv);
}

/* On the loop, so a loop that is stuck stops the pings and systemd
 * restarts us. */
static void
server_watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	sd_watchdog_ping();
}

/* Every retention-interval: a pass, with the settings of the moment. */
static void
server_retention_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;
	const struct retention *r = &srv->cfg->retention;

	retainer_start(srv->host.retainer, srv->host.queues[API_IMPORT], r);
	event_add(srv->retention, &(struct timeval){ (time_t)r->interval,
	    0 });
}

/* Once a minute: drop uploads idle for an hour. */
static void
server_sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;
	int n = uploads_sweep(srv->host.uploads, 3600);

	if (n > 0)
		log_info("removed %d upload(s) idle for an hour", n);
}

static struct event *
server_event(struct server *srv, evutil_socket_t sig, short flags,
    event_callback_fn cb, int64_t usec)
{
	struct event *ev = event_new(srv->base, sig, flags, cb, srv);

	event_add(ev, usec < 0 ? NULL : &(struct timeval){
	    (time_t)(usec / 1000000), (suseconds_t)(usec % 1000000) });
	return ev;
}

void
server_events_start(struct server *srv)
{
	uint64_t wd_usec;

	srv->retention = server_event(srv, -1, 0, server_retention_cb,
	    srv->cfg->retention.interval * 1000000);
	srv->sweep = server_event(srv, -1, EV_PERSIST, server_sweep_cb,
	    60 * 1000000);
	srv->sigs[0] = server_event(srv, SIGTERM, EV_SIGNAL | EV_PERSIST,
	    server_signal_cb, -1);
	srv->sigs[1] = server_event(srv, SIGINT, EV_SIGNAL | EV_PERSIST,
	    server_signal_cb, -1);
	srv->sigs[2] = server_event(srv, SIGHUP, EV_SIGNAL | EV_PERSIST,
	    server_reload_cb, -1);
	if (sd_managed())
		srv->status = server_event(srv, -1, EV_PERSIST,
		    server_status_cb, 2 * 1000000);
	if ((wd_usec = sd_watchdog_usec()) > 0) {
		wd_usec = wd_usec / 2 > 1000 ? wd_usec / 2 : 1000;
		srv->watchdog = server_event(srv, -1, EV_PERSIST,
		    server_watchdog_cb, (int64_t)wd_usec);
	}
}

void
server_events_ready(struct server *srv)
{
	char *ready;

	api_host_import_counts(&srv->host, &srv->status_done,
	    &srv->status_failed);
	xasprintf(&ready, "serving on %s; %llu imports done",
	    srv->listen_path, (unsigned long long)srv->status_done);
	sd_ready(ready);
	free(ready);
}

void
server_events_free(struct server *srv)
{
	struct event *evs[] = {
		srv->sigs[0], srv->sigs[1], srv->sigs[2], srv->sweep,
		srv->status, srv->watchdog, srv->drain, srv->retention,
	};
	size_t i;

	for (i = 0; i < sizeof evs / sizeof evs[0]; i++)
		if (evs[i] != NULL)
			event_free(evs[i]);
}
