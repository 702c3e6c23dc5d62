/* config.c: the defaults, the INI config file and the command line, all
 * driven by the settings table of config-options.c. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "config-int.h"
#include "log.h"
#include "scopename.h"


static const char *
env_dir(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && v[0] == '/' ? v : NULL;
}

/* Run by systemd as a system service, or as root. */
int
config_system_instance(void)
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
	c->query_timeout = 60;
	c->query_max_series = 500;
	c->query_max_points = 500000;
	c->spool_rescan = 300;
	c->retention.interval = 300;
	bounds_default(&c->limits);
	c->max_connections = 1024;
	c->tcp_max_unauth = 64;
	c->max_header_size = 64 << 10;
	c->max_inflight_body = 2 * (uint64_t)c->limits.max_body;
	c->max_uploads = 64;
	c->header_timeout = 10;
	c->body_timeout = 120;
	c->idle_timeout = 300;	/* as before: a long import or query */
	c->shutdown_timeout = 10;
	c->fleet_database = xstrdup("profd");
	c->grafana_source = xstrdup("local");
	c->otlp_default_scope = xstrdup("unknown_service");
	c->fleet_batch = 100;
	c->fleet_batch_bytes = (uint64_t)32 << 20;
	c->fleet_interval = 10;
	c->fleet_timeout = 30;
	{
		char hn[256];

		if (gethostname(hn, sizeof hn) == -1 || hn[0] == '\0')
			snprintf(hn, sizeof hn, "localhost");
		hn[sizeof hn - 1] = '\0';
		c->fleet_host = xstrdup(hn);
	}
	/* Set by systemd for StateDirectory= and RuntimeDirectory= (the first
	 * of a colon-separated list): the unit's User= has no XDG dirs. */
	if ((d = env_dir("STATE_DIRECTORY")) != NULL)
		xasprintf(&c->db_path, "%.*s/profd.db", (int)strcspn(d, ":"),
		    d);
	if ((d = env_dir("RUNTIME_DIRECTORY")) != NULL)
		xasprintf(&c->socket_path, "%.*s/profd.sock",
		    (int)strcspn(d, ":"), d);
	if (config_system_instance()) {
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
config_retention_clear(struct retention *r)
{
	size_t i;

	for (i = 0; i < r->nscopes; i++)
		free(r->scopes[i].scope);
	free(r->scopes);
	r->scopes = NULL;
	r->nscopes = 0;
}

void
config_retention_copy(struct retention *dst, const struct retention *src)
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
	size_t i;

	free(c->config_path);
	free(c->socket_path);
	free(c->db_path);
	free(c->uploads_dir);
	free(c->spool_dir);
	free(c->fleet_url);
	free(c->listen_tcp);
	free(c->tcp_auth_token);
	free(c->tcp_basic_auth);
	free(c->tcp_read_token);
	free(c->tcp_read_basic_auth);
	free(c->tls_cert);
	free(c->tls_key);
	free(c->grafana_source);
	free(c->otlp_default_scope);
	free(c->fleet_ca_file);
	free(c->fleet_host);
	free(c->fleet_database);
	free(c->fleet_cluster);
	config_retention_clear(&c->retention);
	for (i = 0; i < c->nscrapes; i++)
		config_scrape_clear(&c->scrapes[i]);
	free(c->scrapes);
	for (i = 0; i < c->allowed_hosts.n; i++)
		free(c->allowed_hosts.v[i]);
	free(c->allowed_hosts.v);
	memset(c, 0, sizeof *c);
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
		if (config_parse_duration(value, &v) == -1 || v > INT64_MAX / 2)
			return error_set(err, ERR_INPUT, "max-age: \"%s\" is "
			    "not a duration (90s, 15m, 12h, 7d, 2w)", value);
		sp->max_age = (int64_t)v;
		return 0;
	}
	if (strcmp(key, "max-size") == 0) {
		if (config_parse_bytes(value, &v) == -1 || v > UINT64_MAX / 2)
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

/* Nothing, or an inline comment: blanks, then '#' or ';'. */
static int
config_rest_blank(const char *s)
{
	const char *p = s;

	while (isspace((unsigned char)*p))
		p++;
	return *p == '\0' || (p > s && (*p == '#' || *p == ';'));
}

/* The value after "key =" (trimmed): in quotes (the last quote that only
 * a comment follows ends it), or bare up to an inline comment, " # ..."
 * or " ; ...": the issue's and most INI examples put them there, and a
 * value that needs " #" keeps it in quotes (config_print quotes it). */
static char *
config_value(char *v)
{
	size_t n = strlen(v);
	char *q;

	if (n >= 2 && (v[0] == '"' || v[0] == '\''))
		for (q = v + n - 1; q > v; q--)
			if (*q == v[0] && config_rest_blank(q + 1)) {
				*q = '\0';
				return v + 1;
			}
	for (q = v; *q != '\0' && q[1] != '\0'; q++)
		if (isspace((unsigned char)q[0]) &&
		    (q[1] == '#' || q[1] == ';')) {
			q[1] = '\0';
			break;
		}
	return trim(v);
}

int
config_load(struct config *c, const char *path, int must_exist,
    struct error *err)
{
	struct error e = { 0 };
	struct scope_policy *sp = NULL;
	struct scrape_target *st = NULL;
	char *line = NULL, *p, *key, *val, *eq, *fkey;
	int fleet = 0;
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
				    "section header is [profd], [fleet], "
				    "[scope NAME] or [scrape NAME]",
				    path, lineno);
				break;
			}
			*end = '\0';
			name = trim(p + 1);
			if (strcmp(name, "profd") == 0 ||
			    strcmp(name, "fleet") == 0) {
				sp = NULL;
				st = NULL;
				fleet = name[0] == 'f';
				continue;
			}
			if (strncmp(name, "scrape", 6) == 0 &&
			    isspace((unsigned char)name[6])) {
				sp = NULL;
				fleet = 0;
				st = config_scrape_begin(c,
				    unquote(trim(name + 6)), path, lineno, &e);
				if (st != NULL)
					continue;
				rc = error_set(err, ERR_INPUT, "%s:%d: %s",
				    path, lineno, e.msg);
				break;
			}
			if (strncmp(name, "scope", 5) == 0 &&
			    isspace((unsigned char)name[5])) {
				name = unquote(trim(name + 5));
				if (scope_name_valid(name)) {
					st = NULL;
					sp = scope_policy_get(&c->retention,
					    name);
					continue;
				}
			}
			rc = error_set(err, ERR_INPUT, "%s:%d: unknown section "
			    "[%s] ([profd], [fleet], [scope NAME] or [scrape "
			    "NAME] with a valid scope name)", path, lineno,
			    name);
			break;
		}
		if ((eq = strchr(p, '=')) == NULL) {
			rc = error_set(err, ERR_INPUT, "%s:%d: expected "
			    "\"key = value\"", path, lineno);
			break;
		}
		*eq = '\0';
		key = trim(p);
		val = config_value(trim(eq + 1));
		error_clear(&e);
		if (sp != NULL)
			rc = scope_policy_set(sp, key, val, &e);
		else if (st != NULL) {
			rc = config_scrape_set(st, key, val, &e);
			if (rc == -1) {
				/* The section too: its keys are common. */
				error_set(err, ERR_INPUT, "%s:%d: [scrape %s]: "
				    "%s", path, lineno, st->name, e.msg);
				break;
			}
		}
		else if (fleet) {
			/* [fleet] url = ... is --fleet-url. */
			xasprintf(&fkey, "fleet-%s", key);
			rc = strncmp(key, "fleet-", 6) == 0 ||
			    config_set(c, fkey, val, &e) == -1 ?
			    error_set(&e, ERR_INPUT, "unknown setting \"%s\" "
			    "in [fleet]", key) : 0;
			free(fkey);
		} else if (strcmp(key, "config") == 0)
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
	if (rc == 0)
		rc = config_scrape_finish(c, err);
	free(line);
	fclose(f);
	return rc;
}

char *
config_default_path(void)
{
	const char *d;
	char *s;

	if (config_system_instance())
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
	struct option *lopts = xcalloc(config_nopts + 8, sizeof *lopts);
	enum config_outcome rc = CONFIG_ERROR;
	const char *path = NULL;
	int ch, i, n = 0, no_config = 0, print = 0;

	for (i = 0; i < (int)config_nopts; i++) {
		lopts[n++] = (struct option){ config_opts[i].name,
		    config_opts[i].type == T_BOOL ? optional_argument :
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
		if (ch == 'h' || ch == 'V') {
			rc = ch == 'h' ? CONFIG_HELP : CONFIG_VERSION;
			goto out;
		}
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
			goto out;
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
			goto out;
		case '?':
			error_set(err, ERR_INPUT, "unknown option \"%s\"",
			    argv[optind - 1]);
			goto out;
		}
		o = &config_opts[ch - OPT_FIRST];
		if (config_opt_set(c, o, optarg != NULL ? optarg : "yes",
		    err) == -1)
			goto out;
	}
	if (optind < argc) {
		error_set(err, ERR_INPUT, "unexpected argument \"%s\"",
		    argv[optind]);
		goto out;
	}
	rc = print ? CONFIG_PRINT : CONFIG_OK;
out:
	free(lopts);
	return rc;
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
