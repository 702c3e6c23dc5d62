/* config.c: the settings table, the defaults, the command line and the INI
 * config file, all from one table. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "util.h"

enum opt_type {
	T_PATH,			/* a path */
	T_OPTPATH,		/* a path, or "none" for nothing */
	T_BOOL,
	T_INT,			/* a small count */
	T_SIZE,			/* bytes, with k/M/G */
	T_COUNT,		/* a size_t count */
	T_U32,			/* a count or bytes, with k/M/G */
	T_U64,			/* bytes, with k/M/G */
	T_DURATION,		/* seconds, with s/m/h/d */
	T_LEVEL,		/* a log level */
};

struct opt {
	const char *name;
	enum opt_type type;
	size_t off;
	uint64_t min, max;
	int restart;		/* a change needs a restart */
	const char *help;
};

#define F(field)	offsetof(struct config, field)

static const struct opt opts[] = {
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
	{ "max-body", T_SIZE, F(limits.max_body), 1, SIZE_MAX / 2, 0,
	    "largest blob in one request" },
	{ "max-inflated", T_SIZE, F(limits.max_inflated), 1, SIZE_MAX / 2, 0,
	    "largest blob after gunzip" },
	{ "max-inflate-ratio", T_U32, F(limits.max_inflate_ratio), 1,
	    UINT32_MAX, 0, "bound on inflated / compressed size" },
	{ "max-stack-depth", T_U32, F(limits.max_stack_depth), 1, UINT32_MAX,
	    0, "frames in one stack" },
	{ "max-strings", T_U32, F(limits.max_strings), 1, UINT32_MAX, 0,
	    "entries of one string table" },
	{ "max-string-len", T_U32, F(limits.max_string_len), 1, UINT32_MAX, 0,
	    "bytes of one string" },
	{ "max-upload", T_U64, F(limits.max_upload), 1, UINT64_MAX / 2, 0,
	    "largest chunked upload" },
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
};

#define NOPTS	(sizeof opts / sizeof opts[0])

static const char *
env_dir(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] == '/' ? v : NULL;
}

/* Run by systemd as a system service, or as root. */
static int
system_instance(void)
{
	return geteuid() == 0 || env_dir("STATE_DIRECTORY") != NULL;
}

void
config_defaults(struct config *c)
{
	const char *d;
	char *s;

	memset(c, 0, sizeof *c);
	c->log_level = LOG_INFO;
	c->query_threads = 2;
	c->import_queue = 64;
	c->query_queue = 256;
	c->spool_rescan = 300;
	c->retention.interval = 300;
	limits_default(&c->limits);
	/* Set by systemd for StateDirectory= and RuntimeDirectory= (the first
	 * of a colon-separated list): the unit's User= has no XDG dirs. */
	if ((d = env_dir("STATE_DIRECTORY")) != NULL)
		xasprintf(&c->db_path, "%.*s/profd.db", (int)strcspn(d, ":"),
		    d);
	if ((d = env_dir("RUNTIME_DIRECTORY")) != NULL)
		xasprintf(&c->socket_path, "%.*s/profd.sock",
		    (int)strcspn(d, ":"), d);
	if (system_instance()) {
		if (c->socket_path == NULL)
			c->socket_path = xstrdup("/run/profd/profd.sock");
		if (c->db_path == NULL)
			c->db_path = xstrdup("/var/lib/profd/profd.db");
		c->spool_dir = xstrdup("/var/spool/profd");
		return;
	}
	if (c->socket_path == NULL) {
		if ((d = env_dir("XDG_RUNTIME_DIR")) != NULL)
			xasprintf(&c->socket_path, "%s/profd/profd.sock", d);
		else {
			xasprintf(&s, "/run/user/%u", (unsigned)getuid());
			if (access(s, W_OK) == 0)
				xasprintf(&c->socket_path,
				    "%s/profd/profd.sock", s);
			else
				xasprintf(&c->socket_path,
				    "/tmp/profd-%u/profd.sock",
				    (unsigned)getuid());
			free(s);
		}
	}
	if ((d = env_dir("XDG_STATE_HOME")) != NULL)
		xasprintf(&s, "%s/profd", d);
	else if ((d = env_dir("HOME")) != NULL)
		xasprintf(&s, "%s/.local/state/profd", d);
	else
		xasprintf(&s, "/tmp/profd-%u", (unsigned)getuid());
	if (c->db_path == NULL)
		xasprintf(&c->db_path, "%s/profd.db", s);
	xasprintf(&c->spool_dir, "%s/spool", s);
	free(s);
}

void
retention_clear(struct retention *r)
{
	size_t i;

	for (i = 0; i < r->nscopes; i++)
		free(r->scopes[i].scope);
	free(r->scopes);
	r->scopes = NULL;
	r->nscopes = 0;
}

void
retention_copy(struct retention *dst, const struct retention *src)
{
	size_t i;

	*dst = *src;
	dst->scopes = xcalloc(src->nscopes + 1, sizeof *dst->scopes);
	for (i = 0; i < src->nscopes; i++) {
		dst->scopes[i] = src->scopes[i];
		dst->scopes[i].scope = xstrdup(src->scopes[i].scope);
	}
}

void
config_clear(struct config *c)
{
	free(c->config_path);
	free(c->socket_path);
	free(c->db_path);
	free(c->uploads_dir);
	free(c->spool_dir);
	retention_clear(&c->retention);
	memset(c, 0, sizeof *c);
}

static const struct opt *
opt_find(const char *name)
{
	size_t i;

	for (i = 0; i < NOPTS; i++)
		if (strcmp(opts[i].name, name) == 0)
			return &opts[i];
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

static int
parse_bytes(const char *s, uint64_t *out)
{
	static const uint64_t m[] = { 1024, 1024, 1 << 20, 1 << 20, 1 << 30,
	    1 << 30, 1ULL << 40, 1ULL << 40 };

	return parse_scaled(s, "kKmMgGtT", m, out);
}

static int
parse_duration(const char *s, uint64_t *out)
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

static int
opt_set(struct config *c, const struct opt *o, const char *value,
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
		free(*(char **)field);
		*(char **)field = strcmp(value, "none") == 0 ? NULL :
		    xstrdup(value);
		return 0;
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
		if (parse_duration(value, &v) == -1)
			return error_set(err, ERR_INPUT, "%s: \"%s\" is not "
			    "a duration (90, 90s, 15m, 12h, 7d, 2w)", o->name,
			    value);
		break;
	default:
		if ((o->type == T_INT || o->type == T_COUNT ?
		    parse_scaled(value, "", NULL, &v) :
		    parse_bytes(value, &v)) == -1)
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
	return opt_set(c, o, value, err);
}

static struct scope_policy *
scope_policy_get(struct retention *r, const char *scope)
{
	size_t i;

	for (i = 0; i < r->nscopes; i++)
		if (strcmp(r->scopes[i].scope, scope) == 0)
			return &r->scopes[i];
	r->scopes = xreallocarray(r->scopes, r->nscopes + 1,
	    sizeof *r->scopes);
	memset(&r->scopes[r->nscopes], 0, sizeof *r->scopes);
	r->scopes[r->nscopes].scope = xstrdup(scope);
	return &r->scopes[r->nscopes++];
}

static int
scope_policy_set(struct scope_policy *sp, const char *key, const char *value,
    struct error *err)
{
	uint64_t v;

	if (strcmp(key, "max-age") == 0) {
		if (parse_duration(value, &v) == -1 || v > INT64_MAX / 2)
			return error_set(err, ERR_INPUT, "max-age: \"%s\" is "
			    "not a duration (90s, 15m, 12h, 7d, 2w)", value);
		sp->max_age = (int64_t)v;
		return 0;
	}
	if (strcmp(key, "max-size") == 0) {
		if (parse_bytes(value, &v) == -1 || v > UINT64_MAX / 2)
			return error_set(err, ERR_INPUT, "max-size: \"%s\" is "
			    "not a size (64k, 256M, 1G)", value);
		sp->max_size = v;
		return 0;
	}
	return error_set(err, ERR_INPUT, "unknown setting \"%s\" in a [scope] "
	    "section (max-age, max-size)", key);
}

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A value may be quoted to keep spaces or '#' at its ends. */
static char *
unquote(char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		return v + 1;
	}
	return v;
}

int
config_load(struct config *c, const char *path, int must_exist,
    struct error *err)
{
	struct error e = { 0 };
	struct scope_policy *sp = NULL;
	char *line = NULL, *p, *key, *val, *eq;
	size_t cap = 0;
	FILE *f;
	int lineno = 0, rc = 0;

	if ((f = fopen(path, "r")) == NULL) {
		if (errno == ENOENT && !must_exist)
			return 0;
		return error_set(err, ERR_INPUT, "cannot read %s: %s", path,
		    strerror(errno));
	}
	while (rc == 0 && getline(&line, &cap, f) != -1) {
		lineno++;
		p = trim(line);
		if (*p == '\0' || *p == '#' || *p == ';')
			continue;
		if (*p == '[') {
			char *end = strchr(p, ']'), *name;

			if (end == NULL || *trim(end + 1) != '\0') {
				rc = error_set(err, ERR_INPUT, "%s:%d: a "
				    "section header is [profd] or [scope NAME]",
				    path, lineno);
				break;
			}
			*end = '\0';
			name = trim(p + 1);
			if (strcmp(name, "profd") == 0) {
				sp = NULL;
				continue;
			}
			if (strncmp(name, "scope", 5) == 0 &&
			    isspace((unsigned char)name[5])) {
				name = unquote(trim(name + 5));
				if (scope_name_valid(name)) {
					sp = scope_policy_get(&c->retention,
					    name);
					continue;
				}
			}
			rc = error_set(err, ERR_INPUT, "%s:%d: unknown section "
			    "[%s] ([profd] or [scope NAME] with a valid scope "
			    "name)", path, lineno, name);
			break;
		}
		if ((eq = strchr(p, '=')) == NULL) {
			rc = error_set(err, ERR_INPUT, "%s:%d: expected "
			    "\"key = value\"", path, lineno);
			break;
		}
		*eq = '\0';
		key = trim(p);
		val = unquote(trim(eq + 1));
		error_clear(&e);
		if (sp != NULL)
			rc = scope_policy_set(sp, key, val, &e);
		else if (strcmp(key, "config") == 0)
			rc = error_set(&e, ERR_INPUT, "config cannot be set "
			    "in a config file");
		else
			rc = config_set(c, key, val, &e);
		if (rc == -1)
			error_set(err, ERR_INPUT, "%s:%d: %s", path, lineno,
			    e.msg);
	}
	if (rc == 0 && ferror(f))
		rc = error_set(err, ERR_INPUT, "cannot read %s: %s", path,
		    strerror(errno));
	free(line);
	fclose(f);
	return rc;
}

char *
config_default_path(void)
{
	const char *d;
	char *s;

	if (system_instance())
		return xstrdup("/etc/profd/profd.conf");
	if ((d = env_dir("XDG_CONFIG_HOME")) != NULL)
		xasprintf(&s, "%s/profd/profd.conf", d);
	else if ((d = env_dir("HOME")) != NULL)
		xasprintf(&s, "%s/.config/profd/profd.conf", d);
	else
		s = xstrdup("/etc/profd/profd.conf");
	return s;
}

enum {
	OPT_CONFIG = 256, OPT_NO_CONFIG, OPT_PRINT, OPT_FIRST,
};

enum config_outcome
config_from_args(struct config *c, int argc, char *const *argv,
    struct error *err)
{
	struct option lopts[NOPTS + 8];
	const char *path = NULL;
	int ch, i, n = 0, no_config = 0, print = 0;

	for (i = 0; i < (int)NOPTS; i++) {
		lopts[n++] = (struct option){ opts[i].name,
		    opts[i].type == T_BOOL ? optional_argument :
		    required_argument, NULL, OPT_FIRST + i };
	}
	lopts[n++] = (struct option){ "config", required_argument, NULL,
	    OPT_CONFIG };
	lopts[n++] = (struct option){ "no-config", no_argument, NULL,
	    OPT_NO_CONFIG };
	lopts[n++] = (struct option){ "print-config", no_argument, NULL,
	    OPT_PRINT };
	lopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lopts[n++] = (struct option){ "version", no_argument, NULL, 'V' };
	lopts[n] = (struct option){ NULL, 0, NULL, 0 };

	config_defaults(c);
	/* First pass: where the config file is, and -h/-V. */
	opterr = 0;
	optind = 0;
	while ((ch = getopt_long(argc, argv, "fhV", lopts, NULL)) != -1) {
		if (ch == 'h')
			return CONFIG_HELP;
		if (ch == 'V')
			return CONFIG_VERSION;
		if (ch == OPT_CONFIG)
			path = optarg;
		else if (ch == OPT_NO_CONFIG)
			no_config = 1;
		else if (ch == OPT_PRINT)
			print = 1;
	}
	/* --config names a file to read even after --no-config. */
	if (path != NULL || !no_config) {
		if (path != NULL)
			c->config_path = xstrdup(path);
		else {
			c->config_path = config_default_path();
			if (access(c->config_path, F_OK) == -1 &&
			    errno == ENOENT) {
				free(c->config_path);
				c->config_path = NULL;
			}
		}
		if (c->config_path != NULL && config_load(c, c->config_path,
		    1, err) == -1)
			return CONFIG_ERROR;
	}
	/* Second pass: the options themselves, over the file. */
	opterr = 0;
	optind = 0;
	while ((ch = getopt_long(argc, argv, ":fhV", lopts, NULL)) != -1) {
		const struct opt *o;

		switch (ch) {
		case 'f':
			c->foreground = 1;
			continue;
		case OPT_CONFIG:
		case OPT_NO_CONFIG:
		case OPT_PRINT:
			continue;
		case ':':
			error_set(err, ERR_INPUT, "%s needs a value",
			    argv[optind - 1]);
			return CONFIG_ERROR;
		case '?':
			error_set(err, ERR_INPUT, "unknown option \"%s\"",
			    argv[optind - 1]);
			return CONFIG_ERROR;
		}
		o = &opts[ch - OPT_FIRST];
		if (opt_set(c, o, optarg != NULL ? optarg : "yes", err) == -1)
			return CONFIG_ERROR;
	}
	if (optind < argc) {
		error_set(err, ERR_INPUT, "unexpected argument \"%s\"",
		    argv[optind]);
		return CONFIG_ERROR;
	}
	return print ? CONFIG_PRINT : CONFIG_OK;
}

void
config_scope_policy(const struct retention *r, const char *scope,
    int64_t *max_age, uint64_t *max_size)
{
	size_t i;

	*max_age = r->max_age;
	*max_size = r->scope_max_size;
	for (i = 0; i < r->nscopes; i++) {
		if (strcmp(r->scopes[i].scope, scope) != 0)
			continue;
		if (r->scopes[i].max_age != 0)
			*max_age = r->scopes[i].max_age;
		if (r->scopes[i].max_size != 0)
			*max_size = r->scopes[i].max_size;
	}
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
static void
format_duration(uint64_t v, char *out, size_t n)
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

static void
format_bytes(uint64_t v, char *out, size_t n)
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

static void
opt_format(const struct config *c, const struct opt *o, char *out, size_t n)
{
	const void *field = (const char *)c + o->off;

	switch (o->type) {
	case T_PATH:
	case T_OPTPATH:
		snprintf(out, n, "%s", *(char *const *)field != NULL ?
		    *(char *const *)field : "none");
		break;
	case T_BOOL:
		snprintf(out, n, "%s", *(const int *)field ? "yes" : "no");
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
		format_bytes(*(const size_t *)field, out, n);
		break;
	case T_U64:
		format_bytes(*(const uint64_t *)field, out, n);
		break;
	case T_DURATION:
		format_duration((uint64_t)*(const int64_t *)field, out, n);
		break;
	}
}

void
config_usage(FILE *f)
{
	struct config d;
	char def[256], left[64];
	size_t i;

	config_defaults(&d);
	fprintf(f,
"usage: profd [options]\n"
"\n"
"The profile ingestion daemon: takes profiles over HTTP on a Unix socket\n"
"and from a spool directory, keeps them in one SQLite file and answers\n"
"queries about them.\n"
"\n");
	for (i = 0; i < NOPTS; i++) {
		opt_format(&d, &opts[i], def, sizeof def);
		snprintf(left, sizeof left, "--%s %s", opts[i].name,
		    opts[i].type == T_BOOL ? "[yes|no]" :
		    opts[i].type == T_PATH || opts[i].type == T_OPTPATH ?
		    "PATH" : opts[i].type == T_DURATION ? "TIME" :
		    opts[i].type == T_LEVEL ? "LEVEL" :
		    opts[i].type == T_SIZE || opts[i].type == T_U64 ?
		    "BYTES" : "N");
		fprintf(f, "  %s%s\n        %s (default %s)\n", left,
		    strcmp(opts[i].name, "foreground") == 0 ? ", -f" : "",
		    opts[i].help, def);
	}
	free(d.config_path);
	d.config_path = config_default_path();
	fprintf(f,
"  --config PATH\n        the config file (default %s)\n"
"  --no-config\n        read no config file\n"
"  --print-config\n        print the settings as a config file and exit\n"
"  --help, -h\n        this text\n"
"  --version, -V\n        print the version\n"
"\n"
"Every option can be set in the config file as \"name = value\"; options\n"
"given here win.  SIGHUP reads the file again.  See profd(8).\n",
	    d.config_path);
	config_clear(&d);
}

void
config_print(FILE *f, const struct config *c)
{
	char v[256];
	size_t i;

	fprintf(f, "# profd %s; from %s\n[profd]\n", PROFD_VERSION,
	    c->config_path != NULL ? c->config_path : "the defaults");
	for (i = 0; i < NOPTS; i++) {
		opt_format(c, &opts[i], v, sizeof v);
		fprintf(f, "%s = %s\n", opts[i].name, v);
	}
	for (i = 0; i < c->retention.nscopes; i++) {
		const struct scope_policy *sp = &c->retention.scopes[i];

		fprintf(f, "\n[scope %s]\n", sp->scope);
		if (sp->max_age != 0) {
			format_duration((uint64_t)sp->max_age, v, sizeof v);
			fprintf(f, "max-age = %s\n", v);
		}
		if (sp->max_size != 0) {
			format_bytes(sp->max_size, v, sizeof v);
			fprintf(f, "max-size = %s\n", v);
		}
	}
}

char *
config_restart_needed(const struct config *a, const struct config *b)
{
	char va[256], vb[256], *s = NULL, *t;
	size_t i;

	for (i = 0; i < NOPTS; i++) {
		if (!opts[i].restart)
			continue;
		opt_format(a, &opts[i], va, sizeof va);
		opt_format(b, &opts[i], vb, sizeof vb);
		if (strcmp(va, vb) == 0)
			continue;
		xasprintf(&t, "%s%s%s", s != NULL ? s : "", s != NULL ? ", " :
		    "", opts[i].name);
		free(s);
		s = t;
	}
	return s;
}
