/* config-options.c: the settings table and what is done with one setting:
 * parse and range-check a value, format it.  Lists of them (--help,
 * --print-config, what a reload cannot change) are config-print.c's. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "alloc.h"
#include "scopename.h"
#include "config-int.h"
#include "log.h"

#define F(field)	offsetof(struct config, field)

const struct opt config_opts[] = {
	{ "socket", T_PATH, F(socket_path), 0, 0, 1,
	    "Unix socket to listen on" },
	{ "db", T_PATH, F(db_path), 0, 0, 1, "the SQLite store" },
	{ "uploads-dir", T_OPTPATH, F(uploads_dir), 0, 0, 1,
	    "chunked uploads in progress (none: \"uploads\" beside the "
	    "store)" },
	{ "spool", T_OPTPATH, F(spool_dir), 0, 0, 1,
	    "directory watched for dropped profiles (none: no spool)" },
	{ "spool-keep", T_BOOL, F(spool_keep), 0, 1, 0,
	    "move imported spool files to done/ instead of deleting them" },
	{ "spool-rescan", T_DURATION, F(spool_rescan), 1, 86400, 0,
	    "seconds between safety rescans of the spool" },
	{ "foreground", T_BOOL, F(foreground), 0, 1, 1,
	    "stay in the foreground, log to stderr" },
	{ "log-level", T_LEVEL, F(log_level), 0, 0, 0,
	    "error, warning, notice, info or debug" },
	{ "query-threads", T_INT, F(query_threads), 1, 64, 1,
	    "read-only query threads" },
	{ "import-queue", T_COUNT, F(import_queue), 1, 1 << 20, 1,
	    "imports waiting before pushes get 503" },
	{ "query-queue", T_COUNT, F(query_queue), 1, 1 << 20, 1,
	    "queries waiting before they get 503" },
	{ "query-max-series", T_COUNT, F(query_max_series), 1, 1 << 20, 0,
	    "series of one SelectSeries reply (Grafana's time series, after "
	    "its limit); more are refused, naming this" },
	{ "query-max-points", T_COUNT, F(query_max_points), 1, 1 << 30, 0,
	    "points of one SelectSeries reply, its series together; more "
	    "are refused, naming this" },
	{ "query-timeout", T_DURATION, F(query_timeout), 1, 86400, 0,
	    "time a read may take from its arrival (a view, /v1/query, an "
	    "export, Grafana's calls): then it stops and is answered 504" },
	{ "max-body", T_SIZE, F(limits.max_body), 1, SIZE_MAX / 2, 0,
	    "largest blob in one request" },
	{ "max-inflated", T_SIZE, F(limits.max_inflated), 1, SIZE_MAX / 2, 0,
	    "largest blob after gunzip" },
	{ "max-inflate-ratio", T_U32, F(limits.max_inflate_ratio), 1,
	    UINT32_MAX, 0, "bound on inflated / compressed size" },
	{ "max-json", T_SIZE, F(limits.max_json), 1, SIZE_MAX / 2, 0,
	    "largest JSON push (Connect's JSON form), after gunzip" },
	{ "max-stack-depth", T_U32, F(limits.max_stack_depth), 1, UINT32_MAX,
	    0, "frames in one stack" },
	{ "max-strings", T_U32, F(limits.max_strings), 1, UINT32_MAX, 0,
	    "entries of one string table" },
	{ "max-string-len", T_U32, F(limits.max_string_len), 1, UINT32_MAX, 0,
	    "bytes of one string" },
	{ "max-upload", T_U64, F(limits.max_upload), 1, UINT64_MAX / 2, 0,
	    "largest chunked upload" },
	{ "max-connections", T_COUNT, F(max_connections), 1, 1 << 20, 0,
	    "connections served at once; more get 503, but for "
	    "GET /v1/health" },
	{ "tcp-max-unauthenticated", T_COUNT, F(tcp_max_unauth), 1, 1 << 20,
	    0, "TCP listener: connections open without a request with "
	    "credentials yet (handshakes, heads on their way); beyond, the "
	    "oldest is closed" },
	{ "max-header-size", T_SIZE, F(max_header_size), 1024, 16 << 20, 0,
	    "bytes of a request line and headers (431 beyond)" },
	{ "max-inflight-body", T_U64, F(max_inflight_body), 1, UINT64_MAX / 2,
	    0, "request body bytes held across all connections (503 beyond)" },
	{ "max-uploads", T_COUNT, F(max_uploads), 1, 1 << 20, 0,
	    "chunked uploads open at once (503 beyond)" },
	{ "header-timeout", T_DURATION, F(header_timeout), 1, 3600, 0,
	    "time a client has to send a whole request head" },
	{ "body-timeout", T_DURATION, F(body_timeout), 1, 86400, 0,
	    "time a client has to send a whole request body" },
	{ "idle-timeout", T_DURATION, F(idle_timeout), 1, 86400, 0,
	    "time a connection may stay silent (reading or writing)" },
	{ "shutdown-timeout", T_DURATION, F(shutdown_timeout), 1, 3600, 0,
	    "time from SIGTERM to exit: what still runs then is cut short "
	    "(an import rolled back, a reply ended)" },
	{ "listen-tcp", T_TEXT, F(listen_tcp), 0, 0, 1,
	    "ADDR:PORT of a TCP listener for Pyroscope agents and readers, "
	    "serving only the pushes, Grafana's reads and /v1/health (none: "
	    "no listener; not loopback: a credential needed, and tls-cert "
	    "and tls-key unless tcp-insecure)" },
	{ "tcp-auth-token", T_TEXT, F(tcp_auth_token), 0, 0, 1,
	    "bearer token the TCP listener asks of agents that push, and "
	    "admits pushes only (none: no token; set it in the config file, "
	    "not on a command line ps shows)" },
	{ "tcp-basic-auth", T_TEXT, F(tcp_basic_auth), 0, 0, 1,
	    "USER:PASSWORD of HTTP basic auth on the TCP listener (none: "
	    "none)" },
	{ "tcp-read-token", T_TEXT, F(tcp_read_token), 0, 0, 1,
	    "bearer token the TCP listener asks of readers (Grafana's "
	    "Pyroscope data source): admits the read calls and nothing else "
	    "(none: no reader by token)" },
	{ "tcp-read-basic-auth", T_TEXT, F(tcp_read_basic_auth), 0, 0, 1,
	    "USER:PASSWORD of HTTP basic auth for readers on the TCP "
	    "listener (none: none)" },
	{ "tls-cert", T_OPTPATH, F(tls_cert), 0, 0, 1,
	    "PEM certificate (chain) of the TCP listener: with tls-key, the "
	    "listener speaks TLS 1.2 or later only; re-read on SIGHUP (none: "
	    "clear text)" },
	{ "tls-key", T_OPTPATH, F(tls_key), 0, 0, 1,
	    "PEM private key of tls-cert; re-read on SIGHUP" },
	{ "tcp-insecure", T_BOOL, F(tcp_insecure), 0, 1, 1,
	    "let listen-tcp on an address that is not loopback speak clear "
	    "text (without it, such a listener needs tls-cert and tls-key)" },
	{ "grafana-source", T_TEXT, F(grafana_source), 0, 0, 0,
	    "where Grafana's calls (querier.v1, /pyroscope/render) read: "
	    "local (this host's store) or fleet (the fleet's ClickHouse)" },
	{ "otlp-default-scope", T_TEXT, F(otlp_default_scope), 0, 0, 0,
	    "the scope of an OTLP profile whose resource has no service.name "
	    "(none: such a profile is refused)" },
	{ "allowed-host", T_HOSTS, F(allowed_hosts), 0, 0, 0,
	    "a Host header name answered beside localhost, 127.0.0.1 and "
	    "[::1] (repeatable; none: clear the list)" },
	{ "max-age", T_DURATION, F(retention.max_age), 0, INT64_MAX / 2, 0,
	    "drop profiles older than this (0: keep forever)" },
	{ "scope-max-size", T_U64, F(retention.scope_max_size), 0,
	    UINT64_MAX / 2, 0,
	    "drop a scope's oldest profiles above this size (0: no bound)" },
	{ "store-max-size", T_U64, F(retention.store_max_size), 0,
	    UINT64_MAX / 2, 0,
	    "drop the oldest profiles above this store size (0: no bound)" },
	{ "retention-interval", T_DURATION, F(retention.interval), 1,
	    7 * 86400, 0, "seconds between two retention passes" },
	/* The [fleet] section: its keys are these names without "fleet-". */
	{ "fleet-url", T_TEXT, F(fleet_url), 0, 0, 1,
	    "ClickHouse HTTP interface to ship every profile to, "
	    "http://HOST[:PORT] or https://HOST[:PORT] (none: no shipping)" },
	{ "fleet-host", T_TEXT, F(fleet_host), 0, 0, 1,
	    "this host's name in the fleet" },
	{ "fleet-database", T_TEXT, F(fleet_database), 0, 0, 1,
	    "the ClickHouse database of the fleet tables" },
	{ "fleet-cluster", T_TEXT, F(fleet_cluster), 0, 0, 1,
	    "the ClickHouse cluster (remote_servers) fleet queries read "
	    "across, through Distributed tables made on first connect "
	    "(none: the node of fleet-url only)" },
	{ "fleet-batch", T_COUNT, F(fleet_batch), 1, 10000, 1,
	    "profiles shipped per batch" },
	{ "fleet-batch-bytes", T_U64, F(fleet_batch_bytes), 1,
	    UINT64_MAX / 2, 1,
	    "bytes of rows past which a batch takes no more profiles (one "
	    "profile is always taken)" },
	{ "fleet-interval", T_DURATION, F(fleet_interval), 1, 86400, 1,
	    "time between two looks for new profiles when all have shipped" },
	{ "fleet-timeout", T_DURATION, F(fleet_timeout), 1, 3600, 1,
	    "time ClickHouse has to answer one request" },
	{ "fleet-ca-file", T_OPTPATH, F(fleet_ca_file), 0, 0, 1,
	    "PEM CA certificates an https fleet-url's server is checked "
	    "against (none: the system's)" },
	{ "fleet-backlog-max", T_U64, F(fleet_backlog_max), 0,
	    UINT64_MAX / 2, 1,
	    "bytes of unshipped profiles above which retention may drop them "
	    "(0: retention never drops an unshipped profile)" },
};

const size_t config_nopts = sizeof config_opts / sizeof config_opts[0];
static const struct opt *
opt_find(const char *name)
{
	size_t i;

	for (i = 0; i < config_nopts; i++)
		if (strcmp(config_opts[i].name, name) == 0)
			return &config_opts[i];
	return NULL;
}

/* A number with an optional unit suffix; mult[] maps suffix to factor. */
static int
parse_scaled(const char *s, const char *suffixes, const uint64_t *mults,
    uint64_t *out)
{
	unsigned long long v;
	const char *p;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	if (*end != '\0') {
		if (end[1] != '\0' || (p = strchr(suffixes, *end)) == NULL)
			return -1;
		if (v > UINT64_MAX / mults[p - suffixes])
			return -1;
		v *= mults[p - suffixes];
	}
	*out = v;
	return 0;
}

int
config_parse_bytes(const char *s, uint64_t *out)
{
	static const uint64_t m[] = { 1024, 1024, 1 << 20, 1 << 20, 1 << 30,
	    1 << 30, 1ULL << 40, 1ULL << 40 };

	return parse_scaled(s, "kKmMgGtT", m, out);
}

int
config_parse_duration(const char *s, uint64_t *out)
{
	static const uint64_t m[] = { 1, 60, 3600, 86400, 7 * 86400 };

	return parse_scaled(s, "smhdw", m, out);
}

static int
parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	}
	return -1;
}

/* Is name one that allowed-host takes (a DNS name or a bracketed IPv6
 * address, no port)? */
static int
config_host_name_valid(const char *name)
{
	size_t n = strlen(name), i;

	if (n == 0 || n > 255)
		return 0;
	if (name[0] == '[')
		return n > 2 && name[n - 1] == ']' &&
		    strspn(name + 1, "0123456789abcdefABCDEF:.") == n - 2;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '.' &&
		    name[i] != '-' && name[i] != '_')
			return 0;
	return 1;
}

/* Each value adds a name; "none" empties the list, so that a command
 * line can drop what the config file allowed. */
static int
config_hosts_add(struct strlist *l, const struct opt *o, const char *value,
    struct error *err)
{
	size_t i;

	if (strcmp(value, "none") == 0) {
		for (i = 0; i < l->n; i++)
			free(l->v[i]);
		free(l->v);
		l->v = NULL;
		l->n = 0;
		return 0;
	}
	if (!config_host_name_valid(value))
		return error_set(err, ERR_INPUT, "%s: \"%s\" is not a host "
		    "name (a DNS name or a bracketed IPv6 address, without "
		    "a port: the port is not checked)", o->name, value);
	for (i = 0; i < l->n; i++)
		if (strcasecmp(l->v[i], value) == 0)
			return 0;
	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	l->v[l->n++] = xstrdup(value);
	return 0;
}

int
config_opt_set(struct config *c, const struct opt *o, const char *value,
    struct error *err)
{
	void *field = (char *)c + o->off;
	uint64_t v = 0;
	int b;

	switch (o->type) {
	case T_PATH:
	case T_OPTPATH:
		if (value[0] == '\0' || (o->type == T_PATH &&
		    strcmp(value, "none") == 0))
			return error_set(err, ERR_INPUT, "%s: a path is "
			    "needed", o->name);
		/* What --print-config prints must load back as it was. */
		if (strlen(value) >= PATH_MAX || strpbrk(value, "\r\n"))
			return error_set(err, ERR_INPUT, "%s: a path is one "
			    "line of at most %d bytes", o->name, PATH_MAX - 1);
		free(*(char **)field);
		*(char **)field = strcmp(value, "none") == 0 ? NULL :
		    xstrdup(value);
		return 0;
	case T_TEXT:
		if (value[0] == '\0' || strlen(value) >= 1024 ||
		    strpbrk(value, "\r\n"))
			return error_set(err, ERR_INPUT, "%s: a value is one "
			    "line of 1 to 1023 bytes", o->name);
		if ((strcmp(o->name, "fleet-database") == 0 ||
		    (strcmp(o->name, "fleet-cluster") == 0 &&
		    strcmp(value, "none") != 0)) &&
		    (strcmp(value, "none") == 0 ||
		    value[strspn(value, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")] != '\0' ||
		    isdigit((unsigned char)value[0])))
			return error_set(err, ERR_INPUT, "%s: \"%s\" is not "
			    "a %s name (letters, digits, _)", o->name, value,
			    o->name[6] == 'd' ? "database" : "cluster");
		if (strcmp(o->name, "grafana-source") == 0 &&
		    strcmp(value, "local") != 0 && strcmp(value, "fleet") != 0)
			return error_set(err, ERR_INPUT, "%s: \"%s\" is "
			    "neither local nor fleet", o->name, value);
		if (strcmp(o->name, "otlp-default-scope") == 0 &&
		    strcmp(value, "none") != 0 && !scope_name_valid(value))
			return error_set(err, ERR_INPUT, "%s: \"%s\" is not "
			    "a scope name ([A-Za-z0-9._-], at most 128 bytes)",
			    o->name, value);
		if (strcmp(o->name, "fleet-host") == 0 &&
		    strcmp(value, "none") == 0)
			return error_set(err, ERR_INPUT, "%s: a name is "
			    "needed", o->name);
		free(*(char **)field);
		*(char **)field = strcmp(value, "none") == 0 ? NULL :
		    xstrdup(value);
		return 0;
	case T_HOSTS:
		return config_hosts_add(field, o, value, err);
	case T_BOOL:
		if ((b = parse_bool(value)) == -1)
			return error_set(err, ERR_INPUT, "%s: \"%s\" is not "
			    "yes or no", o->name, value);
		*(int *)field = b;
		return 0;
	case T_LEVEL:
		if ((b = log_level_parse(value)) == -1)
			return error_set(err, ERR_INPUT, "%s: unknown level "
			    "\"%s\" (error, warning, notice, info, debug)",
			    o->name, value);
		*(int *)field = b;
		return 0;
	case T_DURATION:
		if (config_parse_duration(value, &v) == -1)
			return error_set(err, ERR_INPUT, "%s: \"%s\" is not "
			    "a duration (90, 90s, 15m, 12h, 7d, 2w)", o->name,
			    value);
		break;
	default:
		if ((o->type == T_INT || o->type == T_COUNT ?
		    parse_scaled(value, "", NULL, &v) :
		    config_parse_bytes(value, &v)) == -1)
			return error_set(err, ERR_INPUT, "%s: \"%s\" is not "
			    "a %s", o->name, value, o->type == T_SIZE ||
			    o->type == T_U64 ? "size (4096, 64k, 256M, 1G)" :
			    "number");
		break;
	}
	if (v < o->min || v > o->max)
		return error_set(err, ERR_INPUT, "%s: %s is out of range "
		    "(%" PRIu64 " to %" PRIu64 ")", o->name, value, o->min,
		    o->max);
	switch (o->type) {
	case T_INT:
		*(int *)field = (int)v;
		break;
	case T_SIZE:
	case T_COUNT:
		*(size_t *)field = (size_t)v;
		break;
	case T_U32:
		*(uint32_t *)field = (uint32_t)v;
		break;
	case T_U64:
		*(uint64_t *)field = v;
		break;
	case T_DURATION:
		*(int64_t *)field = (int64_t)v;
		break;
	default:
		break;
	}
	return 0;
}

int
config_set(struct config *c, const char *name, const char *value,
    struct error *err)
{
	const struct opt *o = opt_find(name);

	if (o == NULL)
		return error_set(err, ERR_INPUT, "unknown setting \"%s\"",
		    name);
	return config_opt_set(c, o, value, err);
}
static const char *
level_name(int level)
{
	switch (level) {
	case LOG_ERR: return "error";
	case LOG_WARNING: return "warning";
	case LOG_NOTICE: return "notice";
	case LOG_DEBUG: return "debug";
	}
	return "info";
}

/* Durations and sizes in the largest unit that divides them. */
void
config_format_duration(uint64_t v, char *out, size_t n)
{
	static const char units[] = "wdhm";
	static const uint64_t mults[] = { 7 * 86400, 86400, 3600, 60 };
	int i;

	for (i = 0; i < 4; i++)
		if (v != 0 && v % mults[i] == 0) {
			snprintf(out, n, "%" PRIu64 "%c", v / mults[i],
			    units[i]);
			return;
		}
	snprintf(out, n, "%" PRIu64 "%s", v, v != 0 ? "s" : "");
}

void
config_format_bytes(uint64_t v, char *out, size_t n)
{
	static const char units[] = "kMGT";
	int i;

	for (i = 3; i >= 0; i--)
		if (v != 0 && v % (1ULL << (10 * (i + 1))) == 0) {
			snprintf(out, n, "%" PRIu64 "%c",
			    v >> (10 * (i + 1)), units[i]);
			return;
		}
	snprintf(out, n, "%" PRIu64, v);
}

/* The names separated by spaces, "none" if there is none. */
static void
config_hosts_format(const struct strlist *l, char *out, size_t n)
{
	size_t i, used = 0;
	int w;

	snprintf(out, n, "none");
	for (i = 0; i < l->n && used < n; i++) {
		w = snprintf(out + used, n - used, "%s%s", i > 0 ? " " : "",
		    l->v[i]);
		used += w > 0 ? (size_t)w : 0;
	}
}

void
config_opt_format(const struct config *c, const struct opt *o, char *out,
    size_t n)
{
	const void *field = (const char *)c + o->off;

	switch (o->type) {
	case T_PATH:
	case T_OPTPATH:
	case T_TEXT:
		snprintf(out, n, "%s", *(char *const *)field != NULL ?
		    *(char *const *)field : "none");
		break;
	case T_BOOL:
		snprintf(out, n, "%s", *(const int *)field ? "yes" : "no");
		break;
	case T_HOSTS:
		config_hosts_format(field, out, n);
		break;
	case T_LEVEL:
		snprintf(out, n, "%s", level_name(*(const int *)field));
		break;
	case T_INT:
		snprintf(out, n, "%d", *(const int *)field);
		break;
	case T_U32:
		snprintf(out, n, "%" PRIu32, *(const uint32_t *)field);
		break;
	case T_COUNT:
		snprintf(out, n, "%zu", *(const size_t *)field);
		break;
	case T_SIZE:
		config_format_bytes(*(const size_t *)field, out, n);
		break;
	case T_U64:
		config_format_bytes(*(const uint64_t *)field, out, n);
		break;
	case T_DURATION:
		config_format_duration((uint64_t)*(const int64_t *)field, out, n);
		break;
	}
}
