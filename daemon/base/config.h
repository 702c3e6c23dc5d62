/* config.h: profd's settings.  Every setting has one name, used both as a
 * command-line option (--name) and as a key of the INI config file; the
 * command line wins over the file, the file over the built-in defaults. */
#ifndef PROFD_CONFIG_H
#define PROFD_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bounds.h"
#include "error.h"

/* Retention for one scope ([scope NAME] in the file); 0: the default. */
struct scope_policy {
	char *scope;
	int64_t max_age;		/* seconds */
	uint64_t max_size;		/* bytes */
};

struct retention {
	int64_t max_age;		/* seconds; 0 keeps profiles forever */
	uint64_t scope_max_size;	/* bytes of one scope; 0: no bound */
	uint64_t store_max_size;	/* bytes of the store; 0: no bound */
	int64_t interval;		/* seconds between two passes */
	struct scope_policy *scopes;
	size_t nscopes;
};

/* The values of a repeatable setting, in the order given. */
struct strlist {
	char **v;
	size_t n;
};

/* One target whose /debug/pprof is scraped ([scrape NAME] in the file;
 * scrape/scrape.h).  After loading every field is set: the defaults are
 * applied and checked by the loader. */
struct scrape_target {
	char *name;
	char *url;			/* http://HOST[:PORT] or unix:/PATH */
	struct strlist profiles;	/* config_scrape_profiles' names */
	int64_t interval;		/* seconds */
	int64_t cpu_seconds;		/* < interval */
	char *scope;
	struct strlist labels;		/* "KEY=VALUE" */
	int64_t timeout;		/* seconds for one request */
	char *path_prefix;		/* "" or "/..." without a final '/' */
	/* Where the section began, for errors. */
	char *file;
	int line;
	int cpu_set, timeout_set;	/* given, not defaults */
};

/* The profiles a target may name, as net/http/pprof serves them. */
extern const char *const config_scrape_profiles[];

struct config {
	char *config_path;		/* the file read, NULL if none */
	char *socket_path;
	char *db_path;
	char *uploads_dir;		/* NULL: "uploads" beside the store */
	char *spool_dir;		/* NULL: no spool directory */
	int spool_keep;			/* move imported files to done/ */
	int64_t spool_rescan;		/* seconds between safety rescans */
	int foreground;
	int log_level;
	int query_threads;
	size_t import_queue;		/* waiting imports before 503 */
	size_t query_queue;
	int64_t query_timeout;		/* seconds a read may run, queued or not */
	/* A time series reply's series and points (querier-series.c). */
	size_t query_max_series, query_max_points;
	struct limits limits;
	struct retention retention;
	/* The HTTP layer (server-http.c). */
	size_t max_connections;		/* beyond: 503 but for health */
	size_t tcp_max_unauth;		/* TCP: connections without a
					 * credential yet; the oldest closed */
	size_t max_header_size;		/* bytes of a request head */
	uint64_t max_inflight_body;	/* body bytes held, all connections */
	size_t max_uploads;		/* chunked uploads open at once */
	int64_t header_timeout;		/* seconds to send a whole head */
	int64_t body_timeout;		/* seconds to send a whole body */
	int64_t idle_timeout;		/* seconds of silence on a connection */
	int64_t shutdown_timeout;	/* seconds from SIGTERM to exit, at most */
	/* Shipping to ClickHouse ([fleet] in the file; fleet.h). */
	char *fleet_url;		/* NULL: no shipping */
	char *fleet_host;		/* default: the host name */
	char *fleet_database;
	char *fleet_cluster;		/* NULL: query the url's node only */
	size_t fleet_batch;		/* profiles per batch */
	uint64_t fleet_batch_bytes;	/* rows past which a batch ends */
	int64_t fleet_interval;		/* seconds between polls when idle */
	int64_t fleet_timeout;		/* seconds for one HTTP exchange */
	uint64_t fleet_backlog_max;	/* unshipped bytes; 0: no limit */
	/* The TCP listener for Pyroscope agents (server-tcp.c): ADDR:PORT
	 * (NULL: none), and the credentials it asks for (NULL: none). */
	char *listen_tcp;
	char *tcp_auth_token;		/* Authorization: Bearer TOKEN */
	char *tcp_basic_auth;		/* USER:PASSWORD, HTTP basic auth */
	/* Readers' credentials (the querier, /pyroscope/render): a writer's
	 * do not read, a reader's do not write. */
	char *tcp_read_token;
	char *tcp_read_basic_auth;
	char *tls_cert, *tls_key;	/* PEM files; NULL: clear text */
	int tcp_insecure;		/* clear text off loopback allowed */
	char *grafana_source;		/* "local" (NULL) or "fleet" */
	/* The scope of an OTLP Profile whose resource has no service.name
	 * (NULL, "none": such a Profile is refused). */
	char *otlp_default_scope;
	char *fleet_ca_file;		/* NULL: the system's CAs */
	/* Host header names answered beside localhost, 127.0.0.1, [::1]. */
	struct strlist allowed_hosts;
	/* Targets scraped for profiles, in the file's order. */
	struct scrape_target *scrapes;
	size_t nscrapes;
};

enum config_outcome {
	CONFIG_OK, CONFIG_ERROR, CONFIG_HELP, CONFIG_VERSION, CONFIG_PRINT,
};

/* Per-user or system defaults, as profctl computes them too. */
void config_defaults(struct config *);
void config_clear(struct config *);
/* Set one setting by name ("max-body", "spool", ...) from text. */
int config_set(struct config *, const char *name, const char *value,
    struct error *);
/* Read an INI file over the current settings.  A missing file is an
 * error only if must_exist. */
int config_load(struct config *, const char *path, int must_exist,
    struct error *);
/* Defaults, then the config file (--config, else the default one), then
 * the other options of argv.  Used at start-up and again on SIGHUP. */
enum config_outcome config_from_args(struct config *, int argc,
    char *const *argv, struct error *);
/* The file read when --config is not given. */
char *config_default_path(void);
/* The retention policy of one scope, defaults applied. */
void config_scope_policy(const struct retention *, const char *scope,
    int64_t *max_age, uint64_t *max_size);
/* Copy a retention policy (for a job that outlives a reload). */
void config_retention_copy(struct retention *dst, const struct retention *src);
void config_retention_clear(struct retention *);
/* Does the target scrape this profile? */
int config_scrape_has(const struct scrape_target *, const char *profile);
/* The N of profile's ?seconds=N fetch when it is fetched as a delta
 * (allocs, block, mutex): the interval less a second; 0 when it is
 * fetched plain (the others, or an interval of 1s). */
int64_t config_scrape_delta_seconds(const struct scrape_target *,
    const char *profile);
/* A copy of a target (for a scraper that outlives a reload), and its
 * freeing; whether two targets scrape the same way. */
void config_scrape_copy(struct scrape_target *dst,
    const struct scrape_target *src);
void config_scrape_clear(struct scrape_target *);
int config_scrape_same(const struct scrape_target *,
    const struct scrape_target *);
void config_usage(FILE *);
/* The effective settings as a config file. */
void config_print(FILE *, const struct config *);
/* Names of the settings whose change needs a restart, separated by ", ",
 * or NULL if none changed. */
char *config_restart_needed(const struct config *old,
    const struct config *new);

#endif
