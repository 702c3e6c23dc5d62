/* server.c: start-up and shut-down: the Unix socket, the store connections
 * and their threads, the libevent loop and its signals. */
#include <errno.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "activity.h"
#include "api.h"
#include "csindex.h"
#include "import.h"
#include "jobs.h"
#include "log.h"
#include "query.h"
#include "retainer.h"
#include "routes.h"
#include "sd.h"
#include "server-http.h"
#include "server.h"
#include "spool-file.h"
#include "spool.h"
#include "store.h"
#include "uploads.h"
#include "util.h"

struct server {
	struct config *cfg;		/* replaced on SIGHUP */
	struct config **old_cfgs;	/* kept: threads may point into them */
	size_t nold_cfgs;
	int argc;
	char **argv;
	struct import_worker *iw;
	/* What the endpoints use: queues, uploads, activity, retainer,
	 * counters (api.h). */
	struct api_host host;
	struct event *retention;	/* the periodic pass */
	atomic_int stopping;		/* SIGTERM: roll back long imports */
	struct server_http *guard;	/* limits and deadlines per connection */
	struct event *drain;		/* after SIGTERM, until idle */
	int64_t stop_deadline_ns;
	struct event_base *base;
	struct evhttp *http;
	struct spool *spool;		/* NULL: no spool directory */
	char *listen_path;		/* what the socket is bound to */
	uint64_t status_done, status_failed;	/* last sent in STATUS= */
};

/* mkdir -p of the directory holding path. */
static int
mkdir_parents(const char *path, mode_t mode)
{
	char *dir = xstrdup(path), *p;
	int rc = 0;

	if ((p = strrchr(dir, '/')) == NULL || p == dir) {
		free(dir);
		return 0;
	}
	*p = '\0';
	for (p = dir + 1; rc == 0; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char save = *p;

		*p = '\0';
		if (mkdir(dir, mode) == -1 && errno != EEXIST)
			rc = -1;
		*p = save;
		if (save == '\0')
			break;
	}
	free(dir);
	return rc;
}

/* Listen on the Unix socket; refuse if a live process answers on it,
 * remove it if it is stale. */
static int
server_listen(const char *path)
{
	struct sockaddr_un sun;
	struct stat sb;
	int fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path) {
		log_err("socket path too long: %s", path);
		return -1;
	}
	strcpy(sun.sun_path, path);
	if (mkdir_parents(path, 0755) == -1) {
		log_err("cannot create the directory of %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (lstat(path, &sb) == 0) {
		if (!S_ISSOCK(sb.st_mode)) {
			log_err("%s exists and is not a socket; not touching "
			    "it", path);
			return -1;
		}
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd != -1 && connect(fd, (struct sockaddr *)&sun,
		    sizeof sun) == 0) {
			close(fd);
			log_err("another profd is already listening on %s",
			    path);
			return -1;
		}
		if (fd != -1)
			close(fd);
		log_info("removing stale socket %s", path);
		unlink(path);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1) {
		log_err("socket: %s", strerror(errno));
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) == -1 ||
	    chmod(path, 0660) == -1 || listen(fd, 128) == -1) {
		log_err("cannot listen on %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Every connection is a descriptor: take the hard limit as the soft one,
 * and say so when max-connections does not fit under it (accept() then
 * fails with EMFILE, which pauses accepting rather than spinning). */
static void
server_raise_nofile(const struct config *cfg)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)(cfg->max_connections +
	    SERVER_HTTP_HEALTH_SLOTS + 64);

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t was = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			rl.rlim_cur = was;
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
		log_warn("the file limit (%llu) is below max-connections "
		    "(%zu) + %d: connections beyond it wait in the backlog",
		    (unsigned long long)rl.rlim_cur, cfg->max_connections,
		    SERVER_HTTP_HEALTH_SLOTS + 64);
}

/* After SIGTERM: once no job is waiting, running or unanswered, give the
 * loop a moment to send the last replies and stop. */
static void
server_drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;

	if ((jobq_idle(srv->host.queues[API_IMPORT]) && jobq_idle(srv->host.queues[API_QUERY]) &&
	    jobq_idle(srv->host.queues[API_IO])) || mono_ns() > srv->stop_deadline_ns) {
		event_del(srv->drain);
		event_base_loopexit(srv->base, &(struct timeval){ 0, 100000 });
	}
}

/* SIGTERM, SIGINT: stop listening, answer the waiting requests with 503,
 * let the running ones end (an import from a file rolls back at once),
 * then stop.  A second signal stops at once. */
static void
server_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;

	if (atomic_load(&srv->stopping)) {
		log_info("signal %d again: stopping now", (int)sig);
		event_base_loopbreak(srv->base);
		return;
	}
	log_info("signal %d: stopping", (int)sig);
	atomic_store(&srv->stopping, 1);
	sd_stopping();
	server_http_unlisten(srv->guard);
	jobq_drain(srv->host.queues[API_IMPORT]);
	jobq_drain(srv->host.queues[API_QUERY]);
	jobq_drain(srv->host.queues[API_IO]);
	srv->stop_deadline_ns = mono_ns() + 60 * 1000000000LL;
	srv->drain = event_new(srv->base, -1, EV_PERSIST, server_drain_cb, srv);
	event_add(srv->drain, &(struct timeval){ 0, 20000 });
}

/* The import thread takes the new limits between two imports. */
struct limits_job {
	struct job job;
	struct import_worker *iw;
	const struct limits *limits;
};

static void
limits_job_run(struct job *j, void *worker)
{
	struct limits_job *lj = (struct limits_job *)j;

	importer_set_limits(lj->iw->importer, lj->limits);
}

static void
limits_job_done(struct job *j)
{
	free(j);
}

/* SIGHUP: the config file again, over the defaults and under the command
 * line.  A bad file changes nothing; settings that need a restart are
 * named and kept. */
static void
server_reload_cb(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;
	struct config *nc = xcalloc(1, sizeof *nc);
	struct limits_job *lj;
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
	lj = xcalloc(1, sizeof *lj);
	lj->job.run = limits_job_run;
	lj->job.done = limits_job_done;
	lj->iw = srv->iw;
	lj->limits = &nc->limits;
	while (jobq_push(srv->host.queues[API_IMPORT], &lj->job) == -1) {
		/* A full queue: the import thread takes it soon. */
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	log_info("SIGHUP: settings read again from %s",
	    nc->config_path != NULL ? nc->config_path : "the command line");
}

/* The path an inherited socket is bound to, for messages. */
static char *
server_socket_name(int fd, const char *fallback)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof sun;

	memset(&sun, 0, sizeof sun);
	if (getsockname(fd, (struct sockaddr *)&sun, &len) == 0 &&
	    sun.sun_family == AF_UNIX && sun.sun_path[0] != '\0') {
		char *s;

		xasprintf(&s, "%.*s", (int)sizeof sun.sun_path, sun.sun_path);
		return s;
	}
	return xstrdup(fallback);
}

static void
server_send_status(struct server *srv)
{
	api_host_import_counts(&srv->host, &srv->status_done, &srv->status_failed);
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

/* The host's callbacks: what the API reports of the server's parts. */
static void
server_host_http_stats(void *ctx, struct api_http_stats *st)
{
	struct server *srv = ctx;

	server_http_stats(srv->guard, st);
}

static int
server_host_spool_stats(void *ctx, struct api_spool_stats *st)
{
	struct server *srv = ctx;

	if (srv->spool == NULL)
		return 0;
	spool_stats(srv->spool, st);
	return 1;
}

int
server_run(struct config *cfg, int argc, char **argv)
{
	struct server srv;
	struct import_worker iw;
	struct query_worker *readers = NULL;
	struct csindex *index = csindex_new();
	void *iwp, **rwp = NULL, *no_state = NULL;
	struct event *sigs[3] = { NULL, NULL, NULL }, *sweep = NULL;
	struct event *status = NULL, *watchdog = NULL;
	char *updir = NULL, *ready = NULL;
	struct error err = { 0 };
	uint64_t wd_usec;
	int fd = -1, activated = 0, i, rc = 1;

	memset(&srv, 0, sizeof srv);
	memset(&iw, 0, sizeof iw);
	srv.cfg = cfg;
	srv.argc = argc;
	srv.argv = argv;
	srv.iw = &iw;
	api_host_init(&srv.host);
	srv.host.cfg = cfg;
	srv.host.ctx = &srv;
	srv.host.http_stats = server_host_http_stats;
	srv.host.spool_stats = server_host_spool_stats;
	srv.host.activity = activity_new();
	signal(SIGPIPE, SIG_IGN);
	sd_init();
	server_raise_nofile(cfg);

	if (evthread_use_pthreads() == -1) {
		log_err("libevent has no pthreads support");
		goto out;
	}
	if (mkdir_parents(cfg->db_path, 0750) == -1) {
		log_err("cannot create the directory of %s: %s", cfg->db_path,
		    strerror(errno));
		goto out;
	}
	if ((iw.store = store_open(cfg->db_path, 0, &err)) == NULL) {
		log_err("%s", err.msg);
		goto out;
	}
	iw.importer = importer_new(iw.store, &cfg->limits);
	iw.index = index;
	importer_set_stop(iw.importer, &srv.stopping);
	readers = xcalloc((size_t)cfg->query_threads, sizeof *readers);
	rwp = xcalloc((size_t)cfg->query_threads, sizeof *rwp);
	for (i = 0; i < cfg->query_threads; i++) {
		readers[i].index = index;
		if ((readers[i].store = store_open(cfg->db_path, 1, &err)) ==
		    NULL) {
			log_err("%s", err.msg);
			goto out;
		}
		rwp[i] = &readers[i];
	}
	if (cfg->uploads_dir != NULL)
		updir = xstrdup(cfg->uploads_dir);
	else {
		char *slash = strrchr(cfg->db_path, '/');

		xasprintf(&updir, "%.*s/uploads", slash ? (int)(slash -
		    cfg->db_path) : 1, slash ? cfg->db_path : ".");
	}
	if ((srv.host.uploads = uploads_new(updir, cfg->limits.max_upload,
	    &err)) == NULL) {
		log_err("%s", err.msg);
		goto out;
	}
	uploads_set_max_open(srv.host.uploads, cfg->max_uploads);
	/* Before detaching, so a spool that cannot be used fails the start
	 * where it is seen. */
	if (cfg->spool_dir != NULL && spool_prepare(cfg->spool_dir,
	    &err) == -1) {
		log_err("%s", err.msg);
		goto out;
	}
	/* systemd's socket (profd.socket) when activated; it owns the path. */
	if ((fd = sd_listen_fd(cfg->socket_path)) != -1) {
		activated = 1;
		srv.listen_path = server_socket_name(fd, cfg->socket_path);
	} else if ((fd = server_listen(cfg->socket_path)) != -1) {
		activated = 0;
		srv.listen_path = xstrdup(cfg->socket_path);
	} else
		goto out;
	/* Detach once the socket listens, so start-up errors reach the
	 * terminal, and before any thread exists; not under systemd, which
	 * tracks our pid and reads our stderr. */
	if (!cfg->foreground && !sd_managed()) {
		if (daemon(1, 0) == -1) {
			log_err("daemon: %s", strerror(errno));
			goto out;
		}
		log_to_syslog();
	}

	srv.base = event_base_new();
	srv.http = evhttp_new(srv.base);
	srv.guard = server_http_setup(srv.http, srv.base, cfg, routes_dispatch,
	    &srv.host);
	if (server_http_listen(srv.guard, fd) == -1) {
		log_err("evhttp cannot accept on %s", srv.listen_path);
		close(fd);
		goto out;
	}
	iwp = &iw;
	srv.host.queues[API_IMPORT] = jobq_new(srv.base, "import", &iwp, 1, cfg->import_queue);
	srv.host.queues[API_QUERY] = jobq_new(srv.base, "query", rwp, cfg->query_threads,
	    cfg->query_queue);
	/* Upload I/O needs no store connection. */
	srv.host.queues[API_IO] = jobq_new(srv.base, "io", &no_state, 1, cfg->query_queue);
	if (cfg->spool_dir != NULL && (srv.spool = spool_new(&srv.host, srv.base,
	    cfg->spool_dir, &err)) == NULL) {
		log_err("%s", err.msg);
		goto out;
	}
	srv.host.retainer = retainer_new();
	srv.retention = event_new(srv.base, -1, 0, server_retention_cb, &srv);
	event_add(srv.retention, &(struct timeval){
	    (time_t)cfg->retention.interval, 0 });
	sweep = event_new(srv.base, -1, EV_PERSIST, server_sweep_cb, &srv);
	event_add(sweep, &(struct timeval){ 60, 0 });
	sigs[0] = evsignal_new(srv.base, SIGTERM, server_signal_cb, &srv);
	sigs[1] = evsignal_new(srv.base, SIGINT, server_signal_cb, &srv);
	sigs[2] = evsignal_new(srv.base, SIGHUP, server_reload_cb, &srv);
	for (i = 0; i < 3; i++)
		event_add(sigs[i], NULL);
	if (sd_managed()) {
		status = event_new(srv.base, -1, EV_PERSIST, server_status_cb,
		    &srv);
		event_add(status, &(struct timeval){ 2, 0 });
	}
	if ((wd_usec = sd_watchdog_usec()) > 0) {
		wd_usec = wd_usec / 2 > 1000 ? wd_usec / 2 : 1000;
		watchdog = event_new(srv.base, -1, EV_PERSIST,
		    server_watchdog_cb, &srv);
		event_add(watchdog, &(struct timeval){
		    (time_t)(wd_usec / 1000000),
		    (suseconds_t)(wd_usec % 1000000) });
	}

	log_info("profd %s listening on %s%s, store %s", PROFD_VERSION,
	    srv.listen_path, activated ? " (socket activation)" : "",
	    cfg->db_path);
	api_host_import_counts(&srv.host, &srv.status_done, &srv.status_failed);
	xasprintf(&ready, "serving on %s; %llu imports done", srv.listen_path,
	    (unsigned long long)srv.status_done);
	sd_ready(ready);
	event_base_dispatch(srv.base);
	rc = 0;

	/* Join the threads (idle unless a second signal came); spool files
	 * not imported stay for the next start. */
	spool_stop(srv.spool);
	jobq_free(srv.host.queues[API_IMPORT]);
	jobq_free(srv.host.queues[API_QUERY]);
	jobq_free(srv.host.queues[API_IO]);
	srv.host.queues[API_IMPORT] = srv.host.queues[API_QUERY] = srv.host.queues[API_IO] = NULL;
	if (!activated)
		unlink(cfg->socket_path);
	log_info("stopped");
out:
	/* Jobs' ends may still reach the spool: the queues go first. */
	spool_stop(srv.spool);
	jobq_free(srv.host.queues[API_IMPORT]);
	jobq_free(srv.host.queues[API_QUERY]);
	jobq_free(srv.host.queues[API_IO]);
	spool_free(srv.spool);
	for (i = 0; i < 3; i++)
		if (sigs[i] != NULL)
			event_free(sigs[i]);
	if (sweep != NULL)
		event_free(sweep);
	if (status != NULL)
		event_free(status);
	if (watchdog != NULL)
		event_free(watchdog);
	if (srv.drain != NULL)
		event_free(srv.drain);
	if (srv.retention != NULL)
		event_free(srv.retention);
	retainer_free(srv.host.retainer);
	free(srv.listen_path);
	free(ready);
	uploads_free(srv.host.uploads);
	free(updir);
	if (srv.guard != NULL)
		server_http_free(srv.guard);	/* and srv.http */
	else if (srv.http != NULL)
		evhttp_free(srv.http);
	if (srv.base != NULL)
		event_base_free(srv.base);
	importer_free(iw.importer);
	/* The writer last: the last connection to close removes the WAL,
	 * and a read-only one cannot. */
	for (i = 0; readers != NULL && i < cfg->query_threads; i++)
		store_close(readers[i].store);
	store_close(iw.store);
	free(readers);
	csindex_free(index);
	free(rwp);
	activity_free(srv.host.activity);
	api_host_clear(&srv.host);
	/* The caller owns the first configuration. */
	if (srv.nold_cfgs > 0) {
		config_clear(srv.cfg);
		free(srv.cfg);
		for (size_t k = 1; k < srv.nold_cfgs; k++) {
			config_clear(srv.old_cfgs[k]);
			free(srv.old_cfgs[k]);
		}
	}
	free(srv.old_cfgs);
	return rc;
}
