/* config-scrape.c: the [scrape NAME] sections of the config file, one
 * target each whose /debug/pprof profiles are fetched on a schedule
 * (scrape/scrape.c).  Defaults are Grafana Alloy's pyroscope.scrape ones,
 * so a section with only a url scrapes what Alloy would. */
#include <event2/http.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "config-int.h"
#include "scopename.h"

const char *const config_scrape_profiles[] = {
	"cpu", "heap", "allocs", "goroutine", "mutex", "block",
	"threadcreate", NULL,
};

/* Alloy's default set: heap is allocs' samples again (the same profile
 * with another default sample type), threadcreate is rarely of use. */
static const char *const scrape_default_profiles[] = {
	"cpu", "allocs", "goroutine", "mutex", "block", NULL,
};

/* Fetched as deltas: net/http/pprof's ?seconds=N answers the counters'
 * growth over N seconds (a profile with a duration) instead of their
 * values since the process started.  heap stays a snapshot (its inuse_*
 * are gauges), goroutine and threadcreate too. */
static const char *const scrape_delta_profiles[] = {
	"allocs", "block", "mutex", NULL,
};

#define SCRAPE_INTERVAL		15
#define SCRAPE_TIMEOUT_EXTRA	10	/* seconds beyond the longest fetch */

static void
strlist_add(struct strlist *l, const char *v)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
	l->v[l->n++] = xstrdup(v);
}

static void
strlist_clear(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void
strlist_copy(struct strlist *dst, const struct strlist *src)
{
	size_t i;

	memset(dst, 0, sizeof *dst);
	for (i = 0; i < src->n; i++)
		strlist_add(dst, src->v[i]);
}

static int
strlist_same(const struct strlist *a, const struct strlist *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return 0;
	return 1;
}

static int
strsame(const char *a, const char *b)
{
	return strcmp(a != NULL ? a : "", b != NULL ? b : "") == 0;
}

struct scrape_target *
config_scrape_begin(struct config *c, const char *name, const char *file,
    int line, struct error *err)
{
	struct scrape_target *t;
	size_t i;

	if (!scope_name_valid(name)) {
		error_set(err, ERR_INPUT, "[scrape %s]: the name is not a "
		    "valid scope name ([A-Za-z0-9._-], 1 to 128 characters)",
		    name);
		return NULL;
	}
	for (i = 0; i < c->nscrapes; i++)
		if (strcmp(c->scrapes[i].name, name) == 0) {
			error_set(err, ERR_INPUT, "[scrape %s]: a second "
			    "section of that name (the first at %s:%d)", name,
			    c->scrapes[i].file, c->scrapes[i].line);
			return NULL;
		}
	c->scrapes = xreallocarray(c->scrapes, c->nscrapes + 1,
	    sizeof *c->scrapes);
	t = &c->scrapes[c->nscrapes++];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	t->file = xstrdup(file);
	t->line = line;
	t->interval = SCRAPE_INTERVAL;
	t->path_prefix = xstrdup("");
	return t;
}

/* http://HOST[:PORT] (a path belongs in path_prefix) or unix:/PATH. */
static int
scrape_url_valid(const char *url)
{
	struct evhttp_uri *u;
	const char *h, *p;
	int ok;

	if (strncmp(url, "unix:", 5) == 0)
		return url[5] == '/' && strlen(url + 5) < 108;
	if ((u = evhttp_uri_parse(url)) == NULL)
		return 0;
	p = evhttp_uri_get_path(u);
	ok = evhttp_uri_get_scheme(u) != NULL &&
	    strcmp(evhttp_uri_get_scheme(u), "http") == 0 &&
	    (h = evhttp_uri_get_host(u)) != NULL && *h != '\0' &&
	    evhttp_uri_get_query(u) == NULL &&
	    evhttp_uri_get_fragment(u) == NULL &&
	    evhttp_uri_get_userinfo(u) == NULL &&
	    (p == NULL || *p == '\0' || strcmp(p, "/") == 0);
	evhttp_uri_free(u);
	return ok;
}

static int
scrape_profiles_set(struct scrape_target *t, const char *value,
    struct error *err)
{
	char *s = xstrdup(value), *w, *save = NULL;
	size_t i;

	strlist_clear(&t->profiles);
	for (w = strtok_r(s, " \t,", &save); w != NULL;
	    w = strtok_r(NULL, " \t,", &save)) {
		for (i = 0; config_scrape_profiles[i] != NULL; i++)
			if (strcmp(w, config_scrape_profiles[i]) == 0)
				break;
		if (config_scrape_profiles[i] == NULL) {
			error_set(err, ERR_INPUT, "profiles: unknown profile "
			    "\"%s\" (cpu, heap, allocs, goroutine, mutex, "
			    "block, threadcreate)", w);
			goto bad;
		}
		for (i = 0; i < t->profiles.n; i++)
			if (strcmp(t->profiles.v[i], w) == 0)
				break;
		if (i < t->profiles.n) {
			error_set(err, ERR_INPUT, "profiles: \"%s\" twice", w);
			goto bad;
		}
		strlist_add(&t->profiles, w);
	}
	free(s);
	if (t->profiles.n == 0)
		return error_set(err, ERR_INPUT, "profiles: none named");
	return 0;
bad:
	free(s);
	return -1;
}

/* Up to a day; a timeout up to 25 h: its default, cpu_seconds + 10 s,
 * passes a day when the interval is one, and --print-config prints it. */
static int
scrape_seconds(const char *key, const char *value, int64_t *out,
    struct error *err)
{
	int day = strcmp(key, "timeout") != 0;
	uint64_t v;

	if (config_parse_duration(value, &v) == -1 || v == 0 ||
	    v > (day ? 86400 : 90000))
		return error_set(err, ERR_INPUT, "%s: \"%s\" is not a "
		    "duration from 1s to %s (e.g. 15s, 1m)", key, value,
		    day ? "1d" : "25h");
	*out = (int64_t)v;
	return 0;
}

static int
scrape_label_add(struct scrape_target *t, const char *value,
    struct error *err)
{
	const char *eq = strchr(value, '=');
	size_t i, k;

	if (eq == NULL || eq == value)
		return error_set(err, ERR_INPUT, "label: \"%s\" is not "
		    "KEY=VALUE", value);
	k = (size_t)(eq - value) + 1;
	for (i = 0; i < t->labels.n; i++)
		if (strncmp(t->labels.v[i], value, k) == 0)
			return error_set(err, ERR_INPUT, "label: %.*s given "
			    "twice", (int)k - 1, value);
	strlist_add(&t->labels, value);
	return 0;
}

/* A blank or a control byte: nothing a path in a request line takes. */
static int
scrape_has_ctl(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return 1;
	return 0;
}

int
config_scrape_set(struct scrape_target *t, const char *key,
    const char *value, struct error *err)
{
	if (strcmp(key, "url") == 0) {
		if (!scrape_url_valid(value))
			return error_set(err, ERR_INPUT, "url: \"%s\" is not "
			    "http://HOST[:PORT] or unix:/PATH (a path goes in "
			    "path_prefix)", value);
		free(t->url);
		t->url = xstrdup(value);
		return 0;
	}
	if (strcmp(key, "profiles") == 0)
		return scrape_profiles_set(t, value, err);
	if (strcmp(key, "interval") == 0)
		return scrape_seconds(key, value, &t->interval, err);
	if (strcmp(key, "cpu_seconds") == 0) {
		t->cpu_set = 1;
		return scrape_seconds(key, value, &t->cpu_seconds, err);
	}
	if (strcmp(key, "timeout") == 0) {
		t->timeout_set = 1;
		return scrape_seconds(key, value, &t->timeout, err);
	}
	if (strcmp(key, "scope") == 0) {
		if (!scope_name_valid(value))
			return error_set(err, ERR_INPUT, "scope: \"%s\" is not "
			    "a valid scope name", value);
		free(t->scope);
		t->scope = xstrdup(value);
		return 0;
	}
	if (strcmp(key, "label") == 0)
		return scrape_label_add(t, value, err);
	if (strcmp(key, "path_prefix") == 0) {
		size_t n = strlen(value);

		if ((n > 0 && value[0] != '/') || strpbrk(value, "?#") ||
		    scrape_has_ctl(value))
			return error_set(err, ERR_INPUT, "path_prefix: \"%s\" "
			    "is not empty or a path such as /internal",
			    value);
		while (n > 0 && value[n - 1] == '/')
			n--;
		free(t->path_prefix);
		t->path_prefix = xstrndup(value, n);
		return 0;
	}
	return error_set(err, ERR_INPUT, "unknown setting \"%s\" in [scrape "
	    "%s] (url, profiles, interval, cpu_seconds, scope, label, "
	    "timeout, path_prefix)", key, t->name);
}

int
config_scrape_has(const struct scrape_target *t, const char *profile)
{
	size_t i;

	for (i = 0; i < t->profiles.n; i++)
		if (strcmp(t->profiles.v[i], profile) == 0)
			return 1;
	return 0;
}

int64_t
config_scrape_delta_seconds(const struct scrape_target *t,
    const char *profile)
{
	size_t i;

	for (i = 0; scrape_delta_profiles[i] != NULL; i++)
		if (strcmp(profile, scrape_delta_profiles[i]) == 0)
			return t->interval - 1;
	return 0;
}

/* The longest ?seconds=N among t's fetches (0: none): a delta's, else
 * cpu's (which is less than the interval). */
static int64_t
scrape_longest(const struct scrape_target *t)
{
	int64_t n = config_scrape_has(t, "cpu") ? t->cpu_seconds : 0, d;
	size_t i;

	for (i = 0; i < t->profiles.n; i++)
		if ((d = config_scrape_delta_seconds(t, t->profiles.v[i])) > n)
			n = d;
	return n;
}

/* Defaults for what the section left out, then the checks between keys. */
int
config_scrape_finish(struct config *c, struct error *err)
{
	struct scrape_target *t;
	const char *why = NULL;
	int64_t longest;
	size_t i, j;

	for (i = 0; i < c->nscrapes; i++) {
		t = &c->scrapes[i];
		if (t->profiles.n == 0)
			for (j = 0; scrape_default_profiles[j] != NULL; j++)
				strlist_add(&t->profiles,
				    scrape_default_profiles[j]);
		if (t->scope == NULL)
			t->scope = xstrdup(t->name);
		if (!t->cpu_set)
			t->cpu_seconds = t->interval - 1;
		/* cpu_seconds + 10 s as it always was, unless a delta
		 * takes longer. */
		longest = scrape_longest(t);
		if (!t->timeout_set)
			t->timeout = (longest > t->cpu_seconds ? longest :
			    t->cpu_seconds) + SCRAPE_TIMEOUT_EXTRA;
		if (t->url == NULL)
			why = "url is missing (http://HOST:PORT or unix:/PATH)";
		else if (config_scrape_has(t, "cpu") && (t->cpu_seconds < 1 ||
		    t->cpu_seconds >= t->interval))
			why = "cpu_seconds must be at least 1s and less than "
			    "interval";
		else if (config_scrape_has(t, "cpu") && t->timeout <= t->cpu_seconds)
			why = "timeout must be longer than cpu_seconds";
		else if (t->timeout <= longest)
			why = "timeout must be longer than the interval less "
			    "1s: allocs, block and mutex are fetched as deltas "
			    "over that long (?seconds=N)";
		if (why != NULL)
			return error_set(err, ERR_INPUT, "%s:%d: [scrape %s]: "
			    "%s", t->file, t->line, t->name, why);
	}
	return 0;
}

void
config_scrape_copy(struct scrape_target *dst, const struct scrape_target *src)
{
	*dst = *src;
	dst->name = xstrdup(src->name);
	dst->url = src->url != NULL ? xstrdup(src->url) : NULL;
	dst->scope = src->scope != NULL ? xstrdup(src->scope) : NULL;
	dst->path_prefix = xstrdup(src->path_prefix);
	dst->file = xstrdup(src->file);
	strlist_copy(&dst->profiles, &src->profiles);
	strlist_copy(&dst->labels, &src->labels);
}

void
config_scrape_clear(struct scrape_target *t)
{
	free(t->name);
	free(t->url);
	free(t->scope);
	free(t->path_prefix);
	free(t->file);
	strlist_clear(&t->profiles);
	strlist_clear(&t->labels);
	memset(t, 0, sizeof *t);
}

int
config_scrape_same(const struct scrape_target *a,
    const struct scrape_target *b)
{
	return strsame(a->name, b->name) && strsame(a->url, b->url) &&
	    strlist_same(&a->profiles, &b->profiles) &&
	    a->interval == b->interval && a->cpu_seconds == b->cpu_seconds &&
	    strsame(a->scope, b->scope) &&
	    strlist_same(&a->labels, &b->labels) &&
	    a->timeout == b->timeout &&
	    strsame(a->path_prefix, b->path_prefix);
}
