/* test_config.c: profd's settings from the command line and the INI file:
 * every type parses and refuses what it should, errors say which line,
 * the command line wins over the file, and --print-config reads back to
 * the same settings. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "config.h"
#include "log.h"
#include "testlib.h"

static char tmpdir[] = "/tmp/profd-config-XXXXXX";

static char *
write_file(const char *name, const char *text)
{
	char *path;
	FILE *f;

	xasprintf(&path, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
	return path;
}

static enum config_outcome
from_args(struct config *c, struct error *err, ...)
{
	static char prog[] = "profd";
	char *argv[32];
	int argc = 0;
	va_list ap;

	argv[argc++] = prog;
	va_start(ap, err);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	error_clear(err);
	return config_from_args(c, argc, argv, err);
}

static char *
printed(const struct config *c)
{
	char *buf = NULL, *out;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	config_print(f, c);
	fclose(f);
	/* The first line names the source; the settings follow.  A copy,
	 * not buf itself: gcc -O3 takes buf, whose address the stream held,
	 * for a dangling pointer (-Wdangling-pointer) in the callers. */
	out = xstrdup(strchr(buf, '\n') + 1);
	free(buf);
	return out;
}

static void
test_set(void)
{
	struct config c;
	struct error err = { 0 };

	config_defaults(&c);
	CHECK(config_set(&c, "max-body", "64k", &err) == 0);
	CHECK(c.limits.max_body == 65536);
	CHECK(config_set(&c, "max-upload", "2G", &err) == 0);
	CHECK(c.limits.max_upload == 2ULL << 30);
	CHECK(config_set(&c, "max-strings", "1000", &err) == 0);
	CHECK(c.limits.max_strings == 1000);
	CHECK(c.limits.max_json == 16u << 20);
	CHECK(config_set(&c, "max-json", "1M", &err) == 0);
	CHECK(c.limits.max_json == 1u << 20);
	CHECK(config_set(&c, "max-age", "7d", &err) == 0);
	CHECK(c.retention.max_age == 7 * 86400);
	CHECK(config_set(&c, "retention-interval", "90", &err) == 0);
	CHECK(c.retention.interval == 90);
	CHECK(config_set(&c, "spool-keep", "yes", &err) == 0 && c.spool_keep);
	CHECK(config_set(&c, "spool-keep", "off", &err) == 0 &&
	    !c.spool_keep);
	CHECK(config_set(&c, "spool", "none", &err) == 0 &&
	    c.spool_dir == NULL);
	CHECK(config_set(&c, "spool", "/x/spool", &err) == 0 &&
	    STREQ(c.spool_dir, "/x/spool"));
	CHECK(config_set(&c, "log-level", "debug", &err) == 0 &&
	    c.log_level == LOG_DEBUG);
	CHECK(config_set(&c, "import-queue", "5", &err) == 0 &&
	    c.import_queue == 5);

	/* Refusals name the setting and the value. */
	CHECK(config_set(&c, "max-body", "12x", &err) == -1);
	CHECK(HAS(err.msg, "max-body") && HAS(err.msg, "12x"));
	error_clear(&err);
	CHECK(config_set(&c, "query-threads", "0", &err) == -1);
	CHECK(HAS(err.msg, "out of range"));
	error_clear(&err);
	CHECK(config_set(&c, "query-threads", "1k", &err) == -1);
	error_clear(&err);
	CHECK(config_set(&c, "max-age", "-1d", &err) == -1);
	error_clear(&err);
	CHECK(config_set(&c, "max-age", "3y", &err) == -1);
	CHECK(HAS(err.msg, "duration"));
	error_clear(&err);
	CHECK(config_set(&c, "db", "none", &err) == -1);
	error_clear(&err);
	CHECK(config_set(&c, "spool-keep", "maybe", &err) == -1);
	error_clear(&err);
	CHECK(config_set(&c, "log-level", "loud", &err) == -1);
	error_clear(&err);
	CHECK(config_set(&c, "max-strings", "99999999999", &err) == -1);
	error_clear(&err);
	CHECK(config_set(&c, "max-upload", "99999999999T", &err) == -1);
	error_clear(&err);
	CHECK(config_set(&c, "no-such-thing", "1", &err) == -1);
	CHECK(HAS(err.msg, "no-such-thing"));
	/* Nothing refused changed anything. */
	CHECK(c.limits.max_body == 65536 && c.query_threads == 2);
	config_clear(&c);
}

static void
test_file(void)
{
	struct config c;
	struct error err = { 0 };
	int64_t age;
	uint64_t size;
	char *p;

	config_defaults(&c);
	p = write_file("a.conf",
	    "# comment\n"
	    "; another\n"
	    "\n"
	    "max-body = 1M\n"
	    "[profd]\n"
	    "  log-level=warning  \n"
	    "db = \"/var/x y/profd.db\"\n"
	    "max-age = 30d\n"
	    "scope-max-size = 100M\n"
	    "[scope svc-a]\n"
	    "max-age = 2d\n"
	    "[ scope  svc-b ]\n"
	    "max-size = 1G\n");
	CHECK(config_load(&c, p, 1, &err) == 0);
	CHECK(c.limits.max_body == 1 << 20);
	CHECK(c.log_level == LOG_WARNING);
	CHECK(STREQ(c.db_path, "/var/x y/profd.db"));
	CHECK(c.retention.nscopes == 2);
	config_scope_policy(&c.retention, "svc-a", &age, &size);
	CHECK(age == 2 * 86400 && size == 100 << 20);
	config_scope_policy(&c.retention, "svc-b", &age, &size);
	CHECK(age == 30 * 86400 && size == 1ULL << 30);
	config_scope_policy(&c.retention, "other", &age, &size);
	CHECK(age == 30 * 86400 && size == 100 << 20);
	free(p);

	/* Inline comments, as the examples people copy have them; quotes
	 * keep a " #" or " ;" in the value. */
	config_clear(&c);
	config_defaults(&c);
	p = write_file("i.conf",
	    "max-body = 2M ; the push limit\n"
	    "log-level = debug\t# chatty\n"
	    "db = \"/var/a #1/profd.db\"  ; quoted\n"
	    "spool = /var/s;p#q\n");
	CHECK(config_load(&c, p, 1, &err) == 0);
	CHECK(c.limits.max_body == 2 << 20);
	CHECK(c.log_level == LOG_DEBUG);
	CHECK(STREQ(c.db_path, "/var/a #1/profd.db"));
	CHECK(STREQ(c.spool_dir, "/var/s;p#q"));
	free(p);

	/* Errors say file and line. */
	p = write_file("b.conf", "max-body = 1M\n\nmax-bodyy = 2M\n");
	CHECK(config_load(&c, p, 1, &err) == -1);
	CHECK(HAS(err.msg, "b.conf:3:") && HAS(err.msg, "max-bodyy"));
	free(p);
	error_clear(&err);
	p = write_file("c.conf", "[scope svc a]\n");
	CHECK(config_load(&c, p, 1, &err) == -1 && HAS(err.msg, "c.conf:1:"));
	free(p);
	error_clear(&err);
	p = write_file("d.conf", "[scope x]\nlog-level = debug\n");
	CHECK(config_load(&c, p, 1, &err) == -1 && HAS(err.msg, "d.conf:2:"));
	free(p);
	error_clear(&err);
	p = write_file("e.conf", "just words\n");
	CHECK(config_load(&c, p, 1, &err) == -1 && HAS(err.msg, "e.conf:1:"));
	free(p);
	error_clear(&err);
	p = write_file("f.conf", "config = /etc/other.conf\n");
	CHECK(config_load(&c, p, 1, &err) == -1);
	free(p);
	error_clear(&err);
	/* Missing: an error only when it must exist. */
	CHECK(config_load(&c, "/nonexistent/profd.conf", 0, &err) == 0);
	CHECK(config_load(&c, "/nonexistent/profd.conf", 1, &err) == -1);
	CHECK(HAS(err.msg, "/nonexistent/profd.conf"));
	config_clear(&c);
}

static void
test_args(void)
{
	struct config c, d;
	struct error err = { 0 };
	char *p, *q, *s1, *s2;

	p = write_file("g.conf", "max-body = 1M\nlog-level = debug\n"
	    "spool = /from/file\n[scope s]\nmax-age = 1h\n");
	/* The file under the command line, whatever the order. */
	CHECK(from_args(&c, &err, "--max-body", "2M", "--config", p,
	    "--spool-keep", NULL) == CONFIG_OK);
	CHECK(c.limits.max_body == 2 << 20 && c.log_level == LOG_DEBUG);
	CHECK(STREQ(c.spool_dir, "/from/file") && c.spool_keep);
	CHECK(STREQ(c.config_path, p) && c.retention.nscopes == 1);
	config_clear(&c);
	CHECK(from_args(&c, &err, "--config", p, "--spool=none", "-f",
	    "--spool-keep=no", NULL) == CONFIG_OK);
	CHECK(c.spool_dir == NULL && c.foreground && !c.spool_keep);
	config_clear(&c);
	/* --no-config: defaults and options only. */
	CHECK(from_args(&c, &err, "--no-config", NULL) == CONFIG_OK);
	config_defaults(&d);
	CHECK(c.config_path == NULL && c.limits.max_body ==
	    d.limits.max_body);
	config_clear(&d);
	config_clear(&c);
	/* A bad file, a missing --config file, bad options. */
	q = write_file("h.conf", "max-body = lots\n");
	CHECK(from_args(&c, &err, "--config", q, NULL) == CONFIG_ERROR);
	CHECK(HAS(err.msg, "h.conf:1:"));
	config_clear(&c);
	CHECK(from_args(&c, &err, "--config", "/nonexistent.conf", NULL) ==
	    CONFIG_ERROR);
	config_clear(&c);
	CHECK(from_args(&c, &err, "--no-config", "--bogus", NULL) ==
	    CONFIG_ERROR && HAS(err.msg, "--bogus"));
	config_clear(&c);
	CHECK(from_args(&c, &err, "--no-config", "--db", NULL) ==
	    CONFIG_ERROR && HAS(err.msg, "--db"));
	config_clear(&c);
	CHECK(from_args(&c, &err, "--no-config", "stray", NULL) ==
	    CONFIG_ERROR && HAS(err.msg, "stray"));
	config_clear(&c);
	CHECK(from_args(&c, &err, "--no-config", "-h", NULL) == CONFIG_HELP);
	config_clear(&c);

	/* Every setting printed reads back to the same settings. */
	CHECK(from_args(&c, &err, "--config", p, "--max-upload", "3G",
	    "--max-age", "36h", "--store-max-size", "5G", "--spool-keep",
	    "--query-threads", "3", "--uploads-dir", "/u", "--print-config",
	    NULL) == CONFIG_PRINT);
	s1 = printed(&c);
	free(q);
	q = write_file("printed.conf", s1);
	CHECK(from_args(&d, &err, "--config", q, NULL) == CONFIG_OK);
	s2 = printed(&d);
	CHECK(strcmp(s1, s2) == 0);
	CHECK(HAS(s1, "max-age = 36h\n") && HAS(s1, "max-upload = 3G\n") &&
	    HAS(s1, "[scope s]\nmax-age = 1h\n"));
	free(s1);
	free(s2);
	config_clear(&c);
	config_clear(&d);
	unlink(q);
	unlink(p);
	free(p);
	free(q);
}

/* Found by fuzz_config: a path with spaces at its ends, or quotes that are
 * part of it, printed bare, loaded back as another path (the loader trims
 * and unquotes); a path too long for the printer's buffer came back cut. */
static void
test_print_quotes(void)
{
	static const char *paths[] = {
		"cke ", " lead", "\"q\"", "'q'", "a\"b", "'",
		"a #b", "a ;b", "\"a\" #b", "'a' ; b'", "#a", "a#b;c",
	};
	struct config a, b;
	struct error err = { 0 };
	char *text, *file, long_path[PATH_MAX + 2];
	size_t i;

	for (i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		config_defaults(&a);
		CHECK(config_set(&a, "socket", paths[i], &err) == 0);
		text = printed(&a);
		file = write_file("quoted.conf", text);
		config_defaults(&b);
		CHECK(config_load(&b, file, 1, &err) == 0);
		CHECK(STREQ(b.socket_path, paths[i]));
		free(text);
		free(file);
		config_clear(&a);
		config_clear(&b);
	}
	config_defaults(&a);
	memset(long_path, 'x', sizeof long_path - 1);
	long_path[sizeof long_path - 1] = '\0';
	CHECK(config_set(&a, "db", long_path, &err) == -1);
	CHECK(HAS(err.msg, "db") && HAS(err.msg, "at most"));
	error_clear(&err);
	CHECK(config_set(&a, "spool", "/a\nb", &err) == -1);
	config_clear(&a);
}

/* Found by fuzz_config: a scrape target's unix: url with " ;" or a blank
 * at its end came back cut (printed bare); an interval of 1d made a
 * default timeout (cpu_seconds + 10 s) over the 1d limit, printed as is
 * and refused on loading; a path_prefix with a control byte. */
static void
test_print_scrape(void)
{
	static const char *const files[] = {
		"[scrape a]\nurl = \"unix:/run/a ;b\"\n",
		"[scrape a]\nurl = \"unix:/run/a \"\n",
		"[scrape a]\nurl = unix:/run/a\ninterval = 1d\n",
	};
	struct config a, b;
	struct error err = { 0 };
	char *text, *file, *again;
	size_t i;

	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		file = write_file("scrape.conf", files[i]);
		config_defaults(&a);
		CHECK(config_load(&a, file, 1, &err) == 0);
		free(file);
		text = printed(&a);
		file = write_file("scrape2.conf", text);
		config_defaults(&b);
		CHECK(config_load(&b, file, 1, &err) == 0);
		CHECK(b.nscrapes == 1 && STREQ(b.scrapes[0].url,
		    a.scrapes[0].url));
		CHECK(b.scrapes[0].timeout == a.scrapes[0].timeout);
		again = printed(&b);
		CHECK(STREQ(strchr(text, '\n'), strchr(again, '\n')));
		free(again);
		free(text);
		free(file);
		config_clear(&a);
		config_clear(&b);
	}
	file = write_file("scrape.conf", files[2]);
	config_defaults(&a);
	CHECK(config_load(&a, file, 1, &err) == 0);
	CHECK(a.scrapes[0].cpu_seconds == 86399 &&
	    a.scrapes[0].timeout == 86409);
	config_clear(&a);
	free(file);
	/* A path_prefix ending in "\r/" was kept as "/x\r", printed bare
	 * and trimmed on loading: a control byte is no path's. */
	file = write_file("scrape.conf", "[scrape a]\nurl = unix:/run/a\n"
	    "path_prefix = \"/x\r/\"\n");
	config_defaults(&a);
	CHECK(config_load(&a, file, 1, &err) == -1 &&
	    HAS(err.msg, "path_prefix"));
	config_clear(&a);
	free(file);
}

/* allocs, block and mutex are fetched as deltas over the interval less
 * 1s: the default timeout covers them (cpu_seconds + 10 s unless they
 * take longer), and a timeout given must be longer than they take. */
static void
test_scrape_deltas(void)
{
	static const struct {
		const char *keys;
		int64_t timeout;	/* -1: refused */
	} t[] = {
		{ "profiles = cpu mutex\ninterval = 30s\ncpu_seconds = 10\n",
		    39 },
		{ "profiles = cpu heap\ninterval = 30s\ncpu_seconds = 10\n",
		    20 },
		{ "profiles = allocs\ninterval = 30s\ntimeout = 29s\n", -1 },
		{ "profiles = block\ninterval = 30s\ntimeout = 30s\n", 30 },
		/* No delta, no cpu: any timeout. */
		{ "profiles = goroutine\ninterval = 4s\ntimeout = 2s\n", 2 },
		/* An interval of 1s: plain fetches. */
		{ "profiles = allocs\ninterval = 1s\n", 10 },
	};
	struct config c;
	struct error err = { 0 };
	char *text, *file;
	size_t i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		xasprintf(&text, "[scrape a]\nurl = unix:/run/a\n%s",
		    t[i].keys);
		file = write_file("deltas.conf", text);
		config_defaults(&c);
		memset(&err, 0, sizeof err);
		if (t[i].timeout == -1)
			CHECK(config_load(&c, file, 1, &err) == -1 &&
			    HAS(err.msg, "timeout must be longer than the "
			    "interval less 1s"));
		else
			CHECK(config_load(&c, file, 1, &err) == 0 &&
			    c.scrapes[0].timeout == t[i].timeout);
		config_clear(&c);
		free(file);
		free(text);
	}
	config_defaults(&c);
	file = write_file("deltas.conf", "[scrape a]\nurl = unix:/run/a\n"
	    "interval = 15s\n");
	CHECK(config_load(&c, file, 1, &err) == 0);
	CHECK(config_scrape_delta_seconds(&c.scrapes[0], "allocs") == 14 &&
	    config_scrape_delta_seconds(&c.scrapes[0], "mutex") == 14 &&
	    config_scrape_delta_seconds(&c.scrapes[0], "block") == 14 &&
	    config_scrape_delta_seconds(&c.scrapes[0], "heap") == 0 &&
	    config_scrape_delta_seconds(&c.scrapes[0], "cpu") == 0);
	config_clear(&c);
	free(file);
}

static void
test_restart_needed(void)
{
	struct config a, b;
	char *s;

	config_defaults(&a);
	config_defaults(&b);
	CHECK(config_restart_needed(&a, &b) == NULL);
	b.log_level = LOG_DEBUG;
	b.limits.max_body = 1;
	b.retention.max_age = 60;
	CHECK(config_restart_needed(&a, &b) == NULL);
	free(b.db_path);
	b.db_path = xstrdup("/elsewhere.db");
	b.query_threads = 9;
	s = config_restart_needed(&a, &b);
	CHECK(STREQ(s, "db, query-threads"));
	free(s);
	config_clear(&a);
	config_clear(&b);
}

int
main(void)
{
	char cmd[64];

	CHECK(mkdtemp(tmpdir) != NULL);
	test_set();
	test_file();
	test_args();
	test_restart_needed();
	test_print_scrape();
	test_scrape_deltas();
	test_print_quotes();
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	CHECK(system(cmd) == 0);
	printf("ok: %u checks\n", checks);
	return 0;
}
