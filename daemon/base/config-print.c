/* config-print.c: the settings as lists: --help (every option with its
 * default), --print-config (a config file that loads back to the same
 * settings), and the settings a reload cannot change. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "config-int.h"
#include "log.h"

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
	for (i = 0; i < config_nopts; i++) {
		const struct opt *o = &config_opts[i];

		config_opt_format(&d, o, def, sizeof def);
		snprintf(left, sizeof left, "--%s %s", o->name,
		    o->type == T_BOOL ? "[yes|no]" :
		    o->type == T_PATH || o->type == T_OPTPATH ? "PATH" :
		    o->type == T_TEXT ? (strcmp(o->name, "fleet-url") == 0 ?
		    "URL" : strcmp(o->name, "listen-tcp") == 0 ? "ADDR:PORT" :
		    strcmp(o->name, "tcp-auth-token") == 0 ? "TOKEN" :
		    strcmp(o->name, "tcp-basic-auth") == 0 ? "USER:PASS" :
		    "NAME") :
		    o->type == T_DURATION ? "TIME" :
		    o->type == T_LEVEL ? "LEVEL" :
		    o->type == T_HOSTS ? "NAME" :
		    o->type == T_SIZE || o->type == T_U64 ? "BYTES" : "N");
		fprintf(f, "  %s%s\n        %s (default %s)\n", left,
		    strcmp(o->name, "foreground") == 0 ? ", -f" : "",
		    o->help, def);
	}
	free(d.config_path);
	d.config_path = config_default_path();
	fprintf(f,
"  --config PATH\n        the config file (default %s)\n"
"  --no-config\n        read no config file (but the one --config names)\n"
"  --print-config\n        print the settings as a config file and exit\n"
"  --help, -h\n        this text\n"
"  --version, -V\n        print the version\n"
"\n"
"Every option can be set in the config file as \"name = value\" (the\n"
"--fleet-* ones in its [fleet] section, without \"fleet-\"); options given\n"
"here win.  SIGHUP reads the file again.  See profd(8).\n",
	    d.config_path);
	config_clear(&d);
}

/* "key = value": a value the loader would read back otherwise (spaces
 * at its ends, which it trims; a quote first, which may start a quoted
 * value; a blank then '#' or ';', which starts an inline comment) is
 * printed in quotes: the loader takes off exactly one pair.  Straight to
 * the stream: a label or a URL may be longer than any buffer. */
static void
config_put(FILE *f, const char *key, const char *v)
{
	size_t n = strlen(v), i;
	int quote = n > 0 && (isspace((unsigned char)v[0]) ||
	    isspace((unsigned char)v[n - 1]) || v[0] == '"' || v[0] == '\'');

	for (i = 1; i < n && !quote; i++)
		quote = (v[i] == '#' || v[i] == ';') &&
		    isspace((unsigned char)v[i - 1]);
	fprintf(f, quote ? "%s = \"%s\"\n" : "%s = %s\n", key, v);
}

/* The [scrape NAME] sections with every key, defaults applied. */
static void
config_scrape_print(FILE *f, const struct config *c)
{
	const struct scrape_target *t;
	size_t i, j;

	for (i = 0; i < c->nscrapes; i++) {
		t = &c->scrapes[i];
		fprintf(f, "\n[scrape %s]\n", t->name);
		/* A unix: path may hold blanks, even " ;". */
		config_put(f, "url", t->url);
		fprintf(f, "profiles =");
		for (j = 0; j < t->profiles.n; j++)
			fprintf(f, " %s", t->profiles.v[j]);
		fprintf(f, "\ninterval = %llds\n", (long long)t->interval);
		/* Without cpu it is not checked and may be 0s, which does
		 * not load back. */
		if (config_scrape_has(t, "cpu"))
			fprintf(f, "cpu_seconds = %llds\n",
			    (long long)t->cpu_seconds);
		fprintf(f, "scope = %s\n", t->scope);
		for (j = 0; j < t->labels.n; j++)
			config_put(f, "label", t->labels.v[j]);
		fprintf(f, "timeout = %llds\npath_prefix = %s\n",
		    (long long)t->timeout, t->path_prefix);
	}
}

void
config_print(FILE *f, const struct config *c)
{
	char v[PATH_MAX + 8];
	size_t i, j;

	fprintf(f, "# profd %s; from %s\n[profd]\n", PROFD_VERSION,
	    c->config_path != NULL ? c->config_path : "the defaults");
	/* The fleet-* settings in [fleet], without the prefix. */
	for (i = 0; i < config_nopts; i++) {
		const struct opt *o = &config_opts[i];

		if (strncmp(o->name, "fleet-", 6) == 0)
			continue;
		/* One line per name: a list can be longer than v. */
		if (o->type == T_HOSTS) {
			const struct strlist *l = (const void *)
			    ((const char *)c + o->off);

			if (l->n == 0)
				fprintf(f, "%s = none\n", o->name);
			for (j = 0; j < l->n; j++)
				fprintf(f, "%s = %s\n", o->name, l->v[j]);
			continue;
		}
		config_opt_format(c, o, v, sizeof v);
		config_put(f, o->name, v);
	}
	fprintf(f, "\n[fleet]\n");
	for (i = 0; i < config_nopts; i++) {
		if (strncmp(config_opts[i].name, "fleet-", 6) != 0)
			continue;
		config_opt_format(c, &config_opts[i], v, sizeof v);
		config_put(f, config_opts[i].name + 6, v);
	}
	for (i = 0; i < c->retention.nscopes; i++) {
		const struct scope_policy *sp = &c->retention.scopes[i];

		fprintf(f, "\n[scope %s]\n", sp->scope);
		if (sp->max_age != 0) {
			config_format_duration((uint64_t)sp->max_age, v, sizeof v);
			fprintf(f, "max-age = %s\n", v);
		}
		if (sp->max_size != 0) {
			config_format_bytes(sp->max_size, v, sizeof v);
			fprintf(f, "max-size = %s\n", v);
		}
	}
	config_scrape_print(f, c);
}

char *
config_restart_needed(const struct config *a, const struct config *b)
{
	char va[256], vb[256], *s = NULL, *t;
	size_t i;

	for (i = 0; i < config_nopts; i++) {
		if (!config_opts[i].restart)
			continue;
		config_opt_format(a, &config_opts[i], va, sizeof va);
		config_opt_format(b, &config_opts[i], vb, sizeof vb);
		if (strcmp(va, vb) == 0)
			continue;
		xasprintf(&t, "%s%s%s", s != NULL ? s : "", s != NULL ? ", " :
		    "", config_opts[i].name);
		free(s);
		s = t;
	}
	return s;
}
