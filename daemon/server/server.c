/* server.c: start-up and shut-down: the Unix socket, the store connections
 * and their threads, the libevent loop and its signals. */
#include <errno.h>
#include <event2/dns.h>
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
#include "alloc.h"
#include "api.h"
#include "csindex.h"
#include "detach.h"
#include "ch-select.h"
#include "ch.h"
#include "fleet-source.h"
#include "fleet.h"
#include "scrape.h"
#include "import.h"
#include "jobq.h"
#include "log.h"
#include "push.h"
#include "query.h"
#include "retainer.h"
#include "routes.h"
#include "sd.h"
#include "secrets.h"
#include "server-http.h"
#include "server-int.h"
#include "server.h"
#include "spool-file.h"
#include "spool.h"
#include "store.h"
#include "uploads.h"

/* The query and upload threads' nice value above the loop's: the loop,
 * which answers health checks and hands out the work, gets a core first
 * (the import thread sets its own, nice 5, below the queries). */
#define SERVER_QUERY_NICE	4


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

/* The store's connections: the writer for the import thread, a reader
 * per query thread. */
static int
server_open_store(struct server *srv)
{
	const struct config *cfg = srv->cfg;
	struct error err = { 0 };
	int i;

	if (mkdir_parents(cfg->db_path, 0750) == -1) {
		log_err("cannot create the directory of %s: %s", cfg->db_path,
		    strerror(errno));
		return -1;
	}
	if ((srv->iw.store = store_open(cfg->db_path, 0, &err)) == NULL) {
		log_err("%s", err.msg);
		return -1;
	}
	srv->index = csindex_new();
	srv->iw.importer = importer_new(srv->iw.store, &cfg->limits);
	srv->iw.index = srv->index;
	importer_set_stop(srv->iw.importer, &srv->stopping);
	importer_set_abort(srv->iw.importer, &srv->host.abort);
	srv->readers = xcalloc((size_t)cfg->query_threads,
	    sizeof *srv->readers);
	srv->rwp = xcalloc((size_t)cfg->query_threads, sizeof *srv->rwp);
	for (i = 0; i < cfg->query_threads; i++) {
		srv->readers[i].index = srv->index;
		if ((srv->readers[i].store = store_open(cfg->db_path, 1,
		    &err)) == NULL) {
			log_err("%s", err.msg);
			return -1;
		}
		srv->rwp[i] = &srv->readers[i];
	}
	return 0;
}

/* What server_open_store opened; no thread may be using it. */
static void
server_close_store(struct server *srv)
{
	int i;

	importer_free(srv->iw.importer);
	srv->iw.importer = NULL;
	/* The writer last: the last connection to close removes the WAL,
	 * and a read-only one cannot. */
	for (i = 0; srv->readers != NULL && i < srv->cfg->query_threads; i++)
		store_close(srv->readers[i].store);
	store_close(srv->iw.store);
	srv->iw.store = NULL;
	free(srv->readers);
	srv->readers = NULL;
	csindex_free(srv->index);
	srv->index = NULL;
	free(srv->rwp);
	srv->rwp = NULL;
}

/* ClickHouse: the shipper and the fleet=1 views' reader, over one
 * client (ch.c). */
static int
server_fleet_open(struct server *srv)
{
	const struct config *cfg = srv->cfg;
	struct error err = { 0 };
	struct fleet_config fc = {
		.url = cfg->fleet_url, .host = cfg->fleet_host,
		.database = cfg->fleet_database,
		.cluster = cfg->fleet_cluster,
		.batch = cfg->fleet_batch,
		.batch_bytes = (size_t)cfg->fleet_batch_bytes,
		.interval = cfg->fleet_interval,
		.store = srv->iw.store,
		.backlog_max = cfg->fleet_backlog_max,
	};
	int i;

	if ((srv->ch = ch_new(srv->base, srv->dns, cfg->fleet_url,
	    cfg->fleet_ca_file, cfg->fleet_timeout, &err)) == NULL) {
		log_err("%s", err.msg);
		return -1;
	}
	if (cfg->fleet_ca_file != NULL &&
	    strncmp(cfg->fleet_url, "https:", 6) != 0)
		log_warn("fleet-ca-file is for an https fleet-url; %s is "
		    "not one: nothing is checked against it", cfg->fleet_url);
	/* Retention (on the import thread) keeps the backlog. */
	store_set_keep_unshipped(srv->iw.store, 1);
	store_set_backlog_max(srv->iw.store, (int64_t)cfg->fleet_backlog_max);
	srv->fleet = fleet_new(srv->base, &fc, srv->ch,
	    srv->host.queues[API_QUERY], srv->host.queues[API_IMPORT]);
	fleet_set_retention(srv->fleet, &cfg->retention);
	log_info("shipping to %s as host %s, database %s", cfg->fleet_url,
	    cfg->fleet_host, cfg->fleet_database);
	srv->chs = ch_select_new(srv->ch, &srv->host.abort);
	srv->reader = fleet_reader_new(srv->chs, cfg->fleet_database,
	    cfg->fleet_cluster);
	/* Before the first job: the fleet's query threads read these
	 * then. */
	for (i = 0; i < cfg->query_threads; i++) {
		srv->fleet_readers[i].fleet_open = fleet_source_open;
		srv->fleet_readers[i].fleet_ctx = srv->reader;
	}
	srv->host.fleet = 1;
	return 0;
}

/* Everything that can fail on a bad setting, before detaching, so that
 * start-up errors reach the terminal: the store, the uploads directory,
 * the spool, the socket.  It starts no thread (see detach.c). */
static int
server_open(struct server *srv)
{
	const struct config *cfg = srv->cfg;
	struct error err = { 0 };

	if (evthread_use_pthreads() == -1) {
		log_err("libevent has no pthreads support");
		return -1;
	}
	/* First: a listener refused for want of credentials starts
	 * nothing. */
	if (server_tcp_open(srv) == -1)
		return -1;
	if (server_open_store(srv) == -1)
		return -1;
	/* Before detaching: the warnings reach the terminal too. */
	srv->secrets = secrets_new();
	secrets_check(srv->secrets, cfg);
	if (cfg->uploads_dir != NULL)
		srv->updir = xstrdup(cfg->uploads_dir);
	else {
		char *slash = strrchr(cfg->db_path, '/');

		xasprintf(&srv->updir, "%.*s/uploads", slash ? (int)(slash -
		    cfg->db_path) : 1, slash ? cfg->db_path : ".");
	}
	if ((srv->host.uploads = uploads_new(srv->updir,
	    cfg->limits.max_upload, &err)) == NULL) {
		log_err("%s", err.msg);
		return -1;
	}
	uploads_set_max_open(srv->host.uploads, cfg->max_uploads);
	if (cfg->spool_dir != NULL && spool_prepare(cfg->spool_dir,
	    &err) == -1) {
		log_err("%s", err.msg);
		return -1;
	}
	/* systemd's socket (profd.socket) when activated; it owns the path. */
	if ((srv->fd = sd_listen_fd(cfg->socket_path)) != -1) {
		srv->activated = 1;
		srv->listen_path = server_socket_name(srv->fd,
		    cfg->socket_path);
	} else if ((srv->fd = server_listen(cfg->socket_path)) != -1)
		srv->listen_path = xstrdup(cfg->socket_path);
	else
		return -1;
	return 0;
}

/* After detaching: the loop, the HTTP server, the threads, the spool. */
static int
server_start(struct server *srv)
{
	const struct config *cfg = srv->cfg;
	struct error err = { 0 };
	struct push_env env;
	int i;

	if (store_start_threads(srv->iw.store, &err) == -1) {
		log_err("%s", err.msg);
		return -1;
	}
	srv->base = event_base_new();
	/* One resolver for every name profd looks up (ClickHouse's, the
	 * scrape targets'). */
	srv->dns = evdns_base_new(srv->base, EVDNS_BASE_INITIALIZE_NAMESERVERS);
	srv->http = evhttp_new(srv->base);
	srv->guard = server_http_setup(srv->http, srv->base, cfg,
	    routes_dispatch, &srv->host);
	if (server_http_listen(srv->guard, srv->fd) == -1) {
		log_err("evhttp cannot accept on %s", srv->listen_path);
		close(srv->fd);
		return -1;
	}
	if (server_tcp_start(srv) == -1)
		return -1;
	srv->iwp = &srv->iw;
	/* The importer lowers its own thread's priority further. */
	srv->host.queues[API_IMPORT] = jobq_new(srv->base, "import",
	    &srv->iwp, 1, cfg->import_queue, 0);
	srv->host.queues[API_QUERY] = jobq_new(srv->base, "query", srv->rwp,
	    cfg->query_threads, cfg->query_queue, SERVER_QUERY_NICE);
	/* Upload I/O needs no store connection. */
	srv->host.queues[API_IO] = jobq_new(srv->base, "io", &srv->no_state,
	    1, cfg->query_queue, SERVER_QUERY_NICE);
	/* Fleet views: as many threads as the store's views have, idle
	 * without a fleet (one then). */
	srv->fleet_readers = xcalloc((size_t)cfg->query_threads,
	    sizeof *srv->fleet_readers);
	srv->fwp = xcalloc((size_t)cfg->query_threads, sizeof *srv->fwp);
	for (i = 0; i < cfg->query_threads; i++)
		srv->fwp[i] = &srv->fleet_readers[i];
	srv->host.queues[API_FLEET] = jobq_new(srv->base, "fleet", srv->fwp,
	    cfg->fleet_url != NULL ? cfg->query_threads : 1, cfg->query_queue,
	    SERVER_QUERY_NICE);
	if (cfg->spool_dir != NULL && (srv->spool = spool_new(&srv->host,
	    srv->base, cfg->spool_dir, &err)) == NULL) {
		log_err("%s", err.msg);
		return -1;
	}
	if (cfg->fleet_url != NULL && server_fleet_open(srv) == -1)
		return -1;
	/* Always there: SIGHUP may add targets. */
	api_host_push_env(&srv->host, &env);
	srv->scraper = scraper_new(srv->base, srv->dns,
	    srv->host.queues[API_IMPORT], &env);
	scraper_apply(srv->scraper, cfg);
	srv->host.retainer = retainer_new();
	server_status_register(srv);
	server_events_start(srv);
	return 0;
}

/* The loop stops just before the shutdown deadline even if work still
 * runs (it was cut short a grace earlier): wait for it until the
 * deadline, then exit without it.  The store stays whole: SQLite rolls
 * back at the next open what was not committed. */
static void
server_wait_threads(struct server *srv)
{
	int64_t end = srv->stop_deadline_ns;
	size_t stuck = 0;
	int i;

	for (i = 0; i < API_NQUEUES; i++)
		if (jobq_wait_running(srv->host.queues[i], end) == -1)
			stuck += jobq_running(srv->host.queues[i]);
	if (stuck == 0)
		return;
	server_cut_short(srv, "the shutdown deadline passed");
	log_err("%zu job(s) still running at the shutdown deadline: exiting "
	    "without them (what they had not committed is rolled back)",
	    stuck);
	if (!srv->activated)
		unlink(srv->cfg->socket_path);
	_exit(1);
}

/* Join the threads (idle unless a second signal came); spool files not
 * imported stay for the next start.  Jobs' ends may still reach the
 * spool: the queues go first. */
static void
server_stop_threads(struct server *srv)
{
	int i;

	spool_stop(srv->spool);
	/* Its jobs that come back now are dropped. */
	fleet_stop(srv->fleet);
	scraper_stop(srv->scraper);
	for (i = 0; i < API_NQUEUES; i++) {
		jobq_free(srv->host.queues[i]);
		srv->host.queues[i] = NULL;
	}
}

static void
server_close(struct server *srv)
{
	size_t k;

	server_stop_threads(srv);
	spool_free(srv->spool);
	fleet_free(srv->fleet);
	scraper_free(srv->scraper);
	secrets_free(srv->secrets);
	/* The query threads are gone: no select is waiting. */
	ch_select_free(srv->chs);
	fleet_reader_free(srv->reader);
	ch_free(srv->ch);
	if (srv->dns != NULL)
		evdns_base_free(srv->dns, 0);
	server_events_free(srv);
	retainer_free(srv->host.retainer);
	free(srv->listen_path);
	uploads_free(srv->host.uploads);
	free(srv->updir);
	server_tcp_free(srv);
	if (srv->guard != NULL)
		server_http_free(srv->guard);	/* and srv->http */
	else if (srv->http != NULL)
		evhttp_free(srv->http);
	if (srv->base != NULL)
		event_base_free(srv->base);
	server_close_store(srv);
	free(srv->fleet_readers);
	free(srv->fwp);
	activity_free(srv->host.activity);
	api_host_clear(&srv->host);
	/* The caller owns the first configuration. */
	if (srv->nold_cfgs > 0) {
		config_clear(srv->cfg);
		free(srv->cfg);
		for (k = 1; k < srv->nold_cfgs; k++) {
			config_clear(srv->old_cfgs[k]);
			free(srv->old_cfgs[k]);
		}
	}
	free(srv->old_cfgs);
}

int
server_run(struct config *cfg, int argc, char **argv)
{
	struct server srv;
	int rc = 1;

	memset(&srv, 0, sizeof srv);
	srv.cfg = cfg;
	srv.argc = argc;
	srv.argv = argv;
	srv.fd = -1;
	srv.tcp_fd = -1;
	api_host_init(&srv.host);
	srv.host.cfg = cfg;
	srv.host.activity = activity_new();
	signal(SIGPIPE, SIG_IGN);
	sd_init();
	server_raise_nofile(cfg);

	if (server_open(&srv) == -1)
		goto out;
	/* Detach once the socket listens, and before any thread exists
	 * (detach() refuses otherwise); not under systemd, which tracks our
	 * pid and reads our stderr. */
	if (!cfg->foreground && !sd_managed()) {
		struct error err = { 0 };

		if (detach(&err) == -1) {
			log_err("%s", err.msg);
			goto out;
		}
		log_to_syslog();
		/* SQLite's locks are POSIX locks, the process's: daemon(3)'s
		 * fork leaves them with the parent, which exits, and a
		 * connection carried across it would write without the
		 * locks it believes it holds (sqlite.org/howtocorrupt.html,
		 * 2.6).  Opened before detaching for its errors to reach the
		 * terminal, the store is opened again here. */
		server_close_store(&srv);
		if (server_open_store(&srv) == -1)
			goto out;
	}
	if (server_start(&srv) == -1)
		goto out;
	log_info("profd %s listening on %s%s, store %s", PROFD_VERSION,
	    srv.listen_path, srv.activated ? " (socket activation)" : "",
	    cfg->db_path);
	server_events_ready(&srv);
	event_base_dispatch(srv.base);
	rc = 0;
	server_wait_threads(&srv);
	server_stop_threads(&srv);
	if (!srv.activated)
		unlink(cfg->socket_path);
	log_info("stopped");
out:
	server_close(&srv);
	return rc;
}
