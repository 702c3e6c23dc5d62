/* secrets.c: is a secret profd reads lying in a file every user of the
 * host may read?  The TCP listener's credentials are kept in the config
 * file (a command line is shown by ps), the TLS key in its own file; a
 * file left 0644 gives both to any local account, which can then push
 * and read over TCP as the agents and Grafana do.  Checked at start and
 * on SIGHUP, each such file is a warning in the log and in /v1/status's
 * "secrets".  Only "others" counts (mode & 0004): a group is the
 * administrator's to choose (the package's is profd, whose members may
 * use the socket anyway). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "buf.h"
#include "config.h"
#include "log.h"
#include "secrets.h"

struct secrets {
	json_t *warnings;	/* the last look's, an array */
};

/* The settings whose value is a secret, written in the config file, and
 * those that name a file which is one. */
static const struct secret_setting {
	const char *name;
	size_t off;		/* its char * in struct config */
	int is_file;
} secret_settings[] = {
	{ "tcp-auth-token", offsetof(struct config, tcp_auth_token), 0 },
	{ "tcp-basic-auth", offsetof(struct config, tcp_basic_auth), 0 },
	{ "tcp-read-token", offsetof(struct config, tcp_read_token), 0 },
	{ "tcp-read-basic-auth", offsetof(struct config,
	    tcp_read_basic_auth), 0 },
	{ "tls-key", offsetof(struct config, tls_key), 1 },
};
#define NSECRETS	(sizeof secret_settings / sizeof secret_settings[0])

static const char *
secret_of(const struct config *c, const struct secret_setting *s)
{
	return *(char *const *)(const void *)((const char *)c + s->off);
}

struct secrets *
secrets_new(void)
{
	struct secrets *s = xcalloc(1, sizeof *s);

	s->warnings = json_array();
	return s;
}

void
secrets_free(struct secrets *s)
{
	if (s == NULL)
		return;
	json_decref(s->warnings);
	free(s);
}

/* Its permission bits when others may read path, else -1. */
static int
secrets_open_mode(const char *path)
{
	struct stat sb;

	if (path == NULL || stat(path, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    (sb.st_mode & S_IROTH) == 0)
		return -1;
	return (int)(sb.st_mode & 07777);
}

/* One warning: logged, and added to warnings. */
static void
secrets_warn(json_t *warnings, const char *file, int mode, json_t *holds)
{
	struct buf names = { 0 };
	char m[8];
	size_t i;

	snprintf(m, sizeof m, "%04o", (unsigned)mode);
	for (i = 0; i < json_array_size(holds); i++)
		buf_printf(&names, "%s%s", i > 0 ? ", " : "",
		    json_string_value(json_array_get(holds, i)));
	log_warn("%s holds %.*s and every user of this host may read it "
	    "(mode %s): chmod o-r %s", file, (int)names.n,
	    (const char *)names.p, m, file);
	buf_free(&names);
	json_array_append_new(warnings, json_pack("{s:s, s:s, s:o}", "file",
	    file, "mode", m, "holds", holds));
}

void
secrets_check(struct secrets *s, const struct config *cfg)
{
	json_t *warnings = json_array(), *holds;
	int mode;
	size_t i;

	/* What the file itself sets (the command line may set the same
	 * settings over it): the file read alone, by the loader that read
	 * it, on defaults that hold no secret. */
	if ((mode = secrets_open_mode(cfg->config_path)) != -1) {
		struct config alone;
		struct error err = { 0 };

		config_defaults(&alone);
		holds = json_array();
		if (config_load(&alone, cfg->config_path, 1, &err) == 0)
			for (i = 0; i < NSECRETS; i++)
				if (!secret_settings[i].is_file &&
				    secret_of(&alone, &secret_settings[i]) !=
				    NULL)
					json_array_append_new(holds,
					    json_string(
					    secret_settings[i].name));
		config_clear(&alone);
		if (json_array_size(holds) > 0)
			secrets_warn(warnings, cfg->config_path, mode, holds);
		else
			json_decref(holds);
	}
	for (i = 0; i < NSECRETS; i++) {
		const char *path = secret_of(cfg, &secret_settings[i]);

		if (!secret_settings[i].is_file ||
		    (mode = secrets_open_mode(path)) == -1)
			continue;
		holds = json_array();
		json_array_append_new(holds,
		    json_string(secret_settings[i].name));
		secrets_warn(warnings, path, mode, holds);
	}
	json_decref(s->warnings);
	s->warnings = warnings;
}

json_t *
secrets_status(void *ctx)
{
	struct secrets *s = ctx;

	if (s == NULL)
		return json_null();
	return json_pack("{s:O}", "warnings", s->warnings);
}
