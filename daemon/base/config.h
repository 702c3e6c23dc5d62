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
	struct limits limits;
	struct retention retention;
	/* The HTTP layer (server-http.c). */
	size_t max_connections;		/* beyond: 503 but for health */
	size_t max_header_size;		/* bytes of a request head */
	uint64_t max_inflight_body;	/* body bytes held, all connections */
	size_t max_uploads;		/* chunked uploads open at once */
	int64_t header_timeout;		/* seconds to send a whole head */
	int64_t body_timeout;		/* seconds to send a whole body */
	int64_t idle_timeout;		/* seconds of silence on a connection */
	/* Shipping to ClickHouse ([fleet] in the file; fleet.h). */
	char *fleet_url;		/* NULL: no shipping */
	char *fleet_host;		/* default: the host name */
	char *fleet_database;
	char *fleet_cluster;		/* NULL: query the url's node only */
	size_t fleet_batch;		/* profiles per batch */
	int64_t fleet_interval;		/* seconds between polls when idle */
	int64_t fleet_timeout;		/* seconds for one HTTP exchange */
	uint64_t fleet_backlog_max;	/* unshipped bytes; 0: no limit */
	/* Host header names answered beside localhost, 127.0.0.1, [::1]. */
	struct strlist allowed_hosts;
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
void config_usage(FILE *);
/* The effective settings as a config file. */
void config_print(FILE *, const struct config *);
/* Names of the settings whose change needs a restart, separated by ", ",
 * or NULL if none changed. */
char *config_restart_needed(const struct config *old,
    const struct config *new);

#endif
